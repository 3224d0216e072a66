import { describe, expect, it } from "vitest";
import { attachmentRow, ownHeadingRow, similarFigure } from "../src/related";

describe("attachment and own-heading rows (ADR 0257)", () => {
  it("says how a file is attached, where, how often, and when it is missing", () => {
    expect(attachmentRow({ target: "a.png", path: "img/a.png", embed: true, line: 4 })).toEqual({ label: "a.png", detail: "embedded · line 4", path: "img/a.png", line: 4 });
    expect(attachmentRow({ target: "b.pdf", path: null, embed: false, line: 7, occurrences: 3 }).detail).toBe("linked · line 7 · 3× · missing");
  });

  it("reads a link to the note's own heading or block as the link is written", () => {
    expect(ownHeadingRow({ heading: "Set up", block: null, line: 2 })).toEqual({ label: "#Set up", linktext: "#Set up", detail: "line 2", line: 2 });
    expect(ownHeadingRow({ heading: null, block: "x1", line: 9, occurrences: 2 })).toMatchObject({ label: "#^x1", detail: "line 9 · 2×" });
  });
});

describe("the figure beside a similar note", () => {
  it("is the one that orders the list: relevance when sent (ADR 0276), else the cosine", () => {
    // related_notes' order: relevance falls, the cosine does not.
    const similar = [
      { path: "b.md", title: "B", score: 0.861, relevance: 2.4 },
      { path: "c.md", title: "C", score: 0.897, relevance: 1.71 },
      { path: "d.md", title: "D", score: 0.874, relevance: -0.2 },
    ];
    const shown = similar.map((s) => Number(similarFigure(s).value));
    expect(shown).toEqual([...shown].sort((a, b) => b - a));
    expect(similarFigure(similar[1]!)).toEqual({ name: "relevance", value: "1.71", title: "relevance 1.71 (orders this list: higher is closer) · cosine 0.897" });
    expect(similarFigure({ path: "e.md", title: "E", score: 0.8 })).toEqual({ name: "similarity", value: "0.800", title: "cosine 0.800" });
  });

  it("is never negative: relevance below 0 (no closer than a typical note) shows as 0.00, and the tooltip says why", () => {
    for (const relevance of [-0.23, -1.4, -0.001, -0]) {
      const fig = similarFigure({ path: "d.md", title: "D", score: 0.874, relevance });
      expect(fig.value).toBe("0.00");
      expect(fig.title).toBe("relevance 0.00: no closer than a typical note of this vault (orders this list: higher is closer) · cosine 0.874");
    }
    expect(similarFigure({ path: "c.md", title: "C", score: 0.9, relevance: 0.004 }).value).toBe("0.00");
  });
});
