/**
 * Where a hit's text lives in its source file, and helpers every editor
 * needs to show or jump to a hit.
 *
 * `content` is either the chunk itself (file bytes byte_range[0]..[1]) or,
 * when `expanded_from` is non-empty, "the merged text of those ranges, in
 * file order" (docs/protocol.md). A match span is a byte offset into
 * `content`; the editor needs a file position. The pieces below map one to
 * the other.
 */
import { indexToLineCh, utf8Length, Utf8Mapper, type LineCh, highlightSegments, segmentsOf, type IndexedSpan, type Segment } from "./offsets";
import type { ByteSpan, SearchHit } from "./protocol";
import { markdownDisplay } from "./display";

/** A stretch of `content` that is a verbatim copy of file bytes. */
export interface Piece {
  contentStart: number;
  contentEnd: number;
  fileStart: number;
  fileEnd: number;
}

/** Merges overlapping/adjacent byte ranges, sorted by start. */
export function mergeRanges(ranges: ByteSpan[]): ByteSpan[] {
  const sorted = ranges.filter(([s, e]) => e > s).sort((a, b) => a[0] - b[0]);
  const out: ByteSpan[] = [];
  for (const [s, e] of sorted) {
    const last = out[out.length - 1];
    if (last && s <= last[1]) last[1] = Math.max(last[1], e);
    else out.push([s, e]);
  }
  return out;
}

/**
 * Content byte -> file byte pieces from the hit alone (no file text).
 * protocol.md: with `expanded_from`, `content` is exactly the file bytes of
 * those ranges concatenated in file order, nothing between them; a content
 * offset maps by walking the ranges and subtracting each one's length.
 */
export function hitPieces(hit: SearchHit): Piece[] {
  const ranges: ByteSpan[] = hit.expanded_from?.length ? hit.expanded_from.map((r) => [r.byte_range[0], r.byte_range[1]]) : [[hit.byte_range[0], hit.byte_range[1]]];
  const pieces: Piece[] = [];
  let c = 0;
  for (const [s, e] of ranges) {
    if (e <= s) continue;
    pieces.push({ contentStart: c, contentEnd: c + (e - s), fileStart: s, fileEnd: e });
    c += e - s;
  }
  return pieces;
}

/**
 * Like `hitPieces`, but checks each piece against the file text and, should
 * the content not be the plain concatenation (an older daemon), finds each
 * range's text in `content`.
 * Returns null when the file no longer matches the hit (edited since it was
 * indexed): callers then fall back to `line_range`.
 */
export function verifiedPieces(hit: SearchHit, fileText: string): Piece[] | null {
  const fm = new Utf8Mapper(fileText);
  const cm = new Utf8Mapper(hit.content);
  const guess = hitPieces(hit);
  const textOf = (p: Piece) => fileText.slice(fm.toIndex(p.fileStart), fm.toIndex(p.fileEnd));
  const ok = guess.every(
    (p) => p.fileEnd <= fm.byteLength && p.contentEnd <= cm.byteLength && hit.content.slice(cm.toIndex(p.contentStart), cm.toIndex(p.contentEnd)) === textOf(p),
  );
  if (ok) return guess;
  // Search each range's text in order.
  const out: Piece[] = [];
  let from = 0;
  for (const p of guess) {
    const t = textOf(p);
    const at = t ? hit.content.indexOf(t, from) : -1;
    if (at < 0) return null;
    const cs = cm.toByte(at);
    out.push({ contentStart: cs, contentEnd: cs + (p.fileEnd - p.fileStart), fileStart: p.fileStart, fileEnd: p.fileEnd });
    from = at + t.length;
  }
  return out;
}

/** File byte offset for a content byte offset (null when it falls in a separator). */
export function contentToFileByte(pieces: Piece[], contentByte: number, bias: "start" | "end" = "start"): number | null {
  for (const p of pieces) {
    if (contentByte >= p.contentStart && (contentByte < p.contentEnd || (bias === "end" && contentByte === p.contentEnd))) {
      return p.fileStart + (contentByte - p.contentStart);
    }
  }
  const last = pieces[pieces.length - 1];
  if (last && contentByte === last.contentEnd) return last.fileEnd;
  return null;
}

