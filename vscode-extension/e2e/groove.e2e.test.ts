/**
 * The extension in the real VS Code workbench: the .vsix built from this
 * checkout (`vsce package`, as `make vsix`), installed into code-server,
 * driven with headless Chromium, talking to the real `groove serve` it
 * starts on a test vault of English and Japanese notes. Each scenario is
 * what a user does; the expected results come from the same daemon, asked
 * directly by the test's own client.
 */
import { execFile } from "node:child_process";
import * as fs from "node:fs";
import { createRequire } from "node:module";
import * as os from "node:os";
import * as path from "node:path";
import { promisify } from "node:util";
import type { Browser } from "playwright-core";
import { afterAll, afterEach, beforeAll, describe, expect, it } from "vitest";
import { GrooveClient, groupHits, sliceBytes, type SearchHit } from "@groove/editor-client";
import { pieces, piecesMissing } from "./pieces";
import { lineOf, NOTES, writeNotes } from "./vault";
import { installVsix, launchBrowser, tempBase, Workbench } from "./workbench";

const skip = piecesMissing();
const P = pieces();
const extRoot = path.resolve(__dirname, "..");

function modelsDir(): string {
  return process.env.GROOVE_MODELS_DIR ?? process.env.GROOVE_TEST_MODELS_DIR ?? path.join(os.homedir(), ".cache", "groove-test-models");
}

