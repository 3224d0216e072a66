/** The status-bar item: index progress of the active folder's daemon. */
import * as vscode from "vscode";
import type { IndexState } from "./backend";

export function statusText(s: IndexState | null): { text: string; tooltip: string; error: boolean } {
  if (!s) return { text: "$(search) groove", tooltip: "groove: no Markdown workspace folder", error: false };
  switch (s.kind) {
    case "connecting":
      return { text: "$(sync~spin) groove", tooltip: "groove: connecting to the backend…", error: false };
    case "indexing": {
      const n = s.total > 0 ? `${s.done.toLocaleString("en-US")}/${s.total.toLocaleString("en-US")}` : "…";
      return { text: `$(sync~spin) groove: indexing ${n}`, tooltip: `groove: ${s.phase === "scan" ? "scanning" : "embedding"} notes ${n}`, error: false };
    }
    case "ready":
      return {
        text: `$(check) groove: ${s.documents.toLocaleString("en-US")} notes`,
        tooltip: `groove: index up to date — ${s.documents} notes, ${s.chunks} sections${s.stale ? `, ${s.stale} files changed since` : ""}`,
        error: false,
      };
    case "error":
      return {
        text: s.error.kind === "not-installed" ? "$(error) groove: not installed" : "$(debug-disconnect) groove: not running",
        tooltip: `groove: ${s.error.message}`,
        error: true,
      };
  }
}

export class StatusBar implements vscode.Disposable {
  private readonly item = vscode.window.createStatusBarItem(vscode.StatusBarAlignment.Left, 50);
  constructor() {
    this.item.command = "groove.showOutput";
    this.show(null);
    this.item.show();
  }
  show(s: IndexState | null): void {
    const t = statusText(s);
    this.item.text = t.text;
    this.item.tooltip = t.tooltip;
    this.item.backgroundColor = t.error ? new vscode.ThemeColor("statusBarItem.errorBackground") : undefined;
  }
  dispose(): void {
    this.item.dispose();
  }
}
