/**
 * The extension's UI logic against the fake `vscode`: QuickPick search
 * ordering, opening a hit with its span selected, decorations, the results
 * tree, and the wikilink providers.
 */
import * as fs from "node:fs";
import * as os from "node:os";
import * as path from "node:path";
import { afterEach, beforeEach, describe, expect, it, vi } from "vitest";
import * as vscode from "vscode";
import { ErrorCode, GrooveError, type PendingRequest, type SearchHit, type SearchParams, type SearchResponse } from "@groove/editor-client";
import { fake, FakeTextDocument, type FakeQuickPick, type FakeTextEditor } from "./fake-vscode";
import { Highlights } from "../src/highlights";
import { openHit } from "../src/jump";
import { lineUri, WikiLinkProvider, type GrooveDocumentLink } from "../src/links";
import { ResultsTree } from "../src/resultsTree";
import { showSearchQuickPick, type HitItem } from "../src/search";
import { readSettings } from "../src/settings";
import { hitFor } from "./helpers";

const NOTE = "# 同期\n\n## 衝突 😀\n\nモバイルで🎉同期の衝突が起きたら「競合ファイル」を確認。\n";

/** A runner whose searches the test answers by hand, in any order. */
class ManualRunner {
  calls: Array<{ params: SearchParams; resolve(r: SearchResponse): void; reject(e: unknown): void; cancelled: boolean }> = [];
  startSearch(params: SearchParams): PendingRequest<SearchResponse> {
    let resolve!: (r: SearchResponse) => void;
    let reject!: (e: unknown) => void;
    const promise = new Promise<SearchResponse>((res, rej) => ((resolve = res), (reject = rej)));
    const call = { params, resolve, reject, cancelled: false };
    this.calls.push(call);
    return {
      promise,
      cancel: () => {
        call.cancelled = true;
        reject(new GrooveError("rpc", "search cancelled", { code: ErrorCode.Cancelled }));
      },
    };
  }
}

function response(hits: ReturnType<typeof hitFor>[], extra: Partial<SearchResponse> = {}): SearchResponse {
  return { results: hits, low_confidence: false, filter_applied: {}, warnings: [], confidence: null, ...extra };
}

let vault: string;
beforeEach(() => {
  fake.reset();
  vault = fs.mkdtempSync(path.join(os.tmpdir(), "groove-ui-"));
  fs.writeFileSync(path.join(vault, "同期.md"), NOTE);
  fake.config.set("groove.search.debounceMs", 150);
});
afterEach(() => {
  vi.useRealTimers();
  fs.rmSync(vault, { recursive: true, force: true });
});

function startPick(runner: ManualRunner, highlights = new Highlights()) {
  const results: string[] = [];
  const opened: string[] = [];
  const pick = showSearchQuickPick({
    runner,
    settings: readSettings,
    onResults: (q) => results.push(q),
    onNewQuery: () => highlights.clear(),
    onPick: async (hit) => {
      opened.push(hit.path);
      await openHit(vault, hit, highlights);
    },
    onError: () => {},
  });
  return { pick, qp: pick.quickPick as unknown as FakeQuickPick<HitItem>, results, opened, highlights };
}

