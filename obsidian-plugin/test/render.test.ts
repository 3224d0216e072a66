import { describe, expect, it, vi } from "vitest";
import { CONTEXT_CAP, formatStatus, renderRelated, renderResults, renderState, tidySegments } from "../src/render";
import { diagnose, stateForStatus } from "@groove/editor-client/connection";
import { GrooveError } from "@groove/editor-client/errors";
import { highlightSegments } from "@groove/editor-client/offsets";
import type { IndexStatusResult, SearchHit, SearchResponse } from "@groove/editor-client/protocol";

const enc = new TextEncoder();
const B = (s: string) => enc.encode(s).length;
function spansOf(content: string, terms: string[]): Array<[number, number]> {
  return terms.map((t) => {
    const i = content.indexOf(t);
    const s = B(content.slice(0, i));
    return [s, s + B(t)];
  });
}

function hit(over: Partial<SearchHit> & { content: string; terms?: string[] }): SearchHit {
  const { terms = [], ...rest } = over;
  return {
    path: "Projects/同期.md",
    title: "同期",
    heading_path: ["同期", "競合の解決"],
    level: 2,
    score: 0.0325,
    rank: 1,
    match_spans: spansOf(over.content, terms),
    answer_spans: [],
    expanded_from: [],
    byte_range: [0, B(over.content)],
    line_range: [3, 5],
    chunk_id: 1,
    ...rest,
  };
}

const response = (results: SearchHit[], extra: Partial<SearchResponse> = {}): SearchResponse => ({
  results,
  low_confidence: false,
  filter_applied: {},
  warnings: [],
  confidence: null,
  ...extra,
});

const marks = (root: HTMLElement) => [...root.querySelectorAll("mark.groove-match")].map((m) => m.textContent);

