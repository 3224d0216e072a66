/**
 * The search panel: query box, toggles, filters and results, wired to a
 * latest-only SearchSession. Framework-free (standard DOM), so the same code
 * runs in the Obsidian ItemView, the quick-search modal and the browser test.
 */
import type { ConnectionState } from "@groove/editor-client/connection";
import { SearchSession, type SearchRunner, type SearchTiming, type Timers } from "@groove/editor-client/session";
import type { GrooveError } from "@groove/editor-client/errors";
import type { SearchHit, SearchParams, SearchResponse } from "@groove/editor-client/protocol";
import { clear, el } from "./dom";
import { renderError, renderResults, renderState, spanForClick, type HitHandlers, type StateActions } from "./render";
import { buildParams, nextTri, type Filters, type Toggles, type TriState } from "./settings";

export interface PanelOptions extends HitHandlers {
  runner: SearchRunner;
  limit: number;
  toggles: Toggles;
  showContext: boolean;
  /** Ask the daemon why each hit ranked where it did (a "why" line per hit). */
  explain?: boolean;
  debounceMs?: number;
  timers?: Timers;
  /** Modal: just the query box and results. */
  compact?: boolean;
  placeholder?: string;
  onError?(e: GrooveError): void;
  /** "Check again" / "Build the index" on the state card. */
  stateActions?: StateActions;
  /** After results are in the DOM (latency measurement, tests). */
  onRendered?(info: { params: SearchParams; response: SearchResponse; timing: SearchTiming; renderedAt: number }): void;
  now?: () => number;
}

let panels = 0;

const TOGGLE_LABELS: Record<keyof Toggles, string> = { rerank: "Rerank", mmr: "MMR", parentRetriever: "Parent" };
const TRI_TEXT: Record<TriState, string> = { default: "auto", on: "on", off: "off" };
const TRI_HELP: Record<keyof Toggles, string> = {
  rerank: "Cross-encoder reranking of the top hits",
  mmr: "Diversify results (maximal marginal relevance)",
  parentRetriever: "Return the parent section around small chunks",
};

export class SearchPanel {
  readonly root: HTMLElement;
  readonly input: HTMLInputElement;
  readonly results: HTMLElement;
  /** The first-index / problem card above the results. */
  readonly stateEl: HTMLElement;
  private readonly busyEl: HTMLElement;
  private readonly idPrefix = `groove-${++panels}`;
  private connection: ConnectionState = { kind: "idle" };
  /** A wait (first index, problem, download) was shown since the index was last searchable. */
  private waited = false;
  private readonly session: SearchSession;
  private readonly o: PanelOptions;
  private toggles: Toggles;
  private filters: Filters = { folders: "", tags: "" };
  private showContext: boolean;
  private hits: HTMLElement[] = [];
  private hitData: SearchHit[] = [];
  private selected = -1;
  private lastResponse: SearchResponse | null = null;
  private busy = false;

