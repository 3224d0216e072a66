/**
 * Error messages for what the user asked for. Background work (activation,
 * link underlining, reconnects) never pops up a notification — it shows in
 * the status bar and the log — so a workspace that does not use groove stays
 * quiet. A command the user ran that fails says why, once per distinct
 * problem, with the fix.
 */
import * as vscode from "vscode";
import { diagnose, GrooveError, type EditorHints } from "@groove/editor-client";

/** The message for an error, with what to do about it. */
export function describeError(e: unknown, hints: EditorHints): string {
  if (e instanceof GrooveError && e.kind === "rpc") return `groove: ${e.message}`;
  if (e instanceof GrooveError) {
    const p = diagnose(e, hints);
    return `groove: ${p.title}. ${p.detail} ${p.fix}${p.command ? ` (${p.command})` : ""}`;
  }
  return `groove: ${e instanceof Error ? e.message : String(e)}`;
}

export class Notifier {
  private shown = new Set<string>();
  constructor(
    private readonly hints: () => EditorHints,
    private readonly log: (line: string) => void,
  ) {}

  /** Logs an error from background work; never a notification. */
  background(e: unknown): void {
    this.log(describeError(e, this.hints()));
  }

  /** Logs every error; pops up a notification once per distinct message (user actions only). */
  async error(e: unknown): Promise<void> {
    // The client was closed by the extension itself (settings changed, shutting down): nothing to tell.
    if (e instanceof GrooveError && (e.kind === "closed" || e.isCancelled)) return;
    const msg = describeError(e, this.hints());
    this.log(msg);
    if (this.shown.has(msg)) return;
    this.shown.add(msg);
    const notInstalled = e instanceof GrooveError && e.kind === "not-installed";
    const actions = notInstalled ? ["Open Settings", "Show Log"] : ["Show Log"];
    const pick = await vscode.window.showErrorMessage(msg, ...actions);
    if (pick === "Open Settings") await vscode.commands.executeCommand("workbench.action.openSettings", "groove.executablePath");
    else if (pick === "Show Log") await vscode.commands.executeCommand("groove.showOutput");
  }

  /** The problem was fixed (e.g. connected): show it again if it comes back. */
  reset(): void {
    this.shown.clear();
  }
}
