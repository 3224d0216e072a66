/**
 * A small, behavioural fake of the `vscode` module (aliased in
 * vitest.config.ts). Only what the extension uses, but with real semantics
 * where tests depend on them: TextDocument.positionAt/offsetAt over UTF-16
 * with \n and \r\n, QuickPick events, decorations recorded per editor, and a
 * command registry. The `fake` export lets tests drive and inspect it.
 */
import * as fs from "node:fs";
import * as nodePath from "node:path";

type Listener<T> = (e: T) => unknown;

export class Disposable {
  constructor(private readonly fn: () => void = () => {}) {}
  static from(...items: Array<{ dispose(): unknown }>): Disposable {
    return new Disposable(() => items.forEach((i) => i.dispose()));
  }
  dispose(): void {
    this.fn();
  }
}

export class EventEmitter<T> {
  private listeners = new Set<Listener<T>>();
  event = (fn: Listener<T>): Disposable => {
    this.listeners.add(fn);
    return new Disposable(() => this.listeners.delete(fn));
  };
  fire(e: T): void {
    for (const l of [...this.listeners]) l(e);
  }
  dispose(): void {
    this.listeners.clear();
  }
}

export class Uri {
  private constructor(
    readonly scheme: string,
    readonly path: string,
    readonly fragment: string,
    readonly query: string,
  ) {}
  static file(p: string): Uri {
    return new Uri("file", nodePath.resolve(p), "", "");
  }
  static parse(s: string): Uri {
    const m = /^([a-z][\w+.-]*):(?:\/\/)?([^?#]*)(?:\?([^#]*))?(?:#(.*))?$/i.exec(s);
    if (!m) throw new Error(`bad uri ${s}`);
    return new Uri(m[1], m[2], m[4] ?? "", m[3] ?? "");
  }
  get fsPath(): string {
    return this.path;
  }
  with(change: { fragment?: string; query?: string; path?: string }): Uri {
    return new Uri(this.scheme, change.path ?? this.path, change.fragment ?? this.fragment, change.query ?? this.query);
  }
  toString(): string {
    const q = this.query ? `?${this.query}` : "";
    const f = this.fragment ? `#${this.fragment}` : "";
    return this.scheme === "file" ? `file://${this.path}${q}${f}` : `${this.scheme}:${this.path}${q}${f}`;
  }
}

export class Position {
  constructor(
    readonly line: number,
    readonly character: number,
  ) {}
  isEqual(o: Position): boolean {
    return o.line === this.line && o.character === this.character;
  }
}

export class Range {
  readonly start: Position;
  readonly end: Position;
  constructor(a: Position | number, b: Position | number, c?: number, d?: number) {
    if (typeof a === "number") {
      this.start = new Position(a, b as number);
      this.end = new Position(c!, d!);
    } else {
      this.start = a;
      this.end = b as Position;
    }
  }
  get isEmpty(): boolean {
    return this.start.isEqual(this.end);
  }
}

export class Selection extends Range {
  constructor(
    readonly anchor: Position,
    readonly active: Position,
  ) {
    super(anchor, active);
  }
}

export class Location {
  constructor(
    readonly uri: Uri,
    readonly range: Range | Position,
  ) {}
}

export class DocumentLink {
  tooltip?: string;
  constructor(
    readonly range: Range,
    public target?: Uri,
  ) {}
}

export class ThemeColor {
  constructor(readonly id: string) {}
}
export class ThemeIcon {
  constructor(
    readonly id: string,
    readonly color?: ThemeColor,
  ) {}
  static File = new ThemeIcon("file");
}

export class MarkdownString {
  value = "";
  isTrusted?: boolean;
  supportThemeIcons?: boolean;
  constructor(value = "") {
    this.value = value;
  }
  appendMarkdown(s: string): this {
    this.value += s;
    return this;
  }
  appendText(s: string): this {
    this.value += s.replace(/[\\`*_{}[\]()#+\-.!|<>]/g, "\\$&");
    return this;
  }
  appendCodeblock(code: string, lang = ""): this {
    this.value += `\n\`\`\`${lang}\n${code}\n\`\`\`\n`;
    return this;
  }
}

export enum TreeItemCollapsibleState {
  None = 0,
  Collapsed = 1,
  Expanded = 2,
}
export interface TreeItemLabel {
  label: string;
  highlights?: Array<[number, number]>;
}
export class TreeItem {
  description?: string;
  tooltip?: string | MarkdownString;
  command?: { command: string; title: string; arguments?: unknown[] };
  iconPath?: ThemeIcon;
  contextValue?: string;
  resourceUri?: Uri;
  id?: string;
  constructor(
    public label: string | TreeItemLabel,
    public collapsibleState: TreeItemCollapsibleState = TreeItemCollapsibleState.None,
  ) {}
}

export enum StatusBarAlignment {
  Left = 1,
  Right = 2,
}
export enum TextEditorRevealType {
  Default = 0,
  InCenter = 1,
  InCenterIfOutsideViewport = 2,
  AtTop = 3,
}
export enum QuickPickItemKind {
  Separator = -1,
  Default = 0,
}
export enum ProgressLocation {
  SourceControl = 1,
  Window = 10,
  Notification = 15,
}
export enum ConfigurationTarget {
  Global = 1,
  Workspace = 2,
  WorkspaceFolder = 3,
}
export enum OverviewRulerLane {
  Left = 1,
  Center = 2,
  Right = 4,
  Full = 7,
}
export enum DecorationRangeBehavior {
  OpenOpen = 0,
  ClosedClosed = 1,
  OpenClosed = 2,
  ClosedOpen = 3,
}

/** TextDocument over a string, positions in UTF-16 like VS Code's. */
export class FakeTextDocument {
  readonly languageId: string;
  private lineStarts: number[] = [0];
  constructor(
    readonly uri: Uri,
    private readonly text: string,
    languageId = "markdown",
  ) {
    this.languageId = languageId;
    for (let i = 0; i < text.length; i++) {
      if (text[i] === "\n") this.lineStarts.push(i + 1);
      else if (text[i] === "\r" && text[i + 1] !== "\n") this.lineStarts.push(i + 1);
    }
  }
  get fileName(): string {
    return this.uri.fsPath;
  }
  get lineCount(): number {
    return this.lineStarts.length;
  }
  getText(range?: Range): string {
    if (!range) return this.text;
    return this.text.slice(this.offsetAt(range.start), this.offsetAt(range.end));
  }
  /** Like VS Code: the offset is clamped, a line's end excludes its EOL. */
  positionAt(offset: number): Position {
    const o = Math.max(0, Math.min(Math.floor(offset), this.text.length));
    let line = 0;
    while (line + 1 < this.lineStarts.length && this.lineStarts[line + 1] <= o) line++;
    const lineEnd = this.lineEndNoEol(line);
    return new Position(line, Math.min(o, lineEnd) - this.lineStarts[line]);
  }
  offsetAt(p: Position): number {
    const line = Math.max(0, Math.min(p.line, this.lineStarts.length - 1));
    return Math.min(this.lineStarts[line] + p.character, this.lineEndNoEol(line));
  }
  lineAt(line: number): { text: string; range: Range } {
    const s = this.lineStarts[line];
    const e = this.lineEndNoEol(line);
    return { text: this.text.slice(s, e), range: new Range(new Position(line, 0), new Position(line, e - s)) };
  }
  private lineEndNoEol(line: number): number {
    let e = line + 1 < this.lineStarts.length ? this.lineStarts[line + 1] : this.text.length;
    if (e > this.lineStarts[line] && this.text[e - 1] === "\n") e--;
    if (e > this.lineStarts[line] && this.text[e - 1] === "\r") e--;
    return e;
  }
}

export class FakeDecorationType {
  disposed = false;
  constructor(readonly options: Record<string, unknown>) {}
  dispose(): void {
    this.disposed = true;
  }
}

export class FakeTextEditor {
  selection: Selection = new Selection(new Position(0, 0), new Position(0, 0));
  revealed: Array<{ range: Range; type?: TextEditorRevealType }> = [];
  decorations = new Map<FakeDecorationType, Range[]>();
  constructor(readonly document: FakeTextDocument) {}
  revealRange(range: Range, type?: TextEditorRevealType): void {
    this.revealed.push({ range, type });
  }
  setDecorations(type: FakeDecorationType, ranges: Range[]): void {
    this.decorations.set(type, ranges);
  }
}

export class FakeQuickPick<T> {
  items: readonly T[] = [];
  value = "";
  placeholder?: string;
  title?: string;
  busy = false;
  matchOnDescription = false;
  matchOnDetail = false;
  activeItems: readonly T[] = [];
  selectedItems: readonly T[] = [];
  visible = false;
  disposed = false;
  /** Every `items` assignment, to check that stale results never appeared. */
  itemHistory: Array<readonly T[]> = [];
  private readonly changeValue = new EventEmitter<string>();
  private readonly accept = new EventEmitter<void>();
  private readonly hidden = new EventEmitter<void>();
  onDidChangeValue = this.changeValue.event;
  onDidAccept = this.accept.event;
  onDidHide = this.hidden.event;
  onDidChangeActive = new EventEmitter<readonly T[]>().event;
  constructor() {
    let items: readonly T[] = [];
    Object.defineProperty(this, "items", {
      get: () => items,
      set: (v: readonly T[]) => {
        items = v;
        this.itemHistory.push(v);
      },
    });
  }
  show(): void {
    this.visible = true;
  }
  hide(): void {
    if (!this.visible) return;
    this.visible = false;
    this.hidden.fire();
  }
  dispose(): void {
    this.disposed = true;
    this.hide();
  }
  /**
   * The items as VS Code lists them while `value` is typed: an item whose
   * label (without its $(icons)) contains the value is shown, and so is one
   * with alwaysShow; those whose label matches move to the top (VS Code's
   * sortByLabel, on for every extension's QuickPick; its matching is fuzzy,
   * this models the contiguous case).
   */
  get shown(): readonly T[] {
    const q = this.value.trim().toLowerCase();
    if (!q) return this.items;
    const text = (i: T) => String((i as { label?: string }).label ?? "").replace(/\$\([\w~-]+\)/g, "").toLowerCase();
    const matches = (i: T) => text(i).includes(q);
    const visible = this.items.filter((i) => matches(i) || (i as { alwaysShow?: boolean }).alwaysShow);
    return [...visible.filter(matches), ...visible.filter((i) => !matches(i))];
  }
  /** Test helper: the user types the whole value. */
  type(value: string): void {
    this.value = value;
    this.changeValue.fire(value);
  }
  /** Test helper: the user presses Enter on `item` (default: the first). */
  pick(item?: T): void {
    const it = item ?? this.items[0];
    this.activeItems = it ? [it] : [];
    this.selectedItems = this.activeItems;
    this.accept.fire();
  }
}

export class FakeStatusBarItem {
  text = "";
  tooltip?: string | MarkdownString;
  command?: string;
  backgroundColor?: ThemeColor;
  visible = false;
  show(): void {
    this.visible = true;
  }
  hide(): void {
    this.visible = false;
  }
  dispose(): void {
    this.visible = false;
  }
}

export class FakeTreeView<T> {
  description?: string;
  title?: string;
  /** Like VS Code, every assignment of `message` re-lays out the view, even of the same value. */
  layouts = 0;
  private _message?: string;
  get message(): string | undefined {
    return this._message;
  }
  set message(m: string | undefined) {
    this._message = m;
    this.layouts++;
  }
  constructor(
    readonly id: string,
    readonly provider: { getChildren(e?: T): T[] | Thenable<T[]>; getTreeItem(e: T): TreeItem },
  ) {}
  dispose(): void {}
}

interface Message {
  level: "info" | "warning" | "error";
  text: string;
  items: string[];
}

/** Inspection and control for tests. */
export const fake = {
  commands: new Map<string, (...args: any[]) => unknown>(),
  executed: [] as Array<{ command: string; args: unknown[] }>,
  messages: [] as Message[],
  /** What the next show*Message resolves to (a button label), per call. */
  messageAnswers: [] as Array<string | undefined>,
  quickPicks: [] as Array<FakeQuickPick<any>>,
  editors: [] as FakeTextEditor[],
  decorationTypes: [] as FakeDecorationType[],
  statusItems: [] as FakeStatusBarItem[],
  treeViews: [] as Array<FakeTreeView<any>>,
  linkProviders: [] as Array<{ selector: unknown; provider: any }>,
  definitionProviders: [] as Array<{ selector: unknown; provider: any }>,
  config: new Map<string, unknown>(),
  configUpdates: [] as Array<{ key: string; value: unknown }>,
  workspaceFolders: [] as Array<{ uri: Uri; name: string; index: number }>,
  visibleChanged: new EventEmitter<FakeTextEditor[]>(),
  configChanged: new EventEmitter<{ affectsConfiguration(s: string): boolean }>(),
  output: [] as string[],
  /** withProgress calls: where, and whether the task has ended. */
  progress: [] as Array<{ options: unknown; done: boolean }>,
  statusMessages: [] as string[],
  reset(): void {
    this.commands.clear();
    this.executed = [];
    this.messages = [];
    this.messageAnswers = [];
    this.quickPicks = [];
    this.editors = [];
    this.decorationTypes = [];
    this.statusItems = [];
    this.treeViews = [];
    this.linkProviders = [];
    this.definitionProviders = [];
    this.config.clear();
    this.configUpdates = [];
    this.workspaceFolders = [];
    this.output = [];
    this.progress = [];
    this.statusMessages = [];
    window.activeTextEditor = undefined;
  },
};

function message(level: Message["level"]) {
  return (text: string, ...items: any[]): Promise<string | undefined> => {
    const labels = items.filter((i) => typeof i === "string");
    fake.messages.push({ level, text, items: labels });
    return Promise.resolve(fake.messageAnswers.shift());
  };
}

export const window = {
  activeTextEditor: undefined as FakeTextEditor | undefined,
  get visibleTextEditors(): FakeTextEditor[] {
    return fake.editors;
  },
  onDidChangeVisibleTextEditors: fake.visibleChanged.event,
  onDidChangeActiveTextEditor: new EventEmitter<FakeTextEditor | undefined>().event,
  createQuickPick<T>(): FakeQuickPick<T> {
    const qp = new FakeQuickPick<T>();
    fake.quickPicks.push(qp);
    return qp;
  },
  async showQuickPick<T>(items: T[] | Thenable<T[]>, _opts?: unknown): Promise<T | undefined> {
    const qp = new FakeQuickPick<T>();
    qp.items = await items;
    qp.show();
    fake.quickPicks.push(qp);
    return new Promise<T | undefined>((resolve) => {
      qp.onDidAccept(() => resolve(qp.selectedItems[0]));
      qp.onDidHide(() => resolve(undefined));
    });
  },
  async showTextDocument(doc: FakeTextDocument, _opts?: unknown): Promise<FakeTextEditor> {
    let ed = fake.editors.find((e) => e.document === doc || e.document.uri.fsPath === doc.uri.fsPath);
    if (!ed) {
      ed = new FakeTextEditor(doc);
      fake.editors.push(ed);
      fake.visibleChanged.fire(fake.editors);
    }
    window.activeTextEditor = ed;
    return ed;
  },
  createTextEditorDecorationType(options: Record<string, unknown>): FakeDecorationType {
    const t = new FakeDecorationType(options);
    fake.decorationTypes.push(t);
    return t;
  },
  createStatusBarItem(): FakeStatusBarItem {
    const s = new FakeStatusBarItem();
    fake.statusItems.push(s);
    return s;
  },
  createTreeView<T>(id: string, opts: { treeDataProvider: any }): FakeTreeView<T> {
    const v = new FakeTreeView<T>(id, opts.treeDataProvider);
    fake.treeViews.push(v);
    return v;
  },
  createOutputChannel(_name: string) {
    return {
      appendLine: (s: string) => fake.output.push(s),
      append: (s: string) => fake.output.push(s),
      show: () => {},
      dispose: () => {},
    };
  },
  showErrorMessage: message("error"),
  showWarningMessage: message("warning"),
  showInformationMessage: message("info"),
  async withProgress<R>(o: unknown, task: (p: { report(v: unknown): void }) => Promise<R>): Promise<R> {
    const entry = { options: o, done: false };
    fake.progress.push(entry);
    try {
      return await task({ report: () => {} });
    } finally {
      entry.done = true;
    }
  },
  setStatusBarMessage(text: string, _timeout?: number): Disposable {
    fake.statusMessages.push(text);
    return new Disposable();
  },
};

const documents = new Map<string, FakeTextDocument>();

export const env = {
  clipboard: {
    text: "",
    async writeText(t: string) {
      env.clipboard.text = t;
    },
  },
};

export const workspace = {
  get workspaceFolders() {
    return fake.workspaceFolders.length ? fake.workspaceFolders : undefined;
  },
  getWorkspaceFolder(uri: Uri) {
    return fake.workspaceFolders
      .filter((f) => uri.fsPath === f.uri.fsPath || uri.fsPath.startsWith(f.uri.fsPath + nodePath.sep))
      .sort((a, b) => b.uri.fsPath.length - a.uri.fsPath.length)[0];
  },
  /** Reads the real file each time (tests edit notes on disk). */
  async openTextDocument(uri: Uri): Promise<FakeTextDocument> {
    const text = fs.readFileSync(uri.fsPath, "utf8").replace(/^\uFEFF/, ""); // VS Code drops the BOM too
    const prev = documents.get(uri.fsPath);
    if (prev && prev.getText() === text) return prev;
    const doc = new FakeTextDocument(Uri.file(uri.fsPath), text);
    documents.set(uri.fsPath, doc);
    return doc;
  },
  getConfiguration(section?: string) {
    const key = (k: string) => (section ? `${section}.${k}` : k);
    return {
      get<T>(k: string, dflt?: T): T {
        return (fake.config.has(key(k)) ? fake.config.get(key(k)) : dflt) as T;
      },
      async update(k: string, value: unknown): Promise<void> {
        fake.config.set(key(k), value);
        fake.configUpdates.push({ key: key(k), value });
        fake.configChanged.fire({ affectsConfiguration: (s: string) => key(k).startsWith(s) });
      },
    };
  },
  onDidChangeConfiguration: fake.configChanged.event,
};

export const commands = {
  registerCommand(id: string, fn: (...args: any[]) => unknown): Disposable {
    fake.commands.set(id, fn);
    return new Disposable(() => fake.commands.delete(id));
  },
  async executeCommand(id: string, ...args: unknown[]): Promise<unknown> {
    fake.executed.push({ command: id, args });
    const fn = fake.commands.get(id);
    return fn ? fn(...args) : undefined;
  },
};

export const languages = {
  registerDocumentLinkProvider(selector: unknown, provider: unknown): Disposable {
    const entry = { selector, provider };
    fake.linkProviders.push(entry);
    return new Disposable(() => fake.linkProviders.splice(fake.linkProviders.indexOf(entry), 1));
  },
  registerDefinitionProvider(selector: unknown, provider: unknown): Disposable {
    const entry = { selector, provider };
    fake.definitionProviders.push(entry);
    return new Disposable(() => fake.definitionProviders.splice(fake.definitionProviders.indexOf(entry), 1));
  },
};

export class CancellationTokenSource {
  token = { isCancellationRequested: false, onCancellationRequested: new EventEmitter<void>().event };
  cancel(): void {
    this.token.isCancellationRequested = true;
  }
  dispose(): void {}
}
