import { ItemView, MarkdownView, Notice, type TFile, type WorkspaceLeaf } from "obsidian";
import type { SearchHit } from "@groove/editor-client/protocol";
import type GroovePlugin from "./main";
import { SearchPanel } from "./panel";
import { clear } from "./dom";
import { RelatedPanel } from "./related";
import { insertLink } from "./insert";
import { openHit, openPathAtLine } from "./jump";

export const VIEW_TYPE_SEARCH = "groove-search-view";

/** Right-sidebar view: the search panel plus "Related notes" for the active note. */
export class GrooveSearchView extends ItemView {
  private plugin: GroovePlugin;
  panel: SearchPanel | null = null;
  related: RelatedPanel | null = null;

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
    this.related = new RelatedPanel(root, {
      source: {
        related: (path, unlinkedOnly) => this.plugin.client().relatedNotes(path, 10, { unlinkedOnly }),
        status: (why) => this.plugin.client().indexStatus(why),
      },
      unlinkedOnly: s.unlinkedOnly,
      onUnlinkedOnly: (on) => {
        this.plugin.settings.unlinkedOnly = on;
        void this.plugin.saveSettings();
      },
      onOpenPath: (path, line, evt) => void openPathAtLine(this.app, path, line, evt).catch((e) => new Notice(`groove: ${e.message}`)),
      onOpenLink: (link, from, evt) => void this.plugin.followLink(link, from, evt),
      nameIsAmbiguous: (path) => this.plugin.nameIsAmbiguous(path),
      onInsertLink: (path) => this.insertLinkTo(path),
    });
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
    const shown = this.related?.path;
    if (shown) void this.showRelated(this.app.vault.getFileByPath(shown), true);
  }

  async showRelated(file: TFile | null, force = false): Promise<void> {
    if (!this.related || !file || file.extension !== "md") return;
    await this.related.show(file.path, force);
  }

  /**
   * A link to `path` at the cursor of the note the related notes are for:
   * the sidebar has the focus when its button is clicked, so the editor is
   * the Markdown leaf showing that note, not "the active view".
   */
  insertLinkTo(path: string): void {
    const source = this.related?.path;
    const editors = this.app.workspace.getLeavesOfType("markdown").map((l) => l.view).filter((v): v is MarkdownView => v instanceof MarkdownView);
    const view = editors.find((v) => v.file?.path === source);
    if (!source || !view?.file) {
      new Notice("groove: open the note in an editor to insert a link into it");
      return;
    }
    try {
      insertLink(this.app, view.editor, view.file.path, path);
    } catch (e) {
      new Notice(`groove: ${(e as Error).message}`);
    }
  }
}
