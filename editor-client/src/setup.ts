/**
 * What the first-run cards need from the `groove` command line besides the
 * socket (Node only): is the default model here and how big is it
 * (`groove models status --json`), download it with progress (`groove models
 * pull default --json-progress`, docs/models.md), and did a daemon we were
 * connected to die without shutting down (`groove serve --status --json`: a
 * daemon that stops cleanly removes its state file; one that was killed or
 * crashed leaves it behind).
 */
import { execFile, spawn } from "node:child_process";
import * as fs from "node:fs";
import * as os from "node:os";
import * as path from "node:path";
import { GrooveError, parseCliError } from "./errors";
import type { BackendSetup, ModelPullEvent, ModelStatus, PullResult } from "./connection";

export interface SetupOptions {
  /** The `groove` executable (absolute path or a name on PATH). */
  executable: string | (() => string);
  vault: string;
  /** The environment of every `groove` run (GROOVE_HOME, GROOVE_INDEX_URL, …). */
  env?: NodeJS.ProcessEnv;
}

/**
 * The `groove` to run for a setting: a path is used as it is (`~` expanded);
 * a bare name is looked up on PATH, then in the folders pipx, uv and Homebrew
 * install into — an editor started from the macOS Dock, or one started before
 * `pipx ensurepath`, does not have them on its PATH. Returns the name
 * unchanged when it is nowhere (the error then names it).
 */
export function resolveExecutable(configured: string, env: NodeJS.ProcessEnv = process.env, platform: string = process.platform): string {
  const name = configured.trim() || "groove";
  if (name.includes("/") || name.includes("\\")) return name.replace(/^~(?=\/|\\)/, os.homedir());
  const exts = platform === "win32" ? [".exe", ".cmd", ""] : [""];
  const home = os.homedir();
  const dirs = [...(env.PATH ?? env.Path ?? "").split(path.delimiter), path.join(home, ".local", "bin"), "/opt/homebrew/bin", "/usr/local/bin"].filter(Boolean);
  for (const d of dirs) {
    for (const ext of exts) {
      const p = path.join(d, name + ext);
      try {
        if (fs.statSync(p).isFile()) return p;
      } catch {
        /* not here */
      }
    }
  }
  return name;
}

interface Run {
  code: number | null;
  stdout: string;
  stderr: string;
}

/** Runs `groove args…`; resolves with its exit code and output, rejects only when it cannot run. */
function runGroove(executable: string, args: string[], env: NodeJS.ProcessEnv | undefined, timeoutMs: number): Promise<Run> {
  return new Promise((resolve, reject) => {
    execFile(executable, args, { env: env ?? process.env, timeout: timeoutMs, windowsHide: true, maxBuffer: 1 << 20 }, (err, stdout, stderr) => {
      const code = (err as NodeJS.ErrnoException | null)?.code;
      if (code === "ENOENT" || code === "EACCES") {
        reject(new GrooveError("not-installed", `groove executable not found or not executable: "${executable}"`, { cause: err, data: { executable } }));
        return;
      }
      resolve({ code: err ? (typeof err.code === "number" ? err.code : null) : 0, stdout: String(stdout), stderr: String(stderr) });
    });
  });
}

/** The last JSON object line of `stdout` (tolerates log lines around it). */
function lastJson<T>(stdout: string): T | null {
  const text = stdout.trim();
  if (text.startsWith("{")) {
    try {
      return JSON.parse(text) as T;
    } catch {
      /* pretty-printed or several objects: fall through to lines */
    }
  }
  for (const line of text.split(/\r?\n/).reverse()) {
    if (!line.startsWith("{")) continue;
    try {
      return JSON.parse(line) as T;
    } catch {
      /* not JSON */
    }
  }
  return null;
}

/** `groove models status --json`. */
export async function readModelStatus(executable: string, env?: NodeJS.ProcessEnv): Promise<ModelStatus> {
  const r = await runGroove(executable, ["models", "status", "--json"], env, 60_000);
  const st = r.code === 0 ? lastJson<ModelStatus>(r.stdout) : null;
  if (!st || typeof st.ready !== "boolean") {
    throw new GrooveError("connect-info", `"groove models status --json" failed: ${(r.stderr || r.stdout).trim().split("\n").slice(-2).join(" ")}`, {
      data: { code: parseCliError(r.stdout)?.code ?? null, stderr: r.stderr, exitCode: r.code },
    });
  }
  return st;
}

/**
 * `groove models pull default --json-progress`: every event goes to
 * `onEvent` as it arrives; resolves after `done`, rejects with the `error`
 * event's kind and message (or the process's stderr when it printed none).
 */
