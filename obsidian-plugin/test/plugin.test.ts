/**
 * The plugin loaded against the fake `obsidian` module and a fake daemon on a
 * real unix socket (found through a fake `groove connect-info` executable):
 * commands and view registration, as-you-type search in the view, jumping to
 * the exact span in a CRLF Japanese note, status bar, settings, link resolution.
 */
import * as fs from "node:fs";
import * as path from "node:path";
import { afterEach, beforeEach, describe, expect, it } from "vitest";
import { App, FakeEditor, MarkdownView, Notice, Setting, WorkspaceLeaf } from "./fake-obsidian";
import GroovePlugin, { linkAt, resolveExecutable } from "../src/main";
import { GrooveSearchView, VIEW_TYPE_SEARCH } from "../src/view";
import { FakeDaemon, infoFor, tmpDir, until, writeFakeGroove } from "../../editor-client/test/support/fake-daemon";
import type { SearchHit } from "@groove/editor-client/protocol";

const enc = new TextEncoder();
const B = (s: string) => enc.encode(s).length;

const NOTE_PATH = "Projects/同期.md";
const NOTE = "---\r\ntags: [sync]\r\n---\r\n# 同期 🎉\r\n\r\n## 競合の解決\r\n同期の競合は、オフラインで編集すると起きます。\r\nSync conflicts happen offline.\r\n";
const CHUNK = "## 競合の解決\r\n同期の競合は、オフラインで編集すると起きます。\r\nSync conflicts happen offline.";

function hitFor(terms: string[]): SearchHit {
  const start = B(NOTE.slice(0, NOTE.indexOf(CHUNK)));
  return {
    path: NOTE_PATH,
    title: "同期",
    heading_path: ["同期", "競合の解決"],
    level: 2,
    content: CHUNK,
    score: 0.5,
    rank: 1,
    match_spans: terms.map((t) => {
      const s = B(CHUNK.slice(0, CHUNK.indexOf(t)));
      return [s, s + B(t)] as [number, number];
    }),
    answer_spans: [],
    expanded_from: [],
    byte_range: [start, start + B(CHUNK)],
    line_range: [6, 8],
    chunk_id: 3,
  };
}

let dir: string;
let vault: string;
let daemon: FakeDaemon;
let app: App;
let plugin: GroovePlugin;

beforeEach(async () => {
  dir = tmpDir();
  vault = path.join(dir, "vault");
  fs.mkdirSync(path.join(vault, "Projects"), { recursive: true });
  fs.writeFileSync(path.join(vault, NOTE_PATH), NOTE);
  fs.writeFileSync(path.join(vault, "Other.md"), "# Other\n\nSee [[同期#競合の解決]].\n");
  daemon = new FakeDaemon(dir);
  daemon.searchResult = (p) => ({ results: [hitFor(p.query.includes("conflicts") ? ["conflicts", "offline"] : ["競合", "オフライン"])], low_confidence: false, filter_applied: {}, warnings: [], confidence: null });
  await daemon.listen();
  const groove = writeFakeGroove(dir);
  groove.setState(infoFor(daemon));
  app = new App(vault);
  plugin = new GroovePlugin(app as never, { id: "groove-search", name: "groove", version: "0.1.0" } as never);
  (plugin as unknown as { data: unknown }).data = { executable: groove.bin };
  Notice.shown = [];
  Setting.all = [];
  await plugin.onload();
});

afterEach(async () => {
  plugin.onunload();
  await daemon.stop();
  fs.rmSync(dir, { recursive: true, force: true });
});

const fake = () => plugin as unknown as { commands: Array<{ id: string; name: string; callback?: () => void; editorCheckCallback?: (...a: unknown[]) => boolean }>; statusBarItems: HTMLElement[]; settingTabs: Array<{ display(): void }> };
const command = (id: string) => fake().commands.find((c) => c.id === id)!;

async function openView(): Promise<GrooveSearchView> {
  command("open-search").callback!();
  await until(() => app.workspace.getLeavesOfType(VIEW_TYPE_SEARCH).length > 0, 2000, "view");
  return app.workspace.getLeavesOfType(VIEW_TYPE_SEARCH)[0]!.view as GrooveSearchView;
}

function type(input: HTMLInputElement, text: string) {
  input.value = text;
  input.dispatchEvent(new Event("input", { bubbles: true }));
}

