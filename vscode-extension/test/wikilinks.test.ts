import { describe, expect, it } from "vitest";
import { findWikiLinks, parseLinkBody, wikiLinkAt } from "../src/wikilinks";

describe("wikilink parsing", () => {
  it.each([
    ["Note", { target: "Note", heading: null, block: null, alias: null }],
    ["Note#Heading", { target: "Note", heading: "Heading", block: null, alias: null }],
    ["Note^block1", { target: "Note", heading: null, block: "block1", alias: null }],
    ["Note#^block1", { target: "Note", heading: null, block: "block1", alias: null }],
    ["Note|shown", { target: "Note", heading: null, block: null, alias: "shown" }],
    ["Folder/Note#Sub heading|別名", { target: "Folder/Note", heading: "Sub heading", block: null, alias: "別名" }],
    ["#Local heading", { target: "", heading: "Local heading", block: null, alias: null }],
    ["Note\\|table alias", { target: "Note", heading: null, block: null, alias: "table alias" }],
  ])("[[%s]]", (body, expected) => {
    expect(parseLinkBody(body)).toEqual(expected);
  });

  it("finds links with UTF-16 ranges, skipping code and empty links", () => {
    const text = [
      "日本語 😀 [[同期#衝突の解決]] and ![[Image.png]]",
      "`[[not a link]]` [[]]",
      "```",
      "[[in fence]]",
      "```",
      "| a | [[Note\\|alias]] |",
    ].join("\n");
    const links = findWikiLinks(text);
    expect(links.map((l) => l.raw)).toEqual(["[[同期#衝突の解決]]", "[[Image.png]]", "[[Note|alias]]"]);
    const first = links[0];
    expect(text.slice(first.innerStart, first.innerEnd)).toBe("同期#衝突の解決");
    expect(text.slice(first.start, first.end)).toBe("[[同期#衝突の解決]]");
    expect(links[1].embed).toBe(true);
  });

  it("finds the link under the cursor, including on its brackets", () => {
    const text = "see [[A#B]] or [[C]]";
    expect(wikiLinkAt(text, text.indexOf("A"))?.raw).toBe("[[A#B]]");
    expect(wikiLinkAt(text, text.indexOf("[[C"))?.raw).toBe("[[C]]");
    expect(wikiLinkAt(text, 1)).toBeUndefined();
  });
});
