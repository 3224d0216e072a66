/**
 * Rendering of search responses, related notes, connection states and status
 * text — plain functions over a container element, no Obsidian imports, so
 * they are unit-tested with happy-dom and rendered in headless Chromium with
 * real daemon results.
 */
import { describeState, downloadLabel, pullText, progressText, type ConnectionState, type InstallHint, type ModelPullProgress, type Problem } from "@groove/editor-client/connection";
import { displayRuns, sliceRuns, type DisplayRun } from "@groove/editor-client/display";
import { answerText, groupHits, hitWikilink } from "@groove/editor-client/hits";
import { describeConfidence, describeExplain } from "@groove/editor-client/explain";
import { attachmentRow, ownHeadingRow, similarFigure } from "@groove/editor-client/related";
import type { RelatedNotesResult, SearchHit, SearchResponse } from "@groove/editor-client/protocol";
import { hitDisplay, tidySegments } from "@groove/editor-client/snippet";
import { clear, el } from "./dom";

export { tidySegments };

export interface HitHandlers {
  /** Open the note at match span `spanIndex` (an index into `hit.match_spans`; -1: the hit's chunk). */
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
  /** Prefix for element ids (aria-activedescendant needs ids unique in the page). */
  idPrefix?: string;
}

/** Folder part of a vault path ("a/b/c.md" -> "a/b"). */
export function folderOf(path: string): string {
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

/**
 * Appends display runs as DOM: word matches in <mark class="groove-match">
 * whose `data-span` is that span's index in `hit.match_spans` (the identity a
 * click passes on), answer sentences in <span class="groove-answer">, code
 * in <code>.
 */
function appendRuns(parent: HTMLElement, runs: DisplayRun[]): void {
  for (const r of runs) {
    let node: Node = parent.ownerDocument.createTextNode(r.text);
    if (r.code) {
      const c = parent.ownerDocument.createElement("code");
      c.appendChild(node);
      node = c;
    }
    if (r.match !== undefined) {
      const m = el(null, "mark", { cls: "groove-match", attr: { "data-span": r.match } }, parent.ownerDocument);
      m.appendChild(node);
      node = m;
    }
    if (r.answer !== undefined) {
      const a = el(null, "span", { cls: "groove-answer", attr: { "data-answer": r.answer } }, parent.ownerDocument);
      a.appendChild(node);
      node = a;
    }
    // A word inside an answer: one answer element around consecutive runs reads better to a screen reader, but
    // the runs stay separate here so each match keeps its own mark.
    parent.appendChild(node);
  }
}

/** Characters of context shown on each side of the hit before "Show more". */
export const CONTEXT_CAP = 280;

/** A cut of `text` near `at` that falls between words (or CJK characters), searching towards `dir`. */
function wordCut(text: string, at: number, dir: -1 | 1): number {
  const ok = (k: number) => k <= 0 || k >= text.length || /\s/.test(text[k - 1]!) || /\s/.test(text[k]!) || /[\u3000-\u9fff\uac00-\ud7af\uff00-\uffef]/.test(text[k - 1]! + text[k]!);
  let k = at;
  for (let n = 0; n < 40 && !ok(k); n++) k += dir;
  return ok(k) ? k : at;
}

/**
 * Fills `snippetEl` with the hit's text as a person reads it (no Markdown
 * source; editor-client's markdownDisplay), cut between words around the
 * first highlight. With context (the parent retriever's `expanded_from`),
 * the hit's own lines are set apart in `.groove-own` between the muted
 * context before and after it, each side capped at CONTEXT_CAP characters
 * with a "Show more".
 */
export function renderSnippet(snippetEl: HTMLElement, hit: SearchHit, withContext: boolean, context = 80): void {
  clear(snippetEl);
  snippetEl.classList.toggle("groove-with-context", withContext);
  if (!withContext) {
    const d = hitDisplay(hit, { window: { before: context, width: context * 3 } });
    if (d.before) el(snippetEl, "span", { cls: "groove-elided", text: "… " });
    appendRuns(snippetEl, displayRuns(d));
    if (d.after) el(snippetEl, "span", { cls: "groove-elided", text: " …" });
    return;
  }
  const d = hitDisplay(hit, { withContext: true });
  const runs = displayRuns(d);
  const own = d.marks[0] ?? { start: 0, end: d.text.length, index: 0 };
  // Each block without the line breaks at its edges (the blocks themselves break the lines).
  const trim = (a: number, b: number): [number, number] => {
    while (a < b && /\s/.test(d.text[a]!)) a++;
    while (b > a && /\s/.test(d.text[b - 1]!)) b--;
    return [a, b];
  };
  const side = (cls: string, a0: number, b0: number, keepEnd: boolean) => {
    const [a, b] = trim(a0, b0);
    if (b <= a) return;
    const box = el(snippetEl, "div", { cls: ["groove-context", cls] });
    const capped = b - a > CONTEXT_CAP;
    let cut = keepEnd ? wordCut(d.text, b - CONTEXT_CAP, 1) : wordCut(d.text, a + CONTEXT_CAP, -1);
    if (keepEnd) while (cut < b && /\s/.test(d.text[cut]!)) cut++;
    else while (cut > a && /\s/.test(d.text[cut - 1]!)) cut--;
    const paint = (full: boolean) => {
      clear(box);
      if (!full && capped && keepEnd) el(box, "span", { cls: "groove-elided", text: "… " });
      appendRuns(box, full || !capped ? sliceRuns(runs, a, b) : keepEnd ? sliceRuns(runs, cut, b) : sliceRuns(runs, a, cut));
      if (!full && capped && !keepEnd) el(box, "span", { cls: "groove-elided", text: " …" });
      if (capped) {
        const more = el(box, "button", { cls: "groove-show-more", text: full ? "Show less" : "Show more", attr: { type: "button", "aria-expanded": String(full) } });
        more.addEventListener("click", (evt) => {
          evt.stopPropagation();
          paint(!full);
        });
      }
    };
    paint(false);
  };
  side("groove-context-before", 0, own.start, true);
  const ownEl = el(snippetEl, "div", { cls: "groove-own", attr: { "aria-label": "The matching passage" } });
  appendRuns(ownEl, sliceRuns(runs, ...trim(own.start, own.end)));
  side("groove-context-after", own.end, d.text.length, false);
}

/**
 * The span a click on the hit opens: the clicked word match's; a click
 * anywhere else on a hit with an answer span: -1 (the answer, see
 * editor-client hitSelection); else the first word match shown, else -1.
 */
export function spanForClick(item: HTMLElement, target: EventTarget | null): number {
  const clicked = (target as HTMLElement | null)?.closest?.("mark.groove-match");
  const mark = clicked ?? (item.querySelector(".groove-answer") ? null : item.querySelector("mark.groove-match"));
  const n = mark ? Number(mark.getAttribute("data-span")) : NaN;
  return Number.isInteger(n) && n >= 0 ? n : -1;
}

/**
 * `answerAt`: on a note's row, the other section holding the note's best
 * answer (ADR 0269): a line under the snippet shows that sentence, and a
 * click on the row that would open the answer opens it there.
 */
export function renderHit(parent: HTMLElement, hit: SearchHit, index: number, opts: RenderOptions, sub = false, answerAt?: SearchHit): HTMLElement {
  const id = `${opts.idPrefix ?? "groove"}-hit-${index}`;
  const item = el(parent, "div", {
    cls: ["groove-hit", sub ? "groove-hit-sub" : ""],
    attr: { id, draggable: "true", "data-index": index, "data-path": hit.path, role: "option", "aria-selected": "false", tabindex: -1 },
  });
  const folder = folderOf(hit.path);
  if (!sub) {
    const header = el(item, "div", { cls: "groove-hit-header" });
    el(header, "span", { cls: "groove-hit-title", text: hit.title || hit.path, title: hit.path });
    if (folder) el(header, "span", { cls: "groove-hit-folder", text: folder, title: hit.path });
    el(header, "span", { cls: "groove-hit-score", text: formatScore(hit.score), title: `rank ${hit.rank} · score ${hit.score}` });
  }

  const trail = headingTrail(hit);
  if (trail.length || sub) {
    const meta = el(item, "div", { cls: "groove-hit-meta" });
    el(meta, "span", { cls: "groove-hit-headings", text: trail.length ? trail.join(" › ") : hit.title || hit.path });
    if (sub) el(meta, "span", { cls: "groove-hit-score", text: formatScore(hit.score), title: `rank ${hit.rank} · score ${hit.score}` });
  }
  const snippet = el(item, "div", { cls: "groove-hit-snippet" });
  const expandable = (hit.expanded_from?.length ?? 0) > 0;
  let withContext = opts.showContext && expandable;
  const answer = answerAt ? answerText(answerAt) : null;
  // The row's answer is the note's, on its own line: the snippet then shows its words only, one answer underlined.
  const shown = answerAt && answer ? { ...hit, answer_spans: [] } : hit;
  renderSnippet(snippet, shown, withContext, opts.snippetContext);
  if (answerAt && answer) {
    const where = headingTrail(answerAt).at(-1) ?? answerAt.title;
    const line = el(item, "div", { cls: "groove-note-answer", title: `The answer is in “${where}”: click to open it there` });
    el(line, "span", { cls: "groove-note-answer-where", text: `Answer in ${where}: ` });
    el(line, "span", { cls: "groove-answer", text: answer });
  }
  if (hit.explain) el(item, "div", { cls: "groove-hit-why", text: `why: ${describeExplain(hit.explain)}` });
  // Screen readers read the option's name: title, headings, then the snippet text.
  item.setAttribute("aria-label", [hit.title || hit.path, folder, trail.join(", "), snippet.textContent ?? ""].filter(Boolean).join(" — "));

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
      renderSnippet(snippet, shown, withContext, opts.snippetContext);
    });
  }

  // -1 opens the answer: the note's, wherever it is, when this row names one.
  const open = (span: number, evt: MouseEvent | KeyboardEvent) => opts.onOpen?.(span < 0 && answerAt && answer ? answerAt : hit, span, evt);
  item.addEventListener("click", (evt) => open(spanForClick(item, evt.target), evt));
  // Middle click opens in a new tab like Obsidian's own lists.
  item.addEventListener("auxclick", (evt) => {
    if (evt.button === 1) open(spanForClick(item, evt.target), evt);
  });
  // Focused directly (a screen reader's virtual cursor, a click then Tab): Enter/Space open it.
  item.addEventListener("keydown", (evt) => {
    if (evt.target !== item || (evt.key !== "Enter" && evt.key !== " ")) return;
    evt.preventDefault();
    open(spanForClick(item, null), evt);
  });
  item.addEventListener("dragstart", (evt) => {
    const link = (opts.linkFor ?? ((h: SearchHit) => hitWikilink(h)))(hit);
    evt.dataTransfer?.setData("text/plain", link);
    if (evt.dataTransfer) evt.dataTransfer.effectAllowed = "copyLink";
  });
  return item;
}