describe("plugin onload", () => {
  it("registers the commands, the view, a status-bar item and the settings tab", () => {
    expect(fake().commands.map((c) => [c.id, c.name])).toEqual([
      ["open-search", "Open semantic search"],
      ["quick-search", "Quick semantic search"],
      ["related-notes", "Related notes"],
      ["rebuild-index", "Rebuild index"],
      ["follow-link", "Follow link under cursor"],
    ]);
    expect(app.workspace.viewCreators.has(VIEW_TYPE_SEARCH)).toBe(true);
    expect(fake().statusBarItems).toHaveLength(1);
    expect(fake().settingTabs).toHaveLength(1);
    expect(daemon.connections).toBe(0); // connecting waits for the layout
  });

  it("connects when the layout is ready and shows the index state in the status bar", async () => {
    for (const cb of app.workspace.layoutReady) cb();
    const status = fake().statusBarItems[0]!;
    await until(() => status.textContent === "groove: up to date", 8000, "status");
    expect(daemon.received[0]!.params.client).toBe("obsidian-groove/0.1.0");
    daemon.notify("index.progress", { phase: "embed", done: 1, total: 2 });
    await until(() => status.textContent === "groove: indexing 1/2", 8000, "progress");
  });

  it("says it is reconnecting when the daemon goes away, and comes back by itself", async () => {
    await plugin.connect(false);
    const status = fake().statusBarItems[0]!;
    await until(() => status.textContent === "groove: up to date", 8000, "up to date");
    await daemon.stop();
    await until(() => status.textContent === "groove: reconnecting", 8000, "reconnecting");
    expect(status.getAttribute("data-state")).toBe("connection-lost");
    expect(status.title).toMatch(/Lost the connection.*groove serve --status --vault/);
    await daemon.listen(); // afterEach stops it again
    await until(() => status.textContent === "groove: up to date", 8000, "back");
  });

  it("a missing executable is 'not installed' in the status bar and a card with the fix in the panel; Check again reconnects", async () => {
    const good = plugin.settings.executable;
    plugin.settings.executable = path.join(dir, "no-such", "groove");
    await plugin.connect(false);
    const status = fake().statusBarItems[0]!;
    expect(status.textContent).toBe("groove: not installed");
    const view = await openView();
    const card = view.contentEl.querySelector(".groove-state")!;
    expect(card.getAttribute("data-cause")).toBe("backend-not-found");
    expect(card.textContent).toContain('the "groove executable" setting');
    expect(card.textContent).toContain("no-such");
    plugin.settings.executable = good;
    (plugin as unknown as { dropClient(): void }).dropClient();
    [...card.querySelectorAll("button")].find((b) => b.textContent === "Check again")!.click();
    await until(() => status.textContent === "groove: up to date", 8000, "connected");
    expect(view.contentEl.querySelector(".groove-state")!.childNodes).toHaveLength(0);
  });
});