  constructor(container: HTMLElement, opts: PanelOptions) {
    this.o = opts;
    this.toggles = { ...opts.toggles };
    this.showContext = opts.showContext;
    this.root = el(container, "div", { cls: ["groove-panel", opts.compact ? "groove-compact" : ""] });

    const bar = el(this.root, "div", { cls: "groove-query-row" });
    // A combobox whose listbox is the results: focus stays in the box, the
    // selected hit is announced through aria-activedescendant.
    this.input = el(bar, "input", {
      cls: "groove-query",
      attr: {
        type: "search",
        placeholder: opts.placeholder ?? "Semantic search…",
        spellcheck: "false",
        "aria-label": "Search query",
        role: "combobox",
        "aria-autocomplete": "list",
        "aria-expanded": "false",
        "aria-controls": `${this.idPrefix}-hits`,
      },
    });
    this.busyEl = el(bar, "span", { cls: "groove-busy", attr: { "aria-hidden": "true" } });

    if (!opts.compact) this.buildControls();
    this.stateEl = el(this.root, "div", { cls: "groove-state" });
    this.results = el(this.root, "div", { cls: "groove-results" });

    const now = opts.now ?? (() => (typeof performance !== "undefined" ? performance.now() : Date.now()));
    this.session = new SearchSession({
      runner: opts.runner,
      debounceMs: opts.debounceMs ?? 150,
      timers: opts.timers,
      onResults: (response, params, timing) => {
        this.show(response, `${Math.round(timing.receivedAt - timing.sentAt)} ms`);
        this.o.onRendered?.({ params, response, timing, renderedAt: now() });
      },
      onError: (e) => {
        this.lastResponse = null;
        this.setHits([], []);
        // A connection problem is on the state card already; say it once. During
        // the first index a failing search is "not yet": the card says so.
        if ((this.connection.kind === "problem" && e.kind !== "rpc") || this.connection.kind === "first-index" || this.connection.kind === "model-download") clear(this.results);
        else renderError(this.results, e.message);
        this.o.onError?.(e);
      },
      onClear: () => {
        this.lastResponse = null;
        this.setHits([], []);
        clear(this.results);
      },
      onBusy: (b) => {
        this.busy = b;
        this.root.classList.toggle("groove-is-busy", b);
      },
    });

    // `input` fires for typing and paste. During IME composition (Japanese
    // kana -> kanji) the box holds unconverted text: wait for compositionend.
    this.input.addEventListener("input", (e) => {
      if ((e as InputEvent).isComposing) return;
      this.search();
    });
    this.input.addEventListener("compositionend", () => this.search());
    this.input.addEventListener("keydown", (e) => this.onKey(e));
  }

  private buildControls(): void {
    const controls = el(this.root, "div", { cls: "groove-controls" });
    for (const key of Object.keys(TOGGLE_LABELS) as Array<keyof Toggles>) {
      const chip = el(controls, "button", { cls: "groove-chip", attr: { type: "button", "data-toggle": key }, title: TRI_HELP[key] });
      const paint = () => {
        const v = this.toggles[key];
        chip.textContent = `${TOGGLE_LABELS[key]}: ${TRI_TEXT[v]}`;
        chip.setAttribute("data-state", v);
        chip.setAttribute("aria-pressed", v === "on" ? "true" : v === "off" ? "false" : "mixed");
      };
      paint();
      chip.addEventListener("click", () => {
        this.toggles[key] = nextTri(this.toggles[key]);
        paint();
        this.search(true);
      });
    }
    const ctx = el(controls, "label", { cls: "groove-chip groove-context-all", title: "Show the surrounding context (expanded_from) of every hit" });
    const cb = el(ctx, "input", { attr: { type: "checkbox" } });
    cb.checked = this.showContext;
    ctx.appendChild(ctx.ownerDocument.createTextNode(" Context"));
    cb.addEventListener("change", () => {
      this.showContext = cb.checked;
      if (this.lastResponse) this.show(this.lastResponse);
    });

    const filters = el(this.root, "div", { cls: "groove-filters" });
    const folder = el(filters, "input", {
      cls: "groove-filter-folder",
      attr: { type: "text", placeholder: "Folders", title: "Only notes in these folders (comma-separated, globs allowed)", "aria-label": "Folder filter", spellcheck: "false" },
    });
    const tags = el(filters, "input", {
      cls: "groove-filter-tags",
      attr: { type: "text", placeholder: "#tags", title: "Only notes with any of these tags", "aria-label": "Tag filter", spellcheck: "false" },
    });
    folder.addEventListener("input", () => {
      this.filters.folders = folder.value;
      this.search();
    });
    tags.addEventListener("input", () => {
      this.filters.tags = tags.value;
      this.search();
    });
  }

  /** The response on screen (null when cleared or failed). */
  get response(): SearchResponse | null {
    return this.lastResponse;
  }

  params(): SearchParams {
    return buildParams(this.input.value, this.o.limit, this.toggles, this.filters, this.o.explain ?? false);
  }

  /** Schedule a search for the current box/filters (debounced unless immediate). */
  search(immediate = false): void {
    this.session.update(this.params(), { immediate });
  }

  /** Re-run the current query (e.g. the index changed). */
  refresh(): void {
    if (this.input.value.trim()) this.session.refresh(this.params());
  }

