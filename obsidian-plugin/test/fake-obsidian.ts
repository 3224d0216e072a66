/**
 * A small fake of the `obsidian` module (the npm package has types only):
 * enough of Plugin / ItemView / Modal / Setting / Workspace / Vault for the
 * plugin to load, register things, open views and jump into a fake editor.
 * Aliased as "obsidian" in vitest.config.mts; also handed to main.js as
 * `require("obsidian")` by the bundle test.
 */
import * as fs from "node:fs";
import * as nodePath from "node:path";

type Fn = (...args: any[]) => any;

export class Events {
  private handlers = new Map<string, Set<Fn>>();
  on(name: string, cb: Fn) {
    if (!this.handlers.has(name)) this.handlers.set(name, new Set());
    this.handlers.get(name)!.add(cb);
    return { name, cb };
  }
  offref(ref: { name: string; cb: Fn }) {
    this.handlers.get(ref.name)?.delete(ref.cb);
  }
  trigger(name: string, ...args: unknown[]) {
    for (const cb of this.handlers.get(name) ?? []) cb(...args);
  }
}

export class Component {
  _children: Array<() => void> = [];
  load() {
    (this as any).onload?.();
  }
  unload() {
    for (const f of this._children.splice(0)) f();
    (this as any).onunload?.();
  }
  register(cb: () => void) {
    this._children.push(cb);
  }
  registerEvent(ref: { name: string; cb: Fn } & { source?: Events }) {
    this._children.push(() => ref.source?.offref(ref));
  }
  registerDomEvent(el: EventTarget, type: string, cb: Fn) {
    el.addEventListener(type, cb);
    this._children.push(() => el.removeEventListener(type, cb));
  }
  registerInterval(id: number) {
    return id;
  }
}

export class TAbstractFile {
  path: string;
  name: string;
  constructor(path: string) {
    this.path = path;
    this.name = path.split("/").pop()!;
  }
}

export class TFile extends TAbstractFile {
  basename: string;
  extension: string;
  constructor(path: string) {
    super(path);
    const dot = this.name.lastIndexOf(".");
    this.basename = dot > 0 ? this.name.slice(0, dot) : this.name;
    this.extension = dot > 0 ? this.name.slice(dot + 1) : "";
  }
}

/** Reads the real files of a directory, like Obsidian's desktop adapter. */
export class FileSystemAdapter {
  constructor(private base: string) {}
  getBasePath() {
    return this.base;
  }
  async read(p: string) {
    return fs.readFileSync(nodePath.join(this.base, p), "utf8");
  }
}

export class FakeEditor {
  calls: Array<[string, ...unknown[]]> = [];
  lines: string[] = [""];
  cursor = { line: 0, ch: 0 };
  setValue(text: string) {
    // CodeMirror normalises line endings to "\n".
    this.lines = text.split(/\r\n|\n|\r/);
  }
  getLine(n: number) {
    return this.lines[n] ?? "";
  }
  getCursor() {
    return this.cursor;
  }
  setSelection(anchor: unknown, head?: unknown) {
    this.calls.push(["setSelection", anchor, head]);
  }
  scrollIntoView(range: unknown, center?: boolean) {
    this.calls.push(["scrollIntoView", range, center]);
  }
  focus() {
    this.calls.push(["focus"]);
  }
  /** Text between two positions (for asserting the selected characters). */
  textBetween(from: { line: number; ch: number }, to: { line: number; ch: number }) {
    if (from.line === to.line) return this.getLine(from.line).slice(from.ch, to.ch);
    const parts = [this.getLine(from.line).slice(from.ch)];
    for (let l = from.line + 1; l < to.line; l++) parts.push(this.getLine(l));
    parts.push(this.getLine(to.line).slice(0, to.ch));
    return parts.join("\n");
  }
}

export class View extends Component {
  app: App;
  leaf: WorkspaceLeaf;
  containerEl: HTMLElement;
  constructor(leaf: WorkspaceLeaf) {
    super();
    this.leaf = leaf;
    this.app = leaf.app;
    this.containerEl = document.createElement("div");
  }
}

