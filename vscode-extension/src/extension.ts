/**
 * Entry point: wires commands, the results view, highlights, wikilink
 * providers and the status bar to one groove daemon per workspace folder.
 */
import * as fs from "node:fs";
import * as path from "node:path";
import * as vscode from "vscode";
import { resolveExecutable, runConnectInfo, snippetLine, type ConnectionState, type EditorHints, type SearchHit, type SearchResponse } from "@groove/editor-client";
import { BackendRegistry, VSCODE_HINTS, type VaultBackend } from "./backend";
import { cardRows, COPY_COMMAND } from "./card";
import { Highlights } from "./highlights";
import { openAtLine, openHit, vaultFile } from "./jump";
import { MISSING_LINK_COMMAND, missingLinkMessage, WikiLinkProvider } from "./links";
import { describeError, Notifier } from "./notify";
import { relatedItems, type RelatedItem } from "./related";
import { ResultsTree } from "./resultsTree";
import { showSearchQuickPick, type SearchPick } from "./search";
import { flipToggle, readSettings, searchParams, TOGGLES, togglesSummary } from "./settings";
import { StatusBar } from "./status";

const MARKDOWN: vscode.DocumentSelector = [
  { language: "markdown", scheme: "file" },
  { pattern: "**/*.md", scheme: "file" },
];

/**
 * A folder that uses groove: an Obsidian vault or a folder with a groove.toml
 * (package.json activates on the same two signals). Only these get a daemon
 * at start-up; anywhere else groove waits for one of its commands.
 */
export function looksLikeVault(root: string): boolean {
  return [".obsidian", "groove.toml"].some((n) => fs.existsSync(path.join(root, n)));
}

export class GrooveExtension implements vscode.Disposable {
  readonly output = vscode.window.createOutputChannel("groove");
  readonly highlights = new Highlights();
  readonly status = new StatusBar();
  readonly notifier = new Notifier(
    () => this.hints(),
    (l) => this.output.appendLine(l),
  );
  readonly registry: BackendRegistry;
  readonly tree: ResultsTree;
  readonly treeView: vscode.TreeView<unknown>;
  readonly links: WikiLinkProvider;
  /** The open QuickPick, if any (tests drive it). */
  currentSearch: (SearchPick & { backend: VaultBackend }) | null = null;
  private treeRoot: string | undefined;
  private readonly disposables: vscode.Disposable[] = [];

  constructor(private readonly env: NodeJS.ProcessEnv = process.env) {
    this.registry = new BackendRegistry(
      () => {
        const s = readSettings();
        // Looked up again for every new backend: "Check again" finds a groove installed since.
        return { executable: resolveExecutable(s.executablePath, this.env), autoStart: s.autoStart, env: this.env };
      },
      (b) => this.watch(b),
    );
    this.tree = new ResultsTree(() => this.treeRoot);
    this.treeView = vscode.window.createTreeView("groove.results", { treeDataProvider: this.tree, showCollapseAll: true }) as vscode.TreeView<unknown>;
    this.treeView.description = togglesSummary(readSettings());
    this.links = new WikiLinkProvider({
      resolve: async (doc, raw) => {
        const b = this.backendFor(doc.uri);
        if (!b) return undefined;
        try {
          return { root: b.root, result: await b.resolveLink(raw, doc.uri.fsPath) };
        } catch (e) {
          // Hovering a link is not asking for groove: the status bar says what is wrong.
          b.noteError(e);
          this.notifier.background(e);
          return undefined;
        }
      },
    });

    const cmd = (id: string, fn: (...a: any[]) => unknown) => this.disposables.push(vscode.commands.registerCommand(id, fn));
    cmd("groove.search", () => this.search());
    cmd("groove.openHit", (hit: SearchHit, span?: number) => this.openTreeHit(hit, span));
    cmd("groove.relatedNotes", () => this.relatedNotes());
    cmd("groove.rebuildIndex", () => this.rebuildIndex());
    cmd("groove.showOutput", () => this.output.show(true));
    // The first-run card's buttons (also in the command palette).
    cmd("groove.checkAgain", () => this.checkAgain());
    cmd("groove.downloadModel", () => this.downloadModel());
    cmd("groove.restartDaemon", () => this.restartDaemon());
    cmd(COPY_COMMAND, (text: string) => this.copy(text));
    cmd(MISSING_LINK_COMMAND, (raw: string, notePath?: string | null) => vscode.window.showWarningMessage(missingLinkMessage(raw, notePath)));
    for (const id of Object.keys(TOGGLES) as Array<keyof typeof TOGGLES>) cmd(id, () => this.toggle(id));

    this.disposables.push(
      vscode.languages.registerDocumentLinkProvider(MARKDOWN, this.links),
      vscode.languages.registerDefinitionProvider(MARKDOWN, this.links),
      vscode.window.onDidChangeActiveTextEditor(() => this.updateStatus()),
      vscode.workspace.onDidChangeConfiguration((e) => {
        if (e.affectsConfiguration("groove.executablePath") || e.affectsConfiguration("groove.autoStart")) {
          this.registry.reset();
          this.notifier.reset();
          this.updateStatus();
          // As at start-up: the status bar says what the new settings find (seen in the
          // real workbench: it fell back to a bare "groove" until the next command).
          void this.warmUp();
        }
        if (e.affectsConfiguration("groove.search")) this.treeView.description = togglesSummary(readSettings());
      }),
    );
  }