describe("renderResults", () => {
  it("shows a why line only for hits the daemon explained", () => {
    const root = document.createElement("div");
    const explained = hit({
      content: "sync conflicts",
      explain: { legs: { vector: { rank: 3, rrf: 0.0159, cosine: 0.8956 }, full_text: { rank: 13, rrf: 0.0043, coverage: 0.3103 } }, fused_score: 0.0202, stage1_rank: 2, final_rank: 1, expanded: false },
    });
    renderResults(root, response([explained, hit({ content: "plain", chunk_id: 2, rank: 2 })]), { showContext: false });
    const whys = [...root.querySelectorAll(".groove-hit-why")].map((e) => e.textContent);
    expect(whys).toEqual(["why: vector #3 (+0.0159 cosine 0.8956), full_text #13 (+0.0043 coverage 0.3103); fused 0.0202 = stage-1 #2"]);
  });

  it("says why low_confidence is what it is when the daemon explained it, and only then", () => {
    const root = document.createElement("div");
    const confidence = { low_confidence: false, rule: "calibrated" as const, score: 2.71, threshold: 0.75, best_passage_z: 2.71, known_share: 1, across_languages: true };
    renderResults(root, { ...response([hit({ content: "sync" })]), confidence }, { showContext: false });
    expect(root.querySelector(".groove-confidence-why")!.textContent).toBe(
      "confidence: not low: calibrated score 2.71 >= 0.75 (best passage 2.71 spreads above unrelated questions; " +
        "asked in a script the vault is not written in: judged against that language's probes, its words in that script not counted)",
    );
    renderResults(root, { ...response([hit({ content: "sync" })]), confidence: null }, { showContext: false });
    expect(root.querySelector(".groove-confidence-why")).toBeNull();
  });

  it("shows title, heading path, score and highlights every span (Japanese, emoji, CRLF)", () => {
    const root = document.createElement("div");
    const content = "## 競合の解決\r\n🎉 同期の競合は、オフラインで編集すると起きます。\r\nSync conflicts 🚀 happen offline.";
    renderResults(root, response([hit({ content, terms: ["競合は", "オフライン", "conflicts", "offline"] })]), { showContext: false });
    expect(marks(root)).toEqual(["競合は", "オフライン", "conflicts", "offline"]);
    expect(root.querySelector(".groove-hit-title")!.textContent).toBe("同期");
    expect(root.querySelector(".groove-hit-headings")!.textContent).toBe("競合の解決");
    expect(root.querySelector(".groove-hit-folder")!.textContent).toBe("Projects");
    expect(root.querySelector(".groove-hit-score")!.textContent).toBe("0.033");
    expect(root.querySelector(".groove-summary")!.textContent).toBe("1 result");
  });

  it("shows the low-confidence banner and the response's warnings", () => {
    const root = document.createElement("div");
    renderResults(root, response([hit({ content: "x" })], { low_confidence: true, warnings: ["reranker unavailable: model missing"] }), { showContext: false });
    expect(root.querySelector(".groove-low-confidence")!.textContent).toMatch(/no strong match/i);
    expect(root.querySelector(".groove-warning")!.textContent).toBe("reranker unavailable: model missing");
  });

  it("says so when nothing matched", () => {
    const root = document.createElement("div");
    renderResults(root, response([]), { showContext: false });
    expect(root.querySelector(".groove-summary")!.textContent).toBe("No results");
    expect(root.querySelectorAll(".groove-hit")).toHaveLength(0);
  });

  it("never puts the low-confidence banner over an empty list", () => {
    const root = document.createElement("div");
    renderResults(root, response([], { low_confidence: true }), { showContext: false });
    expect(root.querySelector(".groove-low-confidence")).toBeNull();
    expect(root.querySelector(".groove-summary")!.textContent).toBe("No results");
    renderResults(root, response([hit({ content: "x" })], { low_confidence: false }), { showContext: false });
    expect(root.querySelector(".groove-low-confidence")).toBeNull();
  });

  it("marks the list as a listbox of options with ids for aria-activedescendant", () => {
    const root = document.createElement("div");
    const els = renderResults(root, response([hit({ content: "a b", terms: ["a"] }), hit({ content: "c d", terms: ["d"] })]), { showContext: false, idPrefix: "p7", listId: "p7-hits" });
    expect(root.querySelector(".groove-hits")!.getAttribute("role")).toBe("listbox");
    expect(root.querySelector(".groove-hits")!.id).toBe("p7-hits");
    expect(els.map((e) => [e.id, e.getAttribute("role"), e.getAttribute("aria-selected")])).toEqual([
      ["p7-hit-0", "option", "false"],
      ["p7-hit-1", "option", "false"],
    ]);
    expect(els[0]!.getAttribute("aria-label")).toMatch(/^同期 — Projects — 競合の解決 — a b$/);
  });

  it("a focused hit opens with Enter and with Space", () => {
    const onOpen = vi.fn();
    const root = document.createElement("div");
    const [item] = renderResults(root, response([hit({ content: "alpha beta", terms: ["beta"] })]), { showContext: false, onOpen });
    item!.dispatchEvent(new KeyboardEvent("keydown", { key: "Enter", bubbles: true }));
    item!.dispatchEvent(new KeyboardEvent("keydown", { key: " ", bubbles: true }));
    expect(onOpen.mock.calls.map((c) => c[1])).toEqual([0, 0]);
  });

  it("toggles the expanded_from context of a hit", () => {
    const parent = "# Intro\nSetup notes.\n\n## Sync\nConflicts happen offline.";
    const own = "## Sync\nConflicts happen offline.";
    const h = hit({
      content: parent,
      terms: ["Setup", "Conflicts"],
      expanded_from: [{ chunk_id: 1, byte_range: [0, B(parent)], line_range: [1, 5] }],
      byte_range: [B(parent) - B(own), B(parent)],
    });
    const root = document.createElement("div");
    renderResults(root, response([h]), { showContext: false });
    expect(marks(root)).toEqual(["Conflicts"]);
    const toggle = root.querySelector<HTMLButtonElement>(".groove-context-toggle")!;
    expect(toggle.textContent).toBe("Show context");
    toggle.click();
    expect(marks(root)).toEqual(["Setup", "Conflicts"]);
    expect(toggle.textContent).toBe("Hide context");
    // The hit's own lines are a block of their own, apart from the context before them.
    // (the context is the note as written: its headings stay, without their markers)
    expect(root.querySelector(".groove-context-before")!.textContent).toBe("Intro\nSetup notes.");
    expect(root.querySelector(".groove-own")!.textContent).toBe("Sync\nConflicts happen offline.");
    expect([...root.querySelectorAll(".groove-own mark")].map((m) => m.textContent)).toEqual(["Conflicts"]);
  });

  it("has no context toggle when the hit was not expanded", () => {
    const root = document.createElement("div");
    renderResults(root, response([hit({ content: "plain" })]), { showContext: true });
    expect(root.querySelector(".groove-context-toggle")).toBeNull();
  });

  it("opens the clicked span, or the first span shown when the hit itself is clicked", () => {
    const onOpen = vi.fn();
    const root = document.createElement("div");
    const content = "alpha beta gamma";
    renderResults(root, response([hit({ content, terms: ["alpha", "gamma"] })]), { showContext: false, onOpen });
    root.querySelectorAll<HTMLElement>("mark")[1]!.click();
    expect(onOpen.mock.calls[0]![1]).toBe(1);
    root.querySelector<HTMLElement>(".groove-hit-title")!.click();
    expect(onOpen.mock.calls[1]![1]).toBe(0);
  });

  it("long context is capped on each side of the hit's own lines, with Show more / Show less", () => {
    const before = "Earlier words here. ".repeat(40);
    const own = "## Sync\nConflicts happen offline.\n";
    const after = "Later words follow. ".repeat(40);
    const parent = before + "\n\n" + own + "\n" + after;
    const h = hit({
      content: parent,
      terms: ["Conflicts"],
      expanded_from: [{ chunk_id: 1, byte_range: [0, B(parent)], line_range: [1, 9] }],
      byte_range: [B(before + "\n\n"), B(before + "\n\n" + own)],
    });
    const root = document.createElement("div");
    renderResults(root, response([h]), { showContext: true });
    const [pre, post] = [root.querySelector<HTMLElement>(".groove-context-before")!, root.querySelector<HTMLElement>(".groove-context-after")!];
    expect(pre.textContent).toMatch(/^… Earlier/);
    expect(pre.textContent!.length).toBeLessThan(CONTEXT_CAP + 20);
    expect(post.textContent).toMatch(/follow\. …Show more$/); // the button is an element of its own
    expect(root.querySelector(".groove-own")!.textContent).toBe("Sync\nConflicts happen offline.");
    post.querySelector<HTMLButtonElement>(".groove-show-more")!.click();
    expect(post.textContent).toBe(after.trim() + "Show less");
    post.querySelector<HTMLButtonElement>(".groove-show-more")!.click();
    expect(post.textContent).toMatch(/ …Show more$/);
  });

  it("data-span is the index into match_spans, even when spans arrive unsorted, adjacent or clipped", () => {
    const onOpen = vi.fn();
    const parent = "# Sync\nsync keeps notes equal.\n\n## Conflicts\nConflicting copies appear when sync runs.";
    const own = "## Conflicts\nConflicting copies appear when sync runs.";
    const at = (t: string, from = 0) => {
      const i = parent.indexOf(t, from);
      return [B(parent.slice(0, i)), B(parent.slice(0, i)) + B(t)] as [number, number];
    };
    const h = hit({
      content: parent,
      // the issue-20 report: spans `sync, Conflicting, copies, sync`, listed out of order here
      match_spans: [at("copies"), at("sync"), at("Conflicting"), at("sync", parent.indexOf("appear"))],
      expanded_from: [{ chunk_id: 1, byte_range: [0, B(parent)], line_range: [1, 5] }],
      byte_range: [B(parent) - B(own), B(parent)],
    });
    const root = document.createElement("div");
    renderResults(root, response([h]), { showContext: false, onOpen });
    const ms = [...root.querySelectorAll<HTMLElement>("mark")];
    expect(ms.map((m) => [m.textContent, m.getAttribute("data-span")])).toEqual([
      ["Conflicting", "2"],
      ["copies", "0"],
      ["sync", "3"],
    ]);
    for (const m of ms) m.click();
    expect(onOpen.mock.calls.map((c) => c[1])).toEqual([2, 0, 3]);
  });

  it("puts a [[Note#Heading]] wikilink on the drag data", () => {
    const root = document.createElement("div");
    renderResults(root, response([hit({ content: "x" })]), { showContext: false });
    const data = new Map<string, string>();
    const evt = new Event("dragstart", { bubbles: true }) as DragEvent;
    Object.defineProperty(evt, "dataTransfer", { value: { setData: (t: string, v: string) => data.set(t, v), effectAllowed: "" } });
    root.querySelector(".groove-hit")!.dispatchEvent(evt);
    expect(data.get("text/plain")).toBe("[[Projects/同期#競合の解決]]");
  });

  it("windows a long snippet around its first highlight, cut between words, one ellipsis each side", () => {
    const content = "start " + "filler ".repeat(200) + "needle " + "filler ".repeat(200) + "haystack end";
    const root = document.createElement("div");
    renderResults(root, response([hit({ content, terms: ["needle", "haystack"] })]), { showContext: false });
    expect(marks(root)).toEqual(["needle"]);
    const text = root.querySelector(".groove-hit-snippet")!.textContent!;
    expect(text.length).toBeLessThan(300);
    expect(text).toMatch(/^… (filler )+needle( filler)+ …$/);
    expect(text.indexOf("needle")).toBeLessThanOrEqual(85);
  });

  it("shows Markdown as text, inline code as <code>, the answer sentence apart from word matches", () => {
    const content = "**Sync** your [[Vault/Phone setup|phone]] with `obsidian://sync`. Open Settings and turn it on.";
    const at = (t: string) => [B(content.slice(0, content.indexOf(t))), B(content.slice(0, content.indexOf(t))) + B(t)] as [number, number];
    const root = document.createElement("div");
    renderResults(root, response([hit({ content, terms: ["Sync", "phone"], answer_spans: [at("Open Settings and turn it on.")] })]), { showContext: false });
    const snip = root.querySelector(".groove-hit-snippet")!;
    expect(snip.textContent).toBe("Sync your phone with obsidian://sync. Open Settings and turn it on.");
    expect(marks(root)).toEqual(["Sync", "phone"]);
    expect(snip.querySelector("code")!.textContent).toBe("obsidian://sync");
    expect([...snip.querySelectorAll(".groove-answer")].map((a) => a.textContent).join("")).toBe("Open Settings and turn it on.");
  });

  it("one note per row: the note's other sections beneath its best one, collapsed until asked", () => {
    const root = document.createElement("div");
    const a1 = hit({ content: "alpha one", terms: ["alpha"], chunk_id: 1, rank: 1 });
    const b1 = hit({ content: "beta one", path: "B.md", title: "B", chunk_id: 2, rank: 2 });
    const a2 = hit({ content: "alpha two", terms: ["alpha"], heading_path: ["同期", "Second"], chunk_id: 3, rank: 3 });
    const els = renderResults(root, response([a1, b1, a2]), { showContext: false });
    expect(root.querySelectorAll(".groove-note")).toHaveLength(2);
    expect(els.map((e) => e.getAttribute("data-index"))).toEqual(["0", "2", "1"]);
    const more = root.querySelector<HTMLButtonElement>(".groove-more-sections")!;
    expect(more.textContent).toBe("▸ 1 more section in this note");
    expect(els[1]!.closest("[hidden]")).not.toBeNull();
    more.click();
    expect(els[1]!.closest("[hidden]")).toBeNull();
    expect(els[1]!.querySelector(".groove-hit-headings")!.textContent).toBe("Second");
  });
});