/** Renders a whole response (or clears for null). Returns the hit elements in list order (grouped by note); each one's `data-index` is its index in `response.results`. */
export function renderResults(container: HTMLElement, response: SearchResponse | null, opts: RenderOptions & { listId?: string }): HTMLElement[] {
  clear(container);
  if (!response) return [];
  const n = response.results.length;
  // "No strong match" describes the closest notes: there must be some.
  if (response.low_confidence === true && n > 0) {
    el(container, "div", {
      cls: ["groove-banner", "groove-low-confidence"],
      text: "No strong match — these are the closest notes.",
      attr: { role: "status" },
    });
  }
  // With `explain` on, why the banner is (or is not) there.
  if (response.confidence) el(container, "div", { cls: "groove-confidence-why", text: `confidence: ${describeConfidence(response.confidence)}` });
  for (const w of response.warnings ?? []) el(container, "div", { cls: ["groove-banner", "groove-warning"], text: w });
  const summary = el(container, "div", { cls: "groove-summary", attr: { role: "status", "aria-live": "polite" } });
  summary.textContent = n === 0 ? "No results" : `${n} result${n === 1 ? "" : "s"}`;
  if (opts.footnote) el(summary, "span", { cls: "groove-footnote", text: ` · ${opts.footnote}` });
  const list = el(container, "div", { cls: "groove-hits", attr: { role: "listbox", id: opts.listId, "aria-label": "Search results" } });
  // One row per note: its best section, its other matching sections beneath
  // (collapsed). The daemon's list stays one hit per chunk; grouping is ours.
  const items: HTMLElement[] = [];
  for (const g of groupHits(response.results)) {
    const note = el(list, "div", { cls: "groove-note", attr: { role: "presentation", "data-path": g.path } });
    items.push(renderHit(note, g.best.hit, g.best.index, opts, false, g.answer === g.best ? undefined : g.answer.hit));
    if (!g.others.length) continue;
    const more = el(note, "button", { cls: "groove-more-sections", attr: { type: "button", "aria-expanded": "false" } });
    const box = el(note, "div", { cls: "groove-note-sections", attr: { role: "group", hidden: true } });
    const label = (open: boolean) => (more.textContent = `${open ? "▾" : "▸"} ${g.others.length} more section${g.others.length === 1 ? "" : "s"} in this note`);
    label(false);
    more.addEventListener("click", (evt) => {
      evt.stopPropagation();
      const open = box.hidden;
      box.hidden = !open;
      more.setAttribute("aria-expanded", String(open));
      label(open);
    });
    for (const o of g.others) items.push(renderHit(box, o.hit, o.index, opts, true));
  }
  return items;
}