  setQuery(q: string, immediate = true): void {
    this.input.value = q;
    this.search(immediate);
  }

  focus(): void {
    this.input.focus();
  }

  setLimit(n: number): void {
    this.o.limit = n;
  }

  /**
   * The vault's connection state: the first index shows its progress here
   * (and an empty answer meanwhile is "not yet", not "no results"); a
   * problem shows its fix. When it becomes ready the query runs again.
   */
  setConnection(state: ConnectionState): void {
    this.connection = state;
    renderState(this.stateEl, state, this.o.stateActions);
    // Searchable again after a wait (first index, a problem, a download — also via
    // "connecting" after Restart): the query runs again.
    if (state.kind === "first-index" || state.kind === "problem" || state.kind === "model-download") this.waited = true;
    if (this.waited && (state.kind === "ready" || state.kind === "indexing")) {
      this.waited = false;
      this.refresh();
    }
    else if (state.kind === "first-index" && this.lastResponse && !this.lastResponse.results.length) clear(this.results);
  }

  private show(response: SearchResponse, footnote?: string): void {
    this.lastResponse = response;
    if (this.connection.kind === "first-index" && response.results.length === 0) {
      // Nothing is indexed yet: the card above says so; "No results" would be wrong.
      clear(this.results);
      this.setHits([], []);
      return;
    }
    const hits = renderResults(this.results, response, {
      showContext: this.showContext,
      footnote,
      onOpen: this.o.onOpen,
      linkFor: this.o.linkFor,
      idPrefix: this.idPrefix,
      listId: `${this.idPrefix}-hits`,
    });
    // Grouped by note: the elements come in list order, each knows its place in the daemon's list.
    this.setHits(hits, hits.map((h) => response.results[Number(h.getAttribute("data-index"))]!));
  }

  private setHits(els: HTMLElement[], data: SearchHit[]): void {
    this.hits = els;
    this.hitData = data;
    this.selected = -1;
    this.input.setAttribute("aria-expanded", String(els.length > 0));
    this.select(els.length ? 0 : -1, false);
  }

  private select(i: number, scroll = true): void {
    const prev = this.hits[this.selected];
    prev?.classList.remove("is-selected");
    prev?.setAttribute("aria-selected", "false");
    this.selected = i;
    const h = this.hits[i];
    if (h) {
      h.classList.add("is-selected");
      h.setAttribute("aria-selected", "true");
      this.input.setAttribute("aria-activedescendant", h.id);
      if (scroll) h.scrollIntoView?.({ block: "nearest" });
    } else {
      this.input.removeAttribute("aria-activedescendant");
    }
  }

  /** The first hit at or after `i` (in direction `dir`) that is not in a collapsed note group. */
  private visibleFrom(i: number, dir: 1 | -1): number | null {
    for (let k = i; k >= 0 && k < this.hits.length; k += dir) if (!this.hits[k]!.closest("[hidden]")) return k;
    return null;
  }

  private onKey(e: KeyboardEvent): void {
    if (e.isComposing) return; // IME: Enter confirms the conversion, not a hit
    if (e.key === "ArrowDown" && this.hits.length) {
      e.preventDefault();
      this.select(this.visibleFrom(this.selected + 1, 1) ?? this.selected);
    } else if (e.key === "ArrowUp" && this.hits.length) {
      e.preventDefault();
      this.select(this.visibleFrom(this.selected - 1, -1) ?? this.selected);
    } else if ((e.key === "Home" || e.key === "End") && this.hits.length && (e.ctrlKey || e.metaKey)) {
      e.preventDefault();
      this.select((e.key === "Home" ? this.visibleFrom(0, 1) : this.visibleFrom(this.hits.length - 1, -1)) ?? this.selected);
    } else if (e.key === "Enter") {
      e.preventDefault();
      // While a newer query is pending the selection belongs to stale results.
      const hit = this.busy ? undefined : this.hitData[this.selected];
      const el = this.hits[this.selected];
      if (hit && el) this.o.onOpen?.(hit, spanForClick(el, null), e);
      else if (!this.session.flush()) this.search(true);
    }
  }

  dispose(): void {
    this.session.dispose();
    this.root.remove();
  }
}
