import { describe, expect, it } from "vitest";
import { attachmentRow, ownHeadingRow } from "../src/related";

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
