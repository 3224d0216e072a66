import { describe, expect, it } from "vitest";
import { collapseWhitespace, snippetLine, spanContextLine, tidySegments } from "../src/snippet";
import type { SearchHit } from "../src/protocol";

const enc = new TextEncoder();
const B = (s: string) => enc.encode(s).length;

function hit(content: string, terms: string[]): SearchHit {
  const match_spans = terms.map((t) => {
    const s = B(content.slice(0, content.indexOf(t)));
    return [s, s + B(t)] as [number, number];
  });
  return { path: "a.md", title: "a", heading_path: [], level: 1, content, score: 1, rank: 1, match_spans, answer_spans: [], expanded_from: [], byte_range: [0, B(content)], line_range: [1, 3], chunk_id: 1 };
}

describe("snippetLine", () => {
  it("drops Markdown heading markers and blank lines, keeps every highlight with its span index", () => {
    const h = hit("## 衝突の解決 🔧\r\n\r\n二台の端末で同じノートを編集すると、競合ファイルが作られます。\r\n### Next\r\n競合を開く", ["競合ファイル", "端末", "競合を"]);
    const line = snippetLine(h, 40);
    expect(line.text).not.toMatch(/#/);
    expect(line.text).not.toMatch(/\n|\r/);
    expect(line.text.startsWith("二台")).toBe(true);
    expect(line.highlights.map((x) => [line.text.slice(x.start, x.end), x.span])).toEqual([
      ["端末", 1],
      ["競合ファイル", 0],
      ["競合を", 2],
    ]);
  });

  it("joins a line wrapped inside Japanese text without a space; other breaks become one space", () => {
    expect(collapseWhitespace("同じノートを使いたい\nときは、同期します。\n\nNext line\nin English 同期\r\n  です"))
      .toBe("同じノートを使いたいときは、同期します。 Next line in English 同期です");
    expect(collapseWhitespace("ノート を使う")).toBe("ノート を使う");
    const h = hit("スマホとパソコンで同じノートを使いたい\nときは、同期サービスを使います。", ["同期"]);
    expect(snippetLine(h, 90).text).toBe("スマホとパソコンで同じノートを使いたいときは、同期サービスを使います。");
    // a narrow row: cut between characters so the highlight is near the start
    const narrow = snippetLine(h, 30);
    expect(narrow.text).toBe("… トを使いたいときは、同期サービスを使います。");
    expect(narrow.text.slice(narrow.highlights[0]!.start, narrow.highlights[0]!.end)).toBe("同期");
  });

  it("cuts long text between words around the first highlight, which starts within the first `context` characters", () => {
    const long = "filler words ".repeat(40);
    const h = hit(`${long}needle ${long}haystack ${long}`, ["needle", "haystack"]);
    const line = snippetLine(h, 20);
    expect(line.text.length).toBeLessThan(70);
    expect(line.text).toMatch(/^… (filler |words )+needle( filler| words)+ …$/);
    expect(line.highlights.map((x) => line.text.slice(x.start, x.end))).toEqual(["needle"]);
    expect(line.highlights[0]!.start).toBeLessThan(20);
  });

  it("shows Markdown as text: aliases, no emphasis, the highlight on the words", () => {
    const h = hit("**Sync** keeps [[Sync your notes across devices|your devices]] in step; see `sync.json`.", ["Sync", "devices", "sync"]);
    const line = snippetLine(h, 60);
    expect(line.text).toBe("Sync keeps your devices in step; see sync.json.");
    expect(line.highlights.map((x) => line.text.slice(x.start, x.end))).toEqual(["Sync", "your devices", "sync"]);
  });

  it("a row with word matches and an answer span is cut around the first match (what the row can mark)", () => {
    const lead = "Install the app, sign in and pick the vault. ";
    const content = lead + "Sync runs in the background, so the notes on your phone and your laptop stay the same.";
    const answer: [number, number] = [B(lead), B(content)];
    const h = { ...hit(content, ["phone", "laptop"]), answer_spans: [answer] };
    const line = snippetLine(h, 30);
    expect(line.highlights[0]!.start).toBeLessThan(30);
    expect(line.text.slice(line.highlights[0]!.start, line.highlights[0]!.end)).toBe("phone");
  });

  it("a hit with no word match still shows where its answer span is", () => {
    const content = "Split the workspace. Drag a tab to the right edge to show two notes side by side.";
    const h = { ...hit(content, []), answer_spans: [[B("Split the workspace. "), B(content)] as [number, number]] };
    const line = snippetLine(h, 60);
    expect(line.highlights).toEqual([]);
    expect(line.answers.map((x) => [line.text.slice(x.start, x.end), x.span])).toEqual([["Drag a tab to the right edge to show two notes side by side.", 0]]);
  });
});

describe("spanContextLine", () => {
  it("shows one span on its own line, highlighted, without the heading marker", () => {
    const h = hit("## Sync conflicts\nWhen two devices edit offline, sync keeps both.\n", ["Sync", "offline", "sync"]);
    const l0 = spanContextLine(h, 0, 12)!;
    expect(l0.text).toBe("Sync conflicts When two …");
    expect(l0.text.slice(l0.highlights[0]!.start, l0.highlights[0]!.end)).toBe("Sync");
    const l2 = spanContextLine(h, 2, 12)!;
    expect(l2.text.slice(l2.highlights[0]!.start, l2.highlights[0]!.end)).toBe("sync");
    expect(l2.highlights[0]!.span).toBe(2);
    expect(l2.text).toMatch(/^… .*sync keeps both\.$/);
    expect(spanContextLine(h, 7)).toBeNull();
  });
});

describe("tidySegments", () => {
  it("never changes highlighted text", () => {
    const segs = tidySegments([
      { text: "# Title\n\n", highlighted: false },
      { text: "## hi", highlighted: true, span: 0 },
      { text: "\n\n\n## next\nbody   ", highlighted: false },
    ]);
    expect(segs).toEqual([
      { text: "## hi", highlighted: true, span: 0 },
      { text: "\nnext\nbody", highlighted: false },
    ]);
  });
});
