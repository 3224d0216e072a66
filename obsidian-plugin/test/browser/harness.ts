/**
 * The headless-Chromium page the browser tests share: the plugin's real panel
 * and render code bundled for the browser, the plugin's styles over Obsidian's
 * theme variables, searches bridged to a real GrooveClient on the Node side,
 * and screenshots of the sidebar.
 */
import * as fs from "node:fs";
import * as os from "node:os";
import * as path from "node:path";
import { build } from "esbuild";
import { chromium, type BrowserContext, type Page } from "playwright-core";
import type { GrooveClient, PendingRequest } from "@groove/editor-client/client";
import { GrooveError } from "@groove/editor-client/errors";
import type { SearchResponse } from "@groove/editor-client/protocol";
import { CHROMIUM } from "./chromium";

const here = __dirname;
export const pluginRoot = path.resolve(here, "..", "..");
export const artifacts = path.resolve(pluginRoot, "..", "test-artifacts");
export const docs = path.join(pluginRoot, "docs");
/** GROOVE_UPDATE_SCREENSHOTS=1 copies the README's screenshots into docs/. */
export const updateDocs = process.env.GROOVE_UPDATE_SCREENSHOTS === "1";

export function shot(name: string): string {
  return path.join(artifacts, name);
}

export function publish(name: string, as = name): void {
  if (updateDocs) fs.copyFileSync(shot(name), path.join(docs, as));
}

/** Bundles the page (entry.ts) into a temp folder with its HTML and CSS; returns the folder. */
export async function buildPage(): Promise<string> {
  fs.mkdirSync(artifacts, { recursive: true });
  const pageDir = fs.mkdtempSync(path.join(os.tmpdir(), "groove-page-"));
  await build({
    entryPoints: [path.join(here, "entry.ts")],
    outfile: path.join(pageDir, "bundle.js"),
    bundle: true,
    format: "iife",
    platform: "browser",
    target: "es2020",
    logLevel: "error",
  });
  for (const f of ["page.html", "obsidian-theme.css"]) fs.copyFileSync(path.join(here, f), path.join(pageDir, f));
  fs.copyFileSync(path.join(pluginRoot, "styles.css"), path.join(pageDir, "styles.css"));
  return pageDir;
}

export async function launch(): Promise<{ ctx: BrowserContext; close(): Promise<void> }> {
  const userDataDir = fs.mkdtempSync(path.join(os.tmpdir(), "groove-chromium-"));
  const ctx = await chromium.launchPersistentContext(userDataDir, {
    executablePath: CHROMIUM,
    headless: true,
    args: ["--no-sandbox", "--disable-gpu", "--disable-quic", "--no-first-run", "--disable-background-networking", "--disable-component-update", "--disable-sync"],
    viewport: { width: 760, height: 900 },
    deviceScaleFactor: 1,
  });
  return {
    ctx,
    async close() {
      await ctx.close();
      fs.rmSync(userDataDir, { recursive: true, force: true });
    },
  };
}

/**
 * Loads the page and mounts a search panel whose searches go through
 * `client()` on the Node side (and notes are read from `vault()`).
 */
export async function openPage(p: Page, pageDir: string, client: () => GrooveClient, vault: () => string, onSearch: (query: string) => void = () => {}): Promise<void> {
  p.on("pageerror", (e) => console.error("page error:", e));
  const inflight = new Map<number, PendingRequest<SearchResponse>>();
  await p.exposeFunction("__grooveSearch", async (token: number, params: never) => {
    onSearch((params as { query: string }).query);
    const h = client().startSearch(params);
    inflight.set(token, h);
    try {
      return { response: await h.promise };
    } catch (e) {
      const err = e instanceof GrooveError ? e : new GrooveError("protocol", String(e));
      return { error: { kind: err.kind, code: err.code, message: err.message } };
    } finally {
      inflight.delete(token);
    }
  });
  await p.exposeFunction("__grooveCancel", async (token: number) => inflight.get(token)?.cancel());
  await p.exposeFunction("__grooveReadNote", async (rel: string) => {
    const abs = path.resolve(vault(), rel);
    if (!abs.startsWith(vault() + path.sep)) throw new Error("outside the vault");
    return fs.readFileSync(abs, "utf8");
  });
  await p.goto("file://" + path.join(pageDir, "page.html"));
  await p.evaluate(() => {
    (window as unknown as { panel: unknown }).panel = window.grooveTest.mount(document.getElementById("view")!);
  });
}

/** Screenshot of the sidebar down to the end of the panel (at most `maxHeight` px). */
export async function shotPanel(p: Page, name: string, maxHeight = 620): Promise<void> {
  const side = (await p.locator(".sidebar").boundingBox())!;
  const panel = (await p.locator(".groove-panel").first().boundingBox())!;
  const height = Math.min(maxHeight, panel.y + panel.height - side.y + 16, side.height);
  await p.screenshot({ path: shot(name), clip: { x: side.x, y: side.y, width: side.width, height } });
}

/**
 * Screenshot of the sidebar with the status bar in the corner, as Obsidian
 * shows them: the window is cut just below the panel's card.
 */
export async function shotWithStatus(p: Page, name: string): Promise<void> {
  const panel = (await p.locator(".groove-panel").first().boundingBox())!;
  const height = Math.max(260, Math.ceil(panel.y + panel.height + 44));
  await p.setViewportSize({ width: 760, height });
  const side = (await p.locator(".sidebar").boundingBox())!;
  await p.screenshot({ path: shot(name), clip: { x: side.x, y: 0, width: side.width, height } });
}
