/**
 * Decorations for every match span of the selected hit. One decoration type
 * for the extension's lifetime; the current hit's ranges are remembered so
 * they come back when its editor is re-created (switching tabs drops them).
 */
import * as vscode from "vscode";

export class Highlights implements vscode.Disposable {
  private readonly type: vscode.TextEditorDecorationType;
  private current: { path: string; ranges: vscode.Range[] } | null = null;
  private readonly sub: vscode.Disposable;

  constructor() {
    // Find-match colours: every theme defines them, light, dark and high contrast.
    this.type = vscode.window.createTextEditorDecorationType({
      backgroundColor: new vscode.ThemeColor("editor.findMatchHighlightBackground"),
      borderColor: new vscode.ThemeColor("editor.findMatchHighlightBorder"),
      borderStyle: "solid",
      borderWidth: "1px",
      overviewRulerColor: new vscode.ThemeColor("editorOverviewRuler.findMatchForeground"),
      overviewRulerLane: vscode.OverviewRulerLane.Center,
      rangeBehavior: vscode.DecorationRangeBehavior.ClosedClosed,
    });
    this.sub = vscode.window.onDidChangeVisibleTextEditors((editors) => this.apply(editors));
  }

  /** Marks `ranges` in the note at `fsPath` (replacing any previous hit's). */
  show(fsPath: string, ranges: vscode.Range[]): void {
    this.clear();
    this.current = { path: fsPath, ranges };
    this.apply(vscode.window.visibleTextEditors);
  }

  clear(): void {
    if (this.current) {
      for (const ed of vscode.window.visibleTextEditors) {
        if (ed.document.uri.fsPath === this.current.path) ed.setDecorations(this.type, []);
      }
    }
    this.current = null;
  }

  get active(): { path: string; ranges: readonly vscode.Range[] } | null {
    return this.current;
  }

  private apply(editors: readonly vscode.TextEditor[]): void {
    if (!this.current) return;
    for (const ed of editors) {
      if (ed.document.uri.fsPath === this.current.path) ed.setDecorations(this.type, this.current.ranges);
    }
  }

  dispose(): void {
    this.clear();
    this.sub.dispose();
    this.type.dispose();
  }
}
