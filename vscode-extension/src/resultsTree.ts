/**
 * The results view: the last search's hits grouped by note, in the order the
 * notes first appear in the ranking. A hit's label is its snippet with the
 * matched words emphasised (TreeItemLabel highlights); under it, one row per
 * match, and clicking a row selects exactly that match in the note. Hovering
 * a hit shows the expanded_from context.
 */
import * as vscode from "vscode";
import { vaultFile } from "./jump";
import { describeConfidence, snippetLine, spanContextLine, type SearchHit, type SearchResponse, type SnippetLine } from "@groove/editor-client";
import { headingTrail, hitTooltipMarkdown } from "./render";
import type { CardRow } from "./card";

export type ResultNode =
  | { kind: "card"; row: CardRow }
  | { kind: "note"; path: string; title: string; hits: SearchHit[] }
  | { kind: "hit"; hit: SearchHit }
  | { kind: "match"; hit: SearchHit; span: number }
  | { kind: "info"; text: string; tooltip?: string };

export function groupByNote(hits: SearchHit[]): Array<Extract<ResultNode, { kind: "note" }>> {
  const byPath = new Map<string, Extract<ResultNode, { kind: "note" }>>();
  for (const hit of hits) {
    let g = byPath.get(hit.path);
    if (!g) byPath.set(hit.path, (g = { kind: "note", path: hit.path, title: hit.title, hits: [] }));
    g.hits.push(hit);
  }
  return [...byPath.values()];
}

/** A tree label with the snippet's highlights (VS Code renders them emphasised): the word matches, or for a hit with none (a paraphrase), its answer sentence. */
export function highlightedLabel(line: SnippetLine): vscode.TreeItemLabel {
  const marks = line.highlights.length ? line.highlights : line.answers;
  return { label: line.text, highlights: marks.map((h) => [h.start, h.end] as [number, number]) };
}

/** The match spans of a hit in the order they read in its text (each at most once). */
export function spansInOrder(hit: SearchHit): number[] {
  return hit.match_spans
    .map(([s, e], span) => ({ s, e, span }))
    .filter((x) => x.e > x.s)
    .sort((a, b) => a.s - b.s || a.span - b.span)
    .map((x) => x.span);
}

export class ResultsTree implements vscode.TreeDataProvider<ResultNode> {
  private readonly changed = new vscode.EventEmitter<ResultNode | undefined>();
  readonly onDidChangeTreeData = this.changed.event;
  private roots: ResultNode[] = [];
  /** The first-run / problem card, above the results (null: none). */
  private card: CardRow[] | null = null;
  query = "";
  response: SearchResponse | null = null;

  constructor(private readonly vaultRoot: () => string | undefined) {}

  setResults(query: string, response: SearchResponse): void {
    this.query = query;
    this.response = response;
    const roots: ResultNode[] = [];
    // "No strong match" qualifies the notes listed: never over an empty list.
    if (response.low_confidence && response.results.length > 0) roots.push({ kind: "info", text: "No strong match — these are the closest notes" });
    // With `explain` on, why the "no strong match" line is (or is not) there.
    if (response.confidence) roots.push({ kind: "info", text: `confidence: ${describeConfidence(response.confidence)}` });
    for (const w of response.warnings) roots.push({ kind: "info", text: w });
    if (response.results.length === 0) roots.push({ kind: "info", text: `No results for “${query}”` });
    roots.push(...groupByNote(response.results));
    this.roots = roots;
    this.changed.fire(undefined);
  }

  /**
   * Shows (rows) or removes (null) the card. The same card again changes
   * nothing: every background reconnect re-sends the problem, and VS Code
   * redraws the whole tree on each change, which swallows a click that lands
   * mid-redraw (seen in the real workbench: "Start groove" did nothing).
   */
  setCard(rows: CardRow[] | null): void {
    if (rows === null && this.card === null) return;
    if (rows && this.card && JSON.stringify(rows) === JSON.stringify(this.card)) return;
    this.card = rows;
    this.changed.fire(undefined);
  }