describe("a note's answer in another of its sections (note_answer_rank, ADR 0269)", () => {
  it("the note's row shows that sentence and opens it there; the section's own row still opens itself", () => {
    const root = document.createElement("div");
    const onOpen = vi.fn();
    const ans = "Open **Settings** and turn it on.";
    const c2 = `Other words here. ${ans}`;
    const a2 = hit({ content: c2, heading_path: ["同期", "Turn it on"], chunk_id: 3, rank: 3, answer_spans: [[B("Other words here. "), B(c2)]] });
    const a1 = hit({ content: "alpha one. Unrelated words.", terms: ["alpha"], chunk_id: 1, rank: 1, answer_spans: [[0, B("alpha one.")]], note_answer_rank: 3 });
    const b1 = hit({ content: "beta one", path: "B.md", title: "B", chunk_id: 2, rank: 2 });
    const els = renderResults(root, response([a1, b1, a2]), { showContext: false, onOpen });
    const line = els[0]!.querySelector(".groove-note-answer")!;
    expect(line.textContent).toBe("Answer in Turn it on: Open Settings and turn it on.");
    els[0]!.click();
    expect(onOpen).toHaveBeenLastCalledWith(a2, -1, expect.anything());
    els[0]!.querySelector<HTMLElement>("mark.groove-match")!.click(); // a word match of the row's own section
    expect(onOpen).toHaveBeenLastCalledWith(a1, 0, expect.anything());
    els[1]!.click();
    expect(onOpen).toHaveBeenLastCalledWith(a2, -1, expect.anything());
    // No pointer, or one to a hit not in the list: the row is as before.
    renderResults(root, response([{ ...a1, note_answer_rank: 9 }, b1, a2]), { showContext: false, onOpen });
    expect(root.querySelector(".groove-note-answer")).toBeNull();
  });

  it("a row pointing elsewhere underlines one answer, the note's line, not its snippet's too", () => {
    const root = document.createElement("div");
    const c2 = "Other words here. Open Settings and turn it on.";
    const a2 = hit({ content: c2, heading_path: ["同期", "Turn it on"], chunk_id: 3, rank: 3, answer_spans: [[B("Other words here. "), B(c2)]] });
    const a1 = hit({ content: "alpha one. Unrelated words.", terms: ["alpha"], chunk_id: 1, rank: 1, answer_spans: [[0, B("alpha one.")]], note_answer_rank: 3 });
    const els = renderResults(root, response([a1, a2]), { showContext: false });
    expect([...els[0]!.querySelectorAll(".groove-answer")].map((a) => a.textContent)).toEqual(["Open Settings and turn it on."]);
    expect(els[0]!.querySelector(".groove-hit-snippet")!.textContent).toContain("alpha one.");
    expect(marks(els[0]!)).toEqual(["alpha"]);
    // The section's own row, and a row whose answer is its own snippet, keep their snippet's underline.
    expect([...els[1]!.querySelectorAll(".groove-answer")].map((a) => a.textContent)).toEqual(["Open Settings and turn it on."]);
    const here = renderResults(root, response([{ ...a1, note_answer_rank: undefined }]), { showContext: false });
    expect([...here[0]!.querySelectorAll(".groove-answer")].map((a) => a.textContent).join("")).toBe("alpha one.");
  });
});

