/**
 * A small fake of the `obsidian` module (the npm package has types only):
 * enough of Plugin / ItemView / Modal / Setting / Workspace / Vault for the
 * plugin to load, register things, open views and jump into a fake editor.
 * Aliased as "obsidian" in vitest.config.mts; also handed to main.js as
 * `require("obsidian")` by the bundle test.
 */
import * as fs from "node:fs";
import * as nodePath from "node:path";
import { generateMarkdownLink } from "./link-text";

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
  /** Writes `text` at the cursor (no selection in this fake); the cursor ends after it. */
  replaceSelection(text: string) {
    this.calls.push(["replaceSelection", text]);
    const line = this.getLine(this.cursor.line);
    const parts = (line.slice(0, this.cursor.ch) + text).split("\n");
    const rest = line.slice(this.cursor.ch);
    this.lines.splice(this.cursor.line, 1, ...parts.slice(0, -1), parts.at(-1)! + rest);
    this.cursor = { line: this.cursor.line + parts.length - 1, ch: parts.at(-1)!.length };
  }
  getValue() {
    return this.lines.join("\n");
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
    const abs = nodePath.join(this.adapter.getBasePath(), p);
    return fs.existsSync(abs) && fs.statSync(abs).isFile() ? new TFile(p) : null;
  }
  getAbstractFileByPath(p: string) {
    return this.getFileByPath(p);
  }
  /** Every file of the vault (like Obsidian: config folders starting with "." are not part of it). */
  getFiles(): TFile[] {
    const base = this.adapter.getBasePath();
    const out: TFile[] = [];
    const walk = (rel: string) => {
      for (const e of fs.readdirSync(nodePath.join(base, rel), { withFileTypes: true }).sort((a, b) => (a.name < b.name ? -1 : 1))) {
        if (e.name.startsWith(".")) continue;
        const r = rel ? `${rel}/${e.name}` : e.name;
        if (e.isDirectory()) walk(r);
        else out.push(new TFile(r));
      }
    };
    walk("");
    return out;
  }
  getMarkdownFiles(): TFile[] {
    return this.getFiles().filter((f) => f.extension === "md");
  }
  async read(f: TFile) {
    return this.adapter.read(f.path);
  }
  async cachedRead(f: TFile) {
    return this.adapter.read(f.path);
  }
}

interface Loc {
  line: number;
  col: number;
  offset: number;
}
interface Pos {
  start: Loc;
  end: Loc;
}
export interface HeadingCache {
  heading: string;
  level: number;
  position: Pos;
}
export interface BlockCache {
  id: string;
  position: Pos;
}
export interface CachedMetadata {
  headings?: HeadingCache[];
  blocks?: Record<string, BlockCache>;
  frontmatter?: Record<string, unknown>;
}

const loc = (line: number): Loc => ({ line, col: 0, offset: 0 });

