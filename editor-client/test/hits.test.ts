import { describe, expect, it } from "vitest";
import { answerText, groupHits, hitPieces, hitSegments, hitSelection, hitWikilink, ownChunkWindow, verifiedPieces } from "../src/hits";
import { sliceBytes, textBetween } from "../src/offsets";
import type { SearchHit } from "../src/protocol";

const enc = new TextEncoder();
const B = (s: string) => enc.encode(s).length;

/** Builds a hit the way the daemon does: content = file bytes of the range(s), spans = byte offsets of `terms` in content. */
function hitFor(file: string, chunk: string, terms: string[], expandTo?: string): SearchHit {
  const cs = B(file.slice(0, file.indexOf(chunk)));
  const byte_range: [number, number] = [cs, cs + B(chunk)];
  let content = chunk;
  let expanded_from: SearchHit["expanded_from"] = [];
  if (expandTo) {
    const es = B(file.slice(0, file.indexOf(expandTo)));
    expanded_from = [{ chunk_id: 7, byte_range: [es, es + B(expandTo)], line_range: [1, 1] }];
    content = expandTo;
  }
  const match_spans = terms.map((t) => {
    const i = content.indexOf(t);
    const s = B(content.slice(0, i));
    return [s, s + B(t)] as [number, number];
  });
  return { path: "Notes/会議.md", title: "会議", heading_path: ["会議", "議事録"], level: 2, content, score: 0.8, rank: 1, match_spans, answer_spans: [], expanded_from, byte_range, line_range: [3, 4], chunk_id: 8 };
}

describe("jumping to a match span in the file", () => {
  const file = "---\r\ntags: [会議]\r\n---\r\n# 会議 🎉\r\n\r\n## 議事録\r\n予算の承認について話した。次回は🚀ローンチ。\r\n";
  const chunk = "## 議事録\r\n予算の承認について話した。次回は🚀ローンチ。";

  it("selects the exact characters of a span in a CRLF Japanese/emoji file", () => {
    const hit = hitFor(file, chunk, ["承認", "ローンチ"]);
    const sel = hitSelection(hit, file, 1);
    expect(sel.exact).toBe(true);
    const lines = file.split("\r\n");
    expect(sel.from.line).toBe(6);
    expect(lines[6]!.slice(sel.from.ch, sel.to.ch)).toBe("ローンチ");
    const s0 = hitSelection(hit, file, 0);
    expect(lines[s0.from.line]!.slice(s0.from.ch, s0.to.ch)).toBe("承認");
  });

  it("maps spans through expanded_from when the parent retriever widened the content", () => {
    const parent = "# 会議 🎉\r\n\r\n## 議事録\r\n予算の承認について話した。次回は🚀ローンチ。";
    const hit = hitFor(file, chunk, ["会議", "ローンチ"], parent);
    const lines = file.split("\r\n");
    const s = hitSelection(hit, file, 0);
    expect([s.from.line, lines[s.from.line]!.slice(s.from.ch, s.to.ch)]).toEqual([3, "会議"]);
    const s1 = hitSelection(hit, file, 1);
    expect(lines[s1.from.line]!.slice(s1.from.ch, s1.to.ch)).toBe("ローンチ");
  });

  it("maps spans of non-contiguous expanded ranges concatenated without separator (protocol.md)", () => {
    const f = "alpha one\n\nbeta two\n\ngamma three\n";
    const hit: SearchHit = {
      ...hitFor(f, "gamma three", []),
      content: "alpha one" + "gamma three", // the blank lines between chunks are dropped
      expanded_from: [
        { chunk_id: 1, byte_range: [0, 9], line_range: [1, 1] },
        { chunk_id: 3, byte_range: [21, 32], line_range: [5, 5] },
      ],
      match_spans: [[3, 6], [9 + 6, 9 + 11]],
    };
    expect(hitPieces(hit)).toEqual([
      { contentStart: 0, contentEnd: 9, fileStart: 0, fileEnd: 9 },
      { contentStart: 9, contentEnd: 20, fileStart: 21, fileEnd: 32 },
    ]);
    expect(hitSelection(hit, f, 0)).toMatchObject({ exact: true, from: { line: 0, ch: 3 }, to: { line: 0, ch: 6 } });
    expect(hitSelection(hit, f, 1)).toMatchObject({ exact: true, from: { line: 4, ch: 6 }, to: { line: 4, ch: 11 } });
    expect(ownChunkWindow(hit)).toEqual([9, 20]);
  });

  it("still finds the ranges if a daemon joined them with a separator", () => {
    const f = "alpha one\nbeta two\ngamma three\n";
    const hit: SearchHit = {
      ...hitFor(f, "gamma three", []),
      content: "alpha one\n\n…\n\ngamma three",
      expanded_from: [
        { chunk_id: 1, byte_range: [0, 9], line_range: [1, 1] },
        { chunk_id: 3, byte_range: [19, 30], line_range: [3, 3] },
      ],
      match_spans: [[B("alpha one\n\n…\n\ngamma "), B("alpha one\n\n…\n\ngamma three")]],
    };
    expect(verifiedPieces(hit, f)).not.toBeNull();
    const s = hitSelection(hit, f, 0);
    expect(s).toMatchObject({ exact: true, from: { line: 2, ch: 6 }, to: { line: 2, ch: 11 } });
  });

  it("falls back to the chunk's lines when the file changed since indexing", () => {
    const hit = hitFor(file, chunk, ["承認"]);
    const edited = file.replace("予算", "来期の予算");
    const sel = hitSelection(hit, edited, 0);
    expect(sel).toMatchObject({ exact: false, from: { line: 2, ch: 0 } });
    expect(sel.to.line).toBe(3);
  });
});

