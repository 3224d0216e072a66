/**
 * UTF-8 byte offsets (what the daemon speaks) <-> UTF-16 string indices (what
 * JavaScript strings and editors speak).
 *
 * The daemon reports `match_spans` as UTF-8 byte offsets into a hit's
 * `content`, and `byte_range` as UTF-8 byte offsets into the source file.
 * A Japanese character is 3 bytes but 1 UTF-16 unit; an emoji is 4 bytes but
 * 2 UTF-16 units (a surrogate pair). Slicing a JS string with byte offsets
 * therefore highlights the wrong text — everything goes through here.
 */

/** Number of UTF-8 bytes of the code point starting with UTF-16 unit `code`
 * (for a high surrogate followed by a low surrogate the caller advances 2). */
function utf8Width(code: number): number {
  if (code < 0x80) return 1;
  if (code < 0x800) return 2;
  return 3; // BMP (incl. a lone surrogate, which encoders replace by U+FFFD: 3 bytes)
}

function isHigh(code: number): boolean {
  return code >= 0xd800 && code <= 0xdbff;
}
function isLow(code: number): boolean {
  return code >= 0xdc00 && code <= 0xdfff;
}

/** UTF-8 length of a string, identical to `new TextEncoder().encode(s).length`. */
export function utf8Length(text: string): number {
  let bytes = 0;
  for (let i = 0; i < text.length; i++) {
    const c = text.charCodeAt(i);
    if (isHigh(c) && i + 1 < text.length && isLow(text.charCodeAt(i + 1))) {
      bytes += 4;
      i++;
    } else {
      bytes += utf8Width(c);
    }
  }
  return bytes;
}

/**
 * Maps between byte offsets and string indices of one string. Converting
 * many sorted offsets is O(n) overall: the mapper keeps a cursor and walks
 * forward (or restarts when asked for an earlier offset).
 */
export class Utf8Mapper {
  readonly text: string;
  readonly byteLength: number;
  private ci = 0; // UTF-16 index of the cursor
  private cb = 0; // byte offset of the cursor

  constructor(text: string) {
    this.text = text;
    this.byteLength = utf8Length(text);
  }

  /** Width in UTF-16 units and UTF-8 bytes of the code point at index i. */
  private step(i: number): [units: number, bytes: number] {
    const c = this.text.charCodeAt(i);
    if (isHigh(c) && i + 1 < this.text.length && isLow(this.text.charCodeAt(i + 1))) return [2, 4];
    return [1, utf8Width(c)];
  }

  /**
   * UTF-16 index for a UTF-8 byte offset. Offsets inside a multi-byte
   * character round down to its start (a well-formed span never does this;
   * rounding down keeps a bad span from splitting a surrogate pair).
   * Offsets beyond the end clamp to `text.length`.
   */
  toIndex(byteOffset: number): number {
    if (!(byteOffset > 0)) return 0;
    if (byteOffset >= this.byteLength) return this.text.length;
    if (byteOffset < this.cb) {
      this.ci = 0;
      this.cb = 0;
    }
    while (this.ci < this.text.length) {
      const [u, b] = this.step(this.ci);
      if (this.cb + b > byteOffset) break;
      this.ci += u;
      this.cb += b;
    }
    return this.ci;
  }

  /** UTF-8 byte offset of a UTF-16 index (an index between the halves of a
   * surrogate pair rounds down to the pair's start). */
  toByte(index: number): number {
    if (!(index > 0)) return 0;
    if (index >= this.text.length) return this.byteLength;
    if (index < this.ci) {
      this.ci = 0;
      this.cb = 0;
    }
    while (this.ci < this.text.length) {
      const [u, b] = this.step(this.ci);
      if (this.ci + u > index) break;
      this.ci += u;
      this.cb += b;
    }
    return this.cb;
  }
}

/** One-shot conversion; prefer a `Utf8Mapper` for many offsets into the same text. */
export function byteToIndex(text: string, byteOffset: number): number {
  return new Utf8Mapper(text).toIndex(byteOffset);
}

export function indexToByte(text: string, index: number): number {
  return new Utf8Mapper(text).toByte(index);
}

/** Converts `[start, end)` byte spans to `[start, end)` UTF-16 spans. */
export function spansToIndices(text: string, spans: ReadonlyArray<readonly [number, number]>): Array<[number, number]> {
  const m = new Utf8Mapper(text);
  return spans.map(([s, e]) => [m.toIndex(s), m.toIndex(e)] as [number, number]);
}

/** Slice of `text` between two byte offsets. */
export function sliceBytes(text: string, start: number, end: number): string {
  const m = new Utf8Mapper(text);
  return text.slice(m.toIndex(start), m.toIndex(end));
}

export interface Segment {
  text: string;
  highlighted: boolean;
  /** Index into the hit's `match_spans` of the span this segment shows
   * (highlighted segments only). It survives sorting, clipping and
   * elision, so a click on a highlight can select that very span. */
  span?: number;
}

/** A `[start, end)` byte span with its index in the list it came from. */
export interface IndexedSpan {
  start: number;
  end: number;
  /** Index in `match_spans`. */
  span: number;
}

