/**
 * As-you-type search: debounce keystrokes, cancel the search a newer query
 * supersedes, and never deliver an older query's results after a newer
 * query was entered. Transport-agnostic: anything with `startSearch`
 * (GrooveClient, or the browser test's bridge) can run it.
 */
import { GrooveError } from "./errors";
import type { SearchParams, SearchResponse } from "./protocol";
import type { PendingRequest } from "./client";

export interface SearchRunner {
  startSearch(params: SearchParams): PendingRequest<SearchResponse>;
}

export interface Timers {
  setTimeout(fn: () => void, ms: number): unknown;
  clearTimeout(handle: unknown): void;
  now(): number;
}

const realTimers: Timers = {
  setTimeout: (fn, ms) => setTimeout(fn, ms),
  clearTimeout: (h) => clearTimeout(h as ReturnType<typeof setTimeout>),
  now: () => (typeof performance !== "undefined" ? performance.now() : Date.now()),
};

export interface SearchTiming {
  /** When the query was entered (the keystroke), ms on the session's clock. */
  enteredAt: number;
  /** When the request was sent (after the debounce). */
  sentAt: number;
  /** When the response arrived. */
  receivedAt: number;
}

export interface SearchSessionOptions {
  runner: SearchRunner;
  debounceMs?: number;
  timers?: Timers;
  onResults: (response: SearchResponse, params: SearchParams, timing: SearchTiming) => void;
  onError?: (error: GrooveError, params: SearchParams) => void;
  /** The query became empty: clear the results. */
  onClear?: () => void;
  /** A search is scheduled or running (true) / settled (false). */
  onBusy?: (busy: boolean) => void;
}

interface InFlight {
  seq: number;
  handle: PendingRequest<SearchResponse>;
}

export class SearchSession {
  private readonly o: SearchSessionOptions;
  private readonly timers: Timers;
  private seq = 0;
  private lastKey: string | null = null;
  private timer: unknown = null;
  private scheduled: { seq: number; params: SearchParams; enteredAt: number } | null = null;
  private inFlight: InFlight | null = null;
  private disposed = false;

  constructor(opts: SearchSessionOptions) {
    this.o = opts;
    this.timers = opts.timers ?? realTimers;
  }

  /** Sequence number of the newest query entered (results of any other are dropped). */
  get latest(): number {
    return this.seq;
  }

  /**
   * A new query (or new filters). Identical params are ignored (e.g. arrow
   * keys in the box). `immediate` skips the debounce (Enter, a toggle).
   */
  update(params: SearchParams, opts: { immediate?: boolean; force?: boolean } = {}): void {
    if (this.disposed) return;
    const key = stableKey(params);
    if (key === this.lastKey && !opts.force) return;
    this.lastKey = key;
    const seq = ++this.seq;
    const enteredAt = this.timers.now();
    this.clearTimer();
    this.cancelInFlight();

    if (!params.query.trim()) {
      this.o.onBusy?.(false);
      this.o.onClear?.();
      return;
    }
    this.o.onBusy?.(true);
    if (opts.immediate) this.run(seq, params, enteredAt);
    else {
      this.scheduled = { seq, params, enteredAt };
      this.timer = this.timers.setTimeout(() => this.run(seq, params, enteredAt), this.o.debounceMs ?? 150);
    }
  }

  /** Send the debounced search now (Enter). Returns false when nothing was waiting. */
  flush(): boolean {
    const s = this.scheduled;
    if (!s || this.timer === null) return false;
    this.clearTimer();
    this.run(s.seq, s.params, s.enteredAt);
    return true;
  }

  /** Re-run the current query even though it did not change (e.g. after index.changed). */
  refresh(params: SearchParams): void {
    this.update(params, { immediate: true, force: true });
  }

  private run(seq: number, params: SearchParams, enteredAt: number): void {
    this.timer = null;
    this.scheduled = null;
    if (seq !== this.seq || this.disposed) return;
    const sentAt = this.timers.now();
    let handle: PendingRequest<SearchResponse>;
    try {
      handle = this.o.runner.startSearch(params);
    } catch (e) {
      this.o.onBusy?.(false);
      this.o.onError?.(e instanceof GrooveError ? e : new GrooveError("protocol", String(e)), params);
      return;
    }
    this.inFlight = { seq, handle };
    handle.promise.then(
      (response) => {
        // The guarantee: only the newest query may render.
        if (seq !== this.seq || this.disposed) return;
        this.inFlight = null;
        this.o.onBusy?.(false);
        this.o.onResults(response, params, { enteredAt, sentAt, receivedAt: this.timers.now() });
      },
      (err: unknown) => {
        if (seq !== this.seq || this.disposed) return;
        this.inFlight = null;
        this.o.onBusy?.(false);
        const e = err instanceof GrooveError ? err : new GrooveError("protocol", String(err));
        if (e.isCancelled) return;
        this.o.onError?.(e, params);
      },
    );
  }

  private clearTimer(): void {
    if (this.timer !== null) {
      this.timers.clearTimeout(this.timer);
      this.timer = null;
    }
    this.scheduled = null;
  }

  private cancelInFlight(): void {
    if (this.inFlight) {
      this.inFlight.handle.cancel();
      this.inFlight = null;
    }
  }

  /** Drop the scheduled and running search (e.g. the view closes). */
  cancel(): void {
    this.seq++;
    this.lastKey = null;
    this.clearTimer();
    this.cancelInFlight();
    this.o.onBusy?.(false);
  }

  dispose(): void {
    this.cancel();
    this.disposed = true;
  }
}

/** JSON with sorted keys, so {a,b} and {b,a} are the same query. */
export function stableKey(v: unknown): string {
  if (Array.isArray(v)) return `[${v.map(stableKey).join(",")}]`;
  if (v && typeof v === "object") {
    return `{${Object.keys(v)
      .filter((k) => (v as Record<string, unknown>)[k] !== undefined)
      .sort()
      .map((k) => `${JSON.stringify(k)}:${stableKey((v as Record<string, unknown>)[k])}`)
      .join(",")}}`;
  }
  return JSON.stringify(v);
}
