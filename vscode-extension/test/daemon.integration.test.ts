/**
 * The extension's backend glue against the REAL `groove serve`: the shared
 * client starts the daemon through `groove connect-info --start` on a temp
 * vault (GROOVE_HOME isolates sockets, tokens and indexes), then search,
 * open-at-span, wikilink resolution, related notes and index.changed run
 * end to end. VS Code's UI is the fake `vscode`; everything behind it is real.
 */
import * as fs from "node:fs";
import * as os from "node:os";
import * as path from "node:path";
import { afterAll, beforeAll, describe, expect, it, vi } from "vitest";
import * as vscode from "vscode";
import { sliceBytes, type SearchHit } from "@groove/editor-client";
import { fake, type FakeQuickPick, type FakeTextEditor } from "./fake-vscode";
import { GrooveExtension } from "../src/extension";
import type { VaultBackend } from "../src/backend";
import type { GrooveDocumentLink } from "../src/links";
import type { HitItem } from "../src/search";

const GROOVE_BIN = process.env.GROOVE_BIN || path.resolve(__dirname, "../../.venv/bin/groove");
const available = fs.existsSync(GROOVE_BIN);
if (!available) {
  console.warn(`[vscode-extension] SKIPPING daemon integration tests: no groove executable at ${GROOVE_BIN} (set GROOVE_BIN, or run "make demo")`);
}

const NOTES: Record<string, string> = {
  "Sync.md": [
    "# Sync",
    "",
    "Sync keeps your vault the same on every device.",
    "",
    "## Conflicts",
    "",
    "When two devices edit the same note while offline, sync keeps both versions and writes a conflict file next to the note.",
    "",
    "## Selective sync",
    "",
    "Choose which folders are uploaded.",
    "",
  ].join("\n"),
  "Notes/同期.md": [
    "# 同期",
    "",
    "同期はすべての端末で保管庫を同じ状態に保ちます。",
    "",
    "## 衝突の解決 🔧",
    "",
    "二台の端末で同じノートを編集すると、競合ファイルが作られます。😀 競合ファイルを開いて内容を統合してください。",
    "",
  ].join("\n"),
  "Travel/🌸 Spring trip.md": "# 🌸 Spring trip\r\n\r\n## Kyoto 🏯\r\n\r\nCherry 🌸 blossoms peak in early April; book the ryokan 🏨 in January.\r\n\r\n## Budget 💴\r\n\r\nThe budget is 50,000 yen per person; cherry blossom season is expensive.\r\n",
  "Index.md": [
    "# Index",
    "",
    "- English: [[Sync#Conflicts]]",
    "- 日本語: [[同期#衝突の解決 🔧|衝突]]",
    "- Gone: [[Missing note]]",
    "",
  ].join("\n"),
};

let vault: string;
let home: string;
let ext: GrooveExtension;
let backend: VaultBackend;

function lineOf(file: string, text: string): number {
  return NOTES[file].split("\n").findIndex((l) => l.includes(text)); // 0-based
}

async function openDoc(rel: string) {
  return vscode.workspace.openTextDocument(vscode.Uri.file(path.join(vault, rel)));
}