describe("search view", () => {
  it("searches as you type and renders highlighted spans from the daemon", async () => {
    const view = await openView();
    expect(app.workspace.rightLeaves).toHaveLength(1);
    type(view.panel!.input, "競合");
    await until(() => view.contentEl.querySelectorAll("mark.groove-match").length > 0, 8000, "results");
    // 競合 is lit in the body; its first span, in the chunk's heading line, is the heading path shown above.
    expect([...view.contentEl.querySelectorAll("mark")].map((m) => m.textContent)).toEqual(["オフライン"]);
    expect(daemon.received.filter((r) => r.method === "search").map((r) => r.params.query)).toEqual(["競合"]);
  });

  it("selects exactly the clicked span in the opened CRLF note, centred", async () => {
    const view = await openView();
    type(view.panel!.input, "sync conflicts");
    await until(() => view.contentEl.querySelectorAll("mark").length === 2, 8000, "results");
    view.contentEl.querySelectorAll<HTMLElement>("mark")[1]!.click();
    await until(() => app.workspace.leaves.some((l) => l.view instanceof MarkdownView), 8000, "open");
    const leaf = app.workspace.leaves.find((l) => l.view instanceof MarkdownView) as WorkspaceLeaf;
    const editor = (leaf.view as MarkdownView).editor as FakeEditor;
    const [, from, to] = editor.calls.find((c) => c[0] === "setSelection") as [string, { line: number; ch: number }, { line: number; ch: number }];
    expect(editor.textBetween(from, to)).toBe("offline");
    expect(from.line).toBe(7);
    expect(editor.calls.find((c) => c[0] === "scrollIntoView")![2]).toBe(true);
    expect(app.workspace.getLeafCalls).toEqual([false]);
  });

  it("a canvas hit (ADR 0195) highlights in the card's text and opens the .canvas file at the card", async () => {
    const card = 'Pour "coffee" at 94°C 😀\nthen rest';
    const written = JSON.stringify(card).slice(1, -1);
    const canvas = '{\n\t"nodes":[\n\t\t{"id":"a","type":"text","text":"' + written + '","x":0,"y":0,"width":1,"height":1}\n\t]\n}';
    fs.mkdirSync(path.join(vault, "Boards"), { recursive: true });
    fs.writeFileSync(path.join(vault, "Boards", "Plan.canvas"), canvas);
    const content = card + "\n";
    const at = B(canvas.slice(0, canvas.indexOf(written)));
    const hit: SearchHit = {
      path: "Boards/Plan.canvas", title: "Plan", heading_path: [], level: 0, content, score: 0.5, rank: 1,
      match_spans: [[B(content.slice(0, content.indexOf("rest"))), B(content.slice(0, content.indexOf("rest"))) + 4]],
      answer_spans: [], expanded_from: [], byte_range: [at, at + B(written)], line_range: [3, 3], chunk_id: 9,
    };
    daemon.searchResult = () => ({ results: [hit], low_confidence: false, filter_applied: {}, warnings: [], confidence: null });
    const view = await openView();
    type(view.panel!.input, "rest");
    await until(() => view.contentEl.querySelectorAll("mark").length === 1, 8000, "results");
    expect(view.contentEl.querySelector("mark")!.textContent).toBe("rest");
    view.contentEl.querySelector<HTMLElement>("mark")!.click();
    await until(() => app.workspace.leaves.some((l) => l.view?.file?.path === "Boards/Plan.canvas"), 8000, "open");
    const leaf = app.workspace.leaves.find((l) => l.view?.file?.path === "Boards/Plan.canvas")!;
    expect(leaf.openState).toEqual({ active: true, eState: { line: 2 } }); // the card's line (0-based)
  });

  it("opens in a new tab on modifier-click", async () => {
    const view = await openView();
    type(view.panel!.input, "競合");
    await until(() => view.contentEl.querySelectorAll(".groove-hit").length === 1, 8000, "results");
    view.contentEl.querySelector(".groove-hit")!.dispatchEvent(new MouseEvent("click", { bubbles: true, ctrlKey: true }));
    await until(() => app.workspace.getLeafCalls.length > 0, 8000, "open");
    expect(app.workspace.getLeafCalls).toEqual(["tab"]);
  });

  it("sends the toggles and filters as search params", async () => {
    const view = await openView();
    const chip = view.contentEl.querySelector<HTMLButtonElement>('[data-toggle="rerank"]')!;
    chip.click(); // auto -> on
    const folder = view.contentEl.querySelector<HTMLInputElement>(".groove-filter-folder")!;
    folder.value = "Projects";
    folder.dispatchEvent(new Event("input"));
    const tags = view.contentEl.querySelector<HTMLInputElement>(".groove-filter-tags")!;
    tags.value = "#sync";
    tags.dispatchEvent(new Event("input"));
    type(view.panel!.input, "競合");
    await until(() => daemon.methods.includes("search"), 8000, "search");
    expect(daemon.received.find((r) => r.method === "search")!.params).toMatchObject({
      query: "競合",
      rerank: true,
      mmr: null,
      parent_retriever: null,
      path_globs: ["Projects/**"],
      tags_any: ["sync"],
      limit: 20,
    });
  });

  it("re-runs the visible query when the index changes", async () => {
    const view = await openView();
    type(view.panel!.input, "競合");
    await until(() => view.contentEl.querySelectorAll(".groove-hit").length === 1, 8000, "results");
    daemon.notify("index.changed", { paths: [NOTE_PATH], deleted: [], documents: 2, chunks: 4 });
    await until(() => daemon.methods.filter((m) => m === "search").length === 2, 8000, "refresh");
  });

  it("shows related notes; an outgoing link keeps its #heading and lands where Obsidian resolves it", async () => {
    daemon.relatedResult = (p) => ({ path: p.path, similar: [{ path: NOTE_PATH, title: "同期", score: 0.8 }], backlinks: [], outgoing: [{ target: "同期", path: NOTE_PATH, heading: "競合の解決", line: 3 }] });
    app.workspace.activeFile = new (await import("./fake-obsidian")).TFile("Other.md");
    await plugin.showRelated();
    const view = app.workspace.getLeavesOfType(VIEW_TYPE_SEARCH)[0]!.view as GrooveSearchView;
    await until(() => view.contentEl.querySelectorAll(".groove-related-item").length === 2, 8000, "related");
    const out = view.contentEl.querySelectorAll<HTMLElement>(".groove-related-item")[1]!;
    expect(out.querySelector(".groove-related-name")!.textContent).toBe("同期#競合の解決");
    out.dispatchEvent(new KeyboardEvent("keydown", { key: "Enter", bubbles: true }));
    await until(() => app.workspace.leaves.some((l) => l.view instanceof MarkdownView), 8000, "open");
    // Obsidian's own resolver and heading cache answered: the daemon was not asked.
    expect(daemon.methods).not.toContain("resolve_link");
    const editor = (app.workspace.leaves.find((l) => l.view instanceof MarkdownView)!.view as MarkdownView).editor;
    const sel = editor.calls.find((c) => c[0] === "setSelection")!;
    expect(sel[1]).toEqual({ line: 5, ch: 0 });
    expect(editor.getLine(5)).toBe("## 競合の解決");
  });

  it("the Unlinked only toggle asks the daemon for unlinked notes and is saved; Insert link writes Obsidian's link text at the note's cursor", async () => {
    daemon.relatedResult = (p) => ({ path: p.path, similar: [{ path: NOTE_PATH, title: "同期", score: 0.8, linked: false }], backlinks: [], outgoing: [] });
    const { TFile } = await import("./fake-obsidian");
    const view = await openView();
    const leaf = app.workspace.getLeaf();
    await leaf.openFile(new TFile("Other.md")); // file-open: the view shows its related notes
    await until(() => view.contentEl.querySelectorAll(".groove-insert-link").length === 1, 8000, "related");
    const toggle = view.contentEl.querySelector<HTMLInputElement>(".groove-unlinked-only input")!;
    toggle.checked = true;
    toggle.dispatchEvent(new Event("change"));
    await until(() => daemon.received.some((r) => r.method === "related_notes" && r.params.unlinked_only === true), 8000, "unlinked request");
    expect(daemon.received.find((r) => r.method === "related_notes" && r.params.unlinked_only)!.params).toEqual({ path: "Other.md", limit: 10, unlinked_only: true });
    expect(plugin.settings.unlinkedOnly).toBe(true);
    expect((plugin as unknown as { data: { unlinkedOnly: boolean } }).data.unlinkedOnly).toBe(true);
    await until(() => view.contentEl.querySelector(".groove-related-heading")?.textContent === "Similar, not linked (1)", 8000, "re-rendered");

    // The sidebar has the focus, not the editor: the link goes to the editor showing Other.md.
    const editor = (leaf.view as MarkdownView).editor;
    editor.cursor = { line: 2, ch: 4 };
    view.contentEl.querySelector<HTMLButtonElement>(".groove-insert-link")!.click();
    expect(editor.getLine(2)).toBe("See [[同期]][[同期#競合の解決]].");
    expect(editor.calls.map((c) => c[0])).toEqual(expect.arrayContaining(["replaceSelection", "focus"]));
    expect(editor.cursor).toEqual({ line: 2, ch: 10 });
  });

  it("asks the daemon only for the heading line of a note Obsidian has not parsed yet, naming the note Obsidian chose", async () => {
    app.metadataCache.unparsed.add(NOTE_PATH);
    daemon.resolveResult = (p) => ({ path: NOTE_PATH, heading: "競合の解決", block: null, line_range: [6, 8], exists: p.link === `[[${NOTE_PATH}#競合の解決]]` });
    await plugin.followLink("[[同期#競合の解決|alias]]", "Other.md", null);
    expect(daemon.received.find((r) => r.method === "resolve_link")!.params).toEqual({ link: `[[${NOTE_PATH}#競合の解決]]`, from_path: "Other.md" });
    const editor = (app.workspace.leaves.find((l) => l.view instanceof MarkdownView)!.view as MarkdownView).editor;
    expect(editor.calls.find((c) => c[0] === "setSelection")![1]).toEqual({ line: 5, ch: 0 });
  });
});

