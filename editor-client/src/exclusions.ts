/**
 * The vault's exclusion rules in words, for the plugins (ADR 0190):
 * index_status lists the sources in force (`exclusions`) and, asked about a
 * path (`why`), the rule that leaves it out. Plain TypeScript: runs in the
 * Obsidian view, the VS Code status bar and the browser tests alike.
 */
import type { ExclusionSource } from "./protocol";

/** One source: its rule, its entry count, and Obsidian's entries as written. */
export function exclusionLine(x: ExclusionSource): string {
  const values = x.values?.length ? `: ${x.values.join(", ")}` : "";
  return `${x.rule} — ${x.entries} ${x.entries === 1 ? "entry" : "entries"}${values}`;
}

/** "This note is excluded by …" for index_status's `why.excluded_by`. */
export function excludedText(excludedBy: string): string {
  return excludedBy.startsWith("excluded by ") || excludedBy.startsWith("left out ")
    ? `This note is ${excludedBy}.`
    : `This note is left out of search: ${excludedBy}.`;
}