describe("QuickPick search", () => {
  it("debounces typing into one request for the last value", async () => {
    vi.useFakeTimers();
    const runner = new ManualRunner();
    const { qp } = startPick(runner);
    for (const v of ["s", "sy", "syn", "sync"]) {
      qp.type(v);
      await vi.advanceTimersByTimeAsync(50);
    }
    expect(runner.calls).toHaveLength(0);
    await vi.advanceTimersByTimeAsync(150);
    expect(runner.calls.map((c) => c.params.query)).toEqual(["sync"]);
    expect(qp.busy).toBe(true);
  });

  it("cancels a superseded search and never shows its late results", async () => {
    vi.useFakeTimers();
    const runner = new ManualRunner();
    const { qp, results } = startPick(runner);
    qp.type("sync");
    await vi.advanceTimersByTimeAsync(200);
    qp.type("sync conflict");
    await vi.advanceTimersByTimeAsync(200);
    expect(runner.calls.map((c) => [c.params.query, c.cancelled])).toEqual([
      ["sync", true],
      ["sync conflict", false],
    ]);
    const old = hitFor(NOTE, "old.md", "# 同期", null, []);
    const fresh = hitFor(NOTE, "同期.md", "## 衝突", null, ["競合ファイル"]);
    runner.calls[1].resolve(response([fresh]));
    runner.calls[0].resolve(response([old])); // the daemon answered the old one late
    await vi.advanceTimersByTimeAsync(0);
    expect(qp.itemHistory.flat().map((i) => i.hit.path)).not.toContain("old.md");
    expect(qp.items.map((i) => i.hit.path)).toEqual(["同期.md"]);
    expect(results).toEqual(["sync conflict"]);
    expect(qp.busy).toBe(false);
  });

  it("shows title, heading path and a snippet, and keeps items VS Code would filter out", async () => {
    const runner = new ManualRunner();
    const { qp } = startPick(runner);
    qp.type("conflict");
    await vi.waitFor(() => expect(runner.calls).toHaveLength(1));
    runner.calls[0].resolve(response([hitFor(NOTE, "同期.md", "## 衝突", null, ["競合ファイル"], { title: "同期", heading_path: ["同期", "衝突 😀"] })], { low_confidence: true }));
    await vi.waitFor(() => expect(qp.items).toHaveLength(1));
    const [item] = qp.items;
    expect(item.label.replace(/\u200b/g, "")).toBe("$(markdown) 同期");
    expect(item.description).toBe("衝突 😀");
    expect(item.detail).toContain("競合ファイル");
    expect(item.detail).not.toMatch(/#/);
    expect(item.alwaysShow).toBe(true);
    expect(qp.title).toContain("no strong match");
  });

  it("lists hits in the daemon's order even when a lower hit's title contains the query (VS Code sorts label matches first)", async () => {
    const runner = new ManualRunner();
    const { qp } = startPick(runner);
    qp.type("mobile");
    await vi.waitFor(() => expect(runner.calls).toHaveLength(1));
    const home = hitFor(NOTE, "Home.md", "# 同期", null, [], { title: "Home", rank: 1 });
    const mobile = hitFor(NOTE, "Sync/Mobile sync.md", "## 衝突", null, ["競合ファイル"], { title: "Mobile sync", rank: 2 });
    runner.calls[0].resolve(response([home, mobile]));
    await vi.waitFor(() => expect(qp.items).toHaveLength(2));
    expect(qp.shown.map((i) => i.hit.path)).toEqual(["Home.md", "Sync/Mobile sync.md"]);
    // The title reads the same (zero-width spaces between its graphemes).
    expect(qp.items[1]!.label.replace(/\u200b/g, "")).toBe("$(markdown) Mobile sync");
    const { unmatchable } = await import("../src/search");
    expect(unmatchable("🌸 Spring 👩‍👩‍👧 trip").split("\u200b")).toContain("👩‍👩‍👧"); // a ZWJ emoji stays whole
  });

  it("accepting opens the note with the span selected, centred and decorated; the next search clears it", async () => {
    const runner = new ManualRunner();
    const { qp, highlights } = startPick(runner);
    qp.type("競合");
    await vi.waitFor(() => expect(runner.calls).toHaveLength(1));
    const hit = hitFor(NOTE, "同期.md", "## 衝突", null, ["🎉同期", "競合ファイル"]);
    runner.calls[0].resolve(response([hit]));
    await vi.waitFor(() => expect(qp.items).toHaveLength(1));
    qp.pick();
    await vi.waitFor(() => expect(fake.editors).toHaveLength(1));
    const ed = fake.editors[0] as FakeTextEditor;
    await vi.waitFor(() => expect(ed.revealed).toHaveLength(1));
    expect(ed.document.getText(ed.selection)).toBe("🎉同期");
    expect(ed.revealed[0].type).toBe(vscode.TextEditorRevealType.InCenter);
    const [type] = fake.decorationTypes;
    // groove's own colours (contributed with light/dark/high-contrast defaults), not the
    // find/word/selection highlight VS Code paints on every copy of the selected word.
    const colour = (c: unknown) => (c as { id: string }).id;
    expect(colour(type.options.backgroundColor)).toBe("groove.matchBackground");
    expect(colour(type.options.borderColor)).toBe("groove.matchBorder");
    const contributed = JSON.parse(fs.readFileSync(path.join(__dirname, "..", "package.json"), "utf8")).contributes.colors as Array<{ id: string; defaults: Record<string, string> }>;
    for (const id of ["groove.matchBackground", "groove.matchBorder", "groove.answerBackground", "groove.answerBorder"]) {
      const c = contributed.find((x) => x.id === id)!;
      expect(Object.keys(c.defaults).sort()).toEqual(["dark", "highContrast", "highContrastLight", "light"]);
    }
    expect(ed.decorations.get(type)!.map((r) => ed.document.getText(r))).toEqual(["🎉同期", "競合ファイル"]);
    expect(qp.disposed).toBe(true);

    // A new search (new QuickPick) clears the previous hit's highlights.
    const next = startPick(new ManualRunner(), highlights);
    next.qp.type("other");
    expect(ed.decorations.get(type)).toEqual([]);
  });

  it("reapplies highlights when the note's editor is re-created", async () => {
    const highlights = new Highlights();
    const hit = hitFor(NOTE, "同期.md", "## 衝突", null, ["競合ファイル"]);
    await openHit(vault, hit, highlights);
    const doc = fake.editors[0].document;
    fake.editors.length = 0; // the tab was closed and opened again
    const { FakeTextEditor } = await import("./fake-vscode");
    const again = new FakeTextEditor(doc);
    fake.editors.push(again);
    fake.visibleChanged.fire(fake.editors);
    expect(again.decorations.get(fake.decorationTypes[0])!.map((r) => doc.getText(r))).toEqual(["競合ファイル"]);
  });
});

describe("results tree", () => {
  it("groups hits by note in ranking order, with expanded context in the tooltip", () => {
    const tree = new ResultsTree(() => vault);
    const a1 = hitFor(NOTE, "a.md", "## 衝突", null, ["競合ファイル"], { title: "A", heading_path: ["A", "衝突 😀"], rank: 1 });
    const b = hitFor(NOTE, "b.md", "# 同期", null, [], { title: "B", rank: 2 });
    const a2 = {
      ...hitFor(NOTE, "a.md", "# 同期", null, ["🎉"], { title: "A", heading_path: ["A"], rank: 3 }),
      expanded_from: [
        { chunk_id: 1, byte_range: [0, 10] as [number, number], line_range: [1, 2] as [number, number] },
        { chunk_id: 2, byte_range: [10, 90] as [number, number], line_range: [3, 5] as [number, number] },
      ],
    };
    tree.setResults("q", response([a1, b, a2], { low_confidence: true, warnings: ["reranker unavailable"] }));
    const roots = tree.getChildren();
    expect(roots.map((n) => (n.kind === "note" ? n.path : n.kind))).toEqual(["info", "info", "a.md", "b.md"]);
    const aKids = tree.getChildren(roots[2]);
    expect(aKids).toHaveLength(2);
    const item = tree.getTreeItem(aKids[1]);
    const tip = (item.tooltip as vscode.MarkdownString).value;
    expect(tip).toContain("Context from lines 1–2, lines 3–5");
    expect(tip).toContain("▶ **This hit**");
    expect(tip).toContain("**🎉**");
    expect(item.command).toMatchObject({ command: "groove.openHit", arguments: [a2, 0] });
    expect(tree.getTreeItem(roots[0]).label).toBe("No strong match — these are the closest notes");
  });

  it("the hover marks an answer sentence italic, or keeps it upright around a bold matched word (no stray markers)", async () => {
    const { hitTooltipMarkdown } = await import("../src/render");
    const content = "When two devices edit offline, sync keeps both versions.";
    const B = (t: string) => new TextEncoder().encode(t).length;
    const h = { ...hitFor(NOTE, "a.md", "## 衝突", null, []), content, match_spans: [[B("When two devices edit offline, sync "), B("When two devices edit offline, sync keep")] as [number, number]], answer_spans: [[0, B(content)] as [number, number]], expanded_from: [] };
    const tip = hitTooltipMarkdown(h);
    expect(tip).toContain("> When two devices edit offline, sync **keep**s both versions\\.");
    expect(tip).not.toMatch(/_When|\*When/);
    const plain = { ...h, match_spans: [] };
    expect(hitTooltipMarkdown(plain)).toContain("> *When two devices edit offline, sync keeps both versions\\.*");
  });

  it("says why low_confidence is what it is when the search was explained", () => {
    const tree = new ResultsTree(() => vault);
    const b = hitFor(NOTE, "b.md", "# 同期", null, [], { title: "B", rank: 1 });
    const confidence = { low_confidence: true, rule: "calibrated" as const, score: -2.16, threshold: 0.75, best_passage_z: 0.65, known_share: 0.06 };
    tree.setResults("q", response([b], { low_confidence: true, confidence }));
    expect(tree.getChildren().slice(0, 2).map((n) => tree.getTreeItem(n).label)).toEqual([
      "No strong match — these are the closest notes",
      "confidence: low: calibrated score -2.16 < 0.75 (best passage 0.65 spreads above unrelated questions; 6% of the query's words are in the vault)",
    ]);
    tree.setResults("q", response([b], { low_confidence: true }));
    expect(tree.getChildren().map((n) => tree.getTreeItem(n).label)).not.toContainEqual(expect.stringMatching(/^confidence:/));
  });

  it("never says 'no strong match' over an empty list", () => {
    const tree = new ResultsTree(() => vault);
    tree.setResults("zzz", response([], { low_confidence: true }));
    expect(tree.getChildren().map((n) => tree.getTreeItem(n).label)).toEqual(["No results for “zzz”"]);
  });

  it("labels a hit with its snippet, matched words emphasised and no Markdown markers; one row per match", () => {
    const tree = new ResultsTree(() => vault);
    const hit = hitFor(NOTE, "同期.md", "## 衝突", null, ["衝突", "競合ファイル", "🎉同期"], { title: "同期", heading_path: ["同期", "衝突 😀"] });
    const [a, b, c] = hit.match_spans; // document order: 衝突, 🎉同期, 競合ファイル
    hit.match_spans = [a!, c!, b!]; // the daemon's order need not be the document's
    tree.setResults("q", response([hit]));
    const [note] = tree.getChildren();
    const [hitNode] = tree.getChildren(note);
    const item = tree.getTreeItem(hitNode!);
    const label = item.label as vscode.TreeItemLabel;
    expect(label.label).not.toMatch(/#/);
    // The chunk's heading line is the description (衝突 😀), not the label: its match shows there.
    expect(label.highlights!.map(([s, e]) => label.label.slice(s, e))).toEqual(["🎉同期", "競合ファイル"]);
    expect(item.description).toBe("衝突 😀 · 0.500");
    expect(item.collapsibleState).toBe(vscode.TreeItemCollapsibleState.Collapsed);
    const rows = tree.getChildren(hitNode).map((n) => tree.getTreeItem(n));
    expect(rows.map((r) => (r.command!.arguments as unknown[])[1])).toEqual([0, 2, 1]); // document order, each its own span
    for (const r of rows) {
      const l = r.label as vscode.TreeItemLabel;
      const [s, e] = l.highlights![0]!;
      expect(l.label.slice(s, e)).toBe(["衝突", "🎉同期", "競合ファイル"][rows.indexOf(r)]);
    }
  });

  it("the same card again does not redraw the view (a redraw swallows a click on its buttons)", async () => {
    const { cardRows } = await import("../src/card");
    const { diagnose } = await import("@groove/editor-client");
    const tree = new ResultsTree(() => "/v");
    let redraws = 0;
    tree.onDidChangeTreeData(() => redraws++);
    const notRunning = () => ({ kind: "problem" as const, problem: diagnose(new GrooveError("not-running", "x"), { executableSetting: "x", autoStartSetting: "y", vault: "/v" }) });
    tree.setCard(cardRows(notRunning()));
    tree.setCard(cardRows(notRunning())); // a background reconnect failed the same way
    expect(redraws).toBe(1);
    tree.setCard(null);
    expect(redraws).toBe(2);
  });

  it("a click on a match row selects exactly that match in the note", async () => {
    const highlights = new Highlights();
    const hit = hitFor(NOTE, "同期.md", "## 衝突", null, ["衝突", "競合ファイル", "🎉同期"]);
    const [a, b, c] = hit.match_spans;
    hit.match_spans = [a!, c!, b!];
    for (const span of [0, 1, 2]) {
      const ed = await openHit(vault, hit, highlights, { span });
      expect(ed.document.getText(ed.selection)).toBe(["衝突", "競合ファイル", "🎉同期"][span]);
    }
  });
});

describe("wikilink providers", () => {
  const text = "前置き [[同期#衝突 😀|別名]] and [[Missing]]\n";
  const doc = () => new FakeTextDocument(vscode.Uri.file(path.join(vault, "from.md")), text) as unknown as vscode.TextDocument;
  const resolver = (calls: string[]) => ({
    async resolve(_d: vscode.TextDocument, raw: string) {
      calls.push(raw);
      return raw.includes("Missing")
        ? { root: vault, result: { path: null, heading: null, block: null, line_range: null, exists: false } }
        : { root: vault, result: { path: "同期.md", heading: "衝突 😀", block: null, line_range: [3, 5] as [number, number], exists: true } };
    },
  });

  it("underlines each link without a round trip, resolving on demand to the heading's line", async () => {
    const calls: string[] = [];
    const p = new WikiLinkProvider(resolver(calls));
    const d = doc();
    const links = p.provideDocumentLinks(d);
    expect(links.map((l) => d.getText(l.range))).toEqual(["同期#衝突 😀|別名", "Missing"]);
    expect(calls).toEqual([]);
    const r = await p.resolveDocumentLink(links[0] as GrooveDocumentLink);
    expect(calls).toEqual(["[[同期#衝突 😀|別名]]"]);
    expect(r.target!.fsPath).toBe(path.join(vault, "同期.md"));
    expect(r.target!.fragment).toBe("L3");
    const missing = await p.resolveDocumentLink(links[1] as GrooveDocumentLink);
    expect(missing.target!.scheme).toBe("command");
    expect(missing.target!.path).toBe("groove.linkMissing");
  });

  it("Go to Definition lands on the heading line", async () => {
    const p = new WikiLinkProvider(resolver([]));
    const d = doc();
    const defs = await p.provideDefinition(d, d.positionAt(text.indexOf("衝突")));
    expect(defs).toHaveLength(1);
    expect(defs![0].targetUri.fsPath).toBe(path.join(vault, "同期.md"));
    expect(defs![0].targetSelectionRange!.start.line).toBe(2);
    expect(d.getText(defs![0].originSelectionRange!)).toBe("[[同期#衝突 😀|別名]]");
    expect(await p.provideDefinition(d, d.positionAt(1))).toBeUndefined();
    expect(await p.provideDefinition(d, d.positionAt(text.indexOf("Missing")))).toBeUndefined();
  });

  it("lineUri uses VS Code's 1-based #L fragment", () => {
    expect(lineUri("/v/a.md", 12).toString()).toBe("file:///v/a.md#L12");
    expect(lineUri("/v/a.md", null).fragment).toBe("");
  });
});

describe("a note's answer in another of its sections (note_answer_rank, ADR 0269)", async () => {
  const { groupedItems } = await import("../src/search");
  it("the note's item shows that sentence and picking it opens that section", () => {
    const file = "# Sync\n\nalpha one. Unrelated words.\n\n## Turn it on\n\nOther words here. Open **Settings** and turn it on.\n";
    const a1 = hitFor(file, "Sync.md", "alpha one.", "## Turn it on", ["alpha"], { rank: 1, note_answer_rank: 3 });
    const b1 = hitFor("beta one\n", "B.md", "beta", null, [], { rank: 2, chunk_id: 2 });
    const a3 = hitFor(file, "Sync.md", "Other words", null, [], { rank: 3, chunk_id: 3, heading_path: ["Sync", "Turn it on"] });
    a3.answer_spans = [[Buffer.byteLength("Other words here. "), Buffer.byteLength(a3.content.trimEnd())]];
    const items = groupedItems([a1, b1, a3]);
    expect(items.map((i) => i.hit.rank)).toEqual([1, 3, 2]);
    expect(items[0]!.detail).toBe("$(lightbulb) Turn it on: Open Settings and turn it on.");
    expect(items[0]!.answerAt).toBe(a3);
    expect(items[2]!.answerAt).toBeUndefined();
  });

  it("a note's answer in a section not returned (note_answer): the item shows it and opens the note at it", async () => {
    const { locateHit } = await import("../src/locate");
    const text = "Open **Settings** and turn it on.";
    const file = `# Sync\n\nalpha one.\n\n## Turn it on\n\nOther words. ${text}\n`;
    const at = Buffer.byteLength(file.slice(0, file.indexOf(text)));
    const a1 = hitFor(file, "Sync.md", "alpha one.", "## Turn it on", ["alpha"], { rank: 1 });
    a1.note_answer = { chunk_id: 9, heading_path: ["Sync", "Turn it on"], text, byte_range: [at, at + Buffer.byteLength(text)], line_range: [7, 7] };
    const [item] = groupedItems([a1]);
    expect(item!.detail).toBe("$(lightbulb) Turn it on: Open Settings and turn it on.");
    const [s, e] = locateHit(file, item!.answerAt!).selection;
    expect(file.slice(s, e)).toBe(text);
  });

  it("picking the note's item opens the section holding its answer", async () => {
    const runner = new ManualRunner();
    const picked: SearchHit[] = [];
    const pick = showSearchQuickPick({ runner, settings: readSettings, onResults: () => {}, onNewQuery: () => {}, onPick: async (h) => void picked.push(h), onError: () => {} });
    const qp = pick.quickPick as unknown as FakeQuickPick<HitItem>;
    qp.type("answer");
    await vi.waitFor(() => expect(runner.calls).toHaveLength(1));
    const file = "# Sync\n\nalpha one.\n\n## Later\n\nThe answer sentence.\n";
    const a3 = hitFor(file, "Sync.md", "The answer", null, [], { rank: 2, chunk_id: 2, answer_spans: [[0, 20]] });
    runner.calls[0].resolve(response([hitFor(file, "Sync.md", "alpha", "## Later", [], { rank: 1, note_answer_rank: 2 }), a3]));
    await vi.waitFor(() => expect(qp.items).toHaveLength(2));
    qp.pick(qp.items[0]);
    await vi.waitFor(() => expect(picked).toEqual([a3]));
  });
});

describe("related notes quick pick", async () => {
  const { relatedItems } = await import("../src/related");
  it("names the folder of notes whose titles collide and keeps #heading on outgoing links", () => {
    const items = relatedItems({
      path: "a.md",
      similar: [
        { path: "Dup.md", title: "Dup", score: 0.9 },
        { path: "Projects/Dup.md", title: "Dup", score: 0.8 },
        { path: "Notes/Unique.md", title: "Unique", score: 0.7 },
      ],
      backlinks: [{ path: "Archive/2023/Dup.md", title: "Dup", line: 4 }],
      outgoing: [
        { target: "Mobile sync", path: "Sync/Mobile sync.md", heading: "Setting Up", line: 3 },
        { target: "Mobile sync", path: "Sync/Mobile sync.md", heading: null, line: 5 },
      ],
      attachments: [],
      own_headings: [],
    });
    const labels = items.filter((i) => i.kind !== vscode.QuickPickItemKind.Separator).map((i) => i.label);
    expect(labels).toEqual([
      "$(filter) Unlinked only",
      "$(sparkle) Dup — in (vault root)",
      "$(sparkle) Dup — in Projects",
      "$(sparkle) Unique",
      "$(arrow-left) Dup — in Archive/2023",
      "$(arrow-right) Mobile sync#Setting Up",
      "$(arrow-right) Mobile sync",
    ]);
    expect(items.find((i) => i.label.endsWith("#Setting Up"))!.open).toEqual({ path: "Sync/Mobile sync.md", line: null, link: "[[Mobile sync#Setting Up]]" });
  });

  it("lists attachments and links within the note apart from outgoing notes", () => {
    const items = relatedItems({
      path: "Notes/a.md",
      similar: [],
      backlinks: [],
      outgoing: [{ target: "D", path: "D.md", heading: null, line: 3 }],
      attachments: [
        { target: "Sleep-2026.webp", path: "Attachments/Sleep-2026.webp", embed: true, line: 5, occurrences: 2 },
        { target: "manual.pdf", path: null, embed: false, line: 9 },
      ],
      own_headings: [{ heading: "Setup", block: null, line: 2 }],
    });
    const seps = items.filter((i) => i.kind === vscode.QuickPickItemKind.Separator).map((i) => i.label);
    expect(seps).toEqual(["Outgoing links", "Attachments", "Links within this note"]);
    const rows = items.filter((i) => i.kind !== vscode.QuickPickItemKind.Separator && !i.toggle).map((i) => [i.label, i.description, i.detail]);
    expect(rows).toEqual([
      ["$(arrow-right) D", "D.md", undefined],
      ["$(file-media) Sleep-2026.webp", "Attachments/Sleep-2026.webp", "embedded · line 5 · 2×"],
      ["$(circle-slash) manual.pdf", "no such file", "linked · line 9 · missing"],
      ["$(symbol-number) #Setup", "line 2", undefined],
    ]);
    expect(items.find((i) => i.label.endsWith("Sleep-2026.webp"))!.open).toEqual({ path: "Attachments/Sleep-2026.webp", line: null });
    expect(items.find((i) => i.label.endsWith("manual.pdf"))!.open).toBeUndefined();
    expect(items.find((i) => i.label.endsWith("#Setup"))!.open).toEqual({ path: "Notes/a.md", line: null, link: "[[#Setup]]" });
  });

  it("says which similar notes are linked, and offers Unlinked only as in Obsidian", () => {
    const r = { path: "a.md", similar: [{ path: "L.md", title: "L", score: 0.9, linked: true }, { path: "U.md", title: "U", score: 0.8, linked: false }], backlinks: [], outgoing: [], attachments: [], own_headings: [] };
    const all = relatedItems(r);
    expect(all[0]).toMatchObject({ label: "$(filter) Unlinked only", toggle: true });
    expect(all.filter((i) => i.open).map((i) => [i.label, i.detail])).toEqual([
      ["$(link) L", "similarity 0.900 · linked"],
      ["$(sparkle) U", "similarity 0.800 · not linked"],
    ]);
    // With relevance (ADR 0276), the figure is the one that orders the list, not the cosine.
    const ranked = relatedItems({ ...r, similar: [{ ...r.similar[0]!, score: 0.86, relevance: 2.4 }, { ...r.similar[1]!, score: 0.9, relevance: 1.7 }] });
    expect(ranked.filter((i) => i.open).map((i) => i.detail)).toEqual(["relevance 2.40 · linked", "relevance 1.70 · not linked"]);
    // Below 0 (no closer than a typical note of the vault), 0.00, never "-0.23".
    const low = relatedItems({ ...r, similar: [{ ...r.similar[1]!, relevance: -0.23 }] });
    expect(low.filter((i) => i.open).map((i) => i.detail)).toEqual(["relevance 0.00 · not linked"]);
    const only = relatedItems({ ...r, similar: [r.similar[1]!] }, { unlinkedOnly: true });
    expect(only[0]!.label).toBe("$(check) Unlinked only");
    expect(only.find((i) => i.kind === vscode.QuickPickItemKind.Separator)!.label).toBe("Similar notes, not linked");
  });
});

describe("QuickPick during the first index", () => {
  it("an empty answer is 'not yet' in the title, and the search runs again when the index is ready", async () => {
    const runner = new ManualRunner();
    let state: import("@groove/editor-client").ConnectionState = { kind: "first-index", progress: { phase: "embed", done: 5, total: 40 }, status: null };
    const listeners = new Set<(s: typeof state) => void>();
    const pick = showSearchQuickPick({
      runner,
      settings: readSettings,
      onResults: () => {},
      onNewQuery: () => {},
      onPick: async () => {},
      onError: () => {},
      state: () => state,
      onState: (fn) => (listeners.add(fn), () => listeners.delete(fn)),
    });
    const qp = pick.quickPick as unknown as FakeQuickPick<HitItem>;
    qp.type("sync");
    await vi.waitFor(() => expect(runner.calls).toHaveLength(1));
    runner.calls[0].resolve(response([], { low_confidence: true }));
    await vi.waitFor(() => expect(qp.title).toMatch(/building the index for the first time \(5 of 40 notes\); results appear when it is done/));
    expect(qp.title).not.toMatch(/no strong match|no results/);
    state = { kind: "ready", status: { documents: 40, chunks: 80, model: "m", dim: 1, last_indexed: 1, stale_files: 0, indexing: false, progress: null, index_path: "/i" } };
    for (const fn of listeners) fn(state);
    await vi.waitFor(() => expect(runner.calls).toHaveLength(2));
    runner.calls[1].resolve(response([hitFor(NOTE, "同期.md", "## 衝突", null, ["競合ファイル"])]));
    await vi.waitFor(() => expect(qp.items).toHaveLength(1));
    expect(qp.title).toBe("groove: Semantic Search");
    qp.hide();
  });
});
