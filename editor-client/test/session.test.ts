import { afterEach, beforeEach, describe, expect, it, vi } from "vitest";
import { SearchSession, stableKey, type Timers } from "../src/session";
import { GrooveError } from "../src/errors";
import { ErrorCode, type SearchParams, type SearchResponse } from "../src/protocol";
import type { PendingRequest } from "../src/client";

/** A runner whose searches the test resolves by hand, in any order. */
class ManualRunner {
  started: Array<{ params: SearchParams; resolve: (r: SearchResponse) => void; reject: (e: unknown) => void; cancelled: boolean }> = [];
  log: string[] = [];
  startSearch(params: SearchParams): PendingRequest<SearchResponse> {
    let resolve!: (r: SearchResponse) => void;
    let reject!: (e: unknown) => void;
    const promise = new Promise<SearchResponse>((res, rej) => {
      resolve = res;
      reject = rej;
    });
    const entry = { params, resolve, reject, cancelled: false };
    this.started.push(entry);
    this.log.push(`start ${params.query}`);
    return {
      promise,
      cancel: () => {
        entry.cancelled = true;
        this.log.push(`cancel ${params.query}`);
        reject(new GrooveError("rpc", "cancelled", { code: ErrorCode.Cancelled }));
      },
    };
  }
  byQuery(q: string) {
    const e = this.started.find((s) => s.params.query === q);
    if (!e) throw new Error(`no search for ${q}`);
    return e;
  }
}

const resp = (tag: string): SearchResponse => ({ results: [], low_confidence: false, filter_applied: {}, warnings: [tag], confidence: null });
const timers: Timers = { setTimeout: (f, ms) => setTimeout(f, ms), clearTimeout: (h) => clearTimeout(h as never), now: () => Date.now() };

describe("SearchSession", () => {
  beforeEach(() => vi.useFakeTimers());
  afterEach(() => vi.useRealTimers());

  function setup(debounceMs = 150) {
    const runner = new ManualRunner();
    const shown: string[] = [];
    const errors: string[] = [];
    let cleared = 0;
    const session = new SearchSession({
      runner,
      debounceMs,
      timers,
      onResults: (r) => shown.push(r.warnings[0]!),
      onError: (e) => errors.push(e.message),
      onClear: () => cleared++,
    });
    return { runner, shown, errors, session, cleared: () => cleared };
  }

  it("sends one search for a burst of keystrokes, after the debounce", async () => {
    const { runner, session } = setup();
    for (const q of ["s", "sy", "syn", "sync"]) {
      session.update({ query: q });
      await vi.advanceTimersByTimeAsync(50);
    }
    expect(runner.started).toHaveLength(0);
    await vi.advanceTimersByTimeAsync(100);
    expect(runner.started.map((s) => s.params.query)).toEqual(["sync"]);
  });

  it("cancels the in-flight search as soon as a newer query is typed", async () => {
    const { runner, session } = setup();
    session.update({ query: "sync" });
    await vi.advanceTimersByTimeAsync(150);
    session.update({ query: "sync conflict" });
    expect(runner.log).toEqual(["start sync", "cancel sync"]);
    await vi.advanceTimersByTimeAsync(150);
    expect(runner.log).toEqual(["start sync", "cancel sync", "start sync conflict"]);
  });

  it("never shows an older query's results after a newer query was entered", async () => {
    const { runner, session, shown } = setup();
    session.update({ query: "old" });
    await vi.advanceTimersByTimeAsync(150);
    const old = runner.byQuery("old");
    session.update({ query: "new" });
    await vi.advanceTimersByTimeAsync(150);
    runner.byQuery("new").resolve(resp("new"));
    // The daemon ignored the cancel and answered late anyway.
    old.resolve(resp("old"));
    await vi.advanceTimersByTimeAsync(0);
    expect(shown).toEqual(["new"]);
  });

  it("drops a response that arrives while a newer query is still being debounced", async () => {
    const { runner, session, shown } = setup();
    session.update({ query: "a" });
    await vi.advanceTimersByTimeAsync(150);
    session.update({ query: "ab" }); // debouncing
    runner.byQuery("a").resolve(resp("a"));
    await vi.advanceTimersByTimeAsync(10);
    expect(shown).toEqual([]);
    await vi.advanceTimersByTimeAsync(140);
    runner.byQuery("ab").resolve(resp("ab"));
    await vi.advanceTimersByTimeAsync(0);
    expect(shown).toEqual(["ab"]);
  });

  it("ignores cancellation errors but reports other errors of the newest query", async () => {
    const { runner, session, errors } = setup();
    session.update({ query: "x" });
    await vi.advanceTimersByTimeAsync(150);
    session.update({ query: "-only" });
    await vi.advanceTimersByTimeAsync(150);
    runner.byQuery("-only").reject(new GrooveError("rpc", "bad query: exclusions only", { code: ErrorCode.BadQuery }));
    await vi.advanceTimersByTimeAsync(0);
    expect(errors).toEqual(["bad query: exclusions only"]);
  });

  it("clears results and cancels when the query becomes empty", async () => {
    const { runner, session, shown, cleared } = setup();
    session.update({ query: "x" });
    await vi.advanceTimersByTimeAsync(150);
    session.update({ query: "  " });
    expect(cleared()).toBe(1);
    expect(runner.byQuery("x").cancelled).toBe(true);
    runner.byQuery("x").resolve(resp("x"));
    await vi.advanceTimersByTimeAsync(500);
    expect(shown).toEqual([]);
  });

  it("does not re-search identical params but does when a filter changes", async () => {
    const { runner, session } = setup();
    session.update({ query: "q", limit: 10, rerank: null });
    await vi.advanceTimersByTimeAsync(150);
    session.update({ rerank: null, limit: 10, query: "q" });
    await vi.advanceTimersByTimeAsync(150);
    expect(runner.started).toHaveLength(1);
    session.update({ query: "q", limit: 10, rerank: true }, { immediate: true });
    expect(runner.started).toHaveLength(2);
  });

  it("flush sends the debounced search at once (Enter) and only once", async () => {
    const { runner, session } = setup();
    session.update({ query: "now" });
    expect(session.flush()).toBe(true);
    expect(runner.started.map((s) => s.params.query)).toEqual(["now"]);
    await vi.advanceTimersByTimeAsync(300);
    expect(runner.started).toHaveLength(1);
    expect(session.flush()).toBe(false);
  });

  it("reports keystroke and send times so latency can be measured", async () => {
    const runner = new ManualRunner();
    const timings: Array<[number, number, number]> = [];
    const session = new SearchSession({ runner, timers, onResults: (_r, _p, t) => timings.push([t.enteredAt, t.sentAt, t.receivedAt]) });
    const t0 = Date.now();
    session.update({ query: "q" });
    await vi.advanceTimersByTimeAsync(150);
    await vi.advanceTimersByTimeAsync(40);
    runner.byQuery("q").resolve(resp("q"));
    await vi.advanceTimersByTimeAsync(0);
    expect(timings).toEqual([[t0, t0 + 150, t0 + 190]]);
  });
});

describe("stableKey", () => {
  it("ignores key order and undefined values", () => {
    expect(stableKey({ a: 1, b: [1, { c: 2, d: undefined }] })).toBe(stableKey({ b: [1, { c: 2 }], a: 1 }));
  });
});