export function pullDefaultModel(executable: string, env: NodeJS.ProcessEnv | undefined, onEvent: (e: ModelPullEvent) => void, signal?: AbortSignal): Promise<PullResult> {
  return new Promise((resolve, reject) => {
    let child: ReturnType<typeof spawn>;
    try {
      child = spawn(executable, ["models", "pull", "default", "--json-progress"], { env: env ?? process.env, windowsHide: true, stdio: ["ignore", "pipe", "pipe"] });
    } catch (e) {
      reject(new GrooveError("not-installed", `groove executable not found or not executable: "${executable}"`, { cause: e, data: { executable } }));
      return;
    }
    let buf = "";
    let stderr = "";
    let done: PullResult | null = null;
    let failed: { kind: string; message: string } | null = null;
    const onAbort = () => child.kill();
    signal?.addEventListener("abort", onAbort, { once: true });
    child.stdout!.setEncoding("utf8");
    child.stdout!.on("data", (chunk: string) => {
      buf += chunk;
      let nl: number;
      while ((nl = buf.indexOf("\n")) >= 0) {
        const line = buf.slice(0, nl).trim();
        buf = buf.slice(nl + 1);
        if (!line.startsWith("{")) continue;
        let ev: ModelPullEvent;
        try {
          ev = JSON.parse(line) as ModelPullEvent;
        } catch {
          continue; // a stray line is not an event
        }
        if (ev.event === "done") done = { path: String(ev.path), size: Number(ev.size), downloaded: !!ev.downloaded };
        if (ev.event === "error") failed = { kind: String(ev.kind ?? "error"), message: String(ev.message ?? "the download failed") };
        onEvent(ev);
      }
    });
    child.stderr!.setEncoding("utf8");
    child.stderr!.on("data", (chunk: string) => {
      stderr = (stderr + chunk).slice(-8000);
    });
    child.on("error", (e: NodeJS.ErrnoException) => {
      signal?.removeEventListener("abort", onAbort);
      if (e.code === "ENOENT" || e.code === "EACCES") reject(new GrooveError("not-installed", `groove executable not found or not executable: "${executable}"`, { cause: e, data: { executable } }));
      else reject(pullError("error", e.message));
    });
    child.on("close", (code) => {
      signal?.removeEventListener("abort", onAbort);
      if (signal?.aborted) reject(pullError("cancelled", "the download was cancelled"));
      else if (done && code === 0) resolve(done);
      else if (failed) reject(pullError(failed.kind, failed.message));
      else {
        const tail = stderr.trim().split("\n").slice(-3).join(" ");
        reject(pullError("error", `"groove models pull default" exited with code ${code}${tail ? `: ${tail}` : ""}`, stderr));
      }
    });
  });
}

/** A failed pull as the connection state reads it (`diagnose` → model-download-failed). */
export function pullError(kind: string, message: string, stderr?: string): GrooveError {
  return new GrooveError("connect-info", message, { data: { pull: { kind, message }, stderr } });
}

interface ServeStatus {
  running: boolean;
  pid: number | null;
  log?: string;
  started_at?: number | null;
}

/** The last `lines` lines of a text file ("" when it cannot be read). */
export function fileTail(file: string, lines = 12): string {
  try {
    const fd = fs.openSync(file, "r");
    try {
      const size = fs.fstatSync(fd).size;
      const len = Math.min(size, 64 * 1024);
      const b = Buffer.alloc(len);
      fs.readSync(fd, b, 0, len, size - len);
      return b.toString("utf8").replace(/\s+$/, "").split(/\r?\n/).slice(-lines).join("\n");
    } finally {
      fs.closeSync(fd);
    }
  } catch {
    return "";
  }
}

/**
 * After the socket to a running daemon dropped: if the daemon is gone but
 * its state file is still there (it did not shut down: killed, crashed,
 * out of memory), a GrooveError that `diagnose` reads as daemon-crashed,
 * with the log's last lines. Null when it is running again or was stopped
 * cleanly (then reconnecting is right), or when groove cannot tell.
 */
export async function checkCrashed(executable: string, vault: string, env: NodeJS.ProcessEnv | undefined, lastPid: number | null): Promise<GrooveError | null> {
  let r: Run;
  try {
    r = await runGroove(executable, ["serve", "--status", "--json", "--vault", vault], env, 30_000);
  } catch {
    return null; // the connect that follows says what is wrong with the executable
  }
  const st = lastJson<ServeStatus>(r.stdout);
  if (!st || st.running || !st.started_at) return null;
  const tail = st.log ? fileTail(st.log) : "";
  const pid = lastPid ?? st.pid;
  return new GrooveError("connect-info", `the groove daemon${pid ? ` (pid ${pid})` : ""} stopped without shutting down`, {
    data: { crashed: true, pid, log: st.log, stderr: tail },
  });
}

/** The editor side of the first-run cards for one vault, on the real `groove` command line. */
export function commandLineSetup(o: SetupOptions): BackendSetup {
  const exe = () => (typeof o.executable === "function" ? o.executable() : o.executable);
  return {
    modelStatus: () => readModelStatus(exe(), o.env),
    pullModel: (onEvent, signal) => pullDefaultModel(exe(), o.env, onEvent, signal),
  };
}
