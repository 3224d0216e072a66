import { FileSystemAdapter, MarkdownView, Notice, Plugin, TFile, type Editor, type WorkspaceLeaf } from "obsidian";
import { GrooveClient } from "@groove/editor-client/client";
import { diagnose, VaultConnection, type ConnectionState, type EditorHints } from "@groove/editor-client/connection";
import { checkCrashed, commandLineSetup, resolveExecutable } from "@groove/editor-client/setup";
import { GrooveError } from "@groove/editor-client/errors";
import { hitWikilink } from "@groove/editor-client/hits";
import type { SearchHit, SearchParams } from "@groove/editor-client/protocol";
import type { SearchRunner } from "@groove/editor-client/session";
import { DEFAULT_SETTINGS, type GrooveSettings } from "./settings";
import { GrooveSettingTab } from "./settingsTab";
import { GrooveSearchView, VIEW_TYPE_SEARCH } from "./view";
import { QuickSearchModal } from "./modal";
import { formatStatus } from "./render";
import { openPathAtLine } from "./jump";
import { linktextOf, resolveLinkInVault } from "./links";
import { OBSIDIAN_HINTS } from "./hints";

/** Where `groove` is (shared with VS Code: PATH, then the folders pipx/uv/Homebrew install into). */
export { resolveExecutable };

/** `[[…]]` around column `ch` of `line`, without the brackets. */
export function linkAt(line: string, ch: number): string | null {
  const re = /!?\[\[([^\]\n]+)\]\]/g;
  let m: RegExpExecArray | null;
  while ((m = re.exec(line))) {
    if (ch >= m.index && ch <= m.index + m[0].length) return m[1]!;
  }
  return null;
}

export default class GroovePlugin extends Plugin {
  settings: GrooveSettings = { ...DEFAULT_SETTINGS };
  private _client: GrooveClient | null = null;
  private _connection: VaultConnection | null = null;
  private statusEl: HTMLElement | null = null;
  private lastNoticeAt = 0;
  private reconnectTimer: number | null = null;
  /** Views and the status bar follow this; it survives client re-creation. */
  private readonly stateListeners = new Set<(s: ConnectionState) => void>();
  private _state: ConnectionState = { kind: "idle" };

  /** Stable runner for search panels; survives client re-creation on settings change. */
  readonly runner: SearchRunner = {
    startSearch: (p: SearchParams) => {
      // While the model downloads, a search would only try to start the daemon half-way (the card says why there are no results).
      if (this._state.kind === "model-download") return { promise: Promise.reject(new GrooveError("not-running", "the default model is still downloading")), cancel: () => {} };
      const h = this.client().startSearch(p);
      h.promise.catch((e) => this._connection?.noteError(e));
      return h;
    },
  };

  async onload(): Promise<void> {
    await this.loadSettings();

    this.registerView(VIEW_TYPE_SEARCH, (leaf) => new GrooveSearchView(leaf, this));

    this.addCommand({ id: "open-search", name: "Open semantic search", callback: () => void this.activateView() });
    this.addCommand({ id: "quick-search", name: "Quick semantic search", callback: () => new QuickSearchModal(this.app, this).open() });
    this.addCommand({ id: "related-notes", name: "Related notes", callback: () => void this.showRelated() });
    this.addCommand({ id: "rebuild-index", name: "Rebuild index", callback: () => void this.rebuildIndex() });
    this.addCommand({
      id: "follow-link",
      name: "Follow link under cursor",
      editorCheckCallback: (checking: boolean, editor: Editor, ctx) => {
        const cur = editor.getCursor();
        const link = linkAt(editor.getLine(cur.line), cur.ch);
        if (!link) return false;
        if (!checking) void this.followLink(link, ctx.file?.path ?? "", null);
        return true;
      },
    });
    this.addRibbonIcon("search", "groove: Open semantic search", () => void this.activateView());

    this.statusEl = this.addStatusBarItem();
    this.statusEl.classList.add("groove-status", "mod-clickable");
    this.renderStatus(this._state);
    this.registerDomEvent(this.statusEl, "click", () => {
      // A problem with a card (install, download, restart) opens the panel that has its buttons.
      const s = this._state;
      if (s.kind === "problem" && !(s.problem.install || s.problem.download || s.problem.canRestart)) void this.checkAgain();
      else void this.activateView();
    });

    this.addSettingTab(new GrooveSettingTab(this.app, this));
    // Connecting may start the daemon: after layout so startup stays fast.
    this.app.workspace.onLayoutReady(() => void this.connect(false));
  }

