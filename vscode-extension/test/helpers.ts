/** Builds SearchHits the way the daemon does: byte offsets computed from real UTF-8. */
import type { SearchHit } from "@groove/editor-client";

const enc = new TextEncoder();
export const bytes = (s: string): number => enc.encode(s).length;

/** Byte offset of the `nth` occurrence of `needle` in `text`. */
export function byteOf(text: string, needle: string, nth = 0): number {
  let at = -1;
  for (let i = 0; i <= nth; i++) {
    at = text.indexOf(needle, at + 1);
    if (at < 0) throw new Error(`${needle} not in text`);
  }
  return bytes(text.slice(0, at));
}

/** A plain (not expanded) hit for the file slice [from, to) with spans on `terms`. */
export function hitFor(file: string, path: string, from: string, to: string | null, terms: string[], extra: Partial<SearchHit> = {}): SearchHit {
  const b0 = byteOf(file, from);
  const b1 = to === null ? bytes(file) : byteOf(file, to);
  const content = new TextDecoder().decode(enc.encode(file).slice(b0, b1));
  const spans = terms.map((t) => [byteOf(content, t), byteOf(content, t) + bytes(t)] as [number, number]).sort((a, b) => a[0] - b[0]);
  return {
    path,
    title: path.replace(/\.md$/, "").split("/").pop()!,
    heading_path: [],
    level: 1,
    content,
    score: 0.5,
    rank: 1,
    match_spans: spans,
    answer_spans: [],
    expanded_from: [],
    byte_range: [b0, b1],
    line_range: [lineOfByte(file, b0), lineOfByte(file, Math.max(b0, b1 - 1))],
    chunk_id: 1,
    ...extra,
  };
}

export function lineOfByte(file: string, b: number): number {
  const prefix = new TextDecoder().decode(enc.encode(file).slice(0, b));
  return prefix.split("\n").length;
}