describe("context toggle", () => {
  it("shows only the hit's own chunk without context and the whole parent with it", () => {
    const file = "# Title\n\nIntro paragraph.\n\n## Sync\nConflicts happen when editing offline.\n";
    const parent = file.slice(0, -1);
    const hit = hitFor(file, "## Sync\nConflicts happen when editing offline.", ["Intro", "Conflicts"], parent);
    expect(ownChunkWindow(hit)).toEqual([B("# Title\n\nIntro paragraph.\n\n"), B(parent)]);
    const own = hitSegments(hit, false);
    expect(own.segments.filter((s) => s.highlighted).map((s) => s.text)).toEqual(["Conflicts"]);
    expect(own.before).toBe(true);
    const all = hitSegments(hit, true);
    expect(all.segments.filter((s) => s.highlighted).map((s) => s.text)).toEqual(["Intro", "Conflicts"]);
  });

  it("treats a non-expanded hit's content as the chunk itself", () => {
    const hit = hitFor("abc\n", "abc", ["b"]);
    expect(hitPieces(hit)).toEqual([{ contentStart: 0, contentEnd: 3, fileStart: 0, fileEnd: 3 }]);
    expect(hitSegments(hit, false).segments.map((s) => s.text)).toEqual(["a", "b", "c"]);
  });
});

describe("wikilinks for dragged hits", () => {
  const base = hitFor("x", "x", []);
  it("links to the deepest heading", () => {
    expect(hitWikilink(base)).toBe("[[Notes/会議#議事録]]");
    expect(hitWikilink(base, "会議")).toBe("[[会議#議事録]]");
  });
  it("links to the note when the only heading is its title", () => {
    expect(hitWikilink({ ...base, heading_path: ["会議"], level: 1 })).toBe("[[Notes/会議]]");
    expect(hitWikilink({ ...base, heading_path: [] })).toBe("[[Notes/会議]]");
  });
  it("links to a canvas itself, never to one of its groups", () => {
    const card = { ...base, path: "Boards/Plan.canvas", heading_path: ["Plan", "Ideas"], level: 2 };
    expect(hitWikilink(card)).toBe("[[Boards/Plan.canvas]]");
    expect(hitWikilink(card, "Plan.canvas")).toBe("[[Plan.canvas]]");
  });
  it("strips characters that break a heading link", () => {
    expect(hitWikilink({ ...base, heading_path: ["A", "C# | [notes] ^x"] }, "n")).toBe("[[n#C notes x]]");
  });
});