  onunload(): void {
    this.dropClient();
    if (this.reconnectTimer !== null) window.clearTimeout(this.reconnectTimer);
  }

  async loadSettings(): Promise<void> {
    this.settings = { ...DEFAULT_SETTINGS, ...((await this.loadData()) ?? {}) };
  }

  async saveSettings(reconnect = false): Promise<void> {
    await this.saveData(this.settings);
    if (!reconnect) return;
    // The executable field saves per keystroke: reconnect once typing pauses.
    if (this.reconnectTimer !== null) window.clearTimeout(this.reconnectTimer);
    this.reconnectTimer = window.setTimeout(() => {
      this.reconnectTimer = null;
      this.dropClient();
      void this.connect(false);
    }, 800);
  }

  private dropClient(): void {
    this._connection?.dispose();
    this._connection = null;
    this._client?.close();
    this._client = null;
  }

  vaultPath(): string {
    const a = this.app.vault.adapter;
    if (a instanceof FileSystemAdapter) return a.getBasePath();
    throw new GrooveError("not-installed", "groove needs a vault on the local file system (desktop only)", { data: { unsupported: true } });
  }

  hints(): EditorHints {
    let vault: string | undefined;
    try {
      vault = this.vaultPath();
    } catch {
      vault = undefined;
    }
    return { ...OBSIDIAN_HINTS, executable: resolveExecutable(this.settings.executable), vault, platform: process.platform };
  }

  /** The client for this vault, created on first use. */
  client(): GrooveClient {
    if (this._client) return this._client;
    const executable = resolveExecutable(this.settings.executable);
    const vault = this.vaultPath();
    const c = new GrooveClient({
      executable,
      vault,
      autoStart: this.settings.autoStart,
      clientName: `obsidian-groove/${this.manifest.version}`,
      subscribe: ["index.progress", "index.changed"],
      // A daemon that died without shutting down gets the crash card, not a silent restart.
      checkLost: (pid) => checkCrashed(executable, vault, process.env, pid),
    });
    const conn = new VaultConnection(c, { hints: () => this.hints(), setup: commandLineSetup({ executable, vault }) });
    conn.on("state", (s) => this.setState(s));
    conn.on("changed", () => {
      for (const v of this.searchViews()) v.refresh();
    });
    this._client = c;
    this._connection = conn;
    return c;
  }

  /** The vault's connection state machine (null before the first connect). */
  get connection(): VaultConnection | null {
    return this._connection;
  }

  get state(): ConnectionState {
    return this._state;
  }

  /** Follow the connection state (the panel's first-index and problem cards). */
  onState(fn: (s: ConnectionState) => void): () => void {
    this.stateListeners.add(fn);
    fn(this._state);
    return () => this.stateListeners.delete(fn);
  }

  private setState(s: ConnectionState): void {
    this._state = s;
    this.renderStatus(s);
    for (const fn of [...this.stateListeners]) fn(s);
  }

  async connect(userAction: boolean): Promise<void> {
    try {
      this.client();
    } catch (e) {
      // No client can be made (e.g. mobile): that is a state too.
      this.setState({ kind: "problem", problem: diagnose(e, this.hints()), error: e instanceof GrooveError ? e : undefined });
      if (userAction) this.reportError(e, true);
      return;
    }
    const ok = await this._connection!.start();
    if (!ok && userAction) this.reportError(this._connection!.state.kind === "problem" ? new Error(this.problemText()) : new Error("groove is not available"), true);
  }

  /**
   * "Check again" from the status bar or a problem card. Groove may have been
   * installed since: the executable is looked up again (PATH and the usual
   * install folders), no restart of Obsidian needed.
   */
  async checkAgain(): Promise<void> {
    const s = this._state;
    if (!this._connection || (s.kind === "problem" && (s.problem.cause === "backend-not-found" || s.problem.cause === "connect-info-failed"))) {
      this.dropClient();
      return this.connect(false);
    }
    await this._connection.retry();
  }

  /** "Download the default model" on the model card: the pull's progress is the state, then groove starts. */
  async downloadModel(): Promise<void> {
    this.client();
    await this._connection!.downloadModel();
  }

  /** "Restart" on the crash card ("Start groove" with auto-start off). */
  async restartDaemon(): Promise<void> {
    this.client();
    await this._connection!.restart();
  }

  /** "Build the index" from a not-indexed / index-missing card. */
  async buildIndex(): Promise<void> {
    this.client();
    await this._connection!.buildIndex(this._connection!.state.kind === "problem" && this._connection!.state.problem.cause === "index-missing");
  }

