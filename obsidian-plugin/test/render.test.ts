import { describe, expect, it, vi } from "vitest";
import { formatStatus, renderRelated, renderResults, tidySegments } from "../src/render";
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
  ...extra,
});

const marks = (root: HTMLElement) => [...root.querySelectorAll("mark.groove-match")].map((m) => m.textContent);

describe("renderResults", () => {
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
    // Heading lines / blank lines are tidied for display; highlights are untouched.
    expect(root.querySelector(".groove-hit-snippet")!.textContent).toBe("Setup notes.\nSync\nConflicts happen offline.");
  });

  it("has no context toggle when the hit was not expanded", () => {
    const root = document.createElement("div");
    renderResults(root, response([hit({ content: "plain" })]), { showContext: true });
    expect(root.querySelector(".groove-context-toggle")).toBeNull();
  });

  it("opens the clicked span, or span 0 when the hit itself is clicked", () => {
    const onOpen = vi.fn();
    const root = document.createElement("div");
    const content = "alpha beta gamma";
    renderResults(root, response([hit({ content, terms: ["alpha", "gamma"] })]), { showContext: false, onOpen });
    root.querySelectorAll<HTMLElement>("mark")[1]!.click();
    expect(onOpen.mock.calls[0]![1]).toBe(1);
    root.querySelector<HTMLElement>(".groove-hit-title")!.click();
    expect(onOpen.mock.calls[1]![1]).toBe(0);
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

  it("keeps every highlight visible when eliding a long snippet", () => {
    const content = "start " + "filler ".repeat(200) + "needle " + "filler ".repeat(200) + "haystack end";
    const root = document.createElement("div");
    renderResults(root, response([hit({ content, terms: ["needle", "haystack"] })]), { showContext: false });
    expect(marks(root)).toEqual(["needle", "haystack"]);
    expect(root.querySelector(".groove-hit-snippet")!.textContent!.length).toBeLessThan(500);
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
          { target: "D#Heading", path: "D.md", heading: "Heading", line: 3 },
          { target: "Missing", path: null, heading: null, line: 4 },
        ],
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
    expect(items[3]!.classList.contains("groove-unresolved")).toBe(true);
  });
});

describe("formatStatus", () => {
  const st: IndexStatusResult = { documents: 5000, chunks: 12000, model: "e5-small", dim: 384, last_indexed: null, stale_files: 0, indexing: false, progress: null, index_path: "/i" };
  it("shows indexing progress with thousands separators", () => {
    expect(formatStatus({ kind: "status", status: { ...st, indexing: true }, progress: { phase: "embed", done: 1234, total: 5000 } }).text).toBe("groove: indexing 1,234/5,000");
  });
  it("says up to date when idle", () => {
    expect(formatStatus({ kind: "status", status: st })).toEqual({ text: "groove: up to date", tooltip: "5,000 notes · 12,000 chunks · e5-small" });
  });
  it("flags the last index job's failure", () => {
    const f = formatStatus({ kind: "status", status: { ...st, last_error: "model failed to load" } });
    expect(f.text).toBe("groove: index error");
    expect(f.tooltip).toMatch(/last index error: model failed to load/);
  });
  it("says the daemon is not running", () => {
    expect(formatStatus({ kind: "not-running" }).text).toBe("groove: daemon not running");
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