export function renderError(container: HTMLElement, message: string): void {
  clear(container);
  el(container, "div", { cls: ["groove-banner", "groove-error"], text: message, attr: { role: "alert" } });
}

export interface StateActions {
  onRetry?(): void;
  onBuildIndex?(): void;
  /** "Download the default model (≈ 91 MB)" / "Try again" on a model card. */
  onDownloadModel?(): void;
  /** "Restart" after a crash, "Start groove" when auto-start is off. */
  onRestart?(): void;
  /** Copies a command line (default: the clipboard API). */
  onCopy?(text: string): Promise<void> | void;
}

/**
 * The connection state as a card above the results: the first index (with
 * progress), or a problem with its fix and the buttons that act on it.
 * Ready / connecting / a background update render nothing (the status bar
 * has them). Returns whether something was rendered.
 */
export function renderState(container: HTMLElement, state: ConnectionState, actions: StateActions = {}): boolean {
  clear(container);
  container.className = "groove-state";
  if (state.kind === "first-index") {
    container.classList.add("groove-state-first-index");
    container.setAttribute("role", "status");
    el(container, "div", { cls: "groove-state-title", text: "Building the search index for the first time" });
    const p = state.progress;
    const bar = el(container, "progress", { cls: "groove-progress", attr: { "aria-label": "Indexing progress" } });
    if (p && p.total > 0) {
      bar.max = p.total;
      bar.value = p.done;
    }
    el(container, "div", { cls: "groove-state-detail", text: `${progressText(p)[0]!.toUpperCase()}${progressText(p).slice(1)}. Results appear here when it is done.` });
    return true;
  }
  if (state.kind === "model-download") {
    renderDownload(container, state.progress);
    return true;
  }
  if (state.kind === "problem") {
    renderProblem(container, state.problem, actions);
    return true;
  }
  container.removeAttribute("role");
  return false;
}