describe("a note's answer in a section that was not returned (note_answer, ADR 0269)", () => {
  it("the row shows the sentence under its heading and opens the note at it", () => {
    const root = document.createElement("div");
    const onOpen = vi.fn();
    const text = "Press **Ctrl+P** to open the command palette.";
    const a1 = hit({
      content: "alpha one. Unrelated words.", terms: ["alpha"], answer_spans: [[0, B("alpha one.")]],
      note_answer: { chunk_id: 7, heading_path: ["同期", "Shortcuts"], text, byte_range: [120, 120 + B(text)], line_range: [14, 14] },
    });
    const els = renderResults(root, response([a1]), { showContext: false, onOpen });
    expect(els[0]!.querySelector(".groove-note-answer")!.textContent).toBe("Answer in Shortcuts: Press Ctrl+P to open the command palette.");
    expect(els[0]!.querySelectorAll(".groove-answer").length).toBe(1);
    els[0]!.click();
    const opened = onOpen.mock.calls[0]![0] as SearchHit;
    expect([opened.path, opened.content, opened.byte_range, opened.line_range, opened.answer_spans]).toEqual([a1.path, text, [120, 120 + B(text)], [14, 14], [[0, B(text)]]]);
    expect(onOpen.mock.calls[0]![1]).toBe(-1);
  });
});

