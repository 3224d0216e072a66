import { afterEach, beforeEach, describe, expect, it, vi } from "vitest";
import { SearchPanel } from "../src/panel";
import { GrooveError } from "@groove/editor-client/errors";
import type { PendingRequest } from "@groove/editor-client/client";
import type { SearchParams, SearchResponse } from "@groove/editor-client/protocol";

function manualRunner() {
  const calls: Array<{ params: SearchParams; resolve: (r: SearchResponse) => void; cancelled: boolean }> = [];
  return {
    calls,
    startSearch(params: SearchParams): PendingRequest<SearchResponse> {
      let resolve!: (r: SearchResponse) => void;
      const promise = new Promise<SearchResponse>((r) => (resolve = r));
      const c = { params, resolve, cancelled: false };
      calls.push(c);
      return { promise, cancel: () => (c.cancelled = true) };
    },
  };
}

const resp = (title: string): SearchResponse => ({
  results: [{ path: `${title}.md`, title, heading_path: [], level: 0, content: title, score: 0.1, rank: 1, match_spans: [[0, title.length]], answer_spans: [], expanded_from: [], byte_range: [0, title.length], line_range: [1, 1], chunk_id: 1 }],
  low_confidence: false,
  filter_applied: {},
  warnings: [],
  confidence: null,
});

describe("SearchPanel", () => {
  beforeEach(() => vi.useFakeTimers());
  afterEach(() => vi.useRealTimers());

  function mount() {
    const runner = manualRunner();
    const container = document.createElement("div");
    const opened: string[] = [];
    const panel = new SearchPanel(container, {
      runner,
      limit: 10,
      toggles: { rerank: "default", mmr: "default", parentRetriever: "default" },
      showContext: false,
      onOpen: (hit) => opened.push(hit.path),
    });
    const type = (v: string, composing = false) => {
      panel.input.value = v;
      panel.input.dispatchEvent(new InputEvent("input", { isComposing: composing }));
    };
    const titles = () => [...container.querySelectorAll(".groove-hit-title")].map((e) => e.textContent);
    return { runner, container, panel, type, titles, opened };
  }

  it("renders only the newest query's results in the DOM, whatever order answers arrive in", async () => {
    const { runner, type, titles } = mount();
    type("old");
    await vi.advanceTimersByTimeAsync(150);
    type("new");
    await vi.advanceTimersByTimeAsync(150);
    expect(runner.calls.map((c) => [c.params.query, c.cancelled])).toEqual([["old", true], ["new", false]]);
    runner.calls[1]!.resolve(resp("new"));
    await vi.advanceTimersByTimeAsync(0);
    runner.calls[0]!.resolve(resp("old"));
    await vi.advanceTimersByTimeAsync(0);
    expect(titles()).toEqual(["new"]);
  });

  it("waits for the IME composition to end before searching", async () => {
    const { runner, panel, type } = mount();
    type("よさ", true);
    type("予算", true);
    await vi.advanceTimersByTimeAsync(300);
    expect(runner.calls).toHaveLength(0);
    panel.input.dispatchEvent(new CompositionEvent("compositionend", { data: "予算" }));
    await vi.advanceTimersByTimeAsync(150);
    expect(runner.calls.map((c) => c.params.query)).toEqual(["予算"]);
  });

  it("opens the selected hit with Enter and moves the selection with the arrow keys", async () => {
    const { runner, panel, type, opened } = mount();
    type("q");
    await vi.advanceTimersByTimeAsync(150);
    const two = resp("a");
    two.results.push({ ...resp("b").results[0]!, rank: 2 });
    runner.calls[0]!.resolve(two);
    await vi.advanceTimersByTimeAsync(0);
    panel.input.dispatchEvent(new KeyboardEvent("keydown", { key: "ArrowDown" }));
    panel.input.dispatchEvent(new KeyboardEvent("keydown", { key: "Enter" }));
    expect(opened).toEqual(["b.md"]);
  });

  it("does not open a stale hit with Enter while a newer query is pending", async () => {
    const { runner, panel, type, opened } = mount();
    type("a");
    await vi.advanceTimersByTimeAsync(150);
    runner.calls[0]!.resolve(resp("a"));
    await vi.advanceTimersByTimeAsync(0);
    type("ab");
    panel.input.dispatchEvent(new KeyboardEvent("keydown", { key: "Enter" }));
    expect(opened).toEqual([]);
    expect(runner.calls.map((c) => c.params.query)).toEqual(["a", "ab"]); // Enter searches now
  });

  it("cycles a toggle auto -> on -> off -> auto and searches immediately", async () => {
    const { runner, container, type } = mount();
    type("q");
    await vi.advanceTimersByTimeAsync(150);
    const chip = container.querySelector<HTMLButtonElement>('[data-toggle="mmr"]')!;
    const seen: Array<[string | null, boolean | null | undefined]> = [];
    for (let i = 0; i < 3; i++) {
      chip.click();
      seen.push([chip.textContent, runner.calls[runner.calls.length - 1]!.params.mmr]);
    }
    expect(seen).toEqual([["MMR: on", true], ["MMR: off", false], ["MMR: auto", null]]);
  });

  it("clears the results when the box is emptied", async () => {
    const { runner, type, titles } = mount();
    type("q");
    await vi.advanceTimersByTimeAsync(150);
    runner.calls[0]!.resolve(resp("q"));
    await vi.advanceTimersByTimeAsync(0);
    expect(titles()).toEqual(["q"]);
    type("");
    expect(titles()).toEqual([]);
  });
});

