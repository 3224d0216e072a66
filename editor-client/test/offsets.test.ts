import { describe, expect, it } from "vitest";
import {
  byteToIndex,
  byteToLineCh,
  elideSegments,
  highlightSegments,
  indexToByte,
  indexToLineCh,
  sliceBytes,
  spansToIndices,
  utf8Length,
  Utf8Mapper,
} from "../src/offsets";

const enc = new TextEncoder();
/** Byte span of the first occurrence of `needle` in `text`, computed independently with TextEncoder. */
function byteSpan(text: string, needle: string, from = 0): [number, number] {
  const i = text.indexOf(needle, from);
  if (i < 0) throw new Error(`${needle} not in text`);
  const s = enc.encode(text.slice(0, i)).length;
  return [s, s + enc.encode(needle).length];
}

describe("utf8Length", () => {
  it.each(["", "abc", "日本語のノート", "🎉 party 👩‍👩‍👧", "é\u0301", "a\r\nb", "\u{10FFFF}"])("matches TextEncoder for %j", (s) => {
    expect(utf8Length(s)).toBe(enc.encode(s).length);
  });
});

describe("byte offsets to string indices", () => {
  it("maps Japanese (3 bytes per character, 1 UTF-16 unit)", () => {
    const text = "同期の競合を解決する方法";
    const [s, e] = byteSpan(text, "競合");
    expect([s, e]).toEqual([9, 15]);
    expect(spansToIndices(text, [[s, e]])).toEqual([[3, 5]]);
    expect(sliceBytes(text, s, e)).toBe("競合");
  });

  it("maps emoji outside the BMP (4 bytes, a surrogate pair)", () => {
    const text = "🎉 release notes 🚀 launch";
    const [s, e] = byteSpan(text, "launch");
    expect(sliceBytes(text, s, e)).toBe("launch");
    const [rs, re] = byteSpan(text, "🚀");
    expect(sliceBytes(text, rs, re)).toBe("🚀");
    expect(byteToIndex(text, re)).toBe(text.indexOf("🚀") + 2);
  });

  it("keeps CRLF as two bytes and two units", () => {
    const text = "line one\r\n会議メモ\r\nthird line";
    const [s, e] = byteSpan(text, "third");
    expect(sliceBytes(text, s, e)).toBe("third");
  });

  it("round-trips every code point boundary of a mixed string", () => {
    const text = "a日🎉\r\nb本😀c";
    let bytes = 0;
    for (const ch of text) {
      const idx = text.indexOf(ch) ;
      expect(byteToIndex(text, bytes)).toBe(idx);
      expect(indexToByte(text, idx)).toBe(bytes);
      bytes += enc.encode(ch).length;
    }
    expect(byteToIndex(text, bytes)).toBe(text.length);
  });

  it("rounds an offset inside a character down and never splits a surrogate pair", () => {
    const text = "x🎉y";
    expect(byteToIndex(text, 2)).toBe(1); // inside the emoji's 4 bytes
    expect(byteToIndex(text, 4)).toBe(1);
    expect(byteToIndex(text, 5)).toBe(3);
    expect(indexToByte(text, 2)).toBe(1); // between the surrogate halves
  });

  it("clamps out-of-range offsets", () => {
    expect(byteToIndex("日本", -5)).toBe(0);
    expect(byteToIndex("日本", 999)).toBe(2);
  });

  it("answers offsets in any order with one mapper", () => {
    const text = "日本語 and English 🎉 mixed";
    const m = new Utf8Mapper(text);
    const spans = [byteSpan(text, "mixed"), byteSpan(text, "日本"), byteSpan(text, "English")];
    expect(spans.map(([s, e]) => text.slice(m.toIndex(s), m.toIndex(e)))).toEqual(["mixed", "日本", "English"]);
  });
});