/**
 * Splits `content` into plain / highlighted segments using the hit's
 * `match_spans` (UTF-8 byte offsets). Every highlighted segment carries the
 * index of its span in `spans`, whatever the order the spans came in.
 * Adjacent spans stay separate segments (one highlight per span); spans that
 * overlap (the daemon never sends any) are trimmed so no character is shown
 * twice — the span that starts first keeps the overlap. Spans past the end
 * are clamped; empty spans are dropped. Concatenating the segments' text
 * gives back `content` exactly.
 */
export function highlightSegments(content: string, spans: ReadonlyArray<readonly [number, number]>): Segment[] {
  return segmentsOf(
    content,
    spans.map(([start, end], span) => ({ start, end, span })),
  );
}

/** `highlightSegments` for spans that carry their own index (e.g. clipped to a window). */
export function segmentsOf(content: string, spans: ReadonlyArray<IndexedSpan>): Segment[] {
  const sorted = [...spans].sort((a, b) => a.start - b.start || a.end - b.end || a.span - b.span);
  const m = new Utf8Mapper(content);
  const out: Segment[] = [];
  let pos = 0;
  for (const sp of sorted) {
    const s = Math.max(m.toIndex(sp.start), pos);
    const e = m.toIndex(sp.end);
    if (e <= s) continue;
    if (s > pos) out.push({ text: content.slice(pos, s), highlighted: false });
    out.push({ text: content.slice(s, e), highlighted: true, span: sp.span });
    pos = e;
  }
  if (pos < content.length) out.push({ text: content.slice(pos), highlighted: false });
  return out;
}

/**
 * Shortens long plain stretches between highlights so a snippet stays small
 * while every highlight stays visible: a plain segment keeps `context`
 * characters next to each neighbouring highlight and the middle becomes "…".
 * Cuts never split a surrogate pair.
 */
export function elideSegments(segments: Segment[], context = 80, ellipsis = " … "): Segment[] {
  const anyHighlight = segments.some((s) => s.highlighted);
  return segments.map((seg, i) => {
    if (seg.highlighted) return seg;
    const t = seg.text;
    const hasPrev = i > 0;
    const hasNext = i < segments.length - 1;
    if (!anyHighlight) {
      return t.length > context * 4 ? { ...seg, text: cutEnd(t, context * 4) + ellipsis.trimEnd() } : seg;
    }
    if (hasPrev && hasNext) {
      if (t.length <= context * 2 + ellipsis.length) return seg;
      return { ...seg, text: cutEnd(t, context) + ellipsis + cutStart(t, context) };
    }
    if (hasNext) {
      // leading text before the first highlight
      return t.length <= context ? seg : { ...seg, text: ellipsis.trimStart() + cutStart(t, context) };
    }
    // trailing text after the last highlight
    return t.length <= context * 2 ? seg : { ...seg, text: cutEnd(t, context * 2) + ellipsis.trimEnd() };
  });
}

function cutEnd(t: string, n: number): string {
  let k = Math.min(n, t.length);
  if (k > 0 && k < t.length && isLow(t.charCodeAt(k)) && isHigh(t.charCodeAt(k - 1))) k--;
  return t.slice(0, k);
}
function cutStart(t: string, n: number): string {
  let k = Math.max(0, t.length - n);
  if (k > 0 && isLow(t.charCodeAt(k)) && isHigh(t.charCodeAt(k - 1))) k++;
  return t.slice(k);
}

/** 0-based line and UTF-16 column, the shape of Obsidian's EditorPosition. */
export interface LineCh {
  line: number;
  ch: number;
}

/**
 * Line/column of a UTF-16 index. Lines break at "\r\n", "\n" or "\r" — the
 * same rule as CodeMirror, which normalises CRLF files to "\n" internally:
 * so a position computed from the raw CRLF file text is still right in the
 * editor even though the editor's own string offsets differ by one per line.
 * An index pointing between "\r" and "\n" lands at the end of that line.
 */
export function indexToLineCh(text: string, index: number): LineCh {
  const end = Math.max(0, Math.min(index, text.length));
  let line = 0;
  let lineStart = 0;
  for (let i = 0; i < end; i++) {
    const c = text.charCodeAt(i);
    if (c === 10 /* \n */) {
      line++;
      lineStart = i + 1;
    } else if (c === 13 /* \r */) {
      if (i + 1 < text.length && text.charCodeAt(i + 1) === 10) {
        if (i + 1 === end) return { line, ch: i - lineStart };
        i++;
      }
      line++;
      lineStart = i + 1;
    }
  }
  return { line, ch: end - lineStart };
}

/** Line/column (see `indexToLineCh`) of a UTF-8 byte offset into `text`. */
export function byteToLineCh(text: string, byteOffset: number): LineCh {
  return indexToLineCh(text, byteToIndex(text, byteOffset));
}

/**
 * The text between two line/column positions of `text`, as an editor that
 * normalises line ends to "\n" shows it (what a selection from
 * `hitSelection` covers).
 */
export function textBetween(text: string, from: LineCh, to: LineCh): string {
  const lines = text.split(/\r\n|\n|\r/);
  if (from.line === to.line) return (lines[from.line] ?? "").slice(from.ch, to.ch);
  const parts = [(lines[from.line] ?? "").slice(from.ch)];
  for (let l = from.line + 1; l < to.line; l++) parts.push(lines[l] ?? "");
  parts.push((lines[to.line] ?? "").slice(0, to.ch));
  return parts.join("\n");
}