describe.skipIf(!!skip)("groove in the real VS Code workbench (code-server + Chromium)", () => {
  let base: string;
  let extDir: string;
  let browser: Browser;
  let env: NodeJS.ProcessEnv;
  let vault: string;
  let wb: Workbench;
  let oracle: GrooveClient;
  const windows: Workbench[] = [];
  const t0 = Date.now();

  const groove = (args: string[]) =>
    promisify(execFile)(P.groove, args, { env, timeout: 60_000 }).then((r) => r.stdout);

  const open = async (name: string, folder: string, settings: Record<string, unknown> = {}) => {
    const w = await Workbench.open(browser, P, extDir, base, name, { folder, env, settings: { "groove.executablePath": P.groove, ...settings } });
    windows.push(w);
    return w;
  };

  beforeAll(async () => {
    base = tempBase("gve-");
    // The .vsix as `make vsix` builds it (vscode:prepublish bundles dist/extension.js).
    const vsce = path.join(path.dirname(createRequire(__filename).resolve("@vscode/vsce/package.json")), "vsce");
    const vsix = path.join(base, "groove.vsix");
    await promisify(execFile)(process.execPath, [vsce, "package", "--no-dependencies", "--out", vsix], { cwd: extRoot, timeout: 120_000 });
    extDir = installVsix(P, vsix, base);
    browser = await launchBrowser(P);
    env = { ...process.env, GROOVE_HOME: path.join(base, "h"), GROOVE_MODELS_DIR: modelsDir(), GROOVE_TOKEN_STORE: "file" };
    for (const k of ["VSCODE_IPC_HOOK_CLI", "VSCODE_PID", "ELECTRON_RUN_AS_NODE"]) delete env[k];
    vault = path.join(base, "vault");
    writeNotes(vault, NOTES);
  }, 240_000);

  afterAll(async () => {
    oracle?.close();
    for (const w of windows) await w.close();
    await browser?.close();
    if (vault) await groove(["serve", "--stop", "--vault", vault]).catch(() => {});
    console.log(`[vscode e2e] suite time ${((Date.now() - t0) / 1000).toFixed(1)} s`);
    // GROOVE_E2E_KEEP=1 keeps the user-data dirs (logs), the vault and GROOVE_HOME for a look.
    if (base && process.env.GROOVE_E2E_KEEP !== "1") fs.rmSync(base, { recursive: true, force: true });
    else if (base) console.log(`[vscode e2e] kept ${base}`);
  });

  // A failed step leaves a picture of the workbench, its status bar and the extension's log.
  afterEach(async (ctx) => {
    if (ctx.task.result?.state !== "fail") return;
    for (const [i, w] of windows.entries()) {
      if (w.page.isClosed()) continue;
      await w.shot(`failed-${ctx.task.name.slice(0, 40).replace(/\W+/g, "-")}-${i}.png`).catch(() => {});
      console.log(`[vscode e2e] window ${i} status: "${await w.statusText().catch(() => "?")}"\n--- groove output ---\n${w.grooveOutput().slice(-3000)}`);
    }
  });

  describe("activation only where groove belongs", () => {
    it("a plain repository with a README: groove stays asleep, no status item, no popup, no daemon", async () => {
      const repo = path.join(base, "repo");
      writeNotes(repo, { "README.md": "# A code repository\n\nNothing to do with notes.\n", "src/main.py": "print('hi')\n" });
      const w = await open("repo", repo);
      // onStartupFinished activations come after every workspaceContains check.
      const log = await w.waitExthostLog(/_doActivateExtension \S+, startup: false, activationEvent: 'onStartupFinished'/);
      expect(log).not.toMatch(/_doActivateExtension groove\.groove/);
      expect(await w.statusItem().count()).toBe(0);
      expect(await w.notifications()).toEqual([]);
      expect(JSON.parse(await groove(["connect-info", "--vault", repo])).running).toBe(false);
      await w.close();
    });

    it("a folder with a groove.toml activates it", async () => {
      const docs = path.join(base, "docs");
      writeNotes(docs, { "groove.toml": "", "guide.md": "# Guide\n\nHow to use the tool.\n" });
      const w = await open("toml", docs, { "groove.autoStart": false });
      const log = await w.waitExthostLog(/_doActivateExtension groove\.groove, startup: true, activationEvent: 'workspaceContains:groove\.toml'/);
      expect(log).toBeTruthy();
      // Auto-start is off and no daemon runs: the status bar says so (no popup).
      expect(await w.waitStatus(/groove: not running/)).toMatch(/not running/);
      expect(await w.notifications()).toEqual([]);
      await w.close();
    });
  });

  describe("an Obsidian vault", () => {
    it("activates on .obsidian/, says 'not running' with auto-start off, and its fix starts the daemon: starting → indexing → ready", async () => {
      wb = await open("vault", vault, { "groove.autoStart": false });
      await wb.waitExthostLog(/_doActivateExtension groove\.groove, startup: true, activationEvent: 'workspaceContains:\.obsidian\/\*\.json'/);
      await wb.waitStatus(/groove: not running/);
      expect(await wb.notifications()).toEqual([]);
      // The fix it offers: a click opens the groove view, whose card has "Start groove".
      await wb.recordStatus();
      await wb.statusItem().click();
      const start = wb.page.locator('.pane[aria-label*="Search Results"] .monaco-list-row, .part.sidebar .monaco-list-row', { hasText: "Start groove" }).first();
      await start.waitFor();
      await wb.shot("vscode-e2e-not-running.png");
      // Every wrapped card row fits the default side bar.
      expect(await wb.cutCardRows()).toEqual([]);
      await start.click();
      const notes = Object.keys(NOTES).filter((n) => n.endsWith(".md")).length;
      await wb.waitStatus(new RegExp(`groove: ${notes} notes`));
      const seen = await wb.statusHistory();
      const at = (re: RegExp) => seen.findIndex((s) => re.test(s));
      expect(at(/not running/), seen.join(" | ")).toBe(0);
      // "connecting" may last less than one workbench render under load (the
      // status bar then shows only the state after it); when seen it comes
      // between "not running" and "indexing".
      expect(at(/indexing/), seen.join(" | ")).toBeGreaterThan(Math.max(0, at(/connecting/)));
      expect(at(new RegExp(`${notes} notes`)), seen.join(" | ")).toBeGreaterThan(at(/indexing/));
      console.log(`[vscode e2e] status bar: ${seen.join(" → ")}`);
      oracle = new GrooveClient({ executable: P.groove, vault, env, autoStart: false, clientName: "groove-e2e/0" });
      await oracle.connect();
    });

    const params = (query: string, limit = 20) => ({ query, limit, rerank: null, mmr: null, parent_retriever: null });
    const titles = (hits: SearchHit[]) => hits.map((h) => h.title);
    /** A QuickPick row's label: a note's best hit by its title, its other sections beneath by their heading path. */
    const rowLabels = (hits: SearchHit[]) =>
      groupHits(hits).flatMap((g) => [g.best.hit.title, ...g.others.map((o) => (o.hit.heading_path[0] === o.hit.title ? o.hit.heading_path.slice(1) : o.hit.heading_path).join(" › ") || o.hit.title)]);
    /** The visible rows are the daemon's hits, in its order, grouped by note (the list is virtualised: a prefix). */
    const sameOrder = (expected: SearchHit[]) => (rows: Array<{ label: string }>) => {
      const want = rowLabels(expected);
      return rows.length >= Math.min(want.length, 5) && rows.every((r, k) => r.label === want[k]);
    };

    async function search(query: string): Promise<SearchHit[]> {
      await wb.command("groove: Semantic Search");
      await wb.quickInput().locator(".quick-input-title", { hasText: "groove: Semantic Search" }).waitFor();
      await wb.page.keyboard.type(query);
      const expected = (await oracle.search(params(query))).results;
      expect(expected.length).toBeGreaterThan(0);
      await wb.waitRows(sameOrder(expected));
      return expected;
    }

    /** Each span of `hit` as text, as the daemon sent it. */
    const spanTexts = (hit: SearchHit) => hit.match_spans.map(([s, e]) => sliceBytes(hit.content, s, e)).filter(Boolean).sort();

    /** Enter on the focused (first) row: the note opens, its answer sentence (else its first match) selected, every match decorated. */
    async function pickFirstAndCheck(hit: SearchHit): Promise<Array<{ line: number; text: string }>> {
      await wb.page.keyboard.press("Enter");
      await wb.waitActiveTab(path.basename(hit.path));
      const want = spanTexts(hit);
      let decorated: Array<{ line: number; text: string; kind: string }> = [];
      await expect.poll(async () => (decorated = (await wb.decoratedText()).filter((d) => d.kind === "match")).map((d) => d.text).sort(), { timeout: 15_000 }).toEqual(want);
      const file = fs.readFileSync(path.join(vault, hit.path), "utf8").split(/\r?\n/);
      for (const d of decorated) expect(file[d.line - 1], `line ${d.line}`).toContain(d.text);
      // The selection is the first answer sentence (a hit that has one) or the first match, on its line;
      // the hit's lines are the ones the daemon gave.
      const answer = hit.answer_spans?.[0];
      const first = answer ? { line: 0, text: sliceBytes(hit.content, answer[0], answer[1]) } : decorated[0]!;
      if (answer) {
        const answers = (await wb.decoratedText()).filter((d) => d.kind === "answer");
        expect(answers.length, "the answer sentence is decorated apart from the matches").toBeGreaterThan(0);
        first.line = answers[0]!.line;
      }
      await wb.waitCursorLine(first.line);
      if (!answer) expect(await wb.cursor()).toMatchObject({ line: first.line, selected: first.text.length });
      expect(first.line).toBeGreaterThanOrEqual(hit.line_range[0]);
      expect(first.line).toBeLessThanOrEqual(hit.line_range[1]);
      return decorated;
    }

    it("Semantic Search from the palette lists the daemon's hits, in its order", async () => {
      const expected = await search("keep my notes the same on my phone and my laptop");
      const rows = await wb.quickPickRows();
      expect(rows[0]).toMatchObject({ label: expected[0]!.title, focused: true });
      await wb.shot("vscode-e2e-search.png");
    });

    it("choosing a hit opens the note with the match selected at its line and every span decorated", async () => {
      const expected = (await oracle.search(params("keep my notes the same on my phone and my laptop"))).results;
      await pickFirstAndCheck(expected[0]!);
      await wb.shot("vscode-e2e-hit.png");
    });

    it("a short query keeps the daemon's order even where a lower hit's title contains it (VS Code sorts label matches first)", async () => {
      const query = "mobile";
      const expected = (await oracle.search(params(query))).results;
      const at = titles(expected).findIndex((t) => t.toLowerCase().includes(query));
      expect(at, `no lower-ranked title contains "${query}": ${titles(expected)}`).toBeGreaterThan(0);
      await search(query);
      await wb.page.keyboard.press("Escape");
    });

    it("a Japanese query: the hit opens with its Japanese spans highlighted", async () => {
      const expected = await search("来期の予算は承認されたか");
      await wb.shot("vscode-e2e-japanese-results.png");
      const decorated = await pickFirstAndCheck(expected[0]!);
      expect(decorated.some((d) => /[\u3040-\u30ff\u4e00-\u9fff]/.test(d.text)), JSON.stringify(decorated)).toBe(true);
      await wb.shot("vscode-e2e-japanese.png");
    });

    it("search → open a hit → search again WITHOUT Escape: the box opens empty, typing is the new query and its results show", async () => {
      const first = await search("keep my notes the same on my phone and my laptop");
      await wb.page.keyboard.press("Enter");
      await wb.waitActiveTab(path.basename(first[0]!.path));
      await expect.poll(async () => (await wb.cursor()).selected, { timeout: 15_000 }).toBeGreaterThan(0); // groove's selection
      // The keybinding straight from the editor, as a user does: no Escape, no click.
      await wb.page.keyboard.press("Control+Alt+KeyG");
      const box = wb.page.locator(".quick-input-widget .quick-input-box input");
      await wb.quickInput().locator(".quick-input-title", { hasText: "groove: Semantic Search" }).waitFor();
      await box.waitFor({ state: "visible" });
      expect(await box.inputValue()).toBe("");
      const query = "来期の予算は承認されたか";
      await wb.page.keyboard.type(query);
      expect(await box.inputValue()).toBe(query);
      const expected = (await oracle.search(params(query))).results;
      await wb.waitRows(sameOrder(expected));
      await wb.page.keyboard.press("Escape");
    });

    it("the results view at the default side bar: one row per note, text without Markdown, the highlight on screen; the hover sets the hit apart in its context (English + Japanese screenshots)", async () => {
      await wb.editSettings({ "groove.search.parentRetriever": true });
      for (const [query, name] of [["keep my notes the same on my phone and my laptop", "vscode-e2e-results-en.png"], ["来期の予算は承認されたか", "vscode-e2e-results-ja.png"]] as const) {
        const expected = (await oracle.search({ ...params(query), parent_retriever: true })).results;
        await search(query);
        await wb.page.keyboard.press("Escape");
        await wb.command("groove: Focus on Search Results View");
        const side = wb.page.locator(".part.sidebar");
        await side.locator(".monaco-list-row .codicon-markdown").first().waitFor();
        const view = await side.evaluate((el) => {
          const box = el.getBoundingClientRect();
          const rows = [...el.querySelectorAll<HTMLElement>(".monaco-list-row")];
          return {
            width: box.width,
            notes: rows.filter((r) => r.querySelector(".codicon-markdown")).map((r) => (r.querySelector(".label-name")?.textContent ?? "").trim()),
            hits: rows
              .filter((r) => r.querySelector(".codicon-symbol-text, .codicon-list-tree"))
              .map((r) => {
                const name = r.querySelector<HTMLElement>(".label-name")!;
                const mark = name.querySelector<HTMLElement>(".highlight");
                const right = Math.min(box.right, r.querySelector<HTMLElement>(".monaco-icon-label-container")?.getBoundingClientRect().right ?? box.right);
                return { text: name.textContent ?? "", marked: mark?.textContent ?? null, markLeft: mark ? mark.getBoundingClientRect().left : null, right };
              }),
          };
        });
        // One row per note (the tree's note level), the daemon's notes in its order.
        const notes = [...new Set(expected.map((h) => h.title))];
        expect(view.notes).toEqual(notes.slice(0, view.notes.length));
        expect(view.hits.length).toBeGreaterThan(0);
        for (const h of view.hits) {
          expect(h.text).not.toMatch(/\[\[|\]\]|\*\*|^#|… …/);
          // the first highlight of a row starts where the row shows it (a long answer sentence may run past the edge)
          if (h.markLeft !== null) expect(h.markLeft, `${h.text} (side bar ${view.width} px)`).toBeLessThanOrEqual(h.right - 24);
        }
        expect(view.hits.some((h) => h.marked)).toBe(true);
        console.log(`[vscode e2e] results view ${view.width} px wide for "${query}": ${view.notes.length} notes, ${view.hits.length} hit rows, ${view.hits.filter((h) => h.marked).length} with a visible highlight`);
        // The hover of the first hit: its own lines set apart from the context around them.
        // (a hit the parent retriever widened: its icon is list-tree)
        const widened = side.locator(".monaco-list-row", { has: wb.page.locator(".codicon-list-tree") }).first();
        expect(await widened.count(), "a widened hit in view").toBe(1);
        await widened.hover();
        const hover = wb.page.locator(".monaco-hover, .workbench-hover", { hasText: "This hit" }).first();
        await hover.waitFor({ timeout: 30_000 });
        await wb.shot(name);
        await wb.page.mouse.move(700, 400);
      }
      await wb.editSettings({ "groove.search.parentRetriever": null });
    });

    it("Go to Definition on [[Note#Heading]] lands on the heading's line, as Obsidian does", async () => {
      await wb.openFile("Home.md");
      const want = await oracle.resolveLink("[[Conflicts#Backups]]", "Home.md");
      expect(want).toMatchObject({ path: "Sync/Conflicts.md", exists: true });
      expect(want.line_range![0]).toBe(lineOf(NOTES["Sync/Conflicts.md"]!, "## Backups"));
      const home = NOTES["Home.md"]!.split("\n");
      const at = home.findIndex((l) => l.includes("[[Conflicts#Backups]]"));
      await wb.goToLine(at + 1, home[at]!.indexOf("Conflicts#Backups") + 4);
      await wb.page.keyboard.press("F12");
      await wb.waitActiveTab("Conflicts.md");
      await wb.waitCursorLine(want.line_range![0]);
    });

    it("Open Link (what Ctrl+click runs) on a [[link#heading|alias]] opens the note at the heading", async () => {
      await wb.openFile("Home.md");
      const want = await oracle.resolveLink("[[会議メモ#議事録の共有|議事録]]", "Home.md");
      expect(want.line_range![0]).toBe(lineOf(NOTES["日本語/会議メモ.md"]!, "## 議事録の共有"));
      // The links are underlined: VS Code has the document links from the provider.
      await wb.page.locator(".part.editor .view-line", { hasText: "会議メモ#議事録の共有" }).locator(".detected-link").first().waitFor();
      const home = NOTES["Home.md"]!.split("\n");
      const at = home.findIndex((l) => l.includes("[[会議メモ#"));
      await wb.goToLine(at + 1, 1);
      await wb.page.keyboard.press("End");
      for (let i = 0; i < 3; i++) await wb.page.keyboard.press("ArrowLeft"); // inside "議事録", before "]]"
      await expect.poll(async () => (await wb.cursor()).col).toBe(home[at]!.length - 2);
      // The keyboard twin of Ctrl+click (headless Ctrl+hover did not always underline the link).
      await wb.command("Open Link");
      await wb.waitActiveTab("会議メモ.md");
      await wb.waitCursorLine(want.line_range![0]);
    });

    it("Related Notes lists similar notes, backlinks and outgoing links; a backlink opens at its line", async () => {
      await wb.openFile("Conflicts.md");
      const want = await oracle.relatedNotes("Sync/Conflicts.md");
      expect(want.backlinks.map((b) => b.path)).toContain("Home.md");
      await wb.command("groove: Related Notes");
      await wb.quickInput().locator(".quick-input-title", { hasText: "Related to Conflicts.md" }).waitFor();
      const rows = await wb.waitRows((r) => r.some((x) => x.separator === "Backlinks"));
      const seps = rows.map((r) => r.separator).filter(Boolean);
      expect(seps).toEqual(["Similar notes", "Backlinks", ...(want.outgoing.length ? ["Outgoing links"] : [])]);
      expect(rows.filter((r) => r.label && r.description.startsWith("Home.md:")).length).toBe(want.backlinks.filter((b) => b.path === "Home.md").length);
      expect(rows[0]!.label).toBe("Unlinked only"); // the switch, as in Obsidian's panel
      expect(rows[1]!.label).toBe(want.similar[0]!.title);
      expect(rows[1]!.detail).toMatch(want.similar[0]!.linked ? /· linked$/ : /· not linked$/);
      await wb.shot("vscode-e2e-related.png");
      const back = want.backlinks.find((b) => b.path === "Home.md")!;
      await wb.quickInput().locator(".monaco-list-row", { hasText: `Home.md:${back.line}` }).click();
      await wb.waitActiveTab("Home.md");
      await wb.waitCursorLine(back.line);
    });

    it("a note written on disk is indexed: the status bar counts it", async () => {
      await wb.recordStatus();
      const before = Object.keys(NOTES).filter((n) => n.endsWith(".md")).length;
      fs.writeFileSync(path.join(vault, "Garden.md"), "# Garden\n\nTomatoes need sun and water every morning.\n");
      await wb.waitStatus(new RegExp(`groove: ${before + 1} notes`), 60_000);
      console.log(`[vscode e2e] status bar after a new note: ${(await wb.statusHistory()).join(" → ")}`);
    });

    it("settings take effect: search.limit caps the list; a wrong executablePath says 'not installed' until it is fixed", async () => {
      await wb.editSettings({ "groove.search.limit": 2, "groove.executablePath": path.join(base, "no-such-groove") });
      await wb.waitStatus(/groove: not installed/);
      expect(await wb.notifications()).toEqual([]); // a settings change is not a command: no popup
      await wb.page.locator(".part.sidebar .monaco-list-row", { hasText: "Check again" }).waitFor();
      expect(await wb.cutCardRows()).toEqual([]);
      await wb.shot("vscode-e2e-not-installed.png");
      await wb.editSettings({ "groove.executablePath": P.groove });
      await wb.waitStatus(/groove: \d+ notes/);

      const query = "sync";
      await wb.command("groove: Semantic Search");
      await wb.quickInput().locator(".quick-input-title", { hasText: "groove: Semantic Search" }).waitFor();
      await wb.page.keyboard.type(query);
      const expected = (await oracle.search(params(query, 2))).results;
      const rows = await wb.waitRows(sameOrder(expected));
      expect(rows.length).toBe(2);
      await wb.page.keyboard.press("Escape");
    });
  });
});