  private problemText(): string {
    const s = this._state;
    return s.kind === "problem" ? `${s.problem.title}. ${s.problem.fix}${s.problem.command ? ` (${s.problem.command})` : ""}` : "";
  }

  /** Re-read the index state (after a rebuild). */
  async updateStatus(): Promise<void> {
    await this._connection?.refresh();
  }

  renderStatus(s: ConnectionState): void {
    if (!this.statusEl) return;
    const { text, tooltip } = formatStatus(s);
    this.statusEl.textContent = text;
    this.statusEl.setAttribute("aria-label", tooltip);
    this.statusEl.title = tooltip;
    this.statusEl.setAttribute("data-state", s.kind === "problem" ? s.problem.cause : s.kind);
  }

  /** Readable notice; background errors at most every 30 s so typing never floods notices. */
  reportError(e: unknown, userAction: boolean): void {
    const msg = e instanceof Error ? e.message : String(e);
    const now = Date.now();
    if (!userAction && now - this.lastNoticeAt < 30_000) return;
    this.lastNoticeAt = now;
    new Notice(`groove: ${msg}`, 8000);
  }

  searchViews(): GrooveSearchView[] {
    return this.app.workspace
      .getLeavesOfType(VIEW_TYPE_SEARCH)
      .map((l) => l.view)
      .filter((v): v is GrooveSearchView => v instanceof GrooveSearchView);
  }

  async activateView(): Promise<GrooveSearchView | null> {
    const { workspace } = this.app;
    let leaf: WorkspaceLeaf | null = workspace.getLeavesOfType(VIEW_TYPE_SEARCH)[0] ?? null;
    if (!leaf) {
      leaf = workspace.getRightLeaf(false);
      if (!leaf) return null;
      await leaf.setViewState({ type: VIEW_TYPE_SEARCH, active: true });
    }
    await workspace.revealLeaf(leaf);
    const view = leaf.view instanceof GrooveSearchView ? leaf.view : null;
    view?.panel?.focus();
    return view;
  }

  async showRelated(): Promise<void> {
    const file = this.app.workspace.getActiveFile();
    const view = await this.activateView();
    if (!view) return;
    if (!file) {
      new Notice("groove: open a note to see its related notes");
      return;
    }
    await view.showRelated(file, true);
    view.containerEl.querySelector(".groove-related")?.scrollIntoView?.({ block: "start" });
  }

  /**
   * Opens a `[[link]]` written in `fromPath` where Obsidian itself would:
   * Obsidian's resolver picks the note and the heading/block; the daemon only
   * places a heading in a note Obsidian has not parsed yet.
   */
  async followLink(link: string, fromPath: string, evt: MouseEvent | KeyboardEvent | null): Promise<void> {
    try {
      const jump = await resolveLinkInVault(this.app, link, fromPath, (l, from) => this.client().resolveLink(l, from || undefined));
      if (!jump) {
        new Notice(`groove: [[${linktextOf(link)}]] does not point to a note in this vault`);
        return;
      }
      if (!jump.subpathFound) new Notice(`groove: ${jump.path} has no ${linktextOf(link).includes("#^") ? "block" : "heading"} "${linktextOf(link).split("#").slice(1).join("#")}"; opened the note`);
      await openPathAtLine(this.app, jump.path, jump.line, evt);
    } catch (e) {
      this.reportError(e, true);
    }
  }

  async rebuildIndex(): Promise<void> {
    const notice = new Notice("groove: rebuilding the index…", 0);
    try {
      const r = await this.client().reindex(true);
      notice.hide();
      new Notice(`groove: indexed ${r.indexed}, unchanged ${r.unchanged}, deleted ${r.deleted}${r.skipped.length ? `, skipped ${r.skipped.length}` : ""}`);
      void this.updateStatus();
    } catch (e) {
      notice.hide();
      this._connection?.noteError(e);
      this.reportError(e, true);
    }
  }

  /** `[[shortest-link#Heading]]`, relative to the note being edited. */
  wikilinkFor(hit: SearchHit): string {
    const file = this.app.vault.getFileByPath(hit.path);
    const active = this.app.workspace.getActiveViewOfType(MarkdownView)?.file?.path ?? "";
    const target = file instanceof TFile ? this.app.metadataCache.fileToLinktext(file, active, true) : undefined;
    return hitWikilink(hit, target);
  }

  /** True when another note has the same file name (then lists show its folder). */
  nameIsAmbiguous(path: string): boolean {
    const file = this.app.vault.getFileByPath(path);
    if (!(file instanceof TFile)) return false;
    return this.app.metadataCache.fileToLinktext(file, "", true) !== file.basename;
  }
}
