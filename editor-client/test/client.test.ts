import * as fs from "node:fs";
import * as path from "node:path";
import { afterEach, beforeEach, describe, expect, it } from "vitest";
import { GrooveClient, needsTheUser, parseConnectInfo } from "../src/client";
import { GrooveError } from "../src/errors";
import { highlightSegments } from "../src/offsets";
import type { IndexChanged } from "../src/protocol";
import { FakeDaemon, infoFor, tmpDir, until, writeFakeGroove } from "./support/fake-daemon";

let dir: string;
let daemon: FakeDaemon;
let groove: ReturnType<typeof writeFakeGroove>;
const clients: GrooveClient[] = [];

function client(extra: Partial<ConstructorParameters<typeof GrooveClient>[0]> = {}) {
  const c = new GrooveClient({ executable: groove.bin, vault: "/vault", clientName: "test/0", reconnectDelayMs: { initial: 20, max: 100 }, ...extra });
  clients.push(c);
  return c;
}

beforeEach(async () => {
  dir = tmpDir();
  daemon = new FakeDaemon(dir);
  await daemon.listen();
  groove = writeFakeGroove(dir);
  groove.setState(infoFor(daemon));
});

afterEach(async () => {
  for (const c of clients.splice(0)) c.close();
  await daemon.stop().catch(() => {});
  fs.rmSync(dir, { recursive: true, force: true });
});

