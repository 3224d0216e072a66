/**
 * A small stand-in for `groove serve` speaking protocol v1 over a real unix
 * socket: token check at hello (close without data on failure), search with
 * configurable delay, cancel, subscribe + notifications, parse errors.
 */
import * as net from "node:net";
import * as fs from "node:fs";
import * as os from "node:os";
import * as path from "node:path";
import type { SearchHit, SearchParams, SearchResponse } from "../../src/protocol";

export interface Received {
  method: string;
  id: number | null;
  params: any;
}

export class FakeDaemon {
  readonly token: string;
  readonly socketPath: string;
  received: Received[] = [];
  connections = 0;
  /** ms to wait before answering a search, per query. */
  searchDelay: (params: SearchParams) => number = () => 0;
  searchResult: (params: SearchParams) => SearchResponse | { error: { code: number; message: string } } = (p) => ({
    results: [fakeHit(p.query)],
    low_confidence: false,
    filter_applied: {},
    warnings: [],
    confidence: null,
  });
  resolveResult: (params: any) => object = () => ({ path: null, heading: null, block: null, line_range: null, exists: false });
  relatedResult: (params: any) => object = (p) => ({ path: p.path, similar: [], backlinks: [], outgoing: [] });
  /** What hello answers (tests of protocol negotiation change it). */
  helloResult: () => object = () => ({
    protocol_version: 1,
    server_version: "fake",
    vault: "/vault",
    capabilities: ["search", "cancel", "get_document", "related_notes", "resolve_link", "index_status", "reindex", "subscribe"],
  });
  /** What index_status answers. */
  statusResult: () => object = () => ({ documents: 2, chunks: 5, model: "fake", dim: 3, last_indexed: 1_700_000_000, stale_files: 0, indexing: false, progress: null, index_path: "/x" });
  private server: net.Server;
  private sockets = new Set<net.Socket>();
  private subscribed = new Set<net.Socket>();

  constructor(dir: string, token = "t0k3n", name = "groove.sock") {
    this.token = token;
    this.socketPath = path.join(dir, name);
    this.server = net.createServer((s) => this.onConnection(s));
  }

  listen(): Promise<void> {
    return new Promise((resolve) => this.server.listen(this.socketPath, resolve));
  }

  async stop(): Promise<void> {
    for (const s of this.sockets) s.destroy();
    await new Promise<void>((resolve) => this.server.close(() => resolve()));
  }

  notify(method: string, params: unknown): void {
    for (const s of this.subscribed) s.write(JSON.stringify({ jsonrpc: "2.0", method, params }) + "\n");
  }

  /** Write raw bytes to every authenticated connection (framing tests). */
  writeRaw(buf: Buffer): void {
    for (const s of this.subscribed) s.write(buf);
  }

  get methods(): string[] {
    return this.received.map((r) => r.method);
  }

  private onConnection(sock: net.Socket): void {
    this.connections++;
    this.sockets.add(sock);
    sock.on("close", () => {
      this.sockets.delete(sock);
      this.subscribed.delete(sock);
    });
    sock.on("error", () => {});
    let authed = false;
    let buf = Buffer.alloc(0);
    const pendingSearch = new Map<number, NodeJS.Timeout>();
    const reply = (id: number | null, body: object) => sock.write(JSON.stringify({ jsonrpc: "2.0", id, ...body }) + "\n");
    sock.on("data", (chunk) => {
      buf = Buffer.concat([buf, chunk]);
      let nl: number;
      while ((nl = buf.indexOf(10)) >= 0) {
        const line = buf.subarray(0, nl).toString("utf8");
        buf = buf.subarray(nl + 1);
        let msg: any;
        try {
          msg = JSON.parse(line);
        } catch {
          reply(null, { error: { code: -32700, message: "parse error" } });
          continue;
        }
        this.received.push({ method: msg.method, id: msg.id ?? null, params: msg.params });
        if (!authed) {
          if (msg.method === "hello" && msg.params?.token === this.token) {
            authed = true;
            reply(msg.id, { result: this.helloResult() });
          } else {
            sock.destroy(); // protocol: close without sending any data
            return;
          }
          continue;
        }
        switch (msg.method) {
          case "search": {
            const t = setTimeout(() => {
              pendingSearch.delete(msg.id);
              const r = this.searchResult(msg.params);
              if ("error" in r) reply(msg.id, { error: r.error });
              else reply(msg.id, { result: r });
            }, this.searchDelay(msg.params));
            pendingSearch.set(msg.id, t);
            break;
          }
          case "cancel": {
            const t = pendingSearch.get(msg.params.id);
            if (t) {
              clearTimeout(t);
              pendingSearch.delete(msg.params.id);
              reply(msg.params.id, { error: { code: -32800, message: "cancelled" } });
            }
            reply(msg.id, { result: { cancelled: !!t } });
            break;
          }
          case "subscribe":
            this.subscribed.add(sock);
            reply(msg.id, { result: { subscribed: msg.params.events } });
            break;
          case "index_status":
            reply(msg.id, { result: this.statusResult() });
            break;
          case "resolve_link":
            reply(msg.id, { result: this.resolveResult(msg.params) });
            break;
          case "related_notes":
            if (msg.params.path.startsWith("../")) reply(msg.id, { error: { code: -32002, message: "path outside the vault: ../x" } });
            else reply(msg.id, { result: this.relatedResult(msg.params) });
            break;
          case "reindex":
            reply(msg.id, { result: { indexed: 2, unchanged: 0, deleted: 0, skipped: [] } });
            break;
          default:
            reply(msg.id, { error: { code: -32601, message: `unknown method ${msg.method}` } });
        }
      }
    });
  }
}

