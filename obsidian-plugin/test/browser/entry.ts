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
import type { IndexStatus } from "@groove/editor-client/protocol";
import { RelatedPanel } from "../../src/related";
import { insertLink } from "../../src/insert";
import { generateMarkdownLink } from "../link-text";

declare global {
  interface Window {
    __grooveSearch(token: number, params: SearchParams): Promise<{ response?: SearchResponse; error?: { kind: string; code?: number; message: string } }>;
    __grooveCancel(token: number): Promise<void>;
    __grooveReadNote(path: string): Promise<string>;
    /** related_notes / index_status through the Node side's real GrooveClient (related-notes test). */
    __grooveRelated?(path: string, unlinkedOnly: boolean): Promise<RelatedNotesResult>;
    __grooveStatus?(why?: string): Promise<IndexStatus>;
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
/** The links "Insert link" wrote, in order. */
const inserted: string[] = [];

const api = {
  renders,
  opened,
  inputs,
  inserted,
  /**
   * The plugin's related-notes section over the real daemon, and an editor
   * standing in for Obsidian's: a textarea with a real caret, holding the
   * note `source`; "Insert link" runs the plugin's insertLink with an app
   * whose generateMarkdownLink writes Obsidian's default link text for `files`.
   */
  mountRelated(opts: { files: string[]; source: string; text: string }) {
    const ta = document.createElement("textarea");
    ta.className = "groove-test-editor";
    ta.value = opts.text;
    document.querySelector(".editor-stub")!.replaceChildren(ta);
    // Like CodeMirror, the editor keeps its cursor while the sidebar has the focus.
    let cursor = 0;
    ta.addEventListener("blur", () => (cursor = ta.selectionEnd));
    const editor = {
      replaceSelection: (t: string) => {
        ta.setRangeText(t, ta.selectionStart, ta.selectionEnd, "end");
        cursor = ta.selectionEnd;
      },
      focus: () => {
        ta.focus();
        ta.setSelectionRange(cursor, cursor);
      },
    };
    const app = {
      vault: { getFileByPath: (p: string) => (opts.files.includes(p) ? { path: p } : null) },
      fileManager: { generateMarkdownLink: (f: { path: string }) => generateMarkdownLink(opts.files, f.path) },
    };
    const panel = new RelatedPanel(document.getElementById("view")!, {
      source: { related: (p, u) => window.__grooveRelated!(p, u), status: (w) => window.__grooveStatus!(w) },
      onOpenPath: () => {},
      onOpenLink: () => {},
      onInsertLink: (p) => inserted.push(insertLink(app as never, editor as never, opts.source, p)),
    });
    (window as unknown as { related: RelatedPanel }).related = panel;
    return panel;
  },
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