describe("renderRelated", () => {
  it("lists similar notes, backlinks and outgoing links and routes clicks", () => {
    const root = document.createElement("div");
    const onOpenPath = vi.fn();
    const onOpenLink = vi.fn();
    renderRelated(
      root,
      {
        path: "a.md",
        similar: [{ path: "b.md", title: "B", score: 0.9 }],
        backlinks: [{ path: "c.md", title: "C", line: 7 }],
        outgoing: [
          { target: "D", path: "D.md", heading: "Heading", line: 3 },
          { target: "Missing", path: null, heading: null, line: 4 },
        ],
        attachments: [],
        own_headings: [],
      },
      { onOpenPath, onOpenLink },
    );
    const headings = [...root.querySelectorAll(".groove-related-heading")].map((h) => h.textContent);
    expect(headings).toEqual(["Similar (1)", "Backlinks (1)", "Outgoing links (2)"]);
    const items = root.querySelectorAll<HTMLElement>(".groove-related-item");
    items[1]!.click();
    expect(onOpenPath).toHaveBeenCalledWith("c.md", 7, expect.anything());
    items[2]!.click();
    expect(onOpenLink).toHaveBeenCalledWith("D#Heading", "a.md", expect.anything());
    expect(items[2]!.querySelector(".groove-related-name")!.textContent).toBe("D#Heading");
    expect(items[3]!.classList.contains("groove-unresolved")).toBe(true);
  });

  it("lists attachments and links within the note apart from outgoing notes, and opens them", () => {
    const root = document.createElement("div");
    const onOpenPath = vi.fn();
    const onOpenLink = vi.fn();
    renderRelated(
      root,
      {
        path: "Notes/a.md",
        similar: [],
        backlinks: [],
        outgoing: [{ target: "D", path: "D.md", heading: null, line: 3 }],
        attachments: [
          { target: "Sleep-2026.webp", path: "Attachments/Sleep-2026.webp", embed: true, line: 5, occurrences: 2 },
          { target: "manual.pdf", path: null, embed: false, line: 9 },
        ],
        own_headings: [{ heading: "Setup", block: null, line: 2 }, { heading: null, block: "abc123", line: 11 }],
      },
      { onOpenPath, onOpenLink },
    );
    const headings = [...root.querySelectorAll(".groove-related-heading")].map((h) => h.textContent);
    expect(headings).toEqual(["Similar (0)", "Backlinks (0)", "Outgoing links (1)", "Attachments (2)", "Links within this note (2)"]);
    const rows = (id: string) => [...root.querySelectorAll<HTMLElement>(`#groove-related-${id} ~ ul .groove-related-item`)];
    const text = (li: HTMLElement) => [li.querySelector(".groove-related-name")!.textContent, li.querySelector(".groove-related-sub")!.textContent];
    expect(rows("attachments").map(text)).toEqual([["Sleep-2026.webp", "embedded · line 5 · 2×"], ["manual.pdf", "linked · line 9 · missing"]]);
    expect(rows("own-headings").map(text)).toEqual([["#Setup", "line 2"], ["#^abc123", "line 11"]]);
    rows("attachments")[0]!.click();
    expect(onOpenPath).toHaveBeenCalledWith("Attachments/Sleep-2026.webp", null, expect.anything());
    rows("attachments")[1]!.click(); // missing: nothing to open
    expect(onOpenPath).toHaveBeenCalledTimes(1);
    expect(rows("attachments")[1]!.classList.contains("groove-unresolved")).toBe(true);
    rows("own-headings")[1]!.click();
    expect(onOpenLink).toHaveBeenCalledWith("#^abc123", "Notes/a.md", expect.anything());
    // Outgoing notes list neither.
    expect(rows("outgoing").map((li) => li.querySelector(".groove-related-name")!.textContent)).toEqual(["D"]);
  });

  it("shows the folder of notes whose names collide, and only of those", () => {
    const root = document.createElement("div");
    renderRelated(
      root,
      {
        path: "a.md",
        similar: [
          { path: "Dup.md", title: "Dup", score: 0.9 },
          { path: "Projects/Dup.md", title: "Dup", score: 0.8 },
          { path: "Archive/2023/Dup.md", title: "Dup", score: 0.7 },
          { path: "Notes/Unique.md", title: "Unique", score: 0.6 },
        ],
        backlinks: [{ path: "Notes/Ref.md", title: "Ref", line: 2 }],
        outgoing: [],
      attachments: [],
      own_headings: [],
      },
      { onOpenPath: vi.fn(), onOpenLink: vi.fn(), nameIsAmbiguous: (p) => p === "Notes/Ref.md" },
    );
    const rows = [...root.querySelectorAll(".groove-related-item")].map((li) => [li.querySelector(".groove-related-name")!.textContent, li.querySelector(".groove-related-folder")?.textContent ?? null]);
    expect(rows).toEqual([
      ["Dup", "(vault root)"],
      ["Dup", "Projects"],
      ["Dup", "Archive/2023"],
      ["Unique", null],
      ["Ref", "Notes"],
    ]);
  });

  it("marks linked notes, and Insert link inserts without opening the note", () => {
    const root = document.createElement("div");
    const onOpenPath = vi.fn();
    const onInsertLink = vi.fn();
    renderRelated(
      root,
      { path: "a.md", similar: [{ path: "b.md", title: "B", score: 0.9, linked: true }, { path: "c.md", title: "C", score: 0.8, linked: false }], backlinks: [], outgoing: [], attachments: [], own_headings: [] },
      { onOpenPath, onOpenLink: vi.fn(), onInsertLink },
    );
    const items = [...root.querySelectorAll<HTMLElement>(".groove-related-item")];
    expect(items.map((i) => i.classList.contains("groove-linked"))).toEqual([true, false]);
    expect(items[0]!.querySelector(".groove-related-sub")!.textContent).toMatch(/· linked$/);
    expect(items[1]!.querySelector(".groove-related-sub")!.textContent).not.toMatch(/linked/);
    // Insert link only where there is no link yet.
    expect(items.map((i) => !!i.querySelector(".groove-insert-link"))).toEqual([false, true]);
    items[1]!.querySelector<HTMLButtonElement>(".groove-insert-link")!.click();
    expect(onInsertLink).toHaveBeenCalledWith("c.md");
    items[1]!.querySelector(".groove-insert-link")!.dispatchEvent(new KeyboardEvent("keydown", { key: "Enter", bubbles: true }));
    expect(onOpenPath).not.toHaveBeenCalled();
    // Without an insert handler (the modal, VS Code) there is no button.
    renderRelated(root, { path: "a.md", similar: [{ path: "c.md", title: "C", score: 0.8 }], backlinks: [], outgoing: [], attachments: [], own_headings: [] }, { onOpenPath, onOpenLink: vi.fn(), unlinkedOnly: true });
    expect(root.querySelector(".groove-insert-link")).toBeNull();
    expect(root.querySelector(".groove-related-heading")!.textContent).toBe("Similar, not linked (1)");
  });

  it("shows the figure that orders the list (relevance), so the numbers fall down it; the cosine is in the tooltip", () => {
    // As related_notes answers (ADR 0276): ordered by relevance, the cosines out of order.
    const root = document.createElement("div");
    const similar = [
      { path: "b.md", title: "B", score: 0.861, relevance: 2.4, linked: true },
      { path: "c.md", title: "C", score: 0.897, relevance: 1.71 },
      { path: "d.md", title: "D", score: 0.874, relevance: 0.35 },
    ];
    renderRelated(root, { path: "a.md", similar, backlinks: [], outgoing: [], attachments: [], own_headings: [] }, { onOpenPath: vi.fn(), onOpenLink: vi.fn() });
    const items = [...root.querySelectorAll<HTMLElement>(".groove-related-item")];
    expect(items.map((i) => i.querySelector(".groove-related-sub")!.textContent)).toEqual(["2.40 · linked", "1.71", "0.35"]);
    expect(items[1]!.title).toBe("relevance 1.71 (orders this list: higher is closer) · cosine 0.897");
  });

  it("never shows a negative figure: below 0 (no closer than a typical note) it is 0.00, and the tooltip says why", () => {
    const root = document.createElement("div");
    const similar = [
      { path: "b.md", title: "B", score: 0.861, relevance: 0.4 },
      { path: "c.md", title: "C", score: 0.897, relevance: -0.23, linked: true },
    ];
    renderRelated(root, { path: "a.md", similar, backlinks: [], outgoing: [], attachments: [], own_headings: [] }, { onOpenPath: vi.fn(), onOpenLink: vi.fn() });
    const items = [...root.querySelectorAll<HTMLElement>(".groove-related-item")];
    expect(items.map((i) => i.querySelector(".groove-related-sub")!.textContent)).toEqual(["0.40", "0.00 · linked"]);
    expect(items[1]!.title).toBe("relevance 0.00: no closer than a typical note of this vault (orders this list: higher is closer) · cosine 0.897");
  });

  it("is keyboard-operable: arrows move the focus, Enter and Space open", () => {
    const root = document.createElement("div");
    document.body.appendChild(root);
    const onOpenPath = vi.fn();
    renderRelated(
      root,
      { path: "a.md", similar: [{ path: "b.md", title: "B", score: 0.9 }, { path: "c.md", title: "C", score: 0.8 }, { path: "d.md", title: "D", score: 0.7 }], backlinks: [], outgoing: [], attachments: [], own_headings: [] },
      { onOpenPath, onOpenLink: vi.fn() },
    );
    const items = [...root.querySelectorAll<HTMLElement>(".groove-related-item")];
    expect(items.map((i) => i.getAttribute("tabindex"))).toEqual(["0", "-1", "-1"]);
    expect(root.querySelector(".groove-related-list")!.getAttribute("role")).toBe("listbox");
    items[0]!.focus();
    items[0]!.dispatchEvent(new KeyboardEvent("keydown", { key: "ArrowDown", bubbles: true }));
    expect(document.activeElement).toBe(items[1]);
    expect(items.map((i) => i.getAttribute("aria-selected"))).toEqual(["false", "true", "false"]);
    items[1]!.dispatchEvent(new KeyboardEvent("keydown", { key: "End", bubbles: true }));
    expect(document.activeElement).toBe(items[2]);
    items[2]!.dispatchEvent(new KeyboardEvent("keydown", { key: "Enter", bubbles: true }));
    items[2]!.dispatchEvent(new KeyboardEvent("keydown", { key: " ", bubbles: true }));
    expect(onOpenPath.mock.calls.map((c) => c[0])).toEqual(["d.md", "d.md"]);
    root.remove();
  });
});