/** The default model's download: a progress bar in bytes, then verify/convert. */
function renderDownload(container: HTMLElement, p: ModelPullProgress): void {
  container.classList.add("groove-state-download");
  container.setAttribute("role", "status");
  container.setAttribute("data-phase", p.phase);
  el(container, "div", { cls: "groove-state-title", text: "Downloading the default embedding model" });
  const bar = el(container, "progress", { cls: "groove-progress", attr: { "aria-label": "Model download progress" } });
  if (p.phase === "download" && p.total > 0) {
    bar.max = p.total;
    bar.value = p.done;
  } else if (p.phase !== "resolve") {
    bar.max = 1;
    bar.value = 1;
  }
  el(container, "div", { cls: "groove-state-detail groove-download-text", text: pullText(p) });
  if (p.note) el(container, "div", { cls: "groove-state-note", text: p.note });
  el(container, "div", { cls: "groove-state-detail", text: "Search starts by itself when it is ready: groove then builds this vault's index." });
}

function copyText(text: string, actions: StateActions): Promise<void> {
  if (actions.onCopy) return Promise.resolve(actions.onCopy(text));
  const clip = (globalThis.navigator as Navigator | undefined)?.clipboard;
  return clip ? clip.writeText(text) : Promise.reject(new Error("no clipboard"));
}

