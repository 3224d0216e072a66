/**
 * Browser bundle for the headless-Chromium test: the real SearchPanel and
 * render code, with searches bridged to the Node side (which talks to the
 * daemon through the real GrooveClient) via Playwright's exposeFunction.
 * A click on a hit computes the editor selection from the note's raw text
 * (read through the bridge) with the same code the plugin's jump uses.
 */
import { SearchPanel } from "../../src/panel";
import { formatStatus, renderRelated } from "../../src/render";
import type { ConnectionState } from "@groove/editor-client/connection";
import { hitSelection } from "@groove/editor-client/hits";
import { textBetween } from "@groove/editor-client/offsets";
import type { RelatedNotesResult, SearchParams, SearchResponse } from "@groove/editor-client/protocol";
import { GrooveError } from "@groove/editor-client/errors";

declare global {
  interface Window {
    __grooveSearch(token: number, params: SearchParams): Promise<{ response?: SearchResponse; error?: { kind: string; code?: number; message: string } }>;
    __grooveCancel(token: number): Promise<void>;
    __grooveReadNote(path: string): Promise<string>;
    /** A card's button, run by the Node side's VaultConnection (first-run tests). */
    __grooveAction?(action: "retry" | "build-index" | "download-model" | "restart" | "copy", arg?: string): Promise<void>;
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

export interface OpenRecord {
  path: string;
  span: number;
  /** The text the editor selection covers (line ends as "\n"). */
  selected: string;
  exact: boolean;
}

let nextToken = 1;
const renders: RenderRecord[] = [];
const opened: OpenRecord[] = [];
/** performance.now() of every input event in the query box. */
const inputs: number[] = [];
document.addEventListener(
  "input",
  (e) => {
    if ((e.target as HTMLElement).classList?.contains("groove-query")) inputs.push(performance.now());
  },
  true,
);

let current: SearchPanel | null = null;

const api = {
  renders,
  opened,
  inputs,
  mount(container: HTMLElement, opts: { limit?: number; showContext?: boolean; debounceMs?: number } = {}) {
    current = new SearchPanel(container, {
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
      onOpen: (hit, span) => {
        void window.__grooveReadNote(hit.path).then((text) => {
          const sel = hitSelection(hit, text, span);
          opened.push({ path: hit.path, span, selected: textBetween(text, sel.from, sel.to), exact: sel.exact });
        });
      },
      stateActions: {
        onRetry: () => void window.__grooveAction?.("retry"),
        onBuildIndex: () => void window.__grooveAction?.("build-index"),
        onDownloadModel: () => void window.__grooveAction?.("download-model"),
        onRestart: () => void window.__grooveAction?.("restart"),
        onCopy: (text) => window.__grooveAction?.("copy", text),
      },
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
    return current;
  },
  /** The Node side's VaultConnection state, as the plugin feeds it to its panels. */
  setConnection(state: ConnectionState) {
    current?.setConnection(state);
    // The plugin's status-bar item, as main.ts renders it.
    const bar = document.getElementById("status");
    if (bar) {
      const { text, tooltip } = formatStatus(state);
      bar.textContent = text;
      bar.title = tooltip;
      bar.setAttribute("data-state", state.kind === "problem" ? state.problem.cause : state.kind);
    }
  },
  showRelated(container: HTMLElement, related: RelatedNotesResult) {
    renderRelated(container, related, { onOpenPath: () => {}, onOpenLink: () => {} });
  },
};

window.grooveTest = api;
