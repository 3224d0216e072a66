/**
 * Decorations for the opened hit: every word match and the answer
 * sentence(s). Their colours are groove's own (package.json `colors`:
 * groove.matchBackground/Border, groove.answerBackground/Border, with light,
 * dark and high-contrast defaults a theme can override), so the hit never
 * looks like VS Code's word or selection highlight of every other copy of the
 * selected word. One pair of decoration types for the extension's lifetime;
 * the current hit's ranges are remembered so they come back when its editor
 * is re-created (switching tabs drops them).
 */
import * as vscode from "vscode";

interface Marked {
  path: string;
  ranges: vscode.Range[];
  answers: vscode.Range[];
}

export class Highlights implements vscode.Disposable {
  private readonly type: vscode.TextEditorDecorationType;
  private readonly answerType: vscode.TextEditorDecorationType;
  private current: Marked | null = null;
  private readonly sub: vscode.Disposable;

  constructor() {
    this.type = vscode.window.createTextEditorDecorationType({
      backgroundColor: new vscode.ThemeColor("groove.matchBackground"),
      borderColor: new vscode.ThemeColor("groove.matchBorder"),
      borderStyle: "solid",
      borderWidth: "0 0 2px 0",
      fontWeight: "600",
      overviewRulerColor: new vscode.ThemeColor("groove.matchBorder"),
      overviewRulerLane: vscode.OverviewRulerLane.Center,
      rangeBehavior: vscode.DecorationRangeBehavior.ClosedClosed,
    });
    this.answerType = vscode.window.createTextEditorDecorationType({
      backgroundColor: new vscode.ThemeColor("groove.answerBackground"),
      outlineColor: new vscode.ThemeColor("groove.answerBorder"),
      outlineStyle: "dashed",
      outlineWidth: "1px",
      overviewRulerColor: new vscode.ThemeColor("groove.answerBorder"),
      overviewRulerLane: vscode.OverviewRulerLane.Left,
      rangeBehavior: vscode.DecorationRangeBehavior.ClosedClosed,
    });
    this.sub = vscode.window.onDidChangeVisibleTextEditors((editors) => this.apply(editors));
  }

  /** Marks `ranges` (word matches) and `answers` (answer sentences) in the note at `fsPath`, replacing any previous hit's. */
  show(fsPath: string, ranges: vscode.Range[], answers: vscode.Range[] = []): void {
    this.clear();
    this.current = { path: fsPath, ranges, answers };
    this.apply(vscode.window.visibleTextEditors);
  }

  clear(): void {
    if (this.current) {
      for (const ed of vscode.window.visibleTextEditors) {
        if (ed.document.uri.fsPath === this.current.path) {
          ed.setDecorations(this.type, []);
          ed.setDecorations(this.answerType, []);
        }
      }
    }
    this.current = null;
  }

  get active(): { path: string; ranges: readonly vscode.Range[]; answers: readonly vscode.Range[] } | null {
    return this.current;
  }

  private apply(editors: readonly vscode.TextEditor[]): void {
    if (!this.current) return;
    for (const ed of editors) {
      if (ed.document.uri.fsPath === this.current.path) {
        ed.setDecorations(this.type, this.current.ranges);
        ed.setDecorations(this.answerType, this.current.answers);
      }
    }
  }

  dispose(): void {
    this.clear();
    this.sub.dispose();
    this.type.dispose();
    this.answerType.dispose();
  }
}
