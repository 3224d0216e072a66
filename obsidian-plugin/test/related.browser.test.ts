// @vitest-environment node
/**
 * The related-notes section in headless Chromium over the REAL daemon
 * (issue 39, ADR 0200/0190): the page runs the plugin's RelatedPanel and
 * insertLink; related_notes and index_status go through the real
 * GrooveClient on the Node side. The "Unlinked only" toggle is clicked with
 * the mouse; "Insert link" writes at a textarea's real caret, the note is
 * saved, and the daemon (its watcher, its link resolver) must then see the
 * link: the note becomes "linked" and leaves the unlinked list. A note
 * Obsidian's Excluded files leave out says which entry does.
 */
import * as fs from "node:fs";
import * as path from "node:path";
import type { Page } from "playwright-core";
import { afterAll, beforeAll, describe, expect, it } from "vitest";
import type { GrooveClient } from "@groove/editor-client/client";
import { daemonUnavailable, startRealDaemon, type RealDaemon } from "../../editor-client/test/support/real-daemon";
import { chromiumUnavailable } from "./browser/chromium";
import { buildPage, launch, openPage, shot } from "./browser/harness";

const skip = daemonUnavailable() ?? chromiumUnavailable();

const SOURCE = "Baking/Sourdough starter.md";
const NOTES: Record<string, string> = {
  [SOURCE]: "# Sourdough starter\n\nFeed the sourdough starter flour and water every day; a lively starter makes good bread. See [[Bread]].\n",
  "Baking/Bread.md": "# Bread\n\nBake sourdough bread from the starter: flour, water, salt, a long rise.\n",
  "Baking/Flour.md": "# Flour\n\nRye and wheat flour feed the sourdough starter. Back to [[Sourdough starter]].\n",
  "Kitchen/Oven.md": "# Oven\n\nBake the sourdough bread in a hot oven at 250 degrees; preheat the dutch pot.\n",
  "Garage/Oven.md": "# Oven\n\nThe old pizza oven in the garage also bakes bread loaves.\n",
  "Baking/Levain.md": "---\naliases: [Mother dough]\n---\n# Levain\n\nA levain is a sourdough starter built the night before baking bread.\n",
  "Baking/Rye bread.md": "# Rye bread\n\nRye bread with a sourdough starter rises slowly.\n\n![[crumb.png]] The [[#Rye bread|crumb]] and the [[recipe.pdf]].\n",
  "Baking/crumb.png": "not really a PNG",
  "Travel/Kyoto.md": "# Kyoto\n\nTemples, gardens and cherry blossoms in April.\n",
  "Templates/Daily.md": "# {{date}}\n\n## Tasks\n\n## Log\n",
  ".obsidian/app.json": JSON.stringify({ userIgnoreFilters: ["Templates/"] }),
};
const INDEXED = Object.keys(NOTES).filter((p) => p.endsWith(".md") && !p.startsWith("Templates/"));
const LINKED = ["Baking/Bread.md", "Baking/Flour.md"];

