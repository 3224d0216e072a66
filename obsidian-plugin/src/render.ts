/**
 * Rendering of search responses, related notes and status — plain functions
 * over a container element, no Obsidian imports, so they are unit-tested
 * with happy-dom and rendered in headless Chromium with real daemon results.
 */
import { hitSegments, hitWikilink } from "@groove/editor-client/hits";
import { elideSegments, type Segment } from "@groove/editor-client/offsets";
import type { IndexProgress, IndexStatusResult, RelatedNotesResult, SearchHit, SearchResponse } from "@groove/editor-client/protocol";
import { clear, el } from "./dom";

export interface HitHandlers {
  /** Open the note at match span `spanIndex` (0 when the hit itself was clicked). */
  onOpen?(hit: SearchHit, spanIndex: number, evt: MouseEvent | KeyboardEvent): void;
  /** Text dropped into a note when a hit is dragged ([[Note#Heading]]). */
  linkFor?(hit: SearchHit): string;
}

export interface RenderOptions extends HitHandlers {
  /** Show the expanded_from context by default (each hit can still toggle). */
  showContext: boolean;
  /** Characters of plain text kept around highlights in a snippet. */
  snippetContext?: number;
  /** Rendered next to the result count, e.g. "42 ms". */
  footnote?: string;
}

/** Folder part of a vault path ("a/b/c.md" -> "a/b"). */
function folderOf(path: string): string {
  const i = path.lastIndexOf("/");
  return i > 0 ? path.slice(0, i) : "";
}

/** Headings below the note title ("Title › A › B" shows "A › B"). */
export function headingTrail(hit: SearchHit): string[] {
  const hp = hit.heading_path ?? [];
  const first = hp[0];
  // The H1 usually repeats the title (maybe with an emoji or suffix).
  if (first !== undefined && hit.title && (first === hit.title || (hp.length > 1 && first.startsWith(hit.title)))) return hp.slice(1);
  return hp;
}

export function formatScore(score: number): string {
  if (!Number.isFinite(score)) return "";
  return Math.abs(score) >= 1 ? score.toFixed(2) : score.toFixed(3);
}

const HEADING_LINE = /^[ \t]*#{1,6}[ \t][^\n]*(?:\n|$)/;
const BLANK_RUNS = /(?:\r?\n[ \t]*){2,}/g;
const HEADING_MARKER = /(^|\n)[ \t]*#{1,6}[ \t]+/g;

/**
 * Display-only clean-up of a snippet: chunk text starts with its Markdown
 * heading lines (already shown as the heading path), blank lines waste the
 * narrow sidebar, and "## " markers are noise. Highlighted segments are never
 * changed, so every match span stays visible exactly.
 */
export function tidySegments(segments: Segment[]): Segment[] {
  const out = segments.map((s) => ({ ...s }));
  // Leading heading lines that contain no highlight.
  const first = out[0];
  if (first && !first.highlighted) {
    let t = first.text.replace(/^\s+/, "");
    while (HEADING_LINE.test(t) && t.includes("\n")) t = t.replace(HEADING_LINE, "").replace(/^\s+/, "");
    first.text = t;
  }
  for (let i = 0; i < out.length; i++) {
    const seg = out[i]!;
    if (seg.highlighted) continue;
    const atLineStart = i === 0 || out[i - 1]!.text.endsWith("\n");
    seg.text = seg.text.replace(BLANK_RUNS, "\n").replace(HEADING_MARKER, (m, nl: string, off: number) => (off === 0 && !atLineStart && !nl ? m : nl));
  }
  const last = out[out.length - 1];
  if (last && !last.highlighted) last.text = last.text.replace(/\s+$/, "");
  return out.filter((s) => s.text.length > 0);
}

