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
import { diagnose, VaultConnection, type ConnectionState, type EditorHints, type ProblemCause } from "../src/connection";
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

function connection(extra: Partial<ConstructorParameters<typeof GrooveClient>[0]> = {}) {
  const client = new GrooveClient({ executable: groove.bin, vault: "/vault", subscribe: ["index.progress", "index.changed"], reconnectDelayMs: { initial: 20, max: 100 }, ...extra });
  const conn = new VaultConnection(client, { hints: HINTS, refreshDelayMs: 10 });
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

  it("backend not found: names the executable and the setting to fix", async () => {
    const { conn } = connection({ executable: path.join(dir, "missing", "groove"), reconnect: false });
    expect(await conn.start()).toBe(false);
    expect(causeOf(conn.state)).toBe("backend-not-found");
    const p = conn.state.kind === "problem" ? conn.state.problem : null;
    expect(p!.fix).toContain('"groove.executablePath"');
    expect(p!.fix).toMatch(/make install/);
  });

  it("daemon not running with auto-start off: the serve command for this vault", async () => {
    groove.setState(infoFor(daemon, false));
    const { conn } = connection({ reconnect: false });
    await conn.start();
    expect(causeOf(conn.state)).toBe("daemon-not-running");
    expect(conn.state.kind === "problem" && conn.state.problem.command).toBe("groove serve --vault /vault");
  });

  it("daemon crashed at start: the log's last lines come along", async () => {
    groove.setState({ fail: "groove serve exited with code 1 before accepting connections; see /h/log/x.log:\nTraceback (most recent call last):\nOSError: [Errno 28] No space left on device" });
    const { conn } = connection({ autoStart: true, reconnect: false });
    await conn.start();
    expect(causeOf(conn.state)).toBe("daemon-crashed");
    expect(conn.state.kind === "problem" && conn.state.problem.logTail).toContain("No space left on device");
  });

  it("a missing embedding model is its own cause, not a crash", async () => {
    groove.setState({ fail: "groove serve exited with code 1 before accepting connections; see /h/log/x.log:\ngroove.models.ModelError: model file not found: /m/e5.gguf" });
    const { conn } = connection({ autoStart: true, reconnect: false });
    await conn.start();
    expect(causeOf(conn.state)).toBe("model-missing");
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
      ["daemon-crashed", new GrooveError("connect-info", "groove serve exited with code 1 before accepting connections")],
      ["model-missing", new GrooveError("connect-info", "x", { data: { stderr: "ModelError: model file not found: /m" } })],
      ["start-timeout", new GrooveError("connect-info", "x", { data: { timedOut: true } })],
      ["connect-info-failed", new GrooveError("connect-info", "Error: vault does not exist")],
      ["token-rejected", new GrooveError("auth", "x")],
      ["daemon-too-old", new GrooveError("protocol", "x", { data: { reason: "daemon-too-old", server: { major: 0, minor: 0 }, client: { major: 1, minor: 0 } } })],
      ["daemon-too-new", new GrooveError("protocol", "x", { data: { reason: "daemon-too-new", server: { major: 2, minor: 0 }, client: { major: 1, minor: 0 } } })],
      ["connection-lost", new GrooveError("disconnected", "x")],
      ["daemon-unresponsive", new GrooveError("timeout", "x")],
      ["index-missing", new GrooveError("rpc", "x", { code: ErrorCode.IndexMissing })],
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