export class ItemView extends View {
  contentEl: HTMLElement;
  constructor(leaf: WorkspaceLeaf) {
    super(leaf);
    this.contentEl = document.createElement("div");
    this.containerEl.appendChild(this.contentEl);
  }
  addAction() {
    return document.createElement("div");
  }
}

export class MarkdownView extends View {
  editor = new FakeEditor();
  file: TFile | null = null;
  mode: "source" | "preview" = "source";
  getMode() {
    return this.mode;
  }
  getViewType() {
    return "markdown";
  }
}

export class WorkspaceLeaf {
  app: App;
  view: any = null;
  openState: unknown = null;
  constructor(app: App) {
    this.app = app;
  }
  async openFile(file: TFile, state?: unknown) {
    const v = new MarkdownView(this);
    v.file = file;
    v.editor.setValue(await this.app.vault.adapter.read(file.path));
    this.view = v;
    this.openState = state;
    this.app.workspace.activeFile = file;
    this.app.workspace.trigger("file-open", file);
  }
  async setViewState(vs: { type: string }) {
    const creator = this.app.workspace.viewCreators.get(vs.type);
    if (!creator) throw new Error(`no view ${vs.type}`);
    this.view = creator(this);
    await this.view.onOpen?.();
  }
}

export class Workspace extends Events {
  viewCreators = new Map<string, (leaf: WorkspaceLeaf) => any>();
  leaves: WorkspaceLeaf[] = [];
  rightLeaves: WorkspaceLeaf[] = [];
  activeFile: TFile | null = null;
  getLeafCalls: unknown[] = [];
  layoutReady: Fn[] = [];
  constructor(private app: App) {
    super();
  }
  override on(name: string, cb: Fn) {
    return Object.assign(super.on(name, cb), { source: this });
  }
  getLeaf(newLeaf?: unknown) {
    this.getLeafCalls.push(newLeaf);
    const leaf = new WorkspaceLeaf(this.app);
    this.leaves.push(leaf);
    return leaf;
  }
  getRightLeaf(_split: boolean) {
    const leaf = new WorkspaceLeaf(this.app);
    this.rightLeaves.push(leaf);
    return leaf;
  }
  async revealLeaf(_leaf: WorkspaceLeaf) {}
  getLeavesOfType(type: string) {
    return [...this.leaves, ...this.rightLeaves].filter((l) => l.view?.getViewType?.() === type);
  }
  onLayoutReady(cb: Fn) {
    this.layoutReady.push(cb);
  }
  getActiveFile() {
    return this.activeFile;
  }
  getActiveViewOfType(_t: unknown) {
    return null;
  }
}

export class Vault {
  adapter: FileSystemAdapter;
  constructor(base: string) {
    this.adapter = new FileSystemAdapter(base);
  }
  getFileByPath(p: string) {
    return fs.existsSync(nodePath.join(this.adapter.getBasePath(), p)) ? new TFile(p) : null;
  }
  async read(f: TFile) {
    return this.adapter.read(f.path);
  }
}

export class MetadataCache {
  fileToLinktext(file: TFile, _source: string, omitMd = true) {
    return omitMd ? file.basename : file.name;
  }
}

export class App {
  workspace: Workspace;
  vault: Vault;
  metadataCache = new MetadataCache();
  constructor(base: string) {
    this.vault = new Vault(base);
    this.workspace = new Workspace(this);
  }
}

export interface Command {
  id: string;
  name: string;
  callback?: Fn;
  editorCheckCallback?: Fn;
}

export class Plugin extends Component {
  app: App;
  manifest: { id: string; version: string; name: string };
  commands: Command[] = [];
  ribbon: string[] = [];
  statusBarItems: HTMLElement[] = [];
  settingTabs: PluginSettingTab[] = [];
  data: unknown = null;
  constructor(app: App, manifest: { id: string; version: string; name: string }) {
    super();
    this.app = app;
    this.manifest = manifest;
  }
  async loadData() {
    return this.data;
  }
  async saveData(d: unknown) {
    this.data = JSON.parse(JSON.stringify(d));
  }
  registerView(type: string, creator: (leaf: WorkspaceLeaf) => any) {
    this.app.workspace.viewCreators.set(type, creator);
  }
  addCommand(c: Command) {
    this.commands.push(c);
    return c;
  }
  addRibbonIcon(_icon: string, title: string, _cb: Fn) {
    this.ribbon.push(title);
    return document.createElement("div");
  }
  addStatusBarItem() {
    const el = document.createElement("div");
    this.statusBarItems.push(el);
    return el;
  }
  addSettingTab(t: PluginSettingTab) {
    this.settingTabs.push(t);
  }
}

