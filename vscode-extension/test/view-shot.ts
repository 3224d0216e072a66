/**
 * Screenshots of the results view for the README: the TreeItems the
 * extension hands VS Code (labels, codicons, descriptions, what is expanded),
 * its view message and the status-bar item, drawn in headless Chromium with
 * VS Code's own icon font (@vscode/codicons) in the colours of the Dark
 * Modern theme. VS Code itself does not run in the tests; this draws exactly
 * what the extension gives it, in a frame that imitates the workbench.
 */
import * as fs from "node:fs";
import * as os from "node:os";
import * as path from "node:path";
import { chromium } from "playwright-core";
import * as vscode from "vscode";
import type { ResultsTree, ResultNode } from "../src/resultsTree";
import type { FakeStatusBarItem } from "./fake-vscode";

export const CHROMIUM = process.env.CHROMIUM_BIN ?? "/usr/bin/chromium";
export const chromiumMissing = (): string | null => (fs.existsSync(CHROMIUM) ? null : `no Chromium at ${CHROMIUM}`);
const artifacts = path.resolve(__dirname, "..", "..", "test-artifacts");
const docs = path.resolve(__dirname, "..", "docs");
const codicons = path.dirname(require.resolve("@vscode/codicons/dist/codicon.css"));

const esc = (s: string) => s.replace(/&/g, "&amp;").replace(/</g, "&lt;").replace(/>/g, "&gt;").replace(/"/g, "&quot;");

function icon(name: string | undefined): string {
  if (!name) return '<span class="codicon codicon-blank"></span>';
  const [id, mod] = name.split("~");
  return `<span class="codicon codicon-${esc(id!)}${mod ? ` codicon-modifier-${esc(mod)}` : ""}"></span>`;
}

/** "$(check) groove: 40 notes" → the icon and the text, as the status bar draws it. */
function statusHtml(text: string): string {
  return esc(text).replace(/\$\(([\w~-]+)\)/g, (_m, n: string) => icon(n));
}

function rowsHtml(tree: ResultsTree, nodes: ResultNode[], depth: number): string {
  let out = "";
  for (const n of nodes) {
    const item = tree.getTreeItem(n);
    const label = typeof item.label === "string" ? item.label : (item.label as { label: string }).label;
    const expanded = item.collapsibleState === vscode.TreeItemCollapsibleState.Expanded;
    const twistie = item.collapsibleState === vscode.TreeItemCollapsibleState.None ? "blank" : expanded ? "chevron-down" : "chevron-right";
    const iconId = (item.iconPath as { id?: string } | undefined)?.id;
    out += `<div class="row${item.command ? " acts" : ""}" style="padding-left:${8 + depth * 8}px">${icon(twistie)}${icon(iconId)}<span class="label">${esc(label)}</span>${item.description ? `<span class="desc">${esc(String(item.description))}</span>` : ""}</div>`;
    if (expanded) out += rowsHtml(tree, tree.getChildren(n), depth + 1);
  }
  return out;
}

export interface ViewShot {
  tree: ResultsTree;
  message?: string;
  status: FakeStatusBarItem;
  /** Whether the view shows its progress bar (withProgress on the view). */
  busy?: boolean;
  /** Draw the card only (not stale results below it). */
  cardOnly?: boolean;
}

/** Renders the view and writes test-artifacts/NAME (and docs/NAME with GROOVE_UPDATE_SCREENSHOTS=1). */
export async function shotView(v: ViewShot, name: string): Promise<string> {
  fs.mkdirSync(artifacts, { recursive: true });
  const dir = fs.mkdtempSync(path.join(os.tmpdir(), "groove-view-"));
  for (const f of ["codicon.css", "codicon.ttf"]) fs.copyFileSync(path.join(codicons, f), path.join(dir, f));
  const statusBg = v.status.backgroundColor ? "#c72e0f" : "#181818";
  const html = `<!doctype html><html><head><meta charset="utf-8"><link rel="stylesheet" href="codicon.css"><style>
    body { margin: 0; background: #1f1f1f; font: 13px -apple-system, "Segoe UI", "Noto Sans", Ubuntu, sans-serif; color: #cccccc; }
    .side { width: 300px; background: #181818; border-right: 1px solid #2b2b2b; min-height: 100vh; box-sizing: border-box; position: relative; }
    .title { height: 35px; line-height: 35px; padding-left: 20px; font-size: 11px; letter-spacing: .04em; color: #cccccc; }
    .section { height: 22px; line-height: 22px; font-size: 11px; font-weight: 700; padding-left: 4px; display: flex; align-items: center; gap: 2px; }
    .progress { height: 2px; background: linear-gradient(90deg, transparent 0 30%, #0078d4 30% 60%, transparent 60%); }
    .message { padding: 4px 12px 6px 20px; color: #cccccc; opacity: .9; line-height: 1.4; white-space: normal; }
    .row { height: 22px; line-height: 22px; display: flex; align-items: center; gap: 4px; white-space: nowrap; overflow: hidden; }
    .row .codicon { flex: 0 0 16px; font-size: 16px; color: #cccccc; }
    .row .label { flex: 0 1 auto; min-width: 0; overflow: hidden; text-overflow: ellipsis; }
    /* As in VS Code's tree, the description gives way before the label does. */
    .row .desc { flex: 0 1000 auto; min-width: 0; opacity: .7; font-size: 12px; margin-left: 6px; overflow: hidden; text-overflow: ellipsis; }
    .row.acts:first-of-type { }
    .status { position: fixed; left: 0; right: 0; bottom: 0; height: 22px; line-height: 22px; background: #181818; border-top: 1px solid #2b2b2b; font-size: 12px; }
    .status .item { display: inline-flex; align-items: center; gap: 3px; padding: 0 8px; margin-left: 6px; background: ${statusBg}; color: #ffffff; height: 22px; }
    .status .item .codicon { font-size: 14px; }
  </style></head><body>
  <div class="side"><div class="title">GROOVE</div>
  <div class="section">${icon("chevron-down")}RESULTS</div>
  ${v.busy ? '<div class="progress"></div>' : ""}
  ${v.message ? `<div class="message">${esc(v.message)}</div>` : ""}
  <div class="tree">${rowsHtml(v.tree, v.tree.getChildren().filter((n) => !v.cardOnly || n.kind === "card"), 0)}</div></div>
  <div class="status"><span class="item">${statusHtml(v.status.text)}</span></div>
  </body></html>`;
  fs.writeFileSync(path.join(dir, "view.html"), html);
  const browser = await chromium.launch({ executablePath: CHROMIUM, headless: true, args: ["--no-sandbox", "--disable-gpu"] });
  try {
    const page = await browser.newPage({ viewport: { width: 300, height: 600 }, deviceScaleFactor: 1 });
    await page.goto("file://" + path.join(dir, "view.html"));
    // Strings: this package compiles without the DOM library.
    await page.evaluate("document.fonts.ready");
    const treeBottom = (await page.evaluate("document.querySelector('.side .tree').getBoundingClientRect().bottom")) as number;
    const height = Math.ceil(treeBottom + 16 + 23);
    await page.setViewportSize({ width: 300, height });
    const out = path.join(artifacts, name);
    await page.screenshot({ path: out });
    if (process.env.GROOVE_UPDATE_SCREENSHOTS === "1") fs.copyFileSync(out, path.join(docs, name));
    return out;
  } finally {
    await browser.close();
    fs.rmSync(dir, { recursive: true, force: true });
  }
}
