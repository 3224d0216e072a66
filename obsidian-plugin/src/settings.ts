import type { SearchParams } from "@groove/editor-client/protocol";

/** The daemon caps `search.limit` at 50 (docs/protocol.md). */
export const MAX_LIMIT = 50;

/** "default" leaves the choice to the vault's groove.toml (sends null). */
export type TriState = "default" | "on" | "off";

export interface GrooveSettings {
  /** Path to the `groove` executable; a bare name is looked up on PATH and in common install dirs. */
  executable: string;
  autoStart: boolean;
  limit: number;
  rerank: TriState;
  mmr: TriState;
  parentRetriever: TriState;
  /** Show the expanded_from context of hits by default. */
  showContext: boolean;
  /** Ask for `explain` and show under each hit why it ranked there. */
  explain: boolean;
  debounceMs: number;
  /** Related notes: only the similar notes no link joins to the active note. */
  unlinkedOnly: boolean;
}

export const DEFAULT_SETTINGS: GrooveSettings = {
  executable: "groove",
  autoStart: true,
  limit: 20,
  rerank: "default",
  mmr: "default",
  parentRetriever: "default",
  showContext: false,
  explain: false,
  debounceMs: 150,
  unlinkedOnly: false,
};

export function triToParam(t: TriState): boolean | null {
  return t === "on" ? true : t === "off" ? false : null;
}

export function nextTri(t: TriState): TriState {
  return t === "default" ? "on" : t === "on" ? "off" : "default";
}

export interface Filters {
  folders: string;
  tags: string;
}

/** "Projects, Daily/2024" -> ["Projects/**", "Daily/2024/**"]; globs pass through. */
export function foldersToGlobs(input: string): string[] {
  return input
    .split(",")
    .map((s) => s.trim().replace(/^\/+|\/+$/g, ""))
    .filter(Boolean)
    .map((f) => (/[*?[\]]/.test(f) || /\.md$/i.test(f) ? f : `${f}/**`));
}

/** "#work, project/x" -> ["work", "project/x"]. */
export function parseTags(input: string): string[] {
  return input
    .split(/[,\s]+/)
    .map((t) => t.trim().replace(/^#/, ""))
    .filter(Boolean);
}

export interface Toggles {
  rerank: TriState;
  mmr: TriState;
  parentRetriever: TriState;
}

export function buildParams(query: string, limit: number, toggles: Toggles, filters: Filters, explain = false): SearchParams {
  return {
    ...(explain ? { explain: true } : {}),
    query,
    limit: Math.max(1, Math.min(MAX_LIMIT, Math.round(limit) || DEFAULT_SETTINGS.limit)),
    rerank: triToParam(toggles.rerank),
    mmr: triToParam(toggles.mmr),
    parent_retriever: triToParam(toggles.parentRetriever),
    path_globs: foldersToGlobs(filters.folders),
    tags_any: parseTags(filters.tags),
  };
}