/** A command line with a Copy button. */
function commandRow(parent: HTMLElement, command: string, actions: StateActions): void {
  const row = el(parent, "div", { cls: "groove-command-row" });
  el(row, "code", { cls: "groove-state-command", text: command });
  const b = el(row, "button", { cls: "groove-copy", text: "Copy", attr: { type: "button", "aria-label": `Copy: ${command}` } });
  b.addEventListener("click", () => {
    void copyText(command, actions).then(
      () => (b.textContent = "Copied"),
      () => (b.textContent = "Select and copy"),
    );
  });
}

/** backend-not-found: this OS's steps, each with its command. */
function renderInstall(container: HTMLElement, h: InstallHint, actions: StateActions): void {
  const steps = el(container, "ol", { cls: "groove-install-steps", attr: { "data-os": h.os, "aria-label": `Install groove on ${h.osName}` } });
  const first = el(steps, "li", {});
  el(first, "div", { text: `Once: ${h.prerequisite}` });
  if (h.prerequisiteCommand) commandRow(first, h.prerequisiteCommand, actions);
  const second = el(steps, "li", {});
  el(second, "div", { text: "Install groove (the package is groove-search; the command is groove):" });
  commandRow(second, h.command, actions);
  el(second, "div", { cls: "groove-state-or", text: "or, with uv:" });
  commandRow(second, h.alternative, actions);
  const third = el(steps, "li", {});
  el(third, "div", { text: "Then press Check again — no restart needed." });
}

function renderProblem(container: HTMLElement, p: Problem, actions: StateActions): void {
  container.classList.add("groove-state-problem");
  container.setAttribute("data-cause", p.cause);
  container.setAttribute("role", "alert");
  el(container, "div", { cls: "groove-state-title", text: p.title });
  el(container, "div", { cls: "groove-state-detail", text: p.detail });
  el(container, "div", { cls: "groove-state-fix", text: p.fix });
  if (p.install) renderInstall(container, p.install, actions);
  else if (p.command) commandRow(container, p.command, actions);
  if (p.download?.modelsDir) el(container, "div", { cls: "groove-state-note", text: `Saved in ${p.download.modelsDir}; from ${p.download.indexUrl ?? "the package index"}.` });
  // The last lines matter most: the inner span sits at the bottom of the scrolled box (CSS).
  if (p.logTail) el(el(container, "pre", { cls: "groove-state-log", attr: { tabindex: 0, "aria-label": "Daemon log, last lines" } }), "span", { text: p.logTail });
  const buttons = el(container, "div", { cls: "groove-state-actions" });
  const button = (text: string, cta: boolean, fn: (() => void) | undefined, action: string) => {
    if (!fn) return;
    const b = el(buttons, "button", { cls: cta ? "mod-cta" : "", text, attr: { type: "button", "data-action": action } });
    b.addEventListener("click", () => {
      b.disabled = true; // one click, one run: the next state re-renders the card
      fn();
    });
  };
  if (p.download) button(downloadLabel(p), true, actions.onDownloadModel, "download-model");
  if (p.canReindex) button("Build the index", true, actions.onBuildIndex, "build-index");
  if (p.canRestart) button(p.cause === "daemon-not-running" ? "Start groove" : "Restart", true, actions.onRestart, "restart");
  // After a crash "Restart" is the check; everywhere else "Check again" re-probes.
  if (p.cause !== "daemon-crashed") button("Check again", false, actions.onRetry, "retry");
}

