/**
 * Backend glue: one shared `GrooveClient` per workspace folder (one daemon per
 * vault), found or started through `groove connect-info [--start]`, and the
 * shared connection state machine (`VaultConnection` in editor-client) that
 * the status bar and the results view show. No `vscode` import here, so the
 * integration tests drive this file against the real daemon in plain Node.
 */
import * as path from "node:path";
import { checkCrashed, commandLineSetup, Emitter, GrooveClient, GrooveError, VaultConnection } from "@groove/editor-client";
import type { ConnectionState, EditorHints, HelloResult, PendingRequest, RelatedNotesResult, ResolveLinkResult, SearchParams, SearchResponse, SearchRunner } from "@groove/editor-client";

export const CLIENT_NAME = "vscode-groove/0.1.0";

/** The extension's settings, in the words of its settings UI (every fix text uses them). */
export const VSCODE_HINTS: Omit<EditorHints, "executable" | "vault"> = {
  executableSetting: "the setting groove › Executable Path (groove.executablePath)",
  autoStartSetting: "groove › Auto Start (groove.autoStart)",
};

export interface BackendOptions {
  executable: string;
  autoStart: boolean;
  env?: NodeJS.ProcessEnv;
}

interface BackendEvents {
  state: (s: ConnectionState) => void;
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
  readonly connection: VaultConnection;

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
      // A daemon that died without shutting down gets the crash card, not a silent restart.
      checkLost: (pid) => checkCrashed(opts.executable, root, opts.env, pid),
    });
    this.connection = new VaultConnection(this.client, {
      hints: { ...VSCODE_HINTS, executable: opts.executable, vault: root, platform: process.platform },
      setup: commandLineSetup({ executable: opts.executable, vault: root, env: opts.env }),
    });
    this.connection.on("state", (s) => this.emit("state", s));
    this.connection.on("changed", (c) => this.emit("changed", c.paths, c.deleted));
  }

  get state(): ConnectionState {
    return this.connection.state;
  }

  /** Connects (starting the daemon when allowed); rejects with a readable GrooveError. */
  async ensure(): Promise<HelloResult> {
    try {
      return await this.client.connect();
    } catch (e) {
      this.connection.noteError(e);
      throw e;
    }
  }

  /**
   * What the QuickPick searches with: the client, except while the default
   * model downloads — a search then would only try to start the daemon half-way.
   */
  readonly runner: SearchRunner = {
    startSearch: (p: SearchParams): PendingRequest<SearchResponse> => {
      if (this.state.kind === "model-download") return { promise: Promise.reject(new GrooveError("not-running", "the default model is still downloading")), cancel: () => {} };
      return this.client.startSearch(p);
    },
  };

  /** "Check again": connect (groove may have been installed meanwhile), then re-read the status. */
  checkAgain(): Promise<boolean> {
    return this.connection.retry();
  }

  /** "Download the default model": the pull's progress is the state; then the daemon starts. */
  downloadModel(): Promise<boolean> {
    return this.connection.downloadModel();
  }

  /** "Restart" after a crash, "Start groove" with auto-start off. */
  restart(): Promise<boolean> {
    return this.connection.restart();
  }

  /** Re-reads the index status (the state follows). */
  refreshStatus(): Promise<void> {
    return this.connection.refresh();
  }

  /** A request failed: connection-level failures change the state. */
  noteError(e: unknown): void {
    this.connection.noteError(e);
  }

  search(params: SearchParams): Promise<SearchResponse> {
    return this.client.search(params);
  }

  /**
   * Resolves a wikilink as written in `fromFile` (absolute path) with the
   * daemon's `resolve_link` (see editor-client/test/fixtures/link-resolution.json
   * for where it still differs from Obsidian).
   */
  resolveLink(raw: string, fromFile?: string): Promise<ResolveLinkResult> {
    const from = fromFile ? relativeToVault(this.root, fromFile) : null;
    return this.client.resolveLink(raw, from ?? undefined);
  }

  relatedNotes(file: string, limit?: number, opts: { unlinkedOnly?: boolean } = {}): Promise<RelatedNotesResult> {
    const rel = relativeToVault(this.root, file);
    if (!rel) return Promise.reject(new Error(`${file} is not inside the vault ${this.root}`));
    return this.client.relatedNotes(rel, limit, opts);
  }

  rebuild(force = true) {
    return this.client.reindex(force);
  }

  /** Absolute path of a vault-relative path the daemon returned. */
  abs(rel: string): string {
    return path.join(this.root, ...rel.split("/"));
  }

  dispose(): void {
    this.connection.dispose();
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

  /** Forgets one folder's backend (the next `get` makes a new one). */
  drop(root: string): void {
    this.byRoot.get(root)?.dispose();
    this.byRoot.delete(root);
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