export function fakeHit(query: string): SearchHit {
  const content = `## 同期\n${query} について 🎉`;
  const s = 0;
  const start = Buffer.byteLength("## 同期\n");
  return {
    path: "notes/sync.md",
    title: "sync",
    heading_path: ["同期"],
    level: 2,
    content,
    score: 0.5,
    rank: 1,
    match_spans: [[start, start + Buffer.byteLength(query)]],
    answer_spans: [],
    expanded_from: [],
    byte_range: [s, Buffer.byteLength(content)],
    line_range: [1, 2],
    chunk_id: 1,
  };
}

/**
 * A fake `groove` executable: prints the JSON in $FAKE_GROOVE_STATE (a file
 * the test rewrites, e.g. after a "restart") and appends its argv to a log.
 * `fail` makes it fail as groove does: an object is the JSON error
 * (`{code, message, ...}`, printed on stdout, the message also on stderr); a
 * string is an older groove's text-only failure.
 */
export function writeFakeGroove(dir: string): { bin: string; stateFile: string; logFile: string; setState: (s: object) => void; calls: () => string[][] } {
  const bin = path.join(dir, "groove");
  const stateFile = path.join(dir, "state.json");
  const logFile = path.join(dir, "calls.log");
  fs.writeFileSync(
    bin,
    `#!${process.execPath}
const fs = require("fs");
fs.appendFileSync(${JSON.stringify(logFile)}, JSON.stringify(process.argv.slice(2)) + "\\n");
const st = JSON.parse(fs.readFileSync(${JSON.stringify(stateFile)}, "utf8"));
if (typeof st.fail === "string") { process.stderr.write("Error: " + st.fail + "\\n"); process.exit(2); }
if (st.fail) { process.stderr.write("error: " + st.fail.message + "\\n"); process.stdout.write(JSON.stringify({ error: st.fail }) + "\\n"); process.exit(2); }
if (process.argv.includes("--start")) st.running = true;
process.stdout.write("some log line\\n" + JSON.stringify(st) + "\\n");
`,
    { mode: 0o755 },
  );
  const setState = (s: object) => fs.writeFileSync(stateFile, JSON.stringify(s));
  const calls = () =>
    fs.existsSync(logFile)
      ? fs.readFileSync(logFile, "utf8").trim().split("\n").filter(Boolean).map((l) => JSON.parse(l) as string[])
      : [];
  return { bin, stateFile, logFile, setState, calls };
}

export function tmpDir(prefix = "groove-test-"): string {
  // Short base path: unix socket paths are limited to ~104 bytes.
  return fs.mkdtempSync(path.join(os.tmpdir(), prefix));
}

export function infoFor(d: FakeDaemon, running = true) {
  return { vault: "/vault", transport: "unix", address: d.socketPath, token: d.token, pid: 1, running, protocol_version: 1 };
}

export async function until(cond: () => boolean, timeoutMs = 5000, what = "condition"): Promise<void> {
  const t0 = Date.now();
  while (!cond()) {
    if (Date.now() - t0 > timeoutMs) throw new Error(`timed out waiting for ${what}`);
    await new Promise((r) => setTimeout(r, 10));
  }
}