const actionButtons = (root: HTMLElement) => [...root.querySelectorAll("button[data-action]")].map((b) => b.textContent);

describe("renderState", () => {
  const hints = { executableSetting: 'the "groove executable" setting', autoStartSetting: '"Auto-start daemon"', vault: "/v" };
  it("first index: a progress bar with the counts, and a promise of results", () => {
    const root = document.createElement("div");
    expect(renderState(root, { kind: "first-index", progress: { phase: "embed", done: 120, total: 400 }, status: null })).toBe(true);
    const bar = root.querySelector("progress")!;
    expect([bar.value, bar.max]).toEqual([120, 400]);
    expect(root.textContent).toMatch(/first time.*120 of 400 notes.*Results appear here when it is done/s);
  });

  it("a problem: title, detail, fix, command, log and the buttons that act on it", () => {
    const root = document.createElement("div");
    const onRetry = vi.fn();
    const onBuildIndex = vi.fn();
    const crashed = diagnose(new GrooveError("connect-info", "groove serve exited with code 1 before accepting connections", { data: { code: "daemon-exited", logTail: "line 1\nRuntimeError: boom" } }), hints);
    const onRestart = vi.fn();
    renderState(root, { kind: "problem", problem: crashed }, { onRetry, onBuildIndex, onRestart });
    expect(root.getAttribute("data-cause")).toBe("daemon-crashed");
    expect(root.querySelector(".groove-state-log")!.textContent).toContain("RuntimeError: boom");
    expect(root.querySelector(".groove-state-command")!.textContent).toBe("groove doctor");
    // A crash at start: "Restart" starts it again (it is the check).
    expect(actionButtons(root)).toEqual(["Restart"]);
    root.querySelector<HTMLButtonElement>("button[data-action]")!.click();
    expect(onRestart).toHaveBeenCalledTimes(1);

    const notIndexed = stateForStatus({ documents: 0, chunks: 0, model: "e5", dim: 384, last_indexed: null, stale_files: 9, indexing: false, progress: null, index_path: "/i" }, null);
    renderState(root, notIndexed, { onRetry, onBuildIndex });
    expect(root.getAttribute("data-cause")).toBe("not-indexed");
    expect(actionButtons(root)).toEqual(["Build the index", "Check again"]);
    root.querySelector<HTMLButtonElement>("button[data-action]")!.click();
    expect(onBuildIndex).toHaveBeenCalledTimes(1);
    root.querySelector<HTMLButtonElement>('button[data-action="retry"]')!.click();
    expect(onRetry).toHaveBeenCalledTimes(1);
  });

  it.each([
    ["darwin", "macOS", ["brew install pipx", "pipx install groove-search", "uv tool install groove-search"]],
    ["win32", "Windows", ["py -m pip install --user pipx", "py -m pipx install groove-search", "uv tool install groove-search"]],
    ["linux", "Linux", ["sudo apt install pipx python3-venv build-essential", "pipx install groove-search", "uv tool install groove-search"]],
  ])("backend not found on %s: %s's install steps, each command with Copy, and Check again", async (platform, osName, commands) => {
    const root = document.createElement("div");
    const copied: string[] = [];
    const onRetry = vi.fn();
    const p = diagnose(new GrooveError("not-installed", "x"), { ...hints, platform, executable: "groove" });
    renderState(root, { kind: "problem", problem: p }, { onRetry, onCopy: (t) => void copied.push(t) });
    expect(root.querySelector(".groove-install-steps")!.getAttribute("aria-label")).toBe(`Install groove on ${osName}`);
    expect([...root.querySelectorAll(".groove-state-command")].map((c) => c.textContent)).toEqual(commands);
    expect(root.textContent).not.toMatch(/pip install groove\b|make install/);
    for (const b of root.querySelectorAll<HTMLButtonElement>("button.groove-copy")) b.click();
    await new Promise((r) => setTimeout(r, 0));
    expect(copied).toEqual(commands);
    expect([...root.querySelectorAll("button.groove-copy")].map((b) => b.textContent)).toEqual(["Copied", "Copied", "Copied"]);
    expect(actionButtons(root)).toEqual(["Check again"]);
    root.querySelector<HTMLButtonElement>('button[data-action="retry"]')!.click();
    expect(onRetry).toHaveBeenCalledTimes(1);
  });

  it("model missing: the download button says how big it is; a failed download says why and resumes", () => {
    const root = document.createElement("div");
    const onDownloadModel = vi.fn();
    const missing = diagnose(new GrooveError("connect-info", "x", { data: { code: "model-download-needed" } }), hints);
    const sized = { ...missing, download: { bytes: 91_165_692, partialBytes: 0, modelsDir: "/Users/me/.local/share/groove/models", indexUrl: "https://pypi.org/simple" } };
    renderState(root, { kind: "problem", problem: sized }, { onDownloadModel, onRetry: () => {} });
    expect(root.getAttribute("data-cause")).toBe("model-missing");
    expect(actionButtons(root)).toEqual(["Download the default model (≈ 91 MB)", "Check again"]);
    expect(root.querySelector(".groove-state-note")!.textContent).toBe("Saved in /Users/me/.local/share/groove/models; from https://pypi.org/simple.");
    const b = root.querySelector<HTMLButtonElement>('button[data-action="download-model"]')!;
    b.click();
    b.click(); // disabled after the first click: one download
    expect(onDownloadModel).toHaveBeenCalledTimes(1);

    const failed = diagnose(new GrooveError("connect-info", "x", { data: { pull: { kind: "interrupted", message: "download kept failing (connection reset); the next try resumes" } } }), hints);
    renderState(root, { kind: "problem", problem: { ...failed, download: { bytes: 91_165_692, partialBytes: 40_000_000 } } }, { onDownloadModel, onRetry: () => {} });
    expect(root.querySelector(".groove-state-title")!.textContent).toBe("The model download kept breaking off");
    expect(root.querySelector(".groove-state-detail")!.textContent).toContain("connection reset");
    expect(actionButtons(root)).toEqual(["Try again (resumes at 40.0 MB)", "Check again"]);
  });

  it("model download: a byte progress bar, then checking and converting", () => {
    const root = document.createElement("div");
    renderState(root, { kind: "model-download", progress: { phase: "download", done: 40_000_000, total: 91_165_692, note: "connection problem (reset); retrying, attempt 1 of 3" } });
    const bar = root.querySelector("progress")!;
    expect([bar.value, bar.max]).toEqual([40_000_000, 91_165_692]);
    expect(root.querySelector(".groove-download-text")!.textContent).toBe("Downloading: 40.0 of 91.2 MB (43%)");
    expect(root.querySelector(".groove-state-note")!.textContent).toMatch(/retrying, attempt 1 of 3/);
    expect(root.getAttribute("role")).toBe("status");
    renderState(root, { kind: "model-download", progress: { phase: "convert", done: 91_165_692, total: 91_165_692 } });
    expect(root.querySelector(".groove-download-text")!.textContent).toBe("Converting it for llama.cpp (a few seconds)…");
    expect(formatStatus({ kind: "model-download", progress: { phase: "download", done: 40_000_000, total: 91_165_692 } }).text).toBe("groove: downloading model 43%");
  });

  it("a crashed daemon: its log's last lines and Restart; auto-start off: Start groove and Check again", () => {
    const root = document.createElement("div");
    const crashed = diagnose(new GrooveError("connect-info", "x", { data: { crashed: true, pid: 4242, stderr: "INFO listening on unix /r/v.sock\nINFO indexed vault: 3 changed" } }), hints);
    renderState(root, { kind: "problem", problem: crashed }, { onRestart: () => {}, onRetry: () => {} });
    expect(root.querySelector(".groove-state-title")!.textContent).toBe("The groove daemon stopped unexpectedly");
    expect(root.querySelector(".groove-state-detail")!.textContent).toContain("pid 4242");
    expect(root.querySelector(".groove-state-log")!.textContent).toContain("indexed vault: 3 changed");
    expect(actionButtons(root)).toEqual(["Restart"]);
    renderState(root, { kind: "problem", problem: diagnose(new GrooveError("not-running", "x"), hints) }, { onRestart: () => {}, onRetry: () => {} });
    expect(actionButtons(root)).toEqual(["Start groove", "Check again"]);
  });

  it("renders nothing when ready", () => {
    const root = document.createElement("div");
    expect(renderState(root, { kind: "ready", status: { documents: 1, chunks: 1, model: "m", dim: 1, last_indexed: 1, stale_files: 0, indexing: false, progress: null, index_path: "/i" } })).toBe(false);
    expect(root.childNodes).toHaveLength(0);
  });
});