/** `Target#Heading` for an outgoing link the daemon listed: the heading stays on the link. */
export function outgoingLinktext(o: { target: string; heading: string | null }): string {
  if (o.heading) return `${o.target}#${o.heading}`;
  return o.target;
}

export interface RelatedHandlers {
  onOpenPath(path: string, line: number | null, evt: MouseEvent | KeyboardEvent): void;
  /** Outgoing links are resolved like Obsidian does (`Target#Heading` / `Target#^block`). */
  onOpenLink(linktext: string, fromPath: string, evt: MouseEvent | KeyboardEvent): void;
  /** Another note has the same name (Obsidian's fileToLinktext would need the path). */
  nameIsAmbiguous?(path: string): boolean;
  /** "Insert link" on a similar note: write a link to `path` at the editor's cursor. */
  onInsertLink?(path: string): void;
  /** The list holds only unlinked notes (the heading says so). */
  unlinkedOnly?: boolean;
}

/**
 * Related notes: similar notes, backlinks, outgoing links. Each list is a
 * listbox: arrow keys move, Enter/Space open, Home/End jump. Names that
 * collide (in these lists or in the vault) show their folder.
 */
export function renderRelated(container: HTMLElement, related: RelatedNotesResult | null, h: RelatedHandlers): void {
  clear(container);
  if (!related) return;
  const names = new Map<string, Set<string>>();
  const note = (title: string, path: string) => {
    const k = title.toLowerCase();
    if (!names.has(k)) names.set(k, new Set());
    names.get(k)!.add(path);
  };
  for (const s of related.similar) note(s.title || s.path, s.path);
  for (const b of related.backlinks) note(b.title || b.path, b.path);
  const collides = (title: string, path: string) => (names.get(title.toLowerCase())?.size ?? 0) > 1 || !!h.nameIsAmbiguous?.(path);
  const where = (title: string, path: string) => (collides(title, path) ? folderOf(path) || "(vault root)" : "");

  const section = (key: string, title: string, count: number) => {
    const s = el(container, "div", { cls: "groove-related-section" });
    const headingId = `groove-related-${key}`;
    el(s, "div", { cls: "groove-related-heading", text: `${title} (${count})`, attr: { id: headingId } });
    if (!count) el(s, "div", { cls: "groove-related-empty", text: "None" });
    return el(s, "ul", { cls: "groove-related-list", attr: { role: "listbox", "aria-labelledby": headingId } });
  };
  const item = (list: HTMLElement, text: string, folder: string, sub: string, open: (e: MouseEvent | KeyboardEvent) => void) => {
    const li = el(list, "li", { cls: "groove-related-item", attr: { role: "option", "aria-selected": "false", tabindex: list.children.length === 0 ? 0 : -1 } });
    el(li, "span", { cls: "groove-related-name", text });
    if (folder) el(li, "span", { cls: "groove-related-folder", text: folder });
    if (sub) el(li, "span", { cls: "groove-related-sub", text: sub });
    li.setAttribute("aria-label", [text, folder && `in ${folder}`, sub].filter(Boolean).join(", "));
    li.addEventListener("click", open);
    li.addEventListener("keydown", (e) => {
      if (e.key === "Enter" || e.key === " ") {
        e.preventDefault();
        open(e);
      }
    });
    return li;
  };

  const sim = section("similar", h.unlinkedOnly ? "Similar, not linked" : "Similar", related.similar.length);
  for (const s of related.similar) {
    // The figure that orders the list (relevance, ADR 0276), not the cosine beside it.
    const fig = similarFigure(s);
    const sub = s.linked ? `${fig.value} · linked` : fig.value;
    const li = item(sim, s.title || s.path, where(s.title || s.path, s.path), sub, (e) => h.onOpenPath(s.path, null, e));
    li.title = fig.title;
    li.setAttribute("data-path", s.path);
    if (s.linked) li.classList.add("groove-linked");
    // A note already linked needs no second link (issue 47).
    if (h.onInsertLink && !s.linked) {
      const b = el(li, "button", { cls: "groove-insert-link", text: "Insert link", attr: { type: "button", "aria-label": `Insert a link to ${s.title || s.path} at the cursor` } });
      // The button is not the row: no open, and the row's keys stay the row's.
      b.addEventListener("click", (e) => {
        e.stopPropagation();
        h.onInsertLink!(s.path);
      });
      b.addEventListener("keydown", (e) => e.stopPropagation());
    }
  }
  const back = section("backlinks", "Backlinks", related.backlinks.length);
  for (const b of related.backlinks) item(back, b.title || b.path, where(b.title || b.path, b.path), `line ${b.line}`, (e) => h.onOpenPath(b.path, b.line, e));
  const out = section("outgoing", "Outgoing links", related.outgoing.length);
  for (const o of related.outgoing) {
    const linktext = outgoingLinktext(o);
    const li = item(out, linktext, o.path && collides(o.target, o.path) ? folderOf(o.path) : "", o.path ? "" : "unresolved", (e) => h.onOpenLink(linktext, related.path, e));
    if (!o.path) li.classList.add("groove-unresolved");
  }
  // Files that are not notes, and places in this note, apart from the outgoing notes (ADR 0257);
  // shown only when there are some: most notes have none, and two more "None" lists are noise.
  const attachments = related.attachments ?? [];
  if (attachments.length) {
    const att = section("attachments", "Attachments", attachments.length);
    for (const a of attachments) {
      const r = attachmentRow(a);
      const li = item(att, r.label, "", r.detail, (e) => (r.path ? h.onOpenPath(r.path, null, e) : undefined));
      if (!r.path) li.classList.add("groove-unresolved");
    }
  }
  const ownHeadings = related.own_headings ?? [];
  if (ownHeadings.length) {
    const own = section("own-headings", "Links within this note", ownHeadings.length);
    for (const o of ownHeadings) {
      const r = ownHeadingRow(o);
      item(own, r.label, "", r.detail, (e) => h.onOpenLink(r.linktext, related.path, e));
    }
  }
  for (const list of container.querySelectorAll<HTMLElement>(".groove-related-list")) listKeys(list);
}

