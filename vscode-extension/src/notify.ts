/**
 * Error messages for what the user asked for. Background work (activation,
 * link underlining, reconnects) never pops up a notification — it shows in
 * the status bar and the log — so a workspace that does not use groove stays
 * quiet. A command the user ran that fails says why, once per distinct
 * problem, with the fix.
 */
import * as vscode from "vscode";
import { diagnose, GrooveError, type EditorHints, type Problem } from "@groove/editor-client";

/**
 * A problem's sentences as a notification or a QuickPick title shows them:
 * one line with nothing under it, so no "the log lines below" or "the
 * command below" (the card in the results view has those); the log is
 * behind Show Log, the command is written out.
 */
export function problemText(p: Problem): string {
  const cmd = p.command ? `\`${p.command}\`` : "";
  const fit = (s: string) =>
    s
      .replace(/[;.]\s*[Tt]he last lines of its log are below\./, (m) => (m.startsWith(";") ? "; its log is behind Show Log." : ". Its log is behind Show Log."))
      .replace(/\bthe command below\b/g, cmd || "groove doctor")
      .replace(/^Download it here\b/, "Download it (Download Model)");
  const fix = fit(p.fix);
  const named = !!p.command && fix.includes(cmd);
  return `${p.title}. ${fit(p.detail)} ${fix}${p.command && !named ? ` (${p.command})` : ""}`;
}

/** The message for an error, with what to do about it. */
export function describeError(e: unknown, hints: EditorHints): string {
  if (e instanceof GrooveError && e.kind === "rpc") return `groove: ${e.message}`;
  if (e instanceof GrooveError) return `groove: ${problemText(diagnose(e, hints))}`;
  return `groove: ${e instanceof Error ? e.message : String(e)}`;
}

/** The buttons of an error notification: the fix it names (Restart after a crash, Download Model, Open Settings), then Show Log. */
export function errorActions(e: unknown, hints: EditorHints): string[] {
  if (!(e instanceof GrooveError) || e.kind === "rpc") return ["Show Log"];
  const p = diagnose(e, hints);
  const acts: string[] = [];
  if (p.cause === "backend-not-found" || e.kind === "not-installed") acts.push("Open Settings");
  if (p.canRestart) acts.push(p.cause === "daemon-not-running" ? "Start groove" : "Restart");
  if (p.download) acts.push("Download Model");
  acts.push("Show Log");
  return acts;
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
    const pick = await vscode.window.showErrorMessage(msg, ...errorActions(e, this.hints()));
    if (pick === "Open Settings") await vscode.commands.executeCommand("workbench.action.openSettings", "groove.executablePath");
    else if (pick === "Restart" || pick === "Start groove") await vscode.commands.executeCommand("groove.restartDaemon");
    else if (pick === "Download Model") await vscode.commands.executeCommand("groove.downloadModel");
    else if (pick === "Show Log") await vscode.commands.executeCommand("groove.showOutput");
  }

  /** The problem was fixed (e.g. connected): show it again if it comes back. */
  reset(): void {
    this.shown.clear();
  }
}