describe.skipIf(!!skip)("related notes in headless Chromium with the real daemon: unlinked only, insert link, exclusions", () => {
  let d: RealDaemon;
  let client: GrooveClient;
  let page: Page;
  let closeBrowser: () => Promise<void> = async () => {};
  let limit = 10;

  beforeAll(async () => {
    d = await startRealDaemon(NOTES, { prefix: "gvr-" });
    client = d.client();
    await client.connect();
    await d.waitIndexed(client, INDEXED.length);
    const pageDir = await buildPage();
    const b = await launch();
    closeBrowser = b.close;
    page = b.ctx.pages()[0] ?? (await b.ctx.newPage());
    await page.exposeFunction("__grooveRelated", (p: string, unlinkedOnly: boolean) => client.relatedNotes(p, limit, { unlinkedOnly }));
    await page.exposeFunction("__grooveStatus", (why?: string) => client.indexStatus(why));
    await openPage(page, pageDir, () => client, () => d.vault);
    await page.evaluate((o) => void window.grooveTest.mountRelated(o), { files: INDEXED, source: SOURCE, text: NOTES[SOURCE]! });
  }, 240_000);

  afterAll(async () => {
    await closeBrowser();
    await d?.stop();
  });

  /** Shows the related notes of `p` and returns the similar rows as [path, linked]. */
  async function show(p: string): Promise<Array<[string, boolean]>> {
    await page.evaluate((x) => (window as unknown as { related: { show(p: string, f: boolean): Promise<void> } }).related.show(x, true), p);
    return rows();
  }
  const rows = () =>
    page.$$eval("#groove-related-similar ~ ul .groove-related-item", (lis) =>
      lis.map((li) => [li.getAttribute("data-path") ?? "", li.classList.contains("groove-linked")] as [string, boolean]),
    );

  it("marks the notes linked either way, and the toggle leaves them out while keeping `limit` notes", async () => {
    const all = await show(SOURCE);
    expect(all.map(([p]) => p).sort()).toEqual(INDEXED.filter((p) => p !== SOURCE).sort());
    for (const [p, linked] of all) expect(linked, p).toBe(LINKED.includes(p)); // Bread: it links there; Flour: it links here
    expect(await page.textContent(".groove-related-item.groove-linked .groove-related-sub")).toContain("linked");

    limit = 3;
    await page.click(".groove-unlinked-only input");
    await page.waitForFunction(() => document.querySelector(".groove-related-heading")?.textContent?.startsWith("Similar, not linked"));
    const unlinked = await rows();
    // Filtered before the limit: three notes, the nearest unlinked ones in the unfiltered order.
    expect(unlinked).toEqual(all.filter(([, l]) => !l).slice(0, 3).map(([p]) => [p, false]));
    await page.locator(".sidebar").screenshot({ path: shot("obsidian-related-unlinked.png") });
    limit = 10;
  });

  it("Insert link writes Obsidian's link text at the caret; saved, the daemon sees the link and the note leaves the unlinked list", async () => {
    expect(await page.isChecked(".groove-unlinked-only input")).toBe(true);
    let list = await show(SOURCE);
    expect(list.map(([p]) => p)).toEqual(expect.arrayContaining(["Kitchen/Oven.md", "Baking/Levain.md"]));
    // The caret after "See [[Bread]].", and text typed there like a user would.
    await page.click(".groove-test-editor");
    await page.evaluate(() => {
      const ta = document.querySelector<HTMLTextAreaElement>(".groove-test-editor")!;
      const at = ta.value.indexOf("See [[Bread]].") + "See [[Bread]].".length;
      ta.setSelectionRange(at, at);
    });
    await page.keyboard.type(" Bake it in the ");
    await page.click('.groove-related-item[data-path="Kitchen/Oven.md"] .groove-insert-link');
    // insertLink gave the editor the focus back: typing goes on after the link.
    await page.keyboard.type(", made from a ");
    await page.click('.groove-related-item[data-path="Baking/Levain.md"] .groove-insert-link');
    const text = await page.inputValue(".groove-test-editor");
    // Two notes are named Oven: the vault path; Levain is unique: its name (its alias is not a link target).
    expect(await page.evaluate(() => window.grooveTest.inserted)).toEqual(["[[Kitchen/Oven]]", "[[Levain]]"]);
    expect(text).toBe(NOTES[SOURCE]!.replace("See [[Bread]].", "See [[Bread]]. Bake it in the [[Kitchen/Oven]], made from a [[Levain]]"));

    // Saved: the real resolver sends each link to its note, and related_notes calls them linked.
    fs.writeFileSync(path.join(d.vault, SOURCE), text);
    for (const [link, want] of [["[[Kitchen/Oven]]", "Kitchen/Oven.md"], ["[[Levain]]", "Baking/Levain.md"]] as const) {
      expect((await client.resolveLink(link, SOURCE)).path).toBe(want);
    }
    const t0 = Date.now();
    for (;;) {
      const r = await client.relatedNotes(SOURCE, 10);
      const linked = r.similar.filter((s) => s.linked).map((s) => s.path).sort();
      if (linked.join() === [...LINKED, "Baking/Levain.md", "Kitchen/Oven.md"].sort().join()) break;
      if (Date.now() - t0 > 60_000) throw new Error(`the daemon never saw the new links: ${JSON.stringify(r.similar)}`);
      await new Promise((res) => setTimeout(res, 200));
    }
    list = await show(SOURCE);
    expect(list.map(([p]) => p)).not.toContain("Kitchen/Oven.md");
    expect(list.map(([p]) => p)).not.toContain("Baking/Levain.md");
    expect(list.map(([p]) => p)).toContain("Garage/Oven.md"); // the other Oven is still unlinked
  }, 120_000);

  it("a note Obsidian's Excluded files leave out says which entry, and the exclusions in force are listed", async () => {
    await page.evaluate(() => (window as unknown as { related: { show(p: string, f: boolean): Promise<void> } }).related.show("Templates/Daily.md", true));
    await page.waitForSelector(".groove-excluded-note");
    expect(await page.textContent(".groove-excluded-note")).toBe("This note is excluded by Obsidian's Excluded files (userIgnoreFilters: Templates/).");
    expect(await page.locator("#groove-related-similar").count()).toBe(0);
    await page.click(".groove-exclusions > summary");
    await page.waitForSelector(".groove-exclusion");
    const lines = await page.locator(".groove-exclusion").allTextContents();
    expect(lines).toContain("Obsidian's Excluded files (.obsidian/app.json userIgnoreFilters) — 1 entry: Templates/");
    expect(lines.some((l) => l.startsWith("hidden and tool folders — "))).toBe(true);
    await page.locator(".sidebar").screenshot({ path: shot("obsidian-excluded-note.png") });
  });

  it("attachments and links within the note are listed apart from outgoing notes (ADR 0257)", async () => {
    await show("Baking/Rye bread.md");
    const list = (id: string) => page.$$eval(`#groove-related-${id} ~ ul .groove-related-item`, (lis) =>
      lis.map((li) => [li.querySelector(".groove-related-name")!.textContent, li.querySelector(".groove-related-sub")!.textContent, li.classList.contains("groove-unresolved")]));
    expect(await list("attachments")).toEqual([["crumb.png", "embedded · line 5", false], ["recipe.pdf", "linked · line 5 · missing", true]]);
    expect(await list("own-headings")).toEqual([["#Rye bread", "line 5", false]]);
    expect(await page.locator("#groove-related-outgoing ~ ul .groove-related-item").count()).toBe(0);
    await page.locator(".sidebar").screenshot({ path: shot("obsidian-related-attachments.png") });
  });
});

if (skip) {
  describe("related-notes browser test", () => {
    it.skip(`skipped: ${skip}`, () => {});
  });
}