describe("commands", () => {
  it("quick search opens a modal whose results open the note", async () => {
    const { QuickSearchModal } = await import("../src/modal");
    const modal = new QuickSearchModal(app as never, plugin);
    modal.open();
    const input = modal.contentEl.querySelector<HTMLInputElement>(".groove-query")!;
    type(input, "競合");
    await until(() => modal.contentEl.querySelectorAll(".groove-hit").length === 1, 8000, "results");
    input.dispatchEvent(new KeyboardEvent("keydown", { key: "Enter" }));
    await until(() => app.workspace.leaves.some((l) => l.view instanceof MarkdownView), 8000, "open");
    expect((modal as unknown as { isOpen: boolean }).isOpen).toBe(false);
  });

  it("follow-link resolves the [[link]] under the cursor the way Obsidian does", async () => {
    const editor = new FakeEditor();
    editor.setValue("See [[Nowhere#x]] here");
    editor.cursor = { line: 0, ch: 8 };
    const cmd = command("follow-link");
    expect(cmd.editorCheckCallback!(true, editor, { file: { path: "Other.md" } })).toBe(true);
    cmd.editorCheckCallback!(false, editor, { file: { path: "Other.md" } });
    await until(() => Notice.shown.length > 0, 8000, "notice");
    expect(Notice.shown[0]).toBe("groove: [[Nowhere#x]] does not point to a note in this vault");
    expect(daemon.methods).not.toContain("resolve_link");
    editor.cursor = { line: 0, ch: 1 };
    expect(cmd.editorCheckCallback!(true, editor, {})).toBe(false);
  });

  it("a missing heading still opens the note, at the top, and says which heading is missing", async () => {
    await plugin.followLink("同期#No such heading", "Other.md", null);
    expect(Notice.shown).toContain(`groove: ${NOTE_PATH} has no heading "No such heading"; opened the note`);
    expect(app.workspace.leaves.some((l) => l.view instanceof MarkdownView && l.view.file?.path === NOTE_PATH)).toBe(true);
  });

  it("the settings tab's Rebuild index button sends reindex", async () => {
    fake().settingTabs[0]!.display();
    const rebuild = Setting.all.find((s) => s.name === "Rebuild index")!;
    expect(rebuild.components[0]!.buttonText).toBe("Rebuild index");
    await rebuild.components[0]!.onClickCb!();
    expect(daemon.received.find((r) => r.method === "reindex")!.params).toEqual({ force: true });
    expect(Notice.shown.some((m) => m.startsWith("groove: indexed 2"))).toBe(true);
    expect(Setting.all.map((s) => s.name)).toEqual(expect.arrayContaining(["groove executable", "Auto-start daemon", "Default result limit", "Reranker", "MMR", "Parent retriever"]));
  });
});

