/**
 * Browser bundle for the headless-Chromium test: the real SearchPanel and
 * render code, with searches bridged to the Node side (which talks to the
 * daemon through the real GrooveClient) via Playwright's exposeFunction.
 */
import { SearchPanel } from "../../src/panel";
import type { SearchParams, SearchResponse } from "@groove/editor-client/protocol";
import { GrooveError } from "@groove/editor-client/errors";

declare global {
  interface Window {
    __grooveSearch(token: number, params: SearchParams): Promise<{ response?: SearchResponse; error?: { kind: string; code?: number; message: string } }>;
    __grooveCancel(token: number): Promise<void>;
    grooveTest: typeof api;
  }
}

export interface RenderRecord {
  query: string;
  /** performance.now() of the input event that produced the query. */
  enteredAt: number;
  sentAt: number;
  receivedAt: number;
  /** After the DOM update and the next animation frame (pixels on screen). */
  paintedAt: number;
  hits: number;
}

let nextToken = 1;
const renders: RenderRecord[] = [];
const opened: Array<{ path: string; span: number }> = [];
/** performance.now() of every input event in the query box. */
const inputs: number[] = [];
document.addEventListener("input", (e) => {
  if ((e.target as HTMLElement).classList?.contains("groove-query")) inputs.push(performance.now());
}, true);

const api = {
  renders,
  opened,
  inputs,
  mount(container: HTMLElement, opts: { limit?: number; showContext?: boolean; debounceMs?: number } = {}) {
    return new SearchPanel(container, {
      runner: {
        startSearch(params) {
          const token = nextToken++;
          const promise = window.__grooveSearch(token, params).then((r) => {
            if (r.error) throw new GrooveError(r.error.kind as never, r.error.message, { code: r.error.code });
            return r.response!;
          });
          return { promise, cancel: () => void window.__grooveCancel(token) };
        },
      },
      limit: opts.limit ?? 10,
      toggles: { rerank: "default", mmr: "default", parentRetriever: "default" },
      showContext: opts.showContext ?? false,
      debounceMs: opts.debounceMs ?? 150,
      onOpen: (hit, span) => opened.push({ path: hit.path, span }),
      onRendered: ({ params, response, timing }) => {
        requestAnimationFrame(() =>
          renders.push({
            query: params.query,
            enteredAt: timing.enteredAt,
            sentAt: timing.sentAt,
            receivedAt: timing.receivedAt,
            paintedAt: performance.now(),
            hits: response.results.length,
          }),
        );
      },
    });
  },
};

window.grooveTest = api;
