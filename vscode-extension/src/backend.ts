/**
 * Backend glue: one shared `GrooveClient` per workspace folder (one daemon per
 * vault), found or started through `groove connect-info [--start]`, plus the
 * index state the status bar shows. No `vscode` import here, so the
 * integration tests drive this file against the real daemon in plain Node.
 */
import * as path from "node:path";
import { Emitter, GrooveClient } from "@groove/editor-client";
import type {
  GrooveError,
  HelloResult,
  IndexProgress,
  IndexStatusResult,
  RelatedNotesResult,
  ResolveLinkResult,
  SearchParams,
  SearchResponse,
} from "@groove/editor-client";

export const CLIENT_NAME = "vscode-groove/0.1.0";

export interface BackendOptions {
  executable: string;
  autoStart: boolean;
  env?: NodeJS.ProcessEnv;
}

/** What the status bar shows for a vault. */
export type IndexState =
  | { kind: "connecting" }
  | { kind: "indexing"; done: number; total: number; phase: IndexProgress["phase"] }
  | { kind: "ready"; documents: number; chunks: number; stale: number }
  | { kind: "error"; error: GrooveError };

interface BackendEvents {
  state: (s: IndexState) => void;
  /** Notes changed on disk and were re-indexed (results may be stale). */
  changed: (paths: string[], deleted: string[]) => void;
}

/** Vault-relative path with "/" separators, or null if `file` is outside `root`. */
export function relativeToVault(root: string, file: string): string | null {
  const rel = path.relative(root, file);
  if (!rel || rel.startsWith("..") || path.isAbsolute(rel)) return null;
  return rel.split(path.sep).join("/");
}

export class VaultBackend extends Emitter<BackendEvents> {
  readonly client: GrooveClient;
  private _state: IndexState = { kind: "connecting" };

  constructor(
    /** The workspace folder path: vault-relative paths from the daemon join onto this. */
    readonly root: string,
    readonly opts: BackendOptions,
  ) {
    super();
    this.client = new GrooveClient({
      executable: opts.executable,
      vault: root,
      env: opts.env,
      autoStart: opts.autoStart,
      clientName: CLIENT_NAME,
      subscribe: ["index.progress", "index.changed"],
    });
    this.client.on("connected", () => void this.refreshStatus());
    this.client.on("state", (s, err) => {
      if (s === "connecting" && this._state.kind !== "indexing") this.setState({ kind: "connecting" });
      if (s === "disconnected" && err) this.setState({ kind: "error", error: err });
    });
    this.client.on("index.progress", (p) => {
      if (p.phase === "done") void this.refreshStatus();
      else this.setState({ kind: "indexing", done: p.done, total: p.total, phase: p.phase });
    });
    this.client.on("index.changed", (c) => {
      this.setState({ kind: "ready", documents: c.documents, chunks: c.chunks, stale: 0 });
      this.emit("changed", c.paths, c.deleted);
    });
  }

  get state(): IndexState {
    return this._state;
  }

  private setState(s: IndexState): void {
    this._state = s;
    this.emit("state", s);
  }

  /** Connects (starting the daemon when allowed); rejects with a readable GrooveError. */
  async ensure(): Promise<HelloResult> {
    try {
      return await this.client.connect();
    } catch (e) {
      this.setState({ kind: "error", error: e as GrooveError });
      throw e;
    }
  }

  async refreshStatus(): Promise<IndexStatusResult | null> {
    try {
      const st = await this.client.indexStatus();
      if (st.indexing && st.progress && st.progress.phase !== "done") {
        this.setState({ kind: "indexing", done: st.progress.done, total: st.progress.total, phase: st.progress.phase });
      } else {
        this.setState({ kind: "ready", documents: st.documents, chunks: st.chunks, stale: st.stale_files });
      }
      return st;
    } catch (e) {
      this.setState({ kind: "error", error: e as GrooveError });
      return null;
    }
  }

  search(params: SearchParams): Promise<SearchResponse> {
    return this.client.search(params);
  }

  /**
   * Resolves a wikilink as written in `fromFile` (absolute path). The daemon
   * decides what it means, so relative links and same-note `[[#Heading]]`
   * behave exactly as in Obsidian and groove's CLI.
   */
  resolveLink(raw: string, fromFile?: string): Promise<ResolveLinkResult> {
    const from = fromFile ? relativeToVault(this.root, fromFile) : null;
    return this.client.resolveLink(raw, from ?? undefined);
  }

  relatedNotes(file: string, limit?: number): Promise<RelatedNotesResult> {
    const rel = relativeToVault(this.root, file);
    if (!rel) return Promise.reject(new Error(`${file} is not inside the vault ${this.root}`));
    return this.client.relatedNotes(rel, limit);
  }

  rebuild(force = true) {
    return this.client.reindex(force);
  }

  /** Absolute path of a vault-relative path the daemon returned. */
  abs(rel: string): string {
    return path.join(this.root, ...rel.split("/"));
  }

  dispose(): void {
    this.client.close();
  }
}

/** One backend per workspace folder, created on first use. */
export class BackendRegistry {
  private readonly byRoot = new Map<string, VaultBackend>();
  constructor(
    private opts: () => BackendOptions,
    private readonly onCreate: (b: VaultBackend) => void = () => {},
  ) {}

  get(root: string): VaultBackend {
    let b = this.byRoot.get(root);
    if (!b) {
      b = new VaultBackend(root, this.opts());
      this.byRoot.set(root, b);
      this.onCreate(b);
    }
    return b;
  }

  peek(root: string): VaultBackend | undefined {
    return this.byRoot.get(root);
  }

  all(): VaultBackend[] {
    return [...this.byRoot.values()];
  }

  /** Settings changed (executable path, auto-start): reconnect with the new ones. */
  reset(): void {
    for (const b of this.byRoot.values()) b.dispose();
    this.byRoot.clear();
  }

  dispose(): void {
    this.reset();
  }
}