describe("formatStatus", () => {
  const st: IndexStatusResult = { documents: 5000, chunks: 12000, model: "e5-small", dim: 384, last_indexed: 1_700_000_000, stale_files: 0, indexing: false, progress: null, index_path: "/i" };
  const hints = { executableSetting: 'the "groove executable" setting', autoStartSetting: '"Auto-start daemon"', vault: "/v" };
  it("shows indexing progress with thousands separators", () => {
    expect(formatStatus({ kind: "indexing", status: { ...st, indexing: true }, progress: { phase: "embed", done: 1234, total: 5000 } }).text).toBe("groove: indexing 1,234/5,000");
  });
  it("says up to date when idle", () => {
    expect(formatStatus({ kind: "ready", status: st })).toEqual({ text: "groove: up to date", tooltip: "groove: 5,000 notes · 12,000 sections · e5-small" });
  });
  it("flags the last index job's failure", () => {
    const f = formatStatus({ kind: "ready", status: { ...st, last_error: "model failed to load" } });
    expect(f.text).toBe("groove: index error");
    expect(f.tooltip).toMatch(/last index error: model failed to load/);
  });
  it("says what is wrong, one text per cause, not 'daemon not running' for everything", () => {
    const texts = [
      new GrooveError("not-installed", "x"),
      new GrooveError("not-running", "x"),
      new GrooveError("auth", "x"),
      new GrooveError("protocol", "x", { data: { reason: "daemon-too-old" } }),
      new GrooveError("disconnected", "x"),
    ].map((e) => formatStatus({ kind: "problem", problem: diagnose(e, hints) }).text);
    expect(texts).toEqual(["groove: not installed", "groove: not running", "groove: token rejected", "groove: update groove", "groove: reconnecting"]);
  });
});

describe("tidySegments", () => {
  it("drops the leading heading lines and blank lines but keeps highlighted headings", () => {
    const content = "# 会議メモ\r\n\r\n## 予算の承認\r\n\r\n来期の予算について議論した。";
    const segs = tidySegments(highlightSegments(content, spansOf(content, ["予算の承認", "予算について"])));
    expect(segs.map((s) => s.text).join("")).toBe("予算の承認\n来期の予算について議論した。");
    expect(segs.filter((s) => s.highlighted).map((s) => s.text)).toEqual(["予算の承認", "予算について"]);
  });
  it("leaves '#tags' and mid-line hashes alone", () => {
    const segs = tidySegments([{ text: "see #tag and C# code\n\n\nnext", highlighted: false }]);
    expect(segs[0]!.text).toBe("see #tag and C# code\nnext");
  });
});
