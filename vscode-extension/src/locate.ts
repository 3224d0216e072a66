/**
 * Where a search hit's match spans sit in the note as VS Code holds it.
 *
 * The daemon speaks UTF-8 bytes: `match_spans` are offsets into `hit.content`,
 * `byte_range` / `expanded_from[].byte_range` offsets into the source file.
 * The shared client's hits.ts maps content bytes to file bytes (including
 * the parent retriever's merged ranges); this file turns those into UTF-16
 * offsets of the document text, ready for `TextDocument.positionAt`.
 */
import { contentToFileByte, Utf8Mapper, utf8Length, verifiedPieces, type Piece, type SearchHit } from "@groove/editor-client";

export interface LocatedSpan {
  /** UTF-16 [start, end) offsets into the document text. */
  range: [number, number];
  /** Index in `hit.match_spans`. */
  span: number;
}

export interface HitLocation {
  /** UTF-16 [start, end) offsets into the document text, one per match span that has a place, in document order. */
  spans: Array<[number, number]>;
  /** The same, each with its index in `hit.match_spans`. */
  located: LocatedSpan[];
  /** UTF-16 [start, end) offsets of the answer spans (`answer_spans`) that have a place, in document order. */
  answers: Array<[number, number]>;
  /** Where the selection goes: the requested match span, else the first answer span, else the first match, else the chunk start. */
  selection: [number, number];
  /** "exact": the indexed text is where the daemon said; "moved": it was found
   * elsewhere (lines inserted above since indexing); "lines": only line_range. */
  quality: "exact" | "moved" | "lines";
}

/**
 * The note was edited since indexing but still contains the hit's text (e.g.
 * lines added above it): use the occurrence nearest the indexed place.
 */
function movedPieces(docText: string, doc: Utf8Mapper, hit: SearchHit): Piece[] | null {
  if (hit.expanded_from.length > 0 || !hit.content) return null;
  const near = doc.toIndex(hit.byte_range[0]);
  let best = -1;
  for (let i = docText.indexOf(hit.content); i >= 0; i = docText.indexOf(hit.content, i + 1)) {
    if (best < 0 || Math.abs(i - near) < Math.abs(best - near)) best = i;
    if (i > near) break;
  }
  if (best < 0) return null;
  const fileStart = doc.toByte(best);
  const len = utf8Length(hit.content);
  return [{ contentStart: 0, contentEnd: len, fileStart, fileEnd: fileStart + len }];
}

/**
 * A canvas hit (ADR 0195): `content` is a card's text as JSON decodes it (plus
 * a final newline), `byte_range` where that text is written inside its JSON
 * string. Returns content byte -> document index, walking the escapes
 * JSON.stringify (and Obsidian) write; null when the document does not hold
 * the text there so written (edited since, or other escapes): the caller
 * then lands on `line_range`, the card's line.
 */
export function canvasOffsets(docText: string, doc: Utf8Mapper, hit: SearchHit): ((contentByte: number) => number | undefined) | null {
  if (!/\.canvas$/i.test(hit.path) || hit.expanded_from.length > 0) return null;
  const text = hit.content.endsWith("\n") ? hit.content.slice(0, -1) : hit.content;
  const at = new Map<number, number>();
  let cb = 0;
  let di = doc.toIndex(hit.byte_range[0]);
  for (const ch of text) {
    at.set(cb, di);
    const written = JSON.stringify(ch).slice(1, -1);
    if (!docText.startsWith(written, di)) return null;
    cb += utf8Length(ch);
    di += written.length;
  }
  if (doc.toByte(di) !== hit.byte_range[1]) return null;
  at.set(cb, di);
  at.set(cb + 1, di); // the final newline the daemon adds has no place of its own
  return (b) => at.get(b);
}

/** UTF-16 offset of the start of 1-based `line` (\n, \r\n and \r all break lines, as in VS Code). */
export function lineStartOffset(text: string, line: number): number {
  let at = 0;
  for (let l = 1; l < line; l++) {
    const n = text.slice(at).search(/\r\n|\n|\r/);
    if (n < 0) return at;
    at += n + (text.startsWith("\r\n", at + n) ? 2 : 1);
  }
  return at;
}

/** `spanIndex`: the match span to select (a click on that highlight); by default the first one in the note. */
export function locateHit(docText: string, hit: SearchHit, spanIndex?: number): HitLocation {
  const doc = new Utf8Mapper(docText);
  let quality: HitLocation["quality"] = "exact";
  let pieces = verifiedPieces(hit, docText);
  if (!pieces) {
    const canvas = canvasOffsets(docText, doc, hit);
    if (canvas) {
      const located: LocatedSpan[] = [];
      hit.match_spans.forEach(([s, e], span) => {
        const [from, to] = [canvas(s), canvas(e)];
        if (from !== undefined && to !== undefined && to > from) located.push({ range: [from, to], span });
      });
      const own = doc.toIndex(hit.byte_range[0]);
      const answers: Array<[number, number]> = [];
      for (const [s, e] of hit.answer_spans ?? []) {
        const [from, to] = [canvas(s), canvas(e)];
        if (from !== undefined && to !== undefined && to > from) answers.push([from, to]);
      }
      const chosen = (spanIndex !== undefined ? located.find((l) => l.span === spanIndex)?.range : answers[0]) ?? located[0]?.range;
      return { spans: located.map((l) => l.range), located, answers, selection: chosen ?? [own, own], quality };
    }
    pieces = movedPieces(docText, doc, hit);
    quality = pieces ? "moved" : "lines";
  }
  if (!pieces) {
    const at = lineStartOffset(docText, hit.line_range[0]);
    return { spans: [], located: [], answers: [], selection: [at, at], quality };
  }
  const located: LocatedSpan[] = [];
  hit.match_spans.forEach(([s, e], span) => {
    const fs = contentToFileByte(pieces, s, "start");
    const fe = contentToFileByte(pieces, e, "end");
    // A span running into the separator between two merged ranges has no file place.
    if (fs === null || fe === null || fe <= fs) return;
    located.push({ range: [doc.toIndex(fs), doc.toIndex(fe)], span });
  });
  located.sort((a, b) => a.range[0] - b.range[0] || a.span - b.span);
  const spans = located.map((l) => l.range);
  const answers: Array<[number, number]> = [];
  for (const [s, e] of hit.answer_spans ?? []) {
    const fs = contentToFileByte(pieces, s, "start");
    const fe = contentToFileByte(pieces, e, "end");
    if (fs !== null && fe !== null && fe > fs) answers.push([doc.toIndex(fs), doc.toIndex(fe)]);
  }
  answers.sort((a, b) => a[0] - b[0]);
  // A click on a word lands on that word; otherwise the sentence that answers the query.
  const chosen = (spanIndex !== undefined ? located.find((l) => l.span === spanIndex)?.range : answers[0]) ?? located[0]?.range;
  if (chosen) return { spans, located, answers, selection: chosen, quality };
  // No lexical match (a pure vector hit): land on the hit's own chunk.
  const own = quality === "moved" ? doc.toIndex(pieces[0].fileStart) : doc.toIndex(hit.byte_range[0]);
  return { spans, located, answers, selection: [own, own], quality };
}