  /** The workspace folder holding `uri` (default: the active editor's, else the first). */
  folderFor(uri?: vscode.Uri): string | undefined {
    const u = uri ?? vscode.window.activeTextEditor?.document.uri;
    const f = (u && vscode.workspace.getWorkspaceFolder(u)) || vscode.workspace.workspaceFolders?.[0];
    return f?.uri.fsPath;
  }

  backendFor(uri?: vscode.Uri): VaultBackend | undefined {
    const root = this.folderFor(uri);
    return root ? this.registry.get(root) : undefined;
  }

  hints(root = this.folderFor()): EditorHints {
    return { ...VSCODE_HINTS, executable: resolveExecutable(readSettings().executablePath, this.env), vault: root, platform: process.platform };
  }

  private watch(b: VaultBackend): void {
    b.on("state", (s) => {
      // Never a popup from here: background state goes to the status bar and the log.
      if (s.kind === "problem") this.output.appendLine(`${b.root}: ${s.problem.title} — ${s.problem.fix}${s.problem.logTail ? `\n${s.problem.logTail}` : ""}`);
      if (s.kind === "ready") this.notifier.reset();
      if (this.registry.peek(this.folderFor() ?? "") === b) this.status.show(s);
      if (this.treeRoot === b.root || (!this.treeRoot && this.folderFor() === b.root)) this.showState(s);
    });
    b.on("changed", (paths, deleted) => {
      this.output.appendLine(`index changed: ${paths.length} updated, ${deleted.length} deleted`);
      // An open QuickPick re-runs its query so it does not list what just changed on disk.
      const open = this.currentSearch;
      if (open && open.backend === b && open.quickPick.value.trim()) open.session.refresh(searchParams(open.quickPick.value, readSettings()));
    });
    b.client.on("error", (e) => this.output.appendLine(`background: ${e.message}`));
  }

  private updateStatus(): void {
    const root = this.folderFor();
    const b = root ? this.registry.peek(root) : undefined;
    this.status.show(b ? b.state : null);
    if (b && (this.treeRoot === b.root || !this.treeRoot)) this.showState(b.state);
  }

  /**
   * The first index, a model download and problems in the results view: a
   * card of rows above the results (what is wrong, the commands, the log,
   * the buttons), and a progress bar on the view while something runs.
   */
  private showState(s: ConnectionState): void {
    this.tree.setCard(cardRows(s));
    const busy = s.kind === "first-index" || s.kind === "model-download";
    if (busy && !this.viewProgress) {
      let done!: () => void;
      this.viewProgress = new Promise<void>((r) => (done = r));
      const finished = this.viewProgress;
      void vscode.window.withProgress({ location: { viewId: "groove.results" } }, () => finished);
      this.endViewProgress = () => {
        this.viewProgress = null;
        done();
      };
    } else if (!busy) this.endViewProgress();
    if (s.kind === "first-index" || s.kind === "model-download" || s.kind === "problem") {
      this.setMessage(undefined); // the card says it
    } else if (this.tree.response) {
      this.setMessage(this.resultsMessage(this.tree.query, this.tree.response));
    } else {
      this.setMessage(undefined);
    }
  }

  /**
   * VS Code re-lays out the view on every assignment, even of the same value;
   * background reconnects re-send the state every few seconds, and a re-layout
   * under the mouse swallows a click on the card's buttons.
   */
  private setMessage(m: string | undefined): void {
    if (this.treeView.message !== m) this.treeView.message = m;
  }
  private viewProgress: Promise<void> | null = null;
  private endViewProgress: () => void = () => {};

  /** The backend the card is about: the results view's folder, else the active one. */
  private cardBackend(): VaultBackend | undefined {
    return this.treeRoot ? this.registry.get(this.treeRoot) : this.backendFor();
  }

