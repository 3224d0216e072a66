/**
 * Display text of a hit for the editors' result lists: Markdown heading
 * markers and blank-line runs removed (the heading path is shown apart),
 * long plain stretches elided, every highlight kept with the index of its
 * match span. Shared by the Obsidian panel (HTML marks) and the VS Code
 * QuickPick / results tree (one line with highlight ranges).
 */
import { hitSegments } from "./hits";
import { elideSegments, type Segment } from "./offsets";
import type { SearchHit } from "./protocol";

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
  highlights: SnippetHighlight[];
}

/**
 * One line of text for list UIs that cannot show line breaks (QuickPick
 * detail, tree labels): tidied, elided to about `context` characters around
 * each highlight, whitespace runs collapsed to one space. `highlights` index
 * into `text`, each with its span index.
 */
export function snippetLine(hit: SearchHit, context = 60, withContext = false): SnippetLine {
  const { segments } = hitSegments(hit, withContext);
  const shown = elideSegments(tidySegments(segments), context);
  let text = "";
  const highlights: SnippetHighlight[] = [];
  for (const seg of shown) {
    // Collapse whitespace per segment; a space never doubles across a boundary.
    let t = collapseWhitespace(seg.text);
    if (text.endsWith(" ") && t.startsWith(" ")) t = t.slice(1);
    if (!text && !seg.highlighted) t = t.replace(/^ /, "");
    if (seg.highlighted && seg.span !== undefined && t) highlights.push({ start: text.length, end: text.length + t.length, span: seg.span });
    text += t;
  }
  const trimmed = text.replace(/ +$/, "");
  return { text: trimmed, highlights: highlights.filter((h) => h.start < trimmed.length).map((h) => ({ ...h, end: Math.min(h.end, trimmed.length) })) };
}

/**
 * The text around one match span, on one line (a per-match row in a list):
 * `context` characters either side, cut at line breaks so the row shows the
 * span's own line.
 */
export function spanContextLine(hit: SearchHit, spanIndex: number, context = 40): SnippetLine | null {
  const { segments } = hitSegments(hit, true);
  let at = -1;
  let full = "";
  let spanText = "";
  for (const seg of segments) {
    if (seg.highlighted && seg.span === spanIndex) {
      at = full.length;
      spanText = seg.text;
    }
    full += seg.text;
  }
  if (at < 0) return null;
  const lineStart = Math.max(full.lastIndexOf("\n", at - 1) + 1, 0);
  let lineEnd = full.indexOf("\n", at + spanText.length);
  if (lineEnd < 0) lineEnd = full.length;
  let before = full.slice(Math.max(lineStart, at - context), at);
  let after = full.slice(at + spanText.length, Math.min(lineEnd, at + spanText.length + context));
  before = before.replace(/^[ \t]*#{1,6}[ \t]+/, "").replace(/\s+/g, " ").replace(/^ /, "");
  after = after.replace(/\s+/g, " ").replace(/ $/, "");
  const lead = at - context > lineStart ? "… " : "";
  const tail = at + spanText.length + context < lineEnd ? " …" : "";
  const shownSpan = spanText.replace(/\s+/g, " ");
  const text = lead + before + shownSpan + after + tail;
  const start = (lead + before).length;
  return { text, highlights: [{ start, end: start + shownSpan.length, span: spanIndex }] };
}