/** Headings and ^block ids of a note, 0-based lines, the way Obsidian's cache holds them. */
export function parseCache(text: string): CachedMetadata {
  const lines = text.split(/\r\n|\n|\r/);
  let i = 0;
  const frontmatter: Record<string, unknown> = {};
  if (lines[0] === "---") {
    for (i = 1; i < lines.length && lines[i] !== "---"; i++) {
      const m = /^(\w+):\s*(.*)$/.exec(lines[i]!);
      if (m) frontmatter[m[1]!] = m[2];
    }
    i++;
  }
  const headings: HeadingCache[] = [];
  const blocks: Record<string, BlockCache> = {};
  let fence: string | null = null;
  for (let n = i; n < lines.length; n++) {
    const line = lines[n]!;
    const f = /^ {0,3}(`{3,}|~{3,})/.exec(line);
    if (fence) {
      if (f && f[1]![0] === fence[0]) fence = null;
      continue;
    }
    if (f) {
      fence = f[1]!;
      continue;
    }
    const h = /^ {0,3}(#{1,6})[ \t]+(.*?)[ \t]*#*[ \t]*$/.exec(line);
    if (h) {
      headings.push({ heading: h[2]!, level: h[1]!.length, position: { start: loc(n), end: loc(n) } });
      continue;
    }
    const b = /(?:^|\s)\^([A-Za-z0-9-]+)\s*$/.exec(line);
    if (b) {
      let start = n;
      if (!/^\s*(?:[-*+]|\d+[.)])\s/.test(line)) {
        while (start > i && lines[start - 1]!.trim() && !/^\s*(?:#|[-*+]\s|\d+[.)]\s)/.test(lines[start - 1]!)) start--;
      }
      blocks[b[1]!.toLowerCase()] = { id: b[1]!, position: { start: loc(start), end: loc(n) } };
    }
  }
  return { headings, blocks, frontmatter };
}

const norm = (h: string) => h.replace(/\s+/g, " ").trim().toLowerCase();

/** Obsidian's `resolveSubpath`: "#^id" -> the block; "#A#B" -> heading B under heading A (case-insensitive). */
export function resolveSubpath(cache: CachedMetadata, subpath: string) {
  if (subpath.startsWith("#^")) {
    const block = cache.blocks?.[subpath.slice(2).toLowerCase()];
    return block ? { type: "block" as const, block, start: block.position.start, end: block.position.end } : null;
  }
  const parts = subpath.split("#").map(norm).filter(Boolean);
  if (!parts.length) return null;
  const hs = cache.headings ?? [];
  let k = 0;
  for (let j = 0; j < hs.length; j++) {
    if (norm(hs[j]!.heading) !== parts[k]) continue;
    if (++k < parts.length) continue;
    const current = hs[j]!;
    const next = hs.slice(j + 1).find((x) => x.level <= current.level) ?? null;
    return { type: "heading" as const, current, next, start: current.position.start, end: next ? next.position.start : null };
  }
  return null;
}

/** Obsidian's `parseLinktext`: the path before the first "#", the rest (with "#") the subpath. */
export function parseLinktext(linktext: string) {
  const i = linktext.indexOf("#");
  return i < 0 ? { path: linktext, subpath: "" } : { path: linktext.slice(0, i), subpath: linktext.slice(i) };
}

export function getLinkpath(linktext: string) {
  return parseLinktext(linktext).path;
}

const dirOf = (p: string) => (p.includes("/") ? p.slice(0, p.lastIndexOf("/")) : "");

export class MetadataCache {
  /** Paths Obsidian has not parsed yet: getFileCache returns null for them. */
  unparsed = new Set<string>();
  constructor(private vault: Vault) {}

  /**
   * Obsidian's getFirstLinkpathDest, following the rules written down in
   * editor-client/test/fixtures/link-resolution.json.
   */
  getFirstLinkpathDest(linkpath: string, sourcePath: string): TFile | null {
    const files = this.vault.getFiles();
    if (linkpath === "") return files.find((f) => f.path === sourcePath) ?? null;
    const lower = linkpath.toLowerCase();
    const last = lower.split("/").pop()!;
    let want = lower;
    let cands = last.includes(".") ? files.filter((f) => f.name.toLowerCase() === last) : [];
    if (!cands.length) {
      want = lower + ".md";
      cands = files.filter((f) => f.name.toLowerCase() === last + ".md");
    }
    if (!cands.length) return null;
    if (!want.includes("/") && cands.length === 1) return cands[0]!;
    const folder = dirOf(sourcePath).toLowerCase();
    if (want.startsWith("./") || want.startsWith("../")) {
      let rel = want.startsWith("./../") ? want.slice(2) : want;
      let base = folder;
      if (rel.startsWith("./")) rel = rel.slice(2);
      else
        while (rel.startsWith("../")) {
          rel = rel.slice(3);
          base = dirOf(base);
        }
      const full = base ? `${base}/${rel}` : rel;
      return cands.find((f) => f.path.toLowerCase() === full) ?? null;
    }
    const abs = want.startsWith("/") ? want.slice(1) : want;
    const exact = cands.find((f) => f.path.toLowerCase() === abs);
    if (exact) return exact;
    if (linkpath.startsWith("/")) return null;
    const suffix = cands.filter((f) => f.path.toLowerCase().endsWith(abs));
    const byLength = (a: TFile, b: TFile) => a.path.length - b.path.length;
    const under = suffix.filter((f) => f.path.toLowerCase().startsWith(folder)).sort(byLength);
    const rest = suffix.filter((f) => !f.path.toLowerCase().startsWith(folder)).sort(byLength);
    return [...under, ...rest][0] ?? null;
  }

  getFileCache(file: TFile): CachedMetadata | null {
    if (file.extension !== "md" || this.unparsed.has(file.path)) return null;
    return parseCache(fs.readFileSync(nodePath.join(this.vault.adapter.getBasePath(), file.path), "utf8"));
  }

  /** Obsidian's default "shortest path when possible". */
  fileToLinktext(file: TFile, sourcePath: string, omitMd = true) {
    const name = omitMd && file.extension === "md" ? file.basename : file.name;
    const dest = this.getFirstLinkpathDest(name, sourcePath);
    return dest && dest.path === file.path ? name : omitMd && file.extension === "md" ? file.path.slice(0, -3) : file.path;
  }
}

/** Obsidian's FileManager: link text as the default link settings write it (test/link-text.ts). */
export class FileManager {
  useMarkdownLinks = false;
  constructor(private vault: Vault) {}
  generateMarkdownLink(file: TFile, _sourcePath: string) {
    return generateMarkdownLink(this.vault.getFiles().map((f) => f.path), file.path, { useMarkdownLinks: this.useMarkdownLinks });
  }
}

export class App {
  workspace: Workspace;
  vault: Vault;
  metadataCache: MetadataCache;
  fileManager: FileManager;
  constructor(base: string) {
    this.vault = new Vault(base);
    this.fileManager = new FileManager(this.vault);
    this.metadataCache = new MetadataCache(this.vault);
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