  /** "Check again" (card, palette): groove may have been installed meanwhile; no reload needed. */
  async checkAgain(): Promise<void> {
    const b = this.cardBackend();
    if (!b) return this.noFolder();
    this.updateStatus();
    if (b.state.kind === "problem" && b.state.problem.cause === "backend-not-found") {
      // groove may have been installed since: a fresh backend looks the executable up again.
      this.registry.drop(b.root);
      const fresh = this.registry.get(b.root);
      this.updateStatus();
      await fresh.connection.start();
      return;
    }
    await b.checkAgain();
  }

  async downloadModel(): Promise<void> {
    const b = this.cardBackend();
    if (!b) return this.noFolder();
    this.updateStatus();
    await b.downloadModel();
  }

  async restartDaemon(): Promise<void> {
    const b = this.cardBackend();
    if (!b) return this.noFolder();
    this.updateStatus();
    await b.restart();
  }

  /** A command line from the card, to the clipboard (the status bar confirms it). */
  async copy(text: string): Promise<void> {
    await vscode.env.clipboard.writeText(text);
    vscode.window.setStatusBarMessage(`groove: copied "${text}"`, 4000);
  }

  /**
   * At activation (only in folders that use groove, see package.json): connect
   * if a daemon already runs for the folder, or start one when auto-start is
   * on (when it is off, the state says "not running"). Nothing here pops up:
   * a failure shows in the status bar and the log.
   */
  async warmUp(): Promise<void> {
    const root = this.folderFor();
    if (!root) return;
    const s = readSettings();
    let running = false;
    try {
      running = (await runConnectInfo({ executable: resolveExecutable(s.executablePath, this.env), vault: root, start: false, env: this.env, timeoutMs: 20_000 })).running;
    } catch (e) {
      const b = this.registry.get(root);
      b.noteError(e);
      this.notifier.background(e);
      this.updateStatus();
      return;
    }
    // In a vault the status bar always says where groove stands: with auto-start
    // off and no daemon, the client starts nothing and the state is "not running"
    // (its card has Start groove), not the bare "groove" of a folder without one.
    if (running || looksLikeVault(root)) {
      const b = this.registry.get(root);
      this.updateStatus();
      await b.connection.start(); // a failure becomes the status bar's state
    }
  }

  private noFolder(): void {
    void vscode.window.showWarningMessage("groove: open a folder of Markdown notes first (File › Open Folder).");
  }

  search(): SearchPick | undefined {
    const b = this.backendFor();
    if (!b) return void this.noFolder();
    this.updateStatus();
    const ed = vscode.window.activeTextEditor;
    // The user's own one-line selection seeds the box; the selection groove made
    // when it opened a hit does not (typing would append to it: issue 47).
    const j = this.lastJump;
    const own = !!ed && !!j && ed.document.uri.fsPath === j.path && samePos(ed.selection.start, j.selection.start) && samePos(ed.selection.end, j.selection.end);
    const sel = ed && !ed.selection.isEmpty && !own ? ed.document.getText(ed.selection) : "";
    const pick = showSearchQuickPick({
      runner: b.runner,
      settings: readSettings,
      initialQuery: sel && !sel.includes("\n") ? sel : undefined,
      onNewQuery: () => this.highlights.clear(),
      onResults: (query, response) => this.showResults(b.root, query, response),
      onPick: (hit) => openHit(b.root, hit, this.highlights, { span: firstShownSpan(hit) }).then((ed) => this.noteJump(ed)),
      onError: (e) => {
        b.noteError(e);
        void this.notifier.error(e);
      },
      state: () => b.state,
      onState: (fn) => b.on("state", fn),
      describe: (e) => describeError(e, this.hints(b.root)),
    });
    const current = (this.currentSearch = { ...pick, backend: b });
    void pick.done.then(() => {
      if (this.currentSearch === current) this.currentSearch = null;
    });
    return pick;
  }

  /** Related notes list only similar notes this note does not link yet (the pick's switch). */
  unlinkedOnly = false;

  /** The selection groove made when it opened a hit: not a query to seed the next search with. */
  lastJump: { path: string; selection: vscode.Selection } | null = null;
  private noteJump(ed: vscode.TextEditor): void {
    this.lastJump = { path: ed.document.uri.fsPath, selection: ed.selection };
  }

  private resultsMessage(query: string, response: SearchResponse): string {
    const n = response.results.length;
    return `${n} result${n === 1 ? "" : "s"} for “${query}”${response.low_confidence && n > 0 ? " — no strong match" : ""}`;
  }

