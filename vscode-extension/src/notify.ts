/** Readable error notifications, each distinct problem shown once until it changes. */
import * as vscode from "vscode";
import { GrooveError } from "@groove/editor-client";

export const INSTALL_COMMAND = "pip install groove";

/** The message for an error, with what to do about it. */
export function describeError(e: unknown, executable: string): string {
  if (e instanceof GrooveError) {
    switch (e.kind) {
      case "not-installed":
        return (
          `groove: the backend executable "${executable}" was not found. Install it with \`${INSTALL_COMMAND}\` ` +
          `(or, in a groove source checkout, run \`make demo\` and point the setting at .venv/bin/groove), ` +
          `then set "groove.executablePath" if it is not on PATH.`
        );
      case "not-running":
        return `${e.message} (setting "groove.autoStart").`;
      default:
        return `groove: ${e.message}`;
    }
  }
  return `groove: ${e instanceof Error ? e.message : String(e)}`;
}

export class Notifier {
  private shown = new Set<string>();
  constructor(
    private readonly executable: () => string,
    private readonly log: (line: string) => void,
  ) {}

  /** Logs every error; pops up a notification once per distinct message. */
  async error(e: unknown): Promise<void> {
    const msg = describeError(e, this.executable());
    this.log(msg);
    if (this.shown.has(msg)) return;
    this.shown.add(msg);
    const notInstalled = e instanceof GrooveError && e.kind === "not-installed";
    const actions = notInstalled ? ["Open Settings", "Copy Install Command"] : ["Show Log"];
    const pick = await vscode.window.showErrorMessage(msg, ...actions);
    if (pick === "Open Settings") await vscode.commands.executeCommand("workbench.action.openSettings", "groove.executablePath");
    else if (pick === "Copy Install Command") await vscode.env.clipboard.writeText(INSTALL_COMMAND);
    else if (pick === "Show Log") await vscode.commands.executeCommand("groove.showOutput");
  }

  /** The problem was fixed (e.g. connected): show it again if it comes back. */
  reset(): void {
    this.shown.clear();
  }
}
