import { Modal, Notice, type App } from "obsidian";
import type GroovePlugin from "./main";
import { SearchPanel } from "./panel";
import { openHit } from "./jump";

/** Quick search: query box + results in a modal; Enter/click opens and closes. */
export class QuickSearchModal extends Modal {
  private plugin: GroovePlugin;
  private panel: SearchPanel | null = null;
  private offState: (() => void) | null = null;

  constructor(app: App, plugin: GroovePlugin) {
    super(app);
    this.plugin = plugin;
  }

  onOpen(): void {
    this.modalEl.classList.add("groove-modal");
    const s = this.plugin.settings;
    this.panel = new SearchPanel(this.contentEl, {
      runner: this.plugin.runner,
      limit: Math.min(s.limit, 10),
      toggles: { rerank: s.rerank, mmr: s.mmr, parentRetriever: s.parentRetriever },
      showContext: false,
      debounceMs: s.debounceMs,
      compact: true,
      placeholder: "Search notes by meaning…",
      linkFor: (hit) => this.plugin.wikilinkFor(hit),
      onOpen: (hit, span, evt) => {
        this.close();
        openHit(this.app, hit, span, evt).catch((e) => new Notice(`groove: ${e.message}`));
      },
      onError: (e) => this.plugin.reportError(e, false),
      stateActions: { onRetry: () => void this.plugin.checkAgain(), onBuildIndex: () => void this.plugin.buildIndex() },
    });
    const panel = this.panel;
    this.offState = this.plugin.onState((s) => panel.setConnection(s));
    this.panel.focus();
  }

  onClose(): void {
    this.offState?.();
    this.offState = null;
    this.panel?.dispose();
    this.panel = null;
    this.contentEl.replaceChildren();
  }
}