/** Fills `snippetEl` with the hit's text, every match span in a <mark>. */
export function renderSnippet(snippetEl: HTMLElement, hit: SearchHit, withContext: boolean, context = 80): void {
  clear(snippetEl);
  const { segments, before, after } = hitSegments(hit, withContext);
  const tidy = tidySegments(segments);
  const shown = withContext ? tidy : elideSegments(tidy, context);
  if (before) el(snippetEl, "span", { cls: "groove-elided", text: "… " });
  for (const seg of shown) {
    if (seg.highlighted) {
      el(snippetEl, "mark", { cls: "groove-match", text: seg.text, attr: { "data-span": seg.span ?? 0 } });
    } else {
      snippetEl.appendChild(snippetEl.ownerDocument.createTextNode(seg.text));
    }
  }
  if (after) el(snippetEl, "span", { cls: "groove-elided", text: " …" });
  snippetEl.classList.toggle("groove-with-context", withContext);
}

export function renderHit(parent: HTMLElement, hit: SearchHit, index: number, opts: RenderOptions): HTMLElement {
  const item = el(parent, "div", {
    cls: "groove-hit",
    attr: { draggable: "true", "data-index": index, "data-path": hit.path, role: "option", tabindex: -1 },
  });
  const header = el(item, "div", { cls: "groove-hit-header" });
  el(header, "span", { cls: "groove-hit-title", text: hit.title || hit.path, title: hit.path });
  const folder = folderOf(hit.path);
  if (folder) el(header, "span", { cls: "groove-hit-folder", text: folder, title: hit.path });
  el(header, "span", { cls: "groove-hit-score", text: formatScore(hit.score), title: `rank ${hit.rank} · score ${hit.score}` });

  const trail = headingTrail(hit);
  if (trail.length) {
    const meta = el(item, "div", { cls: "groove-hit-meta" });
    el(meta, "span", { cls: "groove-hit-headings", text: trail.join(" › ") });
  }

  const snippet = el(item, "div", { cls: "groove-hit-snippet" });
  const expandable = (hit.expanded_from?.length ?? 0) > 0;
  let withContext = opts.showContext && expandable;
  renderSnippet(snippet, hit, withContext, opts.snippetContext);

  if (expandable) {
    const lines = hit.expanded_from.map((r) => `${r.line_range[0]}–${r.line_range[1]}`).join(", ");
    const toggle = el(item, "button", {
      cls: "groove-context-toggle",
      attr: { type: "button", "aria-pressed": String(withContext) },
      title: `Context: lines ${lines}`,
    });
    const label = () => (toggle.textContent = withContext ? "Hide context" : "Show context");
    label();
    toggle.addEventListener("click", (evt) => {
      evt.stopPropagation();
      withContext = !withContext;
      toggle.setAttribute("aria-pressed", String(withContext));
      label();
      renderSnippet(snippet, hit, withContext, opts.snippetContext);
    });
  }

  item.addEventListener("click", (evt) => {
    const mark = (evt.target as HTMLElement | null)?.closest?.("mark.groove-match");
    const span = mark ? Number(mark.getAttribute("data-span")) || 0 : 0;
    opts.onOpen?.(hit, span, evt);
  });
  // Middle click opens in a new tab like Obsidian's own lists.
  item.addEventListener("auxclick", (evt) => {
    if (evt.button === 1) opts.onOpen?.(hit, 0, evt);
  });
  item.addEventListener("dragstart", (evt) => {
    const link = (opts.linkFor ?? ((h: SearchHit) => hitWikilink(h)))(hit);
    evt.dataTransfer?.setData("text/plain", link);
    if (evt.dataTransfer) evt.dataTransfer.effectAllowed = "copyLink";
  });
  return item;
}

/** Renders a whole response (or clears for null). Returns the hit elements. */
export function renderResults(container: HTMLElement, response: SearchResponse | null, opts: RenderOptions): HTMLElement[] {
  clear(container);
  if (!response) return [];
  if (response.low_confidence) {
    el(container, "div", {
      cls: ["groove-banner", "groove-low-confidence"],
      text: "No strong match — these are the closest notes.",
      attr: { role: "status" },
    });
  }
  for (const w of response.warnings ?? []) el(container, "div", { cls: ["groove-banner", "groove-warning"], text: w });
  const n = response.results.length;
  const summary = el(container, "div", { cls: "groove-summary" });
  summary.textContent = n === 0 ? "No results" : `${n} result${n === 1 ? "" : "s"}`;
  if (opts.footnote) el(summary, "span", { cls: "groove-footnote", text: ` · ${opts.footnote}` });
  const list = el(container, "div", { cls: "groove-hits", attr: { role: "listbox" } });
  return response.results.map((hit, i) => renderHit(list, hit, i, opts));
}