describe("GrooveClient against a fake daemon on a real socket", () => {
  it("gets the address from `groove connect-info`, authenticates with the token, then searches", async () => {
    const c = client();
    const r = await c.search({ query: "競合", limit: 5 });
    expect(groove.calls()[0]).toEqual(["connect-info", "--vault", "/vault"]);
    expect(daemon.received[0]).toMatchObject({ method: "hello", params: { token: "t0k3n", client: "test/0" } });
    expect(daemon.received[1]).toMatchObject({ method: "search", params: { query: "競合", limit: 5 } });
    const hit = r.results[0]!;
    expect(highlightSegments(hit.content, hit.match_spans).filter((s) => s.highlighted).map((s) => s.text)).toEqual(["競合"]);
    expect(c.state).toBe("connected");
  });

  it("passes --start when auto-start is on and the daemon is not running", async () => {
    groove.setState(infoFor(daemon, false));
    const c = client({ autoStart: true });
    await c.connect();
    expect(groove.calls()[0]).toEqual(["connect-info", "--vault", "/vault", "--start"]);
  });

  it("says the daemon is not running when auto-start is off", async () => {
    groove.setState(infoFor(daemon, false));
    const c = client({ reconnect: false });
    const err = await c.connect().catch((e) => e);
    expect(err).toBeInstanceOf(GrooveError);
    expect(err.kind).toBe("not-running");
    expect(err.message).toMatch(/not running.*groove serve --vault/);
    expect(c.state).toBe("disconnected");
  });

  it("explains a missing executable", async () => {
    const c = new GrooveClient({ executable: path.join(dir, "nope", "groove"), vault: "/vault", reconnect: false });
    clients.push(c);
    const err = await c.connect().catch((e) => e);
    expect(err.kind).toBe("not-installed");
    expect(err.message).toMatch(/groove executable not found.*settings/);
  });

  it("surfaces a failing connect-info with its stderr", async () => {
    groove.setState({ fail: "vault does not exist" });
    const c = client({ reconnect: false });
    const err = await c.connect().catch((e) => e);
    expect(err.kind).toBe("connect-info");
    expect(err.message).toContain("vault does not exist");
  });

  it("carries connect-info's error code, and needs the user only for the codes only the user can fix", async () => {
    groove.setState({ fail: { code: "model-download-needed", message: "the default embedding model is not installed yet" } });
    const c = client({ reconnect: false });
    const err = await c.connect().catch((e) => e);
    expect(err.kind).toBe("connect-info");
    expect(err.data.code).toBe("model-download-needed");
    expect(err.message).toContain("the default embedding model is not installed yet");
    expect(needsTheUser(err)).toBe(true);
    expect(needsTheUser(new GrooveError("connect-info", "groove models pull default", { data: { code: "start-timeout" } }))).toBe(false);
  });

  it("reports a rejected token as an authentication failure after asking connect-info again", async () => {
    groove.setState({ ...infoFor(daemon), token: "wrong" });
    const c = client({ reconnect: false });
    const err = await c.connect().catch((e) => e);
    expect(err.kind).toBe("auth");
    expect(groove.calls()).toHaveLength(2); // token may have rotated: one retry
    expect(daemon.methods.filter((m) => m === "hello")).toHaveLength(2);
  });

  it("correlates concurrent responses by id even when they come back out of order", async () => {
    daemon.searchDelay = (p) => (p.query === "slow" ? 80 : 5);
    const c = client();
    await c.connect();
    const [slow, fast] = await Promise.all([c.search({ query: "slow" }), c.search({ query: "fast" })]);
    expect(slow.results[0]!.content).toContain("slow");
    expect(fast.results[0]!.content).toContain("fast");
  });

  it("maps JSON-RPC errors to readable messages and keeps the code", async () => {
    daemon.searchResult = () => ({ error: { code: -32001, message: "query has only exclusions" } });
    const c = client();
    const err = await c.search({ query: "-x" }).catch((e) => e);
    expect(err).toMatchObject({ kind: "rpc", code: -32001, message: "bad query: query has only exclusions" });
    const err2 = await c.relatedNotes("../x").catch((e) => e);
    expect(err2.message).toBe("not found in the vault: path outside the vault: ../x");
    const err3 = await c.request("get_document", { path: "a.md" }).catch((e) => e);
    expect(err3.message).toMatch(/does not support "get_document"/);
  });

  it("cancels a superseded search on the daemon with the original request id", async () => {
    daemon.searchDelay = () => 500;
    const c = client();
    await c.connect();
    const h = c.startSearch({ query: "old" });
    await until(() => daemon.methods.includes("search"));
    const searchId = daemon.received.find((r) => r.method === "search")!.id;
    h.cancel();
    const err = await h.promise.catch((e) => e);
    expect(err.isCancelled).toBe(true);
    await until(() => daemon.methods.includes("cancel"));
    expect(daemon.received.find((r) => r.method === "cancel")!.params).toEqual({ id: searchId });
    // The connection stays usable, and the late -32800 for the old id is ignored.
    daemon.searchDelay = () => 0;
    expect((await c.search({ query: "new" })).results).toHaveLength(1);
  });

  it("subscribes and emits index notifications as events", async () => {
    const c = client({ subscribe: ["index.progress", "index.changed"] });
    await c.connect();
    expect(daemon.received.find((r) => r.method === "subscribe")!.params).toEqual({ events: ["index.progress", "index.changed"] });
    const changed = c.once("index.changed");
    daemon.notify("index.progress", { phase: "embed", done: 1, total: 2 });
    daemon.notify("index.changed", { paths: ["a.md"], deleted: [], documents: 3, chunks: 9 });
    const [payload] = (await changed) as [IndexChanged];
    expect(payload.paths).toEqual(["a.md"]);
  });

  it("reassembles lines and multi-byte characters split across socket chunks", async () => {
    const c = client({ subscribe: ["index.changed"] });
    await c.connect();
    const line = Buffer.from(JSON.stringify({ jsonrpc: "2.0", method: "index.changed", params: { paths: ["日本語.md"], deleted: [], documents: 1, chunks: 1 } }) + "\n");
    const cut = line.indexOf(Buffer.from("本")) + 1; // inside the 3-byte character
    const got = c.once("index.changed");
    daemon.writeRaw(line.subarray(0, cut));
    await new Promise((r) => setTimeout(r, 30));
    daemon.writeRaw(line.subarray(cut));
    expect(((await got)[0] as IndexChanged).paths).toEqual(["日本語.md"]);
  });

  it("reconnects after a daemon restart on a new address and token, and re-subscribes", async () => {
    const c = client({ subscribe: ["index.changed"] });
    await c.connect();
    const states: string[] = [];
    c.on("state", (s) => states.push(s));
    await daemon.stop();
    // The "restarted" daemon listens elsewhere with another token.
    const d2 = new FakeDaemon(dir, "new-token", "groove2.sock");
    await d2.listen();
    groove.setState(infoFor(d2));
    try {
      await until(() => c.state === "connected" && d2.methods.includes("subscribe"), 5000, "reconnect");
      expect(states).toContain("disconnected");
      expect(d2.received[0]).toMatchObject({ method: "hello", params: { token: "new-token" } });
      const got = c.once("index.changed");
      d2.notify("index.changed", { paths: ["b.md"], deleted: [], documents: 1, chunks: 1 });
      expect(((await got)[0] as IndexChanged).paths).toEqual(["b.md"]);
      expect((await c.search({ query: "after" })).results[0]!.content).toContain("after");
    } finally {
      await d2.stop();
    }
  });

  it("rejects requests pending when the connection drops instead of hanging", async () => {
    daemon.searchDelay = () => 10_000;
    const c = client({ reconnect: false });
    await c.connect();
    const p = c.search({ query: "hang" });
    await until(() => daemon.methods.includes("search"));
    await daemon.stop();
    const err = await p.catch((e) => e);
    expect(err.kind).toBe("disconnected");
  });

  it("rejects pending requests when closed by its owner", async () => {
    daemon.searchDelay = () => 10_000;
    const c = client();
    await c.connect();
    const p = c.search({ query: "x" });
    await until(() => daemon.methods.includes("search"));
    c.close();
    expect((await p.catch((e) => e)).kind).toBe("closed");
    expect((await c.connect().catch((e) => e)).kind).toBe("closed");
  });

  it("survives a non-JSON line from the daemon", async () => {
    const c = client({ subscribe: ["index.changed"] });
    await c.connect();
    const errs: GrooveError[] = [];
    c.on("error", (e) => errs.push(e));
    daemon.writeRaw(Buffer.from("garbage\n"));
    await until(() => errs.length > 0);
    expect(errs[0]!.kind).toBe("protocol");
    expect((await c.indexStatus()).documents).toBe(2);
  });
});

describe("parseConnectInfo", () => {
  it("takes the JSON object even when log lines come first", () => {
    expect(parseConnectInfo('starting daemon…\n{"vault":"/v","transport":"unix","address":"/s","token":"t","pid":1,"running":true,"protocol_version":1}\n').address).toBe("/s");
  });
  it("rejects output without connection info", () => {
    expect(() => parseConnectInfo("hello\n")).toThrow();
  });
});