/** Content byte offset for a file byte offset (null when outside the content). */
export function fileToContentByte(pieces: Piece[], fileByte: number): number | null {
  for (const p of pieces) {
    if (fileByte >= p.fileStart && fileByte <= p.fileEnd) return p.contentStart + (fileByte - p.fileStart);
  }
  return null;
}

/**
 * The hit's own chunk inside `content`, as byte offsets — what to show when
 * the "context" toggle is off. The whole content when not expanded.
 */
export function ownChunkWindow(hit: SearchHit): ByteSpan {
  const bytes = utf8Length(hit.content);
  if (!hit.expanded_from?.length) return [0, bytes];
  const pieces = hitPieces(hit);
  const s = fileToContentByte(pieces, hit.byte_range[0]);
  const e = fileToContentByte(pieces, hit.byte_range[1]);
  if (s === null || e === null || e <= s) return [0, bytes];
  return [s, Math.min(e, bytes)];
}

/**
 * Highlight segments for a hit: the whole (possibly expanded) content, or
 * only the hit's own chunk. In the latter case spans are clipped to it (a
 * span partly outside keeps its index: clicking the visible part selects
 * the whole span); `before`/`after` say whether context was cut off (to
 * show "…"). Every highlighted segment's `span` is its index in
 * `hit.match_spans`.
 */
export function hitSegments(hit: SearchHit, withContext: boolean): { segments: Segment[]; before: boolean; after: boolean } {
  const spans = hit.match_spans ?? [];
  if (withContext || !hit.expanded_from?.length) return { segments: highlightSegments(hit.content, spans), before: false, after: false };
  const [ws, we] = ownChunkWindow(hit);
  const m = new Utf8Mapper(hit.content);
  const text = hit.content.slice(m.toIndex(ws), m.toIndex(we));
  const clipped: IndexedSpan[] = spans
    .map(([s, e], span) => ({ start: Math.max(s, ws) - ws, end: Math.min(e, we) - ws, span }))
    .filter((sp) => sp.end > sp.start);
  return { segments: segmentsOf(text, clipped), before: ws > 0, after: we < m.byteLength };
}

export interface FileSelection {
  from: LineCh;
  to: LineCh;
  /** false: the file changed since indexing; the selection is the chunk's lines. */
  exact: boolean;
}

/**
 * The editor selection for match span `spanIndex` of a hit (-1: its first
 * answer span, else its first match span; the whole hit chunk when it has
 * no spans), computed from the current file text.
 * Positions are 0-based line / UTF-16 column, valid in editors that
 * normalise CRLF (see indexToLineCh).
 */
export function hitSelection(hit: SearchHit, fileText: string, spanIndex = 0): FileSelection {
  const pieces = verifiedPieces(hit, fileText);
  // -1: the first answer span (the sentence that answers the query), else the first word match.
  const span = spanIndex >= 0 ? hit.match_spans?.[spanIndex] : (hit.answer_spans?.[0] ?? hit.match_spans?.[0]);
  if (pieces) {
    let fs: number | null;
    let fe: number | null;
    if (span) {
      fs = contentToFileByte(pieces, span[0], "start");
      fe = contentToFileByte(pieces, span[1], "end");
    } else {
      [fs, fe] = hit.byte_range;
    }
    if (fs !== null && fe !== null) {
      const m = new Utf8Mapper(fileText);
      return { from: indexToLineCh(fileText, m.toIndex(fs)), to: indexToLineCh(fileText, m.toIndex(fe)), exact: true };
    }
  }
  return lineRangeSelection(hit.line_range, fileText);
}

/** Selection covering 1-based inclusive `line_range` (clamped to the file). */
export function lineRangeSelection(lineRange: [number, number] | null | undefined, fileText: string): FileSelection {
  const lines = fileText.split(/\r\n|\n|\r/);
  const first = Math.max(0, Math.min((lineRange?.[0] ?? 1) - 1, lines.length - 1));
  const last = Math.max(first, Math.min((lineRange?.[1] ?? first + 1) - 1, lines.length - 1));
  return { from: { line: first, ch: 0 }, to: { line: last, ch: lines[last]!.length }, exact: false };
}

/** File-relative byte offset of a position, for editors that need offsets. */
export function byteOffsetOfSpan(hit: SearchHit, spanIndex = 0): number | null {
  const span = hit.match_spans?.[spanIndex];
  if (!span) return hit.byte_range[0];
  return contentToFileByte(hitPieces(hit), span[0]);
}