  get cardRows(): CardRow[] | null {
    return this.card;
  }

  clear(): void {
    this.roots = [];
    this.response = null;
    this.query = "";
    this.changed.fire(undefined);
  }

  getChildren(node?: ResultNode): ResultNode[] {
    if (!node) return [...(this.card ?? []).map((row): ResultNode => ({ kind: "card", row })), ...this.roots];
    if (node.kind === "card") return (node.row.children ?? []).map((row) => ({ kind: "card", row }));
    if (node.kind === "note") return node.hits.map((hit) => ({ kind: "hit", hit }));
    if (node.kind === "hit") {
      const spans = spansInOrder(node.hit);
      return spans.length > 1 ? spans.map((span) => ({ kind: "match", hit: node.hit, span })) : [];
    }
    return [];
  }

  getTreeItem(node: ResultNode): vscode.TreeItem {
    if (node.kind === "card") {
      const r = node.row;
      const item = new vscode.TreeItem(r.text, r.children?.length ? vscode.TreeItemCollapsibleState.Expanded : vscode.TreeItemCollapsibleState.None);
      item.id = `card:${r.id}`;
      item.iconPath = new vscode.ThemeIcon(r.icon);
      if (r.description) item.description = r.description;
      if (r.tooltip) item.tooltip = r.tooltip;
      if (r.command) item.command = r.command;
      item.contextValue = r.action ? `grooveCard.${r.action}` : "grooveCard";
      return item;
    }
    if (node.kind === "info") {
      const item = new vscode.TreeItem(node.text, vscode.TreeItemCollapsibleState.None);
      item.iconPath = new vscode.ThemeIcon("info");
      if (node.tooltip) item.tooltip = node.tooltip;
      return item;
    }
    if (node.kind === "note") {
      const item = new vscode.TreeItem(node.title, vscode.TreeItemCollapsibleState.Expanded);
      item.description = node.path;
      item.id = `note:${node.path}`;
      const root = this.vaultRoot();
      if (root) item.resourceUri = vscode.Uri.file(vaultFile(root, node.path));
      item.iconPath = new vscode.ThemeIcon("markdown");
      item.contextValue = "grooveNote";
      return item;
    }
    if (node.kind === "match") {
      const line = spanContextLine(node.hit, node.span, 30);
      const item = new vscode.TreeItem(line ? highlightedLabel(line) : `match ${node.span + 1}`, vscode.TreeItemCollapsibleState.None);
      item.id = `match:${node.hit.chunk_id}:${node.hit.rank}:${node.span}`;
      item.iconPath = new vscode.ThemeIcon("symbol-key");
      item.contextValue = "grooveMatch";
      item.command = { command: "groove.openHit", title: "Open match", arguments: [node.hit, node.span] };
      return item;
    }
    const { hit } = node;
    const spans = spansInOrder(hit);
    const line = snippetLine(hit, 30);
    const item = new vscode.TreeItem(highlightedLabel(line), spans.length > 1 ? vscode.TreeItemCollapsibleState.Collapsed : vscode.TreeItemCollapsibleState.None);
    item.id = `hit:${hit.chunk_id}:${hit.rank}`;
    item.description = [headingTrail(hit), hit.score.toFixed(3)].filter(Boolean).join(" · ");
    const md = new vscode.MarkdownString(hitTooltipMarkdown(hit));
    md.supportThemeIcons = false;
    item.tooltip = md;
    item.iconPath = new vscode.ThemeIcon(hit.expanded_from.length ? "list-tree" : "symbol-text");
    item.contextValue = "grooveHit";
    // The first match the label shows (the own chunk's, when the parent retriever widened the text).
    // Lands on the answer sentence when there is one (-1), else the first match the label shows.
    item.command = { command: "groove.openHit", title: "Open", arguments: [hit, line.answers.length ? -1 : (line.highlights[0]?.span ?? spans[0] ?? -1)] };
    return item;
  }
}