/** Roving focus in a listbox: Up/Down/Home/End move the focus and aria-selected. */
function listKeys(list: HTMLElement): void {
  const items = () => [...list.querySelectorAll<HTMLElement>("[role=option]")];
  const focus = (i: number) => {
    const all = items();
    const next = all[Math.max(0, Math.min(i, all.length - 1))];
    if (!next) return;
    for (const it of all) {
      it.setAttribute("tabindex", it === next ? "0" : "-1");
      it.setAttribute("aria-selected", String(it === next));
    }
    next.focus();
  };
  list.addEventListener("keydown", (e) => {
    const all = items();
    const at = all.indexOf(e.target as HTMLElement);
    if (at < 0) return;
    if (e.key === "ArrowDown") focus(at + 1);
    else if (e.key === "ArrowUp") focus(at - 1);
    else if (e.key === "Home") focus(0);
    else if (e.key === "End") focus(all.length - 1);
    else return;
    e.preventDefault();
  });
  list.addEventListener("focusin", (e) => {
    for (const it of items()) it.setAttribute("aria-selected", String(it === e.target));
  });
}

/** Status-bar text and tooltip. */
export function formatStatus(s: ConnectionState): { text: string; tooltip: string } {
  const d = describeState(s);
  const card = s.kind === "problem" && !!(s.problem.install || s.problem.download || s.problem.canRestart);
  const tooltip = s.kind === "problem" ? `${d.tooltip}${s.problem.command ? ` — ${s.problem.command}` : ""} (click to ${card ? "open the groove panel" : "check again"})` : d.tooltip;
  return { text: `groove: ${d.text}`, tooltip };
}
