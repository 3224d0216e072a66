import { FileSystemAdapter, MarkdownView, Notice, Plugin, TFile, type Editor, type WorkspaceLeaf } from "obsidian";
import * as fs from "node:fs";
import * as os from "node:os";
import * as path from "node:path";
import { GrooveClient } from "@groove/editor-client/client";
import { GrooveError } from "@groove/editor-client/errors";
import { hitWikilink } from "@groove/editor-client/hits";
import type { IndexProgress, IndexStatusResult, SearchHit, SearchParams } from "@groove/editor-client/protocol";
import type { SearchRunner } from "@groove/editor-client/session";
import { DEFAULT_SETTINGS, type GrooveSettings } from "./settings";
import { GrooveSettingTab } from "./settingsTab";
import { GrooveSearchView, VIEW_TYPE_SEARCH } from "./view";
import { QuickSearchModal } from "./modal";
import { formatStatus, type DaemonState } from "./render";
import { openPathAtLine } from "./jump";

/**
 * A bare "groove" is looked up on PATH, then in the usual user install
 * dirs: apps started from the macOS Dock/Finder do not inherit the shell's PATH.
 */
export function resolveExecutable(configured: string, env: NodeJS.ProcessEnv = process.env): string {
  const name = configured.trim() || "groove";
  if (name.includes("/") || name.includes("\\")) return name.replace(/^~(?=\/|\\)/, os.homedir());
  const exts = process.platform === "win32" ? [".exe", ".cmd", ""] : [""];
  const dirs = [
    ...(env.PATH ?? "").split(path.delimiter),
    path.join(os.homedir(), ".local", "bin"),
    "/opt/homebrew/bin",
    "/usr/local/bin",
  ].filter(Boolean);
  for (const d of dirs) for (const ext of exts) {
    const p = path.join(d, name + ext);
    try {
      if (fs.statSync(p).isFile()) return p;
    } catch {
      /* not here */
    }
  }
  return name;
}

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
  private statusEl: HTMLElement | null = null;
  private lastStatus: IndexStatusResult | null = null;
  private progress: IndexProgress | null = null;
  private lastNoticeAt = 0;
  private statusTimer: number | null = null;
  private reconnectTimer: number | null = null;
  private shownState: DaemonState["kind"] | null = null;

  /** Stable runner for search panels; survives client re-creation on settings change. */
  readonly runner: SearchRunner = { startSearch: (p: SearchParams) => this.client().startSearch(p) };

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
    this.renderStatus({ kind: "connecting" });
    this.registerDomEvent(this.statusEl, "click", () => {
      if (this._client?.state === "connected") void this.activateView();
      else void this.connect(true);
    });

    this.addSettingTab(new GrooveSettingTab(this.app, this));
    // Connecting may start the daemon: after layout so startup stays fast.
    this.app.workspace.onLayoutReady(() => void this.connect(false));
  }

  onunload(): void {
    this._client?.close();
    this._client = null;
    if (this.statusTimer !== null) window.clearTimeout(this.statusTimer);
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
      this._client?.close();
      this._client = null;
      void this.connect(false);
    }, 800);
  }

  vaultPath(): string {
    const a = this.app.vault.adapter;
    if (a instanceof FileSystemAdapter) return a.getBasePath();
    throw new GrooveError("not-installed", "groove needs a vault on the local file system (desktop only)");
  }

  /** The client for this vault, created on first use. */
  client(): GrooveClient {
    if (this._client) return this._client;
    const c = new GrooveClient({
      executable: resolveExecutable(this.settings.executable),
      vault: this.vaultPath(),
      autoStart: this.settings.autoStart,
      clientName: `obsidian-groove/${this.manifest.version}`,
      subscribe: ["index.progress", "index.changed"],
    });
    c.on("state", (state, err) => {
      // Background retries should not flicker "connecting…" over "not running".
      if (state === "connecting" && this.shownState !== "not-running") this.renderStatus({ kind: "connecting" });
      else if (state === "disconnected") this.renderStatus({ kind: "not-running", detail: err?.message });
    });
    c.on("connected", () => void this.updateStatus());
    c.on("index.progress", (p) => {
      this.progress = p;
      if (this.lastStatus) this.renderStatus({ kind: "status", status: { ...this.lastStatus, indexing: p.phase !== "done" }, progress: p });
      if (p.phase === "done") this.scheduleStatus();
    });
    c.on("index.changed", () => {
      this.progress = null;
      this.scheduleStatus();
      for (const v of this.searchViews()) v.refresh();
    });
    this._client = c;
    return c;
  }

  async connect(userAction: boolean): Promise<void> {
    try {
      await this.client().connect();
    } catch (e) {
      this.reportError(e, userAction);
    }
  }

  private scheduleStatus(): void {
    if (this.statusTimer !== null) return;
    this.statusTimer = window.setTimeout(() => {
      this.statusTimer = null;
      void this.updateStatus();
    }, 300);
  }

  async updateStatus(): Promise<void> {
    try {
      this.lastStatus = await this.client().indexStatus();
      this.renderStatus({ kind: "status", status: this.lastStatus, progress: this.lastStatus.indexing ? this.progress : null });
    } catch (e) {
      const err = e instanceof GrooveError ? e : null;
      this.renderStatus(err && err.kind !== "rpc" ? { kind: "not-running", detail: err.message } : { kind: "error", message: String((e as Error).message) });
    }
  }

  renderStatus(s: DaemonState): void {
    if (!this.statusEl) return;
    this.shownState = s.kind;
    const { text, tooltip } = formatStatus(s);
    this.statusEl.textContent = text;
    this.statusEl.setAttribute("aria-label", tooltip);
    this.statusEl.title = tooltip;
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

  /** Resolves through the daemon so `#Heading` and `^block` land on the right line. */
  async followLink(link: string, fromPath: string, evt: MouseEvent | KeyboardEvent | null): Promise<void> {
    try {
      const r = await this.client().resolveLink(link.startsWith("[[") ? link : `[[${link}]]`, fromPath || undefined);
      if (!r.exists || !r.path) {
        new Notice(`groove: "${link}" does not resolve to a note`);
        return;
      }
      await openPathAtLine(this.app, r.path, r.line_range?.[0] ?? null, evt, r.line_range?.[1]);
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
}
