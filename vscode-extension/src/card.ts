/**
 * The first-run card in the results view: the connection state as rows of
 * the tree — what is wrong, the commands that fix it (a click copies them),
 * the log's last lines, and the buttons (rows that run a command): Check
 * again, Download the default model (≈ 91 MB), Restart. Plain data, no
 * `vscode` import: resultsTree.ts turns rows into TreeItems, and tests read
 * the rows themselves.
 */
import { downloadLabel, progressText, pullText, type ConnectionState, type Problem } from "@groove/editor-client";

export interface CardRow {
  /** Stable within a card (tree item ids, tests). */
  id: string;
  text: string;
  /** A codicon name (without `$(…)`). */
  icon: string;
  description?: string;
  tooltip?: string;
  /** A click runs this command: a button, or "copy this command line". */
  command?: { command: string; title: string; arguments?: unknown[] };
  /** The log's lines, under a row that starts expanded. */
  children?: CardRow[];
  /** Marks the rows that act (button-like), for the tests and the tooltip. */
  action?: "retry" | "download-model" | "restart" | "build-index" | "copy" | "settings";
}

export const COPY_COMMAND = "groove.copyCommand";

function copyRow(id: string, command: string, prefix = ""): CardRow {
  return { id, text: `${prefix}${command}`, icon: "terminal", description: "click to copy", tooltip: `Copy "${command}" to the clipboard`, command: { command: COPY_COMMAND, title: "Copy", arguments: [command] }, action: "copy" };
}

/**
 * How many characters of a card row fit VS Code's default side bar (300 px,
 * 13 px UI font, after the row's indent, icon, and the twistie column VS Code
 * adds once results below have children) without being cut off with "…":
 * measured in the real workbench (e2e/groove.e2e.test.ts checks that no
 * wrapped row overflows, with and without results below the card).
 */
export const CARD_WIDTH = 28;

/** Tree rows do not wrap: a long text becomes several rows (the first with the icon), about `width` characters each. */
export function wrapRows(id: string, text: string, icon: string, width = CARD_WIDTH, tooltip = text): CardRow[] {
  const lines: string[] = [];
  let line = "";
  for (const word of text.split(/\s+/).filter(Boolean)) {
    if (line && line.length + 1 + word.length > width) {
      lines.push(line);
      line = word;
    } else line = line ? `${line} ${word}` : word;
  }
  if (line) lines.push(line);
  return lines.map((l, i) => ({ id: i ? `${id}-${i}` : id, text: l, icon: i ? "blank" : icon, tooltip }));
}

const button = (id: NonNullable<CardRow["action"]>, text: string, icon: string, command: string): CardRow => ({ id, text, icon, command: { command, title: text }, action: id });

/** The rows for a state; null when the view shows results instead (ready, connecting, a background update). */
export function cardRows(s: ConnectionState): CardRow[] | null {
  if (s.kind === "first-index") {
    return [
      ...wrapRows("title", "Building the search index for the first time", "sync~spin"),
      { id: "progress", text: progressText(s.progress), icon: "loading~spin", description: "results appear when it is done" },
    ];
  }
  if (s.kind === "model-download") {
    const rows: CardRow[] = [
      ...wrapRows("title", "Downloading the default embedding model", "cloud-download"),
      { id: "progress", text: pullText(s.progress), icon: "loading~spin" },
    ];
    if (s.progress.note) rows.push({ id: "note", text: s.progress.note, icon: "info" });
    rows.push(...wrapRows("next", "Search starts by itself when it is ready: groove then builds this folder's index.", "blank"));
    return rows;
  }
  if (s.kind !== "problem") return null;
  return problemRows(s.problem);
}

function problemRows(p: Problem): CardRow[] {
  const rows: CardRow[] = [
    ...wrapRows("title", p.title, p.cause === "backend-not-found" || p.cause === "model-missing" ? "info" : p.transient ? "debug-disconnect" : "warning", CARD_WIDTH, `${p.detail}\n\n${p.fix}`),
    ...wrapRows("detail", p.detail, "blank"),
  ];
  if (p.install) {
    const h = p.install;
    rows.push(...wrapRows("step-1", `1. Once: ${h.prerequisite}`, "blank"));
    if (h.prerequisiteCommand) rows.push(copyRow("step-1-command", h.prerequisiteCommand, "    "));
    rows.push(...wrapRows("step-2", `2. Install groove (${h.osName}; the package is groove-search):`, "blank"));
    rows.push(copyRow("step-2-command", h.command, "    "));
    rows.push(copyRow("step-2-alternative", h.alternative, "    or: "));
    rows.push({
      id: "settings",
      text: "Elsewhere? Set Executable Path",
      icon: "gear",
      description: `pipx and uv: ${h.installedPath}`,
      tooltip: `pipx and uv install it at ${h.installedPath}`,
      command: { command: "workbench.action.openSettings", title: "Open Settings", arguments: ["groove.executablePath"] },
      action: "settings",
    });
  } else {
    rows.push(...wrapRows("fix", p.fix, "lightbulb"));
    if (p.command) rows.push(copyRow("command", p.command));
  }
  if (p.download?.modelsDir) rows.push({ id: "where", text: `Saved in ${p.download.modelsDir}`, icon: "folder", description: p.download.indexUrl ? `from ${p.download.indexUrl}` : undefined });
  if (p.logTail) {
    const lines = p.logTail.split("\n");
    rows.push({ id: "log", text: `Daemon log, last ${lines.length} lines`, icon: "output", children: lines.map((l, i) => ({ id: `log-${i}`, text: l, icon: "blank", tooltip: l })) });
  }
  if (p.download) rows.push(button("download-model", downloadLabel(p), "cloud-download", "groove.downloadModel"));
  if (p.canReindex) rows.push(button("build-index", "Build the index", "database", "groove.rebuildIndex"));
  if (p.canRestart) rows.push(button("restart", p.cause === "daemon-not-running" ? "Start groove" : "Restart", p.cause === "daemon-not-running" ? "play" : "debug-restart", "groove.restartDaemon"));
  if (p.cause !== "daemon-crashed") rows.push(button("retry", "Check again", "refresh", "groove.checkAgain"));
  return rows;
}
