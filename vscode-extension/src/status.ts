/** The status-bar item: the active folder's connection state, one text per cause. */
import * as vscode from "vscode";
import { describeState, exclusionLine, type ConnectionState } from "@groove/editor-client";

const ICON: Record<ConnectionState["kind"], string> = {
  idle: "$(search)",
  connecting: "$(sync~spin)",
  "first-index": "$(sync~spin)",
  indexing: "$(sync~spin)",
  ready: "$(check)",
  "model-download": "$(cloud-download)",
  problem: "$(warning)",
};

export function statusText(s: ConnectionState | null): { text: string; tooltip: string; error: boolean } {
  if (!s) return { text: "$(search) groove", tooltip: "groove: no workspace folder", error: false };
  const d = describeState(s);
  if (s.kind === "ready" && !s.status.last_error && !s.status.stale_files) {
    // What the index leaves out, and by which rule (ADR 0190): "why is my note not found?"
    const rules = (s.status.exclusions ?? []).map((x) => `• ${exclusionLine(x)}`);
    const tooltip = rules.length ? `${d.tooltip}\n\nExcluded from search:\n${rules.join("\n")}` : d.tooltip;
    return { text: `${ICON.ready} groove: ${s.status.documents.toLocaleString("en-US")} notes`, tooltip, error: false };
  }
  if (s.kind === "problem") {
    const icon = s.problem.cause === "backend-not-found" ? "$(error)" : s.problem.transient ? "$(debug-disconnect)" : "$(warning)";
    const cmd = s.problem.command ? `\n\n${s.problem.command}` : "";
    const where = hasCard(s) ? "click for the groove view and its buttons" : "click for the log";
    return { text: `${icon} groove: ${d.text}`, tooltip: `groove: ${s.problem.title}\n\n${s.problem.detail}\n\n${s.problem.fix}${cmd}\n\n(${where})`, error: !s.problem.transient };
  }
  return { text: `${ICON[s.kind]} groove: ${d.text}`, tooltip: d.tooltip, error: d.problem };
}

/** States whose card (buttons: install, download, restart) is in the results view. */
export function hasCard(s: ConnectionState | null): boolean {
  if (!s) return false;
  if (s.kind === "model-download" || s.kind === "first-index") return true;
  return s.kind === "problem" && !!(s.problem.install || s.problem.download || s.problem.canRestart || s.problem.canReindex);
}

export class StatusBar implements vscode.Disposable {
  private readonly item = vscode.window.createStatusBarItem(vscode.StatusBarAlignment.Left, 50);
  constructor() {
    this.item.command = "groove.showOutput";
    this.show(null);
    this.item.show();
  }
  show(s: ConnectionState | null): void {
    const t = statusText(s);
    // A first-run step opens the view that has its buttons; anything else, the log.
    this.item.command = hasCard(s) ? "groove.results.focus" : "groove.showOutput";
    this.item.text = t.text;
    this.item.tooltip = t.tooltip;
    this.item.backgroundColor = t.error ? new vscode.ThemeColor("statusBarItem.errorBackground") : undefined;
  }
  dispose(): void {
    this.item.dispose();
  }
}
