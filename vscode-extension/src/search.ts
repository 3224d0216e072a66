/**
 * "groove: Semantic Search": a QuickPick that searches as you type. The
 * shared SearchSession debounces keystrokes, cancels the superseded request
 * on the daemon and drops any answer that is not for the newest query, so
 * stale results never reach the list.
 */
import * as vscode from "vscode";
import { answerText, groupHits, progressText, pullText, SearchSession, type ConnectionState, type GrooveError, type SearchHit, type SearchResponse, type SearchRunner } from "@groove/editor-client";
import { headingTrail, snippet } from "./render";
import { searchParams, type Settings } from "./settings";

export interface HitItem extends vscode.QuickPickItem {
  hit: SearchHit;
  /** On a note's row: the other section holding the note's best answer (ADR 0269); picking opens it there. */
  answerAt?: SearchHit;
}

/**
 * VS Code's QuickPick moves items whose label matches the typed text to the
 * top (its sortByLabel, which extensions cannot turn off: the API is still
 * proposed), so a lower hit whose title contains the query would jump above
 * the daemon's best one. A zero-width space between the title's graphemes
 * keeps any label from matching what is typed: the list stays in the daemon's
 * order, and VS Code does not mark typed letters in titles as if they were
 * groove's matches. (Seen in the real workbench: "mobile" put "Mobile sync"
 * above the note ranked first.)
 */
export function unmatchable(text: string): string {
  const graphemes = new Intl.Segmenter(undefined, { granularity: "grapheme" }).segment(text);
  return Array.from(graphemes, (g) => g.segment).join("\u200b");
}

export function hitItem(hit: SearchHit, answerAt?: SearchHit): HitItem {
  // The note's answer is in another section: the row says which and shows it (its own words are in that section's row).
  const answer = answerAt ? answerText(answerAt) : null;
  return {
    label: `$(markdown) ${unmatchable(hit.title)}`,
    description: headingTrail(hit),
    detail: answerAt && answer ? `$(lightbulb) ${headingTrail(answerAt) || answerAt.title}: ${answer}` : snippet(hit),
    ...(answerAt && answer ? { answerAt } : {}),
    // Items come from the daemon, not from the typed text: VS Code's own
    // label filter would hide them all.
    alwaysShow: true,
    hit,
  };
}

/** Another matching section of the note just above: indented under it, its heading as the label. */
export function sectionItem(hit: SearchHit): HitItem {
  return {
    label: `$(blank) $(symbol-text) ${unmatchable(headingTrail(hit) || hit.title)}`,
    detail: `$(blank) ${snippet(hit)}`,
    alwaysShow: true,
    hit,
  };
}

/** One note per group: its best hit, then its other sections beneath (grouping is presentation; the daemon's list is per chunk). */
export function groupedItems(hits: SearchHit[]): HitItem[] {
  return groupHits(hits).flatMap((g) => [hitItem(g.best.hit, g.answer === g.best ? undefined : g.answer.hit), ...g.others.map((o) => sectionItem(o.hit))]);
}

export interface SearchDeps {
  runner: SearchRunner;
  settings: () => Settings;
  /** Every response for the newest query (the results view keeps them). */
  onResults(query: string, response: SearchResponse): void;
  /** A new query was entered: old highlights go. */
  onNewQuery(): void;
  onPick(hit: SearchHit): Promise<unknown>;
  onError(e: GrooveError): void;
  initialQuery?: string;
  /** The vault's connection state: during the first index an empty answer means "not yet". */
  state?: () => ConnectionState;
  /** The QuickPick title for an error (the cause and its fix). */
  describe?: (e: GrooveError) => string;
  onState?: (fn: (s: ConnectionState) => void) => () => void;
}

export interface SearchPick {
  quickPick: vscode.QuickPick<HitItem>;
  session: SearchSession;
  /** Resolves when the QuickPick closes (after the pick was opened). */
  done: Promise<void>;
}

export function showSearchQuickPick(deps: SearchDeps): SearchPick {
  const qp = vscode.window.createQuickPick<HitItem>();
  qp.title = "groove: Semantic Search";
  qp.placeholder = "Search your notes by meaning…";
  qp.matchOnDescription = false;
  qp.matchOnDetail = false;
  const settings = deps.settings();
  const TITLE = "groove: Semantic Search";
  /** The title while there is nothing to search yet (first index, model download): not an error. */
  const firstIndex = (): string | null => {
    const st = deps.state?.();
    if (st?.kind === "model-download") return `${TITLE} — downloading the default model (${pullText(st.progress)}); search starts when it is ready`;
    return st?.kind === "first-index" ? `${TITLE} — building the index for the first time (${progressText(st.progress)}); results appear when it is done` : null;
  };

  const session = new SearchSession({
    runner: deps.runner,
    debounceMs: settings.debounceMs,
    onBusy: (b) => (qp.busy = b),
    onClear: () => {
      qp.items = [];
      qp.title = "groove: Semantic Search";
    },
    onResults: (response, params) => {
      qp.items = groupedItems(response.results);
      const waiting = response.results.length === 0 ? firstIndex() : null;
      const notes = [
        response.results.length === 0 ? "no results" : null,
        response.low_confidence && response.results.length > 0 ? "no strong match" : null,
        ...response.warnings,
      ].filter(Boolean);
      qp.title = waiting ?? (notes.length ? `${TITLE} — ${notes.join("; ")}` : TITLE);
      deps.onResults(params.query, response);
    },
    onError: (e) => {
      qp.items = [];
      const waiting = firstIndex();
      if (waiting) {
        qp.title = waiting; // the daemon has nothing to search yet: not an error
        return;
      }
      qp.title = deps.describe ? deps.describe(e) : `groove: ${e.message}`;
      deps.onError(e);
    },
  });
  // When the first index finishes, the open QuickPick searches again by itself.
  // Searchable again after a wait (first index, a problem, a download — also via "connecting"
  // after Restart): the open QuickPick searches again by itself.
  const waits = (k: ConnectionState["kind"] | undefined) => k === "first-index" || k === "problem" || k === "model-download";
  let waited = waits(deps.state?.().kind);
  const offState = deps.onState?.((s) => {
    if (waits(s.kind)) waited = true;
    if ((s.kind === "ready" || s.kind === "indexing") && waited) {
      waited = false;
      if (qp.value.trim()) session.refresh(searchParams(qp.value, deps.settings()));
    } else if ((s.kind === "first-index" || s.kind === "model-download") && !qp.items.length && qp.value.trim()) qp.title = firstIndex() ?? qp.title;
  });

  qp.onDidChangeValue((value) => {
    deps.onNewQuery();
    session.update(searchParams(value, deps.settings()));
  });

  let resolveDone!: () => void;
  const done = new Promise<void>((r) => (resolveDone = r));
  let opening: Promise<unknown> = Promise.resolve();

  qp.onDidAccept(() => {
    const item = qp.selectedItems[0] ?? qp.activeItems[0];
    if (!item) return;
    opening = deps.onPick(item.answerAt ?? item.hit).catch((e) => deps.onError(e as GrooveError));
    qp.hide();
  });
  qp.onDidHide(() => {
    offState?.();
    session.dispose();
    qp.dispose();
    void opening.then(() => resolveDone());
  });

  qp.show();
  if (deps.initialQuery?.trim()) {
    qp.value = deps.initialQuery;
    deps.onNewQuery();
    session.update(searchParams(deps.initialQuery, settings), { immediate: true });
  }
  return { quickPick: qp, session, done };
}