describe("SearchPanel: screen readers and the connection state", () => {
  beforeEach(() => vi.useFakeTimers());
  afterEach(() => vi.useRealTimers());

  function mount() {
    const runner = manualRunner();
    const container = document.createElement("div");
    const panel = new SearchPanel(container, { runner, limit: 10, toggles: { rerank: "default", mmr: "default", parentRetriever: "default" }, showContext: false });
    const type = (v: string) => {
      panel.input.value = v;
      panel.input.dispatchEvent(new InputEvent("input"));
    };
    return { runner, container, panel, type };
  }

  it("the query box is a combobox whose aria-activedescendant follows the selected hit", async () => {
    const { runner, container, panel, type } = mount();
    expect(panel.input.getAttribute("role")).toBe("combobox");
    expect(panel.input.getAttribute("aria-expanded")).toBe("false");
    type("q");
    await vi.advanceTimersByTimeAsync(150);
    const two = resp("a");
    two.results.push({ ...resp("b").results[0]!, rank: 2 });
    runner.calls[0]!.resolve(two);
    await vi.advanceTimersByTimeAsync(0);
    const list = container.querySelector(".groove-hits")!;
    expect(panel.input.getAttribute("aria-controls")).toBe(list.id);
    expect(panel.input.getAttribute("aria-expanded")).toBe("true");
    const hits = [...container.querySelectorAll(".groove-hit")];
    expect(panel.input.getAttribute("aria-activedescendant")).toBe(hits[0]!.id);
    panel.input.dispatchEvent(new KeyboardEvent("keydown", { key: "ArrowDown" }));
    expect(panel.input.getAttribute("aria-activedescendant")).toBe(hits[1]!.id);
    expect(hits.map((h) => h.getAttribute("aria-selected"))).toEqual(["false", "true"]);
    type("");
    expect(panel.input.hasAttribute("aria-activedescendant")).toBe(false);
  });

  it("during the first index an empty answer is 'not yet' (progress card, no 'No results', no banner); ready re-runs the query", async () => {
    const { runner, container, panel, type } = mount();
    panel.setConnection({ kind: "first-index", progress: { phase: "embed", done: 3, total: 10 }, status: null });
    type("sync");
    await vi.advanceTimersByTimeAsync(150);
    runner.calls[0]!.resolve({ results: [], low_confidence: true, filter_applied: {}, warnings: [], confidence: null });
    await vi.advanceTimersByTimeAsync(0);
    expect(container.querySelector(".groove-state progress")).not.toBeNull();
    expect(container.querySelector(".groove-summary")).toBeNull();
    expect(container.querySelector(".groove-low-confidence")).toBeNull();
    panel.setConnection({ kind: "ready", status: { documents: 10, chunks: 20, model: "m", dim: 1, last_indexed: 1, stale_files: 0, indexing: false, progress: null, index_path: "/i" } });
    expect(container.querySelector(".groove-state")!.childNodes).toHaveLength(0);
    expect(runner.calls.map((c) => c.params.query)).toEqual(["sync", "sync"]);
    runner.calls[1]!.resolve(resp("Sync"));
    await vi.advanceTimersByTimeAsync(0);
    expect(container.querySelector(".groove-hit-title")!.textContent).toBe("Sync");
  });

  it("a search that fails during the first index shows no error banner (the daemon has no tables yet)", async () => {
    const runner = {
      calls: 0,
      startSearch() {
        this.calls++;
        return { promise: Promise.reject(new GrooveError("rpc", "groove daemon error: internal error: SQLError: no such table: vec_chunks", { code: -32000 })), cancel: () => {} };
      },
    };
    const container = document.createElement("div");
    const panel = new SearchPanel(container, { runner, limit: 10, toggles: { rerank: "default", mmr: "default", parentRetriever: "default" }, showContext: false });
    panel.setConnection({ kind: "first-index", progress: null, status: null });
    panel.setQuery("sync");
    await vi.advanceTimersByTimeAsync(0);
    expect(runner.calls).toBe(1);
    expect(container.querySelector(".groove-error")).toBeNull();
    expect(container.querySelector(".groove-state-first-index")).not.toBeNull();
  });
});