describe("settings", () => {
  it("reconnects once after the executable path stops changing, not per keystroke", async () => {
    await plugin.connect(false);
    const before = daemon.connections;
    fake().settingTabs[0]!.display();
    const exe = Setting.all.find((s) => s.name === "groove executable")!.components[0]!;
    const bin = plugin.settings.executable;
    for (const partial of [bin.slice(0, -2), bin.slice(0, -1), bin]) await exe.onChangeCb!(partial);
    // One reconnect once typing paused (800 ms); then none for the earlier keystrokes.
    await until(() => daemon.connections > before, 8000, "reconnect");
    await new Promise((r) => setTimeout(r, 1000));
    expect(daemon.connections).toBe(before + 1);
    expect(plugin.settings.executable).toBe(bin);
    expect((plugin as unknown as { data: { executable: string } }).data.executable).toBe(bin);
  });
});

describe("helpers", () => {
  it("finds the wikilink under the cursor", () => {
    expect(linkAt("a [[One]] b [[Two#H|alias]]", 14)).toBe("Two#H|alias");
    expect(linkAt("no links", 2)).toBeNull();
  });
  it("keeps an explicit executable path and searches PATH for a bare name", () => {
    expect(resolveExecutable("/opt/x/groove")).toBe("/opt/x/groove");
    const d = tmpDir();
    fs.writeFileSync(path.join(d, "groove"), "");
    expect(resolveExecutable("groove", { PATH: d })).toBe(path.join(d, "groove"));
    fs.rmSync(d, { recursive: true });
  });
});
