/** The extension's settings (package.json `contributes.configuration`). */
import * as vscode from "vscode";
import type { SearchParams } from "@groove/editor-client";

/** The daemon caps `search.limit` at 50 (docs/protocol.md); package.json's maximum says the same. */
export const MAX_LIMIT = 50;

export interface Settings {
  executablePath: string;
  autoStart: boolean;
  limit: number;
  debounceMs: number;
  reranker: boolean | null;
  mmr: boolean | null;
  parentRetriever: boolean | null;
  explain: boolean;
}

export function readSettings(): Settings {
  const c = vscode.workspace.getConfiguration("groove");
  const tri = (k: string): boolean | null => {
    const v = c.get<boolean | null>(k, null);
    return typeof v === "boolean" ? v : null;
  };
  return {
    executablePath: (c.get<string>("executablePath", "groove") || "groove").trim(),
    autoStart: c.get<boolean>("autoStart", true) !== false,
    limit: Math.max(1, Math.min(MAX_LIMIT, Number(c.get<number>("search.limit", 20)) || 20)),
    debounceMs: Math.max(0, Number(c.get<number>("search.debounceMs", 150)) || 0),
    reranker: tri("search.reranker"),
    mmr: tri("search.mmr"),
    parentRetriever: tri("search.parentRetriever"),
    explain: c.get<boolean>("search.explain", false) === true,
  };
}

/** SearchParams for `query`; null toggles mean "the vault's groove.toml decides". */
export function searchParams(query: string, s: Settings): SearchParams {
  return { query, limit: s.limit, rerank: s.reranker, mmr: s.mmr, parent_retriever: s.parentRetriever, ...(s.explain ? { explain: true } : {}) };
}

export const TOGGLES = {
  "groove.toggleReranker": { key: "search.reranker", label: "Reranker" },
  "groove.toggleMmr": { key: "search.mmr", label: "MMR (diverse results)" },
  "groove.toggleParentRetriever": { key: "search.parentRetriever", label: "Parent retriever (expanded context)" },
} as const;

/**
 * Flips a toggle. From "vault default" (null) it goes to on: the extension
 * cannot know what groove.toml says, and turning a feature on is what a user
 * reaching for the toggle usually wants.
 */
export async function flipToggle(command: keyof typeof TOGGLES): Promise<boolean> {
  const { key } = TOGGLES[command];
  const c = vscode.workspace.getConfiguration("groove");
  const next = c.get<boolean | null>(key, null) !== true;
  await c.update(key, next, vscode.ConfigurationTarget.Global);
  return next;
}

/** "rerank on · mmr default · parent off" for the results view header. */
export function togglesSummary(s: Settings): string {
  const w = (v: boolean | null) => (v === null ? "default" : v ? "on" : "off");
  return `rerank ${w(s.reranker)} · mmr ${w(s.mmr)} · parent ${w(s.parentRetriever)}`;
}