export function renderError(container: HTMLElement, message: string): void {
  clear(container);
  el(container, "div", { cls: ["groove-banner", "groove-error"], text: message, attr: { role: "alert" } });
}

export interface RelatedHandlers {
  onOpenPath(path: string, line: number | null, evt: MouseEvent): void;
  /** Outgoing links are resolved by the daemon (headings, block refs). */
  onOpenLink(target: string, fromPath: string, evt: MouseEvent): void;
}

export function renderRelated(container: HTMLElement, related: RelatedNotesResult | null, h: RelatedHandlers): void {
  clear(container);
  if (!related) return;
  const section = (title: string, count: number) => {
    const s = el(container, "div", { cls: "groove-related-section" });
    el(s, "div", { cls: "groove-related-heading", text: `${title} (${count})` });
    if (!count) el(s, "div", { cls: "groove-related-empty", text: "None" });
    return el(s, "ul", { cls: "groove-related-list" });
  };
  const item = (list: HTMLElement, text: string, sub: string, onClick: (e: MouseEvent) => void) => {
    const li = el(list, "li", { cls: "groove-related-item", attr: { tabindex: 0 } });
    el(li, "span", { cls: "groove-related-name", text });
    if (sub) el(li, "span", { cls: "groove-related-sub", text: sub });
    li.addEventListener("click", onClick);
    return li;
  };

  const sim = section("Similar", related.similar.length);
  for (const s of related.similar) item(sim, s.title || s.path, formatScore(s.score), (e) => h.onOpenPath(s.path, null, e));
  const back = section("Backlinks", related.backlinks.length);
  for (const b of related.backlinks) item(back, b.title || b.path, `line ${b.line}`, (e) => h.onOpenPath(b.path, b.line, e));
  const out = section("Outgoing links", related.outgoing.length);
  for (const o of related.outgoing) {
    const li = item(out, o.target, o.path ? "" : "unresolved", (e) => h.onOpenLink(o.target, related.path, e));
    if (!o.path) li.classList.add("groove-unresolved");
  }
}

export type DaemonState =
  | { kind: "not-running"; detail?: string }
  | { kind: "connecting" }
  | { kind: "error"; message: string }
  | { kind: "status"; status: IndexStatusResult; progress?: IndexProgress | null };

const fmt = (n: number) => n.toLocaleString("en-US");

/** Status-bar text and tooltip. */
export function formatStatus(s: DaemonState): { text: string; tooltip: string } {
  switch (s.kind) {
    case "not-running":
      return { text: "groove: daemon not running", tooltip: s.detail ?? "Click to start/connect" };
    case "connecting":
      return { text: "groove: connecting…", tooltip: "Connecting to the groove daemon" };
    case "error":
      return { text: "groove: error", tooltip: s.message };
    case "status": {
      const st = s.status;
      const p = s.progress ?? st.progress;
      const tooltip = `${fmt(st.documents)} notes · ${fmt(st.chunks)} chunks · ${st.model}` + (st.last_error ? `\nlast index error: ${st.last_error}` : "");
      if ((st.indexing || (p && p.phase !== "done")) && p) {
        return { text: p.total ? `groove: indexing ${fmt(p.done)}/${fmt(p.total)}` : "groove: indexing…", tooltip };
      }
      if (st.indexing) return { text: "groove: indexing…", tooltip };
      if (st.last_error) return { text: "groove: index error", tooltip };
      if (st.stale_files > 0) return { text: `groove: ${fmt(st.stale_files)} file${st.stale_files === 1 ? "" : "s"} to index`, tooltip };
      return { text: "groove: up to date", tooltip };
    }
  }
}