export class Modal {
  app: App;
  containerEl = document.createElement("div");
  modalEl = document.createElement("div");
  contentEl = document.createElement("div");
  titleEl = document.createElement("div");
  isOpen = false;
  constructor(app: App) {
    this.app = app;
    this.modalEl.appendChild(this.contentEl);
    this.containerEl.appendChild(this.modalEl);
  }
  open() {
    this.isOpen = true;
    (this as any).onOpen?.();
  }
  close() {
    this.isOpen = false;
    (this as any).onClose?.();
  }
}

export class Notice {
  static shown: string[] = [];
  constructor(public message: string, _timeout?: number) {
    Notice.shown.push(message);
  }
  hide() {}
  setMessage(m: string) {
    this.message = m;
    return this;
  }
}

export class PluginSettingTab {
  app: App;
  plugin: Plugin;
  containerEl = document.createElement("div");
  constructor(app: App, plugin: Plugin) {
    this.app = app;
    this.plugin = plugin;
  }
}

/** Chainable components that remember their callbacks so tests can drive them. */
class FakeComponent {
  value: unknown;
  onChangeCb: Fn | null = null;
  onClickCb: Fn | null = null;
  disabled = false;
  buttonText = "";
  options: Record<string, string> = {};
  setValue(v: unknown) {
    this.value = v;
    return this;
  }
  getValue() {
    return this.value;
  }
  onChange(cb: Fn) {
    this.onChangeCb = cb;
    return this;
  }
  onClick(cb: Fn) {
    this.onClickCb = cb;
    return this;
  }
  setPlaceholder() {
    return this;
  }
  setButtonText(t: string) {
    this.buttonText = t;
    return this;
  }
  setCta() {
    return this;
  }
  setDisabled(d: boolean) {
    this.disabled = d;
    return this;
  }
  setLimits() {
    return this;
  }
  setDynamicTooltip() {
    return this;
  }
  addOptions(o: Record<string, string>) {
    Object.assign(this.options, o);
    return this;
  }
}

export class Setting {
  static all: Setting[] = [];
  name = "";
  desc = "";
  components: FakeComponent[] = [];
  settingEl = document.createElement("div");
  constructor(containerEl: HTMLElement) {
    containerEl.appendChild(this.settingEl);
    Setting.all.push(this);
  }
  setName(n: string) {
    this.name = n;
    this.settingEl.setAttribute("data-name", n);
    return this;
  }
  setDesc(d: string) {
    this.desc = d;
    return this;
  }
  setHeading() {
    return this;
  }
  private add(cb: Fn) {
    const c = new FakeComponent();
    this.components.push(c);
    cb(c);
    return this;
  }
  addText(cb: Fn) {
    return this.add(cb);
  }
  addToggle(cb: Fn) {
    return this.add(cb);
  }
  addSlider(cb: Fn) {
    return this.add(cb);
  }
  addDropdown(cb: Fn) {
    return this.add(cb);
  }
  addButton(cb: Fn) {
    return this.add(cb);
  }
}

export const Keymap = {
  isModEvent(evt?: { metaKey?: boolean; ctrlKey?: boolean; altKey?: boolean; shiftKey?: boolean; button?: number } | null) {
    if (!evt) return false;
    const mod = !!(evt.metaKey || evt.ctrlKey);
    if (mod && evt.altKey && evt.shiftKey) return "window";
    if (mod && evt.altKey) return "split";
    if (mod || evt.button === 1) return "tab";
    return false;
  },
};

export function setIcon() {}
export function normalizePath(p: string) {
  return p.replace(/\\/g, "/").replace(/\/+/g, "/");
}