describe("highlightSegments", () => {
  it("highlights every span of Japanese content exactly", () => {
    const content = "## 同期\n同期の競合は、同期が終わる前に編集すると起きます。";
    const spans = [byteSpan(content, "同期", 3), byteSpan(content, "競合"), byteSpan(content, "同期", 12)];
    spans.sort((a, b) => a[0] - b[0]);
    const segs = highlightSegments(content, spans);
    expect(segs.filter((s) => s.highlighted).map((s) => s.text)).toEqual(["同期", "競合", "同期"]);
    expect(segs.map((s) => s.text).join("")).toBe(content);
  });

  it("handles emoji before the span and CRLF line ends", () => {
    const content = "🎉🎉 Party\r\nplanning: book the venue 🏛️ early";
    const segs = highlightSegments(content, [byteSpan(content, "venue"), byteSpan(content, "🏛️")]);
    expect(segs.filter((s) => s.highlighted).map((s) => s.text)).toEqual(["venue", "🏛️"]);
    expect(segs.map((s) => s.text).join("")).toBe(content);
  });

  it("keeps each span's index in match_spans, whatever order the spans came in", () => {
    const content = "abcdefgh";
    const segs = highlightSegments(content, [[6, 8], [1, 3], [4, 5], [7, 7]]);
    expect(segs).toEqual([
      { text: "a", highlighted: false },
      { text: "bc", highlighted: true, span: 1 },
      { text: "d", highlighted: false },
      { text: "e", highlighted: true, span: 2 },
      { text: "f", highlighted: false },
      { text: "gh", highlighted: true, span: 0 },
    ]);
  });

  it("shows adjacent spans as separate highlights, each with its own index", () => {
    const content = "予算承認の会議";
    const s = (t: string) => byteSpan(content, t);
    const segs = highlightSegments(content, [s("予算"), s("承認"), s("会議")]);
    expect(segs.filter((x) => x.highlighted).map((x) => [x.text, x.span])).toEqual([
      ["予算", 0],
      ["承認", 1],
      ["会議", 2],
    ]);
    expect(segs.map((x) => x.text).join("")).toBe(content);
  });

  it("trims overlapping spans so no character shows twice, the earlier span keeping the overlap", () => {
    const segs = highlightSegments("abcdefgh", [[2, 4], [1, 3], [7, 7]]);
    expect(segs).toEqual([
      { text: "a", highlighted: false },
      { text: "bc", highlighted: true, span: 1 },
      { text: "d", highlighted: true, span: 0 },
      { text: "efgh", highlighted: false },
    ]);
  });

  it("returns one plain segment without spans", () => {
    expect(highlightSegments("plain", [])).toEqual([{ text: "plain", highlighted: false }]);
  });
});

describe("elideSegments", () => {
  it("shortens long plain gaps but keeps every highlight", () => {
    const long = "x".repeat(500);
    const segs = elideSegments(
      [
        { text: long, highlighted: false },
        { text: "one", highlighted: true, span: 0 },
        { text: long, highlighted: false },
        { text: "two", highlighted: true, span: 1 },
        { text: long, highlighted: false },
      ],
      20,
    );
    expect(segs.filter((s) => s.highlighted).map((s) => s.text)).toEqual(["one", "two"]);
    expect(segs.map((s) => s.text).join("").length).toBeLessThan(200);
    expect(segs[2]!.text).toContain("…");
  });

  it("never cuts a surrogate pair in half", () => {
    const segs = elideSegments([{ text: "😀".repeat(100), highlighted: false }, { text: "hit", highlighted: true }], 5);
    expect(segs[0]!.text).not.toMatch(/[\uD800-\uDBFF](?![\uDC00-\uDFFF])|(?<![\uD800-\uDBFF])[\uDC00-\uDFFF]/);
  });
});

describe("line / column positions", () => {
  it("counts CRLF as one line break and excludes \\r from the column", () => {
    const text = "first\r\nsecond line\r\n日本語のテキスト";
    const i = text.indexOf("テキスト");
    expect(indexToLineCh(text, i)).toEqual({ line: 2, ch: 4 });
    // The editor's LF-normalised text gives the same line/ch.
    const lf = text.replace(/\r\n/g, "\n");
    expect(indexToLineCh(lf, lf.indexOf("テキスト"))).toEqual({ line: 2, ch: 4 });
  });

  it("maps a byte offset after emoji to the right column", () => {
    const text = "# 🎉 Party\n\n😀😀 plan the venue";
    const [s] = byteSpan(text, "venue");
    expect(byteToLineCh(text, s)).toEqual({ line: 2, ch: "😀😀 plan the ".length });
  });

  it("treats a lone CR as a line break (old Mac files), like CodeMirror", () => {
    expect(indexToLineCh("a\rb", 2)).toEqual({ line: 1, ch: 0 });
  });
});