describe("span identity: every rendered highlight maps to its match_spans index", () => {
  // The issue-20 case: parent retriever on, context collapsed; spans
  // `sync, Conflicting, copies, sync` with the first outside the hit's own chunk.
  const file = "# Sync\r\n\r\nsync keeps notes equal.\r\n\r\n## Conflicts\r\n\r\nConflicting copies appear when sync runs offline. 🎉\r\n";
  const parent = "# Sync\r\n\r\nsync keeps notes equal.\r\n\r\n";
  const own = "## Conflicts\r\n\r\nConflicting copies appear when sync runs offline. 🎉\r\n";
  const fileBytes = (s: string) => B(file.slice(0, file.indexOf(s)));
  const content = parent + own;
  const at = (t: string, from = 0) => {
    const i = content.indexOf(t, from);
    const s = B(content.slice(0, i));
    return [s, s + B(t)] as [number, number];
  };
  const hit: SearchHit = {
    path: "Sync.md",
    title: "Sync",
    heading_path: ["Sync", "Conflicts"],
    level: 2,
    content,
    score: 0.5,
    rank: 1,
    match_spans: [at("sync"), at("Conflicting"), at("copies"), at("sync", content.indexOf("appear"))],
    answer_spans: [],
    expanded_from: [
      { chunk_id: 1, byte_range: [0, B(parent)], line_range: [1, 4] },
      { chunk_id: 2, byte_range: [fileBytes(own), fileBytes(own) + B(own)], line_range: [5, 7] },
    ],
    byte_range: [fileBytes(own), fileBytes(own) + B(own)],
    line_range: [5, 7],
    chunk_id: 2,
  };

  it("context collapsed: the three shown highlights are spans 1, 2, 3 and each selects its own text", () => {
    const { segments, before } = hitSegments(hit, false);
    expect(before).toBe(true);
    const marks = segments.filter((s) => s.highlighted);
    expect(marks.map((m) => [m.text, m.span])).toEqual([
      ["Conflicting", 1],
      ["copies", 2],
      ["sync", 3],
    ]);
    for (const m of marks) {
      const sel = hitSelection(hit, file, m.span!);
      expect(sel.exact).toBe(true);
      expect(textBetween(file, sel.from, sel.to)).toBe(m.text);
      expect(sel.from.line).toBe(6);
    }
  });

  it("context shown: all four highlights, the first one on line 3", () => {
    const marks = hitSegments(hit, true).segments.filter((s) => s.highlighted);
    expect(marks.map((m) => m.span)).toEqual([0, 1, 2, 3]);
    const first = hitSelection(hit, file, 0);
    expect([first.from.line, textBetween(file, first.from, first.to)]).toEqual([2, "sync"]);
    for (const m of marks) {
      const sel = hitSelection(hit, file, m.span!);
      expect(textBetween(file, sel.from, sel.to)).toBe(sliceBytes(content, ...hit.match_spans[m.span!]!));
    }
  });

  it("a span cut by the hit's own window keeps its index and selects the whole span", () => {
    // "equal.\r\n\r\n## Conf" straddles the boundary between the two ranges.
    const crossing = at("equal.\r\n\r\n## Conf");
    const h: SearchHit = { ...hit, match_spans: [crossing, at("copies")] };
    const marks = hitSegments(h, false).segments.filter((s) => s.highlighted);
    expect(marks.map((m) => [m.text, m.span])).toEqual([
      ["## Conf", 0],
      ["copies", 1],
    ]);
    const sel = hitSelection(h, file, 0);
    expect(textBetween(file, sel.from, sel.to)).toBe("equal.\n\n## Conf");
  });
});

describe("a note's row and its answer (note_answer_rank, ADR 0269)", () => {
  const base = hitFor("## 議事録\n予算の承認。", "## 議事録\n予算の承認。", []);
  const h = (rank: number, path: string, extra: Partial<SearchHit> = {}): SearchHit => ({ ...base, rank, path, chunk_id: rank, ...extra });

  it("points the row at the section the daemon names, only when that section is in the note's group and marked", () => {
    const a3 = h(3, "a.md", { content: "次回は **ローンチ** です。", answer_spans: [[0, B("次回は **ローンチ** です。")]] });
    const groups = groupHits([h(1, "a.md", { note_answer_rank: 3 }), h(2, "b.md", { note_answer_rank: 3 }), a3]);
    expect(groups.map((g) => [g.path, g.answer.hit.rank])).toEqual([["a.md", 3], ["b.md", 2]]); // b.md's rank 3 is another note's
    expect(groups[1]!.answer).toBe(groups[1]!.best);
    const unmarked = groupHits([h(1, "a.md", { note_answer_rank: 3 }), h(3, "a.md")])[0]!;
    expect(unmarked.answer).toBe(unmarked.best); // the named section has no answer span: the row's answer stays its own
    expect(answerText(a3)).toBe("次回は ローンチ です。");
    expect(answerText(h(4, "c.md"))).toBeNull();
    expect(answerText({ ...a3, content: "x".repeat(300), answer_spans: [[0, 300]] }, 20)).toBe(`${"x".repeat(19)}…`);
  });
});

describe("a note's answer in a section that was not returned (note_answer, ADR 0269)", () => {
  it("the row's answer is a hit of that sentence, which opens at its exact characters", () => {
    const file = "# 会議\r\n\r\n## 議事録\r\n予算の承認。\r\n\r\n## 次回\r\n日程は未定。次回は🚀 **ローンチ** です。\r\n";
    const text = "次回は🚀 **ローンチ** です。";
    const at = B(file.slice(0, file.indexOf(text)));
    const first = hitFor(file, "## 議事録\r\n予算の承認。", []);
    const row = { ...first, note_answer: { chunk_id: 9, heading_path: ["会議", "次回"], text, byte_range: [at, at + B(text)] as [number, number], line_range: [7, 7] as [number, number] } };
    const g = groupHits([row])[0]!;
    expect(g.answer).not.toBe(g.best);
    expect(g.answer.index).toBe(0);
    expect(answerText(g.answer.hit)).toBe("次回は🚀 ローンチ です。");
    const sel = hitSelection(g.answer.hit, file, -1);
    expect(sel.exact).toBe(true);
    expect(textBetween(file, sel.from, sel.to)).toBe(text);
    // The file changed since: the row still opens the note, on the sentence's lines.
    const moved = hitSelection(g.answer.hit, file.replace("日程は未定。", ""), -1);
    expect(moved.from.line).toBe(6);
  });
});