describe.skipIf(!available)("against the real groove serve", () => {
  beforeAll(async () => {
    fake.reset();
    // realpath: the daemon reports the resolved vault path (macOS /var -> /private/var).
    vault = fs.realpathSync(fs.mkdtempSync(path.join(os.tmpdir(), "groove-vsc-vault-")));
    home = fs.mkdtempSync(path.join(os.tmpdir(), "groove-vsc-home-"));
    for (const [rel, text] of Object.entries(NOTES)) {
      fs.mkdirSync(path.dirname(path.join(vault, rel)), { recursive: true });
      fs.writeFileSync(path.join(vault, rel), text);
    }
    fake.workspaceFolders = [{ uri: vscode.Uri.file(vault), name: "vault", index: 0 }];
    fake.config.set("groove.executablePath", GROOVE_BIN);
    fake.config.set("groove.search.debounceMs", 50);
    const env = {
      ...process.env,
      GROOVE_HOME: home,
      // Same cache as the Python tests: the default model is converted once per machine.
      GROOVE_MODELS_DIR: process.env.GROOVE_TEST_MODELS_DIR || path.join(os.homedir(), ".cache", "groove-test-models"),
      GROOVE_TOKEN_STORE: "file",
    };
    ext = new GrooveExtension(env);
    backend = ext.backendFor()!;
    await backend.ensure();
    // Wait until the first index covers the three notes.
    await vi.waitFor(
      async () => {
        const st = await backend.client.indexStatus();
        expect(st.indexing).toBe(false);
        expect(st.documents).toBe(4);
      },
      { timeout: 120_000, interval: 500 },
    );
  }, 180_000);

  afterAll(() => {
    const pid = backend?.client.info?.pid;
    ext?.dispose();
    if (pid) {
      try {
        process.kill(pid, "SIGTERM"); // the daemon this test started
      } catch {
        /* already gone */
      }
    }
    fs.rmSync(vault, { recursive: true, force: true });
    fs.rmSync(home, { recursive: true, force: true });
  });

  it("started the daemon for the workspace folder and authenticated", () => {
    expect(backend.client.state).toBe("connected");
    expect(fs.realpathSync(backend.client.hello!.vault)).toBe(vault);
    expect(backend.client.info!.address.startsWith(home)).toBe(true); // GROOVE_HOME isolates the socket
  });

  it("status bar shows the indexed note count", async () => {
    await backend.refreshStatus();
    expect(backend.state.kind).toBe("ready");
    expect(fake.statusItems[0].text).toBe("$(check) groove: 4 notes");
    expect(fake.statusItems[0].tooltip).toMatch(/^groove: 4 notes · \d+ sections · /);
  });

  async function searchAndPick(query: string, path_: string): Promise<{ hit: SearchHit; editor: FakeTextEditor }> {
    fake.editors.length = 0;
    await vscode.commands.executeCommand("groove.search");
    const qp = fake.quickPicks[fake.quickPicks.length - 1] as FakeQuickPick<HitItem>;
    qp.type(query);
    await vi.waitFor(() => expect(qp.items.length).toBeGreaterThan(0), { timeout: 30_000 });
    expect(qp.items.map((i) => i.hit.path)).toContain(path_);
    const item = qp.items.find((i) => i.hit.path === path_)!;
    qp.pick(item);
    await vi.waitFor(() => expect(fake.editors[0]?.revealed.length).toBe(1), { timeout: 10_000 });
    return { hit: item!.hit, editor: fake.editors[0] };
  }

  it("QuickPick search opens the English note with the daemon's answer span (else its first match span) selected", async () => {
    const { hit, editor } = await searchAndPick("conflict file", "Sync.md");
    expect(hit.match_spans.length).toBeGreaterThan(0);
    // A pick lands on the sentence that answers the query when the hit has one (issue 47).
    const first = sliceBytes(hit.content, ...(hit.answer_spans?.[0] ?? hit.match_spans[0]!));
    expect(editor.document.getText(editor.selection)).toBe(first);
    // The first span may be in the heading ("Conflicts") or the body: find its line from the hit's first line.
    const lines = NOTES["Sync.md"].split("\n");
    const expected = lines.findIndex((l, i) => i >= hit.line_range[0] - 1 && l.includes(first));
    expect(editor.selection.start.line).toBe(expected);
    expect(editor.revealed[0].type).toBe(vscode.TextEditorRevealType.InCenter);
    expect(ext.tree.getChildren().some((n) => n.kind === "note" && n.path === "Sync.md")).toBe(true);
  });

  it("Japanese hit: every highlighted range is exactly the span's text (UTF-8 vs UTF-16)", async () => {
    const { hit, editor } = await searchAndPick("競合ファイル", "Notes/同期.md");
    const spanTexts = hit.match_spans.map(([s, e]) => sliceBytes(hit.content, s, e));
    expect(spanTexts.length).toBeGreaterThan(0);
    expect(spanTexts.join("")).toContain("競合");
    const ranges = editor.decorations.get(fake.decorationTypes[0])!;
    expect(ranges.map((r) => editor.document.getText(r))).toEqual(spanTexts);
    expect(editor.selection.start.line).toBe(lineOf("Notes/同期.md", "競合ファイル"));
  });

  it("parent retriever: spans inside merged expanded_from content still land on their text", async () => {
    await vscode.commands.executeCommand("groove.toggleParentRetriever");
    expect(fake.config.get("groove.search.parentRetriever")).toBe(true);
    const { hit, editor } = await searchAndPick("conflict file", "Sync.md");
    const ranges = editor.decorations.get(fake.decorationTypes[0])!;
    expect(ranges.map((r) => editor.document.getText(r))).toEqual(hit.match_spans.map(([s, e]) => sliceBytes(hit.content, s, e)));
    expect(editor.document.getText(editor.selection)).toBe(sliceBytes(hit.content, ...(hit.answer_spans?.[0] ?? hit.match_spans[0]!)));
    // The answer sentence has its own decoration, on its own text.
    const answers = editor.decorations.get(fake.decorationTypes[1]!) ?? [];
    expect(answers.map((r) => editor.document.getText(r))).toEqual((hit.answer_spans ?? []).map(([s, e]) => sliceBytes(hit.content, s, e)));
    // A note this small is merged whole: several non-adjacent ranges, so the spans went through the piece mapping.
    expect(hit.expanded_from.length).toBeGreaterThan(1);
    const note = ext.tree.getChildren().find((n) => n.kind === "note" && n.path === "Sync.md")!;
    const tip = (ext.tree.getTreeItem(ext.tree.getChildren(note)[0]).tooltip as vscode.MarkdownString).value;
    expect(tip).toContain("Context from lines");
    expect(tip).toContain("▶ **This hit**");
    await vscode.commands.executeCommand("groove.toggleParentRetriever");
  });

  it("every match row of the results view selects exactly its match (English, Japanese, emoji + CRLF; parent retriever off and on)", async () => {
    let clicks = 0;
    const notes = new Set<string>();
    for (const parent of [false, true]) {
      if (parent) await vscode.commands.executeCommand("groove.toggleParentRetriever");
      expect(fake.config.get("groove.search.parentRetriever") ?? false).toBe(parent);
      for (const q of ["conflict file sync", "競合ファイル 統合", "cherry blossom budget 🌸"]) {
        await vscode.commands.executeCommand("groove.search");
        const qp = fake.quickPicks.at(-1)! as FakeQuickPick<HitItem>;
        qp.type(q);
        await vi.waitFor(() => expect(ext.tree.query).toBe(q), { timeout: 30_000 });
        qp.hide();
        for (const note of ext.tree.getChildren().filter((n) => n.kind === "note")) {
          for (const hitNode of ext.tree.getChildren(note)) {
            const rows = ext.tree.getChildren(hitNode);
            const items = (rows.length ? rows : [hitNode]).map((n) => ext.tree.getTreeItem(n));
            for (const it of items) {
              const [hit, span] = it.command!.arguments as [SearchHit, number];
              if (span < 0) continue; // a hit without lexical matches opens its chunk
              fake.editors.length = 0;
              await vscode.commands.executeCommand(it.command!.command, ...it.command!.arguments!);
              const ed = fake.editors[0]!;
              expect(ed.document.getText(ed.selection), `${hit.path} span ${span}`).toBe(sliceBytes(hit.content, ...hit.match_spans[span]!));
              clicks++;
              notes.add(hit.path);
            }
          }
        }
      }
    }
    await vscode.commands.executeCommand("groove.toggleParentRetriever"); // back to off
    console.log(`[vscode] clicked ${clicks} match rows in ${notes.size} notes`);
    expect([...notes]).toEqual(expect.arrayContaining(["Sync.md", "Notes/同期.md", "Travel/🌸 Spring trip.md"]));
  }, 120_000);

  it("Go to Definition on [[Sync#Conflicts]] lands on the heading line", async () => {
    const doc = await openDoc("Index.md");
    const at = doc.positionAt(NOTES["Index.md"].indexOf("Sync#Conflicts"));
    const defs = await ext.links.provideDefinition(doc as never, at);
    expect(defs).toHaveLength(1);
    expect(defs![0].targetUri.fsPath).toBe(path.join(vault, "Sync.md"));
    expect(defs![0].targetSelectionRange!.start.line).toBe(lineOf("Sync.md", "## Conflicts"));
  });

  it("document links resolve a Japanese heading with an alias, and explain a missing note", async () => {
    const doc = await openDoc("Index.md");
    const links = ext.links.provideDocumentLinks(doc as never);
    expect(links.map((l) => doc.getText(l.range))).toEqual(["Sync#Conflicts", "同期#衝突の解決 🔧|衝突", "Missing note"]);
    const ja = await ext.links.resolveDocumentLink(links[1] as GrooveDocumentLink);
    expect(ja.target!.fsPath).toBe(path.join(vault, "Notes", "同期.md"));
    expect(ja.target!.fragment).toBe(`L${lineOf("Notes/同期.md", "## 衝突の解決") + 1}`);
    const gone = await ext.links.resolveDocumentLink(links[2] as GrooveDocumentLink);
    expect(gone.target!.scheme).toBe("command");
  });

  it("related notes of Sync.md include the backlink from Index.md", async () => {
    const r = await backend.relatedNotes(path.join(vault, "Sync.md"));
    expect(r.backlinks.map((b) => b.path)).toContain("Index.md");
  });

  it("groove: Related Notes lists the backlink and opens Index.md at the linking line", async () => {
    fake.editors.length = 0;
    await vscode.window.showTextDocument((await openDoc("Sync.md")) as never);
    const before = fake.quickPicks.length;
    const done = vscode.commands.executeCommand("groove.relatedNotes");
    await vi.waitFor(() => expect(fake.quickPicks.length).toBe(before + 1), { timeout: 10_000 });
    const qp = fake.quickPicks.at(-1)! as FakeQuickPick<any>;
    expect(qp.items.map((i) => i.label)).toContain("Backlinks");
    qp.pick(qp.items.find((i) => i.open?.path === "Index.md" && i.open.line));
    await done;
    const ed = vscode.window.activeTextEditor as unknown as FakeTextEditor;
    expect(ed.document.uri.fsPath).toBe(path.join(vault, "Index.md"));
    expect(ed.selection.start.line).toBe(lineOf("Index.md", "[[Sync#Conflicts]]"));
  });

  it("groove: Rebuild Index reports what it indexed", async () => {
    await vscode.commands.executeCommand("groove.rebuildIndex");
    const msg = fake.messages.find((m) => m.text.includes("index rebuilt"));
    expect(msg?.text).toMatch(/\d+ indexed/);
  }, 60_000);

  it("an edited note arrives as index.changed and refreshes an open QuickPick", async () => {
    await vscode.commands.executeCommand("groove.search");
    const qp = fake.quickPicks.at(-1)! as FakeQuickPick<HitItem>;
    qp.type("tomatoes watering");
    await vi.waitFor(() => expect(qp.itemHistory.length).toBeGreaterThan(0), { timeout: 30_000 });
    expect(qp.items.map((i) => i.hit.path)).not.toContain("Garden.md");
    const changed = new Promise<string[]>((resolve) => backend.on("changed", (paths) => resolve(paths)));
    fs.writeFileSync(path.join(vault, "Garden.md"), "# Garden\n\nTomatoes need full sun and regular watering.\n");
    const paths = await Promise.race([changed, new Promise<string[]>((_, rej) => setTimeout(() => rej(new Error("no index.changed within 60 s")), 60_000))]);
    expect(paths).toContain("Garden.md");
    // No keystroke: the open QuickPick re-ran its query on index.changed.
    await vi.waitFor(() => expect(qp.items[0]?.hit.path).toBe("Garden.md"), { timeout: 30_000 });
    await vi.waitFor(() => expect(fake.statusItems[0].text).toBe("$(check) groove: 5 notes"), { timeout: 10_000 });
    qp.hide();
  }, 90_000);
});