  private showResults(root: string, query: string, response: SearchResponse): void {
    this.treeRoot = root;
    this.tree.setResults(query, response);
    const b = this.registry.peek(root);
    if (b && (b.state.kind === "first-index" || b.state.kind === "problem" || b.state.kind === "model-download")) this.showState(b.state);
    else this.setMessage(this.resultsMessage(query, response));
  }

  /** `span`: the match to select (an index into `hit.match_spans`); -1 or absent: the first one. */
  async openTreeHit(hit: SearchHit, span?: number): Promise<void> {
    if (!this.treeRoot) return;
    await openHit(this.treeRoot, hit, this.highlights, { span: span !== undefined && span >= 0 ? span : undefined })
      .then((ed) => this.noteJump(ed))
      .catch((e) => this.notifier.error(e));
  }

  async relatedNotes(): Promise<void> {
    const ed = vscode.window.activeTextEditor;
    if (!ed) return void vscode.window.showInformationMessage("groove: open a Markdown note to see its related notes.");
    const b = this.backendFor(ed.document.uri);
    if (!b) return this.noFolder();
    let pick: RelatedItem | undefined;
    for (;;) {
      let items: RelatedItem[];
      try {
        items = relatedItems(await b.relatedNotes(ed.document.uri.fsPath, undefined, { unlinkedOnly: this.unlinkedOnly }), { unlinkedOnly: this.unlinkedOnly });
      } catch (e) {
        b.noteError(e);
        return this.notifier.error(e);
      }
      pick = await vscode.window.showQuickPick(items, { title: `groove: Related to ${path.basename(ed.document.uri.fsPath)}`, matchOnDescription: true });
      if (!pick?.toggle) break;
      this.unlinkedOnly = !this.unlinkedOnly; // and list them again
    }
    if (!pick?.open) return;
    // An attachment (image, PDF …) opens in VS Code's own viewer, not as text.
    if (!/\.md$/i.test(pick.open.path)) return void vscode.commands.executeCommand("vscode.open", vscode.Uri.file(vaultFile(b.root, pick.open.path)));
    let line = pick.open.line;
    if (pick.open.link) {
      const r = await b.resolveLink(pick.open.link, ed.document.uri.fsPath).catch(() => null);
      line = r?.line_range?.[0] ?? line;
    }
    await openAtLine(b.root, pick.open.path, line);
  }

  async rebuildIndex(): Promise<void> {
    const b = this.backendFor();
    if (!b) return this.noFolder();
    try {
      const r = await vscode.window.withProgress(
        { location: vscode.ProgressLocation.Notification, title: "groove: rebuilding the index…" },
        () => b.rebuild(true),
      );
      const skipped = r.skipped.length ? `, ${r.skipped.length} skipped (see log)` : "";
      for (const s of r.skipped) this.output.appendLine(`skipped ${s.path}: ${s.reason}`);
      void vscode.window.showInformationMessage(`groove: index rebuilt — ${r.indexed} indexed, ${r.unchanged} unchanged, ${r.deleted} removed${skipped}.`);
      void b.refreshStatus();
    } catch (e) {
      b.noteError(e);
      await this.notifier.error(e);
    }
  }

  private async toggle(id: keyof typeof TOGGLES): Promise<void> {
    const on = await flipToggle(id);
    const s = readSettings();
    this.treeView.description = togglesSummary(s);
    void vscode.window.showInformationMessage(`groove: ${TOGGLES[id].label} ${on ? "on" : "off"}`);
    // The results view re-runs its query so it reflects the new setting.
    const root = this.treeRoot;
    if (root && this.tree.query) {
      try {
        this.showResults(root, this.tree.query, await this.registry.get(root).search(searchParams(this.tree.query, s)));
      } catch (e) {
        await this.notifier.error(e);
      }
    }
  }

  dispose(): void {
    this.endViewProgress();
    for (const d of this.disposables) d.dispose();
    this.registry.dispose();
    this.highlights.dispose();
    this.status.dispose();
    this.treeView.dispose();
    this.output.dispose();
  }
}

/** What a QuickPick pick selects: the answer span when the hit has one (undefined), else the first match its snippet shows. */
function firstShownSpan(hit: SearchHit): number | undefined {
  const line = snippetLine(hit, 60);
  return line.answers.length ? undefined : line.highlights[0]?.span;
}

function samePos(a: vscode.Position, b: vscode.Position): boolean {
  return a.line === b.line && a.character === b.character;
}

let instance: GrooveExtension | undefined;

export function activate(context: vscode.ExtensionContext): GrooveExtension {
  instance = new GrooveExtension();
  context.subscriptions.push(instance);
  void instance.warmUp();
  return instance;
}

export function deactivate(): void {
  instance?.dispose();
  instance = undefined;
}
