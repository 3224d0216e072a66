import { ItemView, Notice, type TFile, type WorkspaceLeaf } from "obsidian";
import type { RelatedNotesResult, SearchHit } from "@groove/editor-client/protocol";
import type GroovePlugin from "./main";
import { SearchPanel } from "./panel";
import { el, clear } from "./dom";
import { renderRelated } from "./render";
import { openHit, openPathAtLine } from "./jump";

export const VIEW_TYPE_SEARCH = "groove-search-view";

/** Right-sidebar view: the search panel plus "Related notes" for the active note. */
export class GrooveSearchView extends ItemView {
  private plugin: GroovePlugin;
  panel: SearchPanel | null = null;
  private relatedEl: HTMLElement | null = null;
  private relatedFor: string | null = null;

  constructor(leaf: WorkspaceLeaf, plugin: GroovePlugin) {
    super(leaf);
    this.plugin = plugin;
  }

  getViewType(): string {
    return VIEW_TYPE_SEARCH;
  }
  getDisplayText(): string {
    return "groove search";
  }
  getIcon(): string {
    return "search";
  }

  async onOpen(): Promise<void> {
    const root = this.contentEl;
    clear(root);
    root.classList.add("groove-view");
    const s = this.plugin.settings;
    this.panel = new SearchPanel(root, {
      runner: this.plugin.runner,
      limit: s.limit,
      toggles: { rerank: s.rerank, mmr: s.mmr, parentRetriever: s.parentRetriever },
      showContext: s.showContext,
      explain: s.explain,
      debounceMs: s.debounceMs,
      onOpen: (hit, span, evt) => this.open(hit, span, evt),
      linkFor: (hit) => this.plugin.wikilinkFor(hit),
      onError: (e) => this.plugin.reportError(e, false),
      stateActions: {
        onRetry: () => void this.plugin.checkAgain(),
        onBuildIndex: () => void this.plugin.buildIndex(),
        onDownloadModel: () => void this.plugin.downloadModel(),
        onRestart: () => void this.plugin.restartDaemon(),
      },
    });
    const panel = this.panel;
    this.register(this.plugin.onState((s) => panel.setConnection(s)));
    const details = el(root, "details", { cls: "groove-related", attr: { open: true } });
    el(details, "summary", { text: "Related notes" });
    this.relatedEl = el(details, "div", { cls: "groove-related-body" });
    this.registerEvent(this.app.workspace.on("file-open", (f) => void this.showRelated(f)));
    void this.showRelated(this.app.workspace.getActiveFile());
    this.panel.focus();
  }

  async onClose(): Promise<void> {
    this.panel?.dispose();
    this.panel = null;
  }

  private async open(hit: SearchHit, span: number, evt: MouseEvent | KeyboardEvent): Promise<void> {
    try {
      await openHit(this.app, hit, span, evt);
    } catch (e) {
      new Notice(`groove: ${(e as Error).message}`);
    }
  }

  /** Re-run the visible query, e.g. after index.changed. */
  refresh(): void {
    this.panel?.refresh();
    if (this.relatedFor) void this.showRelated(this.app.vault.getFileByPath(this.relatedFor), true);
  }

  async showRelated(file: TFile | null, force = false): Promise<void> {
    if (!this.relatedEl || !file || file.extension !== "md") return;
    if (!force && this.relatedFor === file.path) return;
    this.relatedFor = file.path;
    const target = this.relatedEl;
    let related: RelatedNotesResult | null = null;
    try {
      related = await this.plugin.client().relatedNotes(file.path, 10);
    } catch (e) {
      clear(target);
      el(target, "div", { cls: "groove-related-empty", text: (e as Error).message });
      return;
    }
    if (this.relatedFor !== file.path) return; // another note was opened meanwhile
    renderRelated(target, related, {
      onOpenPath: (path, line, evt) => void openPathAtLine(this.app, path, line, evt).catch((e) => new Notice(`groove: ${e.message}`)),
      onOpenLink: (link, from, evt) => void this.plugin.followLink(link, from, evt),
      nameIsAmbiguous: (path) => this.plugin.nameIsAmbiguous(path),
    });
  }
}
