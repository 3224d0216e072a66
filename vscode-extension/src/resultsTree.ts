/**
 * The results view: the last search's hits grouped by note, in the order the
 * notes first appear in the ranking. Clicking a hit opens it like the
 * QuickPick does; hovering shows the expanded_from context.
 */
import * as vscode from "vscode";
import { vaultFile } from "./jump";
import type { SearchHit, SearchResponse } from "@groove/editor-client";
import { headingTrail, hitTooltipMarkdown, snippet } from "./render";

export type ResultNode =
  | { kind: "note"; path: string; title: string; hits: SearchHit[] }
  | { kind: "hit"; hit: SearchHit }
  | { kind: "info"; text: string };

export function groupByNote(hits: SearchHit[]): Array<Extract<ResultNode, { kind: "note" }>> {
  const byPath = new Map<string, Extract<ResultNode, { kind: "note" }>>();
  for (const hit of hits) {
    let g = byPath.get(hit.path);
    if (!g) byPath.set(hit.path, (g = { kind: "note", path: hit.path, title: hit.title, hits: [] }));
    g.hits.push(hit);
  }
  return [...byPath.values()];
}

export class ResultsTree implements vscode.TreeDataProvider<ResultNode> {
  private readonly changed = new vscode.EventEmitter<ResultNode | undefined>();
  readonly onDidChangeTreeData = this.changed.event;
  private roots: ResultNode[] = [];
  query = "";
  response: SearchResponse | null = null;

  constructor(private readonly vaultRoot: () => string | undefined) {}

  setResults(query: string, response: SearchResponse): void {
    this.query = query;
    this.response = response;
    const roots: ResultNode[] = [];
    if (response.low_confidence) roots.push({ kind: "info", text: "No strong match" });
    for (const w of response.warnings) roots.push({ kind: "info", text: w });
    roots.push(...groupByNote(response.results));
    this.roots = roots;
    this.changed.fire(undefined);
  }

  clear(): void {
    this.roots = [];
    this.response = null;
    this.query = "";
    this.changed.fire(undefined);
  }

  getChildren(node?: ResultNode): ResultNode[] {
    if (!node) return this.roots;
    if (node.kind === "note") return node.hits.map((hit) => ({ kind: "hit", hit }));
    return [];
  }

  getTreeItem(node: ResultNode): vscode.TreeItem {
    if (node.kind === "info") {
      const item = new vscode.TreeItem(node.text, vscode.TreeItemCollapsibleState.None);
      item.iconPath = new vscode.ThemeIcon("info");
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
    const { hit } = node;
    const item = new vscode.TreeItem(headingTrail(hit) || hit.title, vscode.TreeItemCollapsibleState.None);
    item.id = `hit:${hit.chunk_id}:${hit.rank}`;
    item.description = `${hit.score.toFixed(3)} · ${snippet(hit, 30)}`;
    const md = new vscode.MarkdownString(hitTooltipMarkdown(hit));
    md.supportThemeIcons = false;
    item.tooltip = md;
    item.iconPath = new vscode.ThemeIcon(hit.expanded_from.length ? "list-tree" : "symbol-text");
    item.contextValue = "grooveHit";
    item.command = { command: "groove.openHit", title: "Open", arguments: [hit] };
    return item;
  }
}
