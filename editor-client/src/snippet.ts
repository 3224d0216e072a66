/**
 * What the editors show of a hit: its text without Markdown (display.ts),
 * cut around the first highlight, every highlight kept with the index of its
 * span. Shared by the Obsidian panel (HTML marks) and the VS Code QuickPick /
 * results tree (one line with highlight ranges).
 */
import { markdownDisplay, windowDisplay, type DisplaySpan, type DisplayText, type WindowOptions } from "./display";
import { ownChunkWindow } from "./hits";
import { Utf8Mapper, type Segment } from "./offsets";
import type { ByteSpan, SearchHit } from "./protocol";

const HEADING_LINE = /^[ \t]*#{1,6}[ \t][^\n]*(?:\n|$)/;
const BLANK_RUNS = /(?:\r?\n[ \t]*){2,}/g;
const HEADING_MARKER = /(^|\n)[ \t]*#{1,6}[ \t]+/g;
// Scripts written without spaces between words: kana, kanji/hanzi, CJK
// punctuation, full-width forms (not Hangul). A line wrapped between two of
// them is no word gap, so it joins without a space.
const UNSPACED = "\\u3000-\\u30ff\\u3400-\\u4dbf\\u4e00-\\u9fff\\uf900-\\ufaff\\uff00-\\uffef";
const WRAP_IN_CJK = new RegExp(`(?<=[${UNSPACED}])[ \\t]*\\r?\\n\\s*(?=[${UNSPACED}])`, "g");

/** Whitespace runs as one space; a line break inside Japanese or Chinese text as nothing. */
export function collapseWhitespace(text: string): string {
  return text.replace(WRAP_IN_CJK, "").replace(/\s+/g, " ");
}

/**
 * Display-only clean-up of a snippet: chunk text starts with its Markdown
 * heading lines (already shown as the heading path), blank lines waste a
 * narrow list, and "## " markers are noise. Highlighted segments are never
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

/** A highlight inside a one-line snippet: UTF-16 `[start, end)` and its match span. */
export interface SnippetHighlight {
  start: number;
  end: number;
  span: number;
}

export interface SnippetLine {
  text: string;
  /** Word matches (`span`: index into `match_spans`). */
  highlights: SnippetHighlight[];
  /** Answer spans (index into `answer_spans`). */
  answers: SnippetHighlight[];
}

/** A hit's answer spans; an older daemon sends none. */
export function answerSpans(hit: SearchHit): ByteSpan[] {
  return hit.answer_spans ?? [];
}

export interface HitDisplayOptions {
  /** The whole expanded content (with the hit's own chunk as `marks[0]`), else only the own chunk. */
  withContext?: boolean;
  oneLine?: boolean;
  /** Cut around the first highlight; null: the whole text. */
  window?: WindowOptions | null;
  /** Window around the first word match even when there is an answer span (a list row that can mark only the matches). */
  preferMatch?: boolean;
}

/** What a panel shows of a hit: readable text, its spans, and whether context was cut off before/after. */
export interface HitDisplay extends DisplayText {
  before: boolean;
  after: boolean;
}

/**
 * A hit as readable text (Markdown removed: markdownDisplay) with its match
 * and answer spans on it. Without context only the hit's own chunk is shown
 * (spans clipped to it); with context the whole expanded content, the own
 * chunk as `marks[0]` so the panel can set it apart.
 */
export function hitDisplay(hit: SearchHit, o: HitDisplayOptions = {}): HitDisplay {
  const expanded = (hit.expanded_from?.length ?? 0) > 0;
  // The expanded context shows the note as it is, headings included (every span visible there).
  const opts = { oneLine: o.oneLine ?? false, dropLeadingHeadings: !(expanded && o.withContext) };
  let d: DisplayText;
  let before = false;
  let after = false;
  if (!expanded || o.withContext) {
    const own = expanded ? [ownChunkWindow(hit)] : [];
    d = markdownDisplay(hit.content, { match: hit.match_spans ?? [], answer: answerSpans(hit), marks: own }, opts);
  } else {
    const [ws, we] = ownChunkWindow(hit);
    const m = new Utf8Mapper(hit.content);
    const text = hit.content.slice(m.toIndex(ws), m.toIndex(we));
    const clip = (list: ByteSpan[]) => list.map(([s, e]) => [Math.max(s, ws) - ws, Math.min(e, we) - ws] as [number, number]);
    // Clipping keeps each span's index: filter empty ones only after mapping.
    d = markdownDisplay(text, { match: clip(hit.match_spans ?? []), answer: clip(answerSpans(hit)) }, opts);
    before = ws > 0;
    after = we < m.byteLength;
  }
  if (o.window) {
    const w = windowDisplay(d, { ...o.window, focus: o.window.focus ?? (o.preferMatch ? d.match[0] : undefined) });
    // the window's own "…" already says the text goes on
    if (w.text.startsWith("…")) before = false;
    if (w.text.endsWith("…")) after = false;
    d = w;
  }
  return { ...d, before, after };
}

const toHighlights = (list: DisplaySpan[]): SnippetHighlight[] => list.map((s) => ({ start: s.start, end: s.end, span: s.index }));

/**
 * One line of text for list UIs that cannot show line breaks (QuickPick
 * detail, tree labels): Markdown removed, whitespace collapsed, cut between
 * words around the first word match (else the first answer span) so it shows
 * within the first `context` characters of a narrow row.
 */
export function snippetLine(hit: SearchHit, context = 60, withContext = false): SnippetLine {
  // A row marks its word matches (the answer only when there are none): the first one must show.
  const d = hitDisplay(hit, { withContext, oneLine: true, preferMatch: true, window: { before: Math.max(8, Math.round(context / 3)), width: context * 3 } });
  return { text: d.text, highlights: toHighlights(d.match), answers: toHighlights(d.answer) };
}

/**
 * The text around one match span, on one line (a per-match row in a list):
 * Markdown removed, cut between words, the span near the start.
 */
export function spanContextLine(hit: SearchHit, spanIndex: number, context = 40): SnippetLine | null {
  const full = markdownDisplay(hit.content, { match: hit.match_spans ?? [] }, { oneLine: true });
  const focus = full.match.find((s) => s.index === spanIndex);
  if (!focus) return null;
  const d = windowDisplay(full, { before: Math.round(context / 2), width: context * 2, focus });
  const mine = d.match.filter((s) => s.index === spanIndex);
  return { text: d.text, highlights: toHighlights(mine), answers: [] };
}