/** Deepest heading of a hit (heading_path without a leading note title). */
export function hitHeading(hit: SearchHit): string | null {
  const hp = hit.heading_path ?? [];
  return hp.length ? hp[hp.length - 1]! : null;
}

/** Note name for a wikilink: the path without ".md". */
export function linkTarget(path: string): string {
  return path.replace(/\.md$/i, "");
}

/**
 * `[[Note#Heading]]` for a hit. Characters Obsidian does not allow in a
 * heading link ("#|^[]") are replaced by spaces, as Obsidian itself does.
 * `target` overrides the note name (Obsidian's shortest unique link text).
 */
export function hitWikilink(hit: SearchHit, target = linkTarget(hit.path)): string {
  // A canvas's "headings" are its group labels (ADR 0195): Obsidian resolves
  // no `#Group` in a canvas link, so the link names the canvas alone.
  if (/\.canvas$/i.test(hit.path)) return `[[${target}]]`;
  const h = hitHeading(hit);
  const isTitleOnly = h !== null && hit.heading_path.length === 1 && h === hit.title && hit.level <= 1;
  if (!h || isTitleOnly) return `[[${target}]]`;
  const clean = h.replace(/[#|^[\]]+/g, " ").replace(/\s+/g, " ").trim();
  return clean ? `[[${target}#${clean}]]` : `[[${target}]]`;
}


/** A note's hits in one row: its best-ranked section, then its other matching sections in rank order. */
export interface NoteGroup {
  path: string;
  best: { hit: SearchHit; index: number };
  others: Array<{ hit: SearchHit; index: number }>;
  /**
   * The section the row's answer is in: where the note's sentence that best
   * answers the query is (the daemon names it by `note_answer_rank` on the
   * best hit, ADR 0269, or by `note_answer` when that section was not
   * returned: then a hit made of that sentence, see `noteAnswerHit`, with the
   * best hit's index); `best` when that is the best section itself.
   */
  answer: { hit: SearchHit; index: number };
}

/**
 * Hits grouped by note, notes in the order of their best hit (the daemon's
 * ranking); `index` is each hit's place in the daemon's list. Presentation
 * only: the protocol stays one hit per chunk.
 */
export function groupHits(hits: ReadonlyArray<SearchHit>): NoteGroup[] {
  const byPath = new Map<string, NoteGroup>();
  hits.forEach((hit, index) => {
    const g = byPath.get(hit.path);
    if (g) g.others.push({ hit, index });
    else {
      const best = { hit, index };
      byPath.set(hit.path, { path: hit.path, best, others: [], answer: best }); // the same object: `answer === best` reads "here"
    }
  });
  for (const g of byPath.values()) {
    const beyond = noteAnswerHit(g.best.hit);
    const rank = g.best.hit.note_answer_rank;
    const at = beyond ? { hit: beyond, index: g.best.index } : rank == null ? undefined : g.others.find((o) => o.hit.rank === rank && o.hit.answer_spans?.length);
    if (at) g.answer = at;
  }
  return [...byPath.values()];
}

/**
 * The note's answer in a section that was not returned (`note_answer`) as a
 * hit of that one sentence, whose answer span covers it all: opening it,
 * `answerText` and heading trails then work as for any hit. Null without one.
 */
export function noteAnswerHit(hit: SearchHit): SearchHit | null {
  const a = hit.note_answer;
  if (!a?.text) return null;
  return {
    ...hit, heading_path: a.heading_path, content: a.text, byte_range: a.byte_range, line_range: a.line_range, chunk_id: a.chunk_id,
    match_spans: [], answer_spans: [[0, utf8Length(a.text)]], expanded_from: [], note_answer: null, note_answer_rank: null, explain: null,
  };
}

/** The first answer span of a hit as a person reads it (Markdown shown as text), cut to `max` characters; null when it has none. */
export function answerText(hit: SearchHit, max = 160): string | null {
  const span = hit.answer_spans?.[0];
  if (!span) return null;
  const m = new Utf8Mapper(hit.content);
  const text = markdownDisplay(hit.content.slice(m.toIndex(span[0]), m.toIndex(span[1]))).text.replace(/\s+/g, " ").trim();
  return text.length > max ? `${text.slice(0, max - 1).trimEnd()}…` : text || null;
}
