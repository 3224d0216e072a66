/**
 * The real VS Code workbench for the end-to-end suite: code-server (one
 * process per window, each with its own user-data dir, settings and logs,
 * sharing one extensions dir holding the freshly built .vsix) opened in
 * headless Chromium through playwright-core. Helpers read what a user sees:
 * the status bar, the QuickPick's rows, the active tab, the cursor's line
 * and which text the extension's decorations cover.
 *
 * Everything waits on selectors or conditions (waitForFunction, polling the
 * exthost log), never on fixed sleeps.
 */
import { spawn, spawnSync, type ChildProcess } from "node:child_process";
import * as fs from "node:fs";
import * as os from "node:os";
import * as path from "node:path";
import { chromium, type Browser, type Page } from "playwright-core";
import type { Pieces } from "./pieces";

export const artifacts = path.resolve(__dirname, "..", "..", "test-artifacts", "vscode-e2e");

/** Settings every window gets: no welcome page, no chat, no network look-ups. */
const QUIET_SETTINGS = {
  "workbench.startupEditor": "none",
  "workbench.tips.enabled": false,
  "workbench.secondarySideBar.defaultVisibility": "hidden",
  "chat.disableAIFeatures": true,
  "extensions.autoCheckUpdates": false,
  "extensions.autoUpdate": false,
  "extensions.ignoreRecommendations": true,
  "update.mode": "none",
  "telemetry.telemetryLevel": "off",
  "git.enabled": false,
  "git.openRepositoryInParentFolders": "never",
  "window.commandCenter": false,
  "editor.minimap.enabled": false,
  "workbench.colorTheme": "Default Dark Modern",
  "security.workspace.trust.enabled": false,
  // editSettings types JSON into settings.json: no auto-closing or re-indenting.
  "editor.autoClosingBrackets": "never",
  "editor.autoClosingQuotes": "never",
  "editor.autoIndent": "none",
  "editor.formatOnType": false,
};

export interface WorkbenchOptions {
  folder: string;
  /** User settings (merged over QUIET_SETTINGS). */
  settings?: Record<string, unknown>;
  /** The extension host's environment (code-server passes its own on). */
  env: NodeJS.ProcessEnv;
}

/** The freshly built .vsix installed into a fresh extensions dir. */
export function installVsix(p: Pieces, vsix: string, base: string): string {
  const ext = path.join(base, "ext");
  const r = spawnSync(p.codeServer, ["--config", path.join(base, "cs.yaml"), "--user-data-dir", path.join(base, "ud-install"), "--extensions-dir", ext, "--install-extension", vsix], {
    env: { ...process.env, PATH: `${path.join(p.nodeDir, "bin")}:${process.env.PATH}` },
    encoding: "utf8",
    timeout: 120_000,
  });
  if (r.status !== 0 || !/successfully installed/.test(r.stdout)) throw new Error(`code-server --install-extension failed: ${r.stdout}\n${r.stderr}`);
  return ext;
}

export class Workbench {
  private constructor(
    readonly page: Page,
    readonly userDataDir: string,
    private readonly proc: ChildProcess,
    private readonly serverLog: () => string,
  ) {}

  /** Starts code-server for `folder` and opens it in a new browser context; resolves when the workbench is up. */
  static async open(browser: Browser, p: Pieces, extensionsDir: string, base: string, name: string, o: WorkbenchOptions): Promise<Workbench> {
    const ud = path.join(base, `ud-${name}`);
    fs.mkdirSync(path.join(ud, "User"), { recursive: true });
    fs.writeFileSync(path.join(ud, "User", "settings.json"), JSON.stringify({ ...QUIET_SETTINGS, ...o.settings }, null, 2));
    const args = [
      "--config", path.join(base, "cs.yaml"),
      "--user-data-dir", ud,
      "--extensions-dir", extensionsDir,
      "--disable-telemetry", "--disable-update-check", "--disable-workspace-trust",
      "--auth", "none",
      "--bind-addr", "127.0.0.1:0",
      o.folder,
    ]; // prettier-ignore
    const env = { ...o.env, PATH: `${path.join(p.nodeDir, "bin")}:${o.env.PATH ?? ""}` };
    // Its own process group: close() ends code-server with its extension hosts.
    const proc = spawn(p.codeServer, args, { env, stdio: ["ignore", "pipe", "pipe"], detached: true });
    let log = "";
    proc.stdout!.on("data", (d) => (log += d));
    proc.stderr!.on("data", (d) => (log += d));
    const port = await new Promise<number>((resolve, reject) => {
      const t = setTimeout(() => reject(new Error(`code-server did not start:\n${log}`)), 30_000);
      const check = () => {
        const m = /HTTP server listening on http:\/\/127\.0\.0\.1:(\d+)/.exec(log);
        if (m) {
          clearTimeout(t);
          resolve(Number(m[1]));
        }
      };
      proc.stdout!.on("data", check);
      proc.stderr!.on("data", check);
      proc.on("exit", (c) => reject(new Error(`code-server exited (${c}):\n${log}`)));
    });

    const ctx = await browser.newContext({ viewport: { width: 1280, height: 800 }, deviceScaleFactor: 1 });
    // The workbench may ask for remote assets (fonts, marketplace): nothing leaves this machine.
    await ctx.route(/^https?:\/\/(?!127\.0\.0\.1[:/])/, (r) => r.abort());
    const page = await ctx.newPage();
    // A loaded machine (shared CI, other jobs) can take well over the default 30 s to serve the workbench.
    await page.goto(`http://127.0.0.1:${port}/?folder=${encodeURIComponent(o.folder)}`, { timeout: 180_000 });
    await page.waitForSelector(".monaco-workbench .part.statusbar", { timeout: 60_000 });
    return new Workbench(page, ud, proc, () => log);
  }

  /** The extension host's log (activation lines: "ExtensionService#_doActivateExtension <id> … activationEvent: '…'"). */
  exthostLog(): string {
    const logs = path.join(this.userDataDir, "logs");
    if (!fs.existsSync(logs)) return "";
    let out = "";
    for (const session of fs.readdirSync(logs)) {
      const dir = path.join(logs, session);
      for (const sub of fs.existsSync(dir) ? fs.readdirSync(dir) : []) {
        const f = path.join(dir, sub, "remoteexthost.log");
        if (sub.startsWith("exthost") && fs.existsSync(f)) out += fs.readFileSync(f, "utf8");
      }
    }
    return out;
  }

  /** The extension's Output channel ("groove"), as written to disk by the extension host. */
  grooveOutput(): string {
    const out: string[] = [];
    const walk = (d: string) => {
      for (const e of fs.existsSync(d) ? fs.readdirSync(d, { withFileTypes: true }) : []) {
        const f = path.join(d, e.name);
        if (e.isDirectory()) walk(f);
        else if (/-groove\.log$/.test(e.name)) out.push(fs.readFileSync(f, "utf8"));
      }
    };
    walk(path.join(this.userDataDir, "logs"));
    return out.join("\n");
  }

  /** Waits (polling the file, no fixed sleep) until the exthost log matches. */
  async waitExthostLog(re: RegExp, timeoutMs = 60_000): Promise<string> {
    const t0 = Date.now();
    for (;;) {
      const log = this.exthostLog();
      if (re.test(log)) return log;
      if (Date.now() - t0 > timeoutMs) throw new Error(`exthost log never matched ${re}:\n${log.slice(-3000)}`);
      await new Promise((r) => setTimeout(r, 100));
    }
  }

  /** The groove status-bar item (its id is the extension's id). */
  statusItem() {
    return this.page.locator('.statusbar-item[id^="groove.groove"]');
  }

  async statusText(): Promise<string> {
    return ((await this.statusItem().textContent()) ?? "").trim();
  }

  async waitStatus(re: RegExp, timeoutMs = 120_000): Promise<string> {
    await this.page.waitForFunction(
      ([src, flags]) => {
        const el = document.querySelector('.statusbar-item[id^="groove.groove"]');
        return !!el && new RegExp(src, flags).test((el.textContent ?? "").trim());
      },
      [re.source, re.flags] as const,
      { timeout: timeoutMs, polling: 50 },
    );
    return this.statusText();
  }

  /** Starts recording every text the groove status item shows (read with statusHistory). */
  async recordStatus(): Promise<void> {
    await this.page.evaluate(() => {
      const w = window as unknown as { __grooveStatus: string[] };
      w.__grooveStatus = [];
      const read = () => {
        const el = document.querySelector('.statusbar-item[id^="groove.groove"]');
        const t = (el?.textContent ?? "").trim();
        if (t && w.__grooveStatus[w.__grooveStatus.length - 1] !== t) w.__grooveStatus.push(t);
      };
      read();
      new MutationObserver(read).observe(document.querySelector(".part.statusbar")!, { subtree: true, childList: true, characterData: true, attributes: true });
    });
  }

  async statusHistory(): Promise<string[]> {
    return this.page.evaluate(() => (window as unknown as { __grooveStatus: string[] }).__grooveStatus);
  }

  /** Runs a command from the palette by its title, as a user would (F1, type, Enter). */
  async command(title: string): Promise<void> {
    const { page } = this;
    await page.keyboard.press("Escape");
    await this.focusWorkbench();
    await page.keyboard.press("F1");
    const input = page.locator(".quick-input-widget .quick-input-box input");
    await input.waitFor({ state: "visible" });
    await input.fill(`>${title}`);
    // The palette lists it (as the first row) before Enter runs it.
    await page.locator(".quick-input-widget .monaco-list-row.focused", { hasText: title }).first().waitFor();
    await page.keyboard.press("Enter");
  }

  /** Clicks an empty part of the workbench so key presses go to it, not to a closed widget. */
  private async focusWorkbench(): Promise<void> {
    const editor = this.page.locator(".part.editor .monaco-editor textarea").first();
    if (await editor.count()) await editor.focus();
    else await this.page.locator(".part.statusbar").click({ position: { x: 700, y: 10 } });
  }

  quickInput() {
    return this.page.locator(".quick-input-widget");
  }

  async quickInputTitle(): Promise<string> {
    return ((await this.page.locator(".quick-input-widget .quick-input-title").textContent()) ?? "").trim();
  }

  /** The QuickPick's visible rows: label, description, detail, separator label. */
  async quickPickRows(): Promise<Array<{ label: string; description: string; detail: string; separator: string; focused: boolean }>> {
    return this.page.locator(".quick-input-widget .monaco-list-row").evaluateAll((rows) =>
      rows
        .sort((a, b) => Number(a.getAttribute("data-index")) - Number(b.getAttribute("data-index")))
        .map((r) => ({
          label: (r.querySelector(".quick-input-list-label .label-name, .monaco-icon-label .label-name")?.textContent ?? "").replace(/\u200b/g, "").trim(),
          description: (r.querySelector(".label-description")?.textContent ?? "").trim(),
          detail: (r.querySelector(".quick-input-list-label-meta .monaco-highlighted-label, .quick-input-list-detail")?.textContent ?? "").trim(),
          separator: (() => {
            const sep = r.querySelector<HTMLElement>(".quick-input-list-separator");
            return sep && getComputedStyle(sep).display !== "none" ? (sep.textContent ?? "").trim() : "";
          })(),
          focused: r.classList.contains("focused"),
        })),
    );
  }

  /** Polls the QuickPick until `ok(rows)` holds; returns the rows (or throws with the last ones seen). */
  async waitRows(ok: (rows: Awaited<ReturnType<Workbench["quickPickRows"]>>) => boolean, timeoutMs = 30_000) {
    const t0 = Date.now();
    for (;;) {
      const rows = await this.quickPickRows();
      if (rows.length && ok(rows)) return rows;
      if (Date.now() - t0 > timeoutMs) throw new Error(`QuickPick rows never matched; last seen:\n${JSON.stringify(rows, null, 1)}\ntitle: ${await this.quickInputTitle()}`);
      await this.page.waitForTimeout(50); // a poll interval, not a wait for something
    }
  }

  /** Opens a file by name with Quick Open (F1, then the name without ">"). */
  async openFile(name: string): Promise<void> {
    await this.page.keyboard.press("Escape");
    await this.focusWorkbench();
    await this.page.keyboard.press("F1");
    const input = this.page.locator(".quick-input-widget .quick-input-box input");
    await input.waitFor({ state: "visible" });
    await input.fill(name);
    await this.page.locator(".quick-input-widget .monaco-list-row.focused", { hasText: name }).first().waitFor();
    await this.page.keyboard.press("Enter");
    await this.waitActiveTab(name);
    await this.page.locator(".quick-input-widget").waitFor({ state: "hidden" });
  }

  /** Puts the cursor at 1-based line:col with Go to Line (F1, ":line:col"), as a keyboard user does. */
  async goToLine(line: number, col: number): Promise<void> {
    await this.page.keyboard.press("Escape");
    await this.focusWorkbench();
    await this.page.keyboard.press("F1");
    const input = this.page.locator(".quick-input-widget .quick-input-box input");
    await input.waitFor({ state: "visible" });
    await input.fill(`:${line}:${col}`);
    await this.page.keyboard.press("Enter");
    await this.page.locator(".quick-input-widget").waitFor({ state: "hidden" });
    // (Only the line: Go to Line counts columns as rendered, a CJK character as two.)
    await this.waitCursorLine(line);
  }

  /**
   * Changes user settings the way a user does in VS Code: Preferences: Open
   * User Settings (JSON), replace the text, save. (Writing the file from
   * outside is not picked up by code-server's workbench.)
   */
  async editSettings(settings: Record<string, unknown>): Promise<void> {
    const f = path.join(this.userDataDir, "User", "settings.json");
    const next = JSON.stringify({ ...(JSON.parse(fs.readFileSync(f, "utf8")) as Record<string, unknown>), ...settings });
    await this.command("Preferences: Open User Settings (JSON)");
    // VS Code 1.139 opens it in a modal editor, older ones in a tab: find the editor showing it.
    const editor = this.page.locator('.monaco-editor[data-uri$="/User/settings.json"]').last();
    await editor.waitFor();
    await editor.locator(".view-lines").click(); // into the text (VS Code may edit through EditContext, not a textarea)
    await this.page.keyboard.press("Control+A");
    await this.page.keyboard.press("Delete");
    await this.page.waitForFunction((el) => !(el?.textContent ?? "").trim(), await editor.locator(".view-lines").elementHandle());
    await this.page.keyboard.insertText(next); // one input event: no auto-closing quotes or brackets
    await this.page.keyboard.press("Control+S");
    await expectFile(f, next); // saved
    await this.page.keyboard.press("Control+W");
    await editor.waitFor({ state: "hidden" });
  }

  /** The active editor tab's file name. */
  async activeTab(): Promise<string> {
    return (await this.page.locator(".tabs-container .tab.active").first().getAttribute("data-resource-name")) ?? "";
  }

  async waitActiveTab(name: string, timeoutMs = 30_000): Promise<void> {
    await this.page.locator(`.tabs-container .tab.active[data-resource-name="${name.replace(/"/g, '\\"')}"]`).first().waitFor({ timeout: timeoutMs });
  }

  /** The cursor as VS Code's status bar shows it: line, column, selected characters. */
  async cursor(): Promise<{ line: number; col: number; selected: number }> {
    const t = ((await this.page.locator("#status\\.editor\\.selection").textContent()) ?? "").trim();
    const m = /Ln (\d+), Col (\d+)(?: \((\d+) selected\))?/.exec(t);
    if (!m) throw new Error(`no cursor position in the status bar: "${t}"`);
    return { line: Number(m[1]), col: Number(m[2]), selected: Number(m[3] ?? 0) };
  }

  async waitCursorLine(line: number, timeoutMs = 20_000): Promise<void> {
    await this.page.waitForFunction(
      (l) => new RegExp(`Ln ${l},`).test(document.querySelector("#status\\.editor\\.selection")?.textContent ?? ""),
      line,
      { timeout: timeoutMs },
    );
  }

  /**
   * The text under each decoration the extension drew in the active editor
   * (VS Code gives extension decoration types CSS classes "ced-…"), with its
   * 1-based line: found by hit-testing the characters of the rendered line;
   * `kind` tells a word match from an answer sentence.
   */
  async decoratedText(): Promise<Array<{ line: number; text: string; kind: "match" | "answer" }>> {
    return this.page.evaluate(() => {
      const editor = document.querySelector(".part.editor .editor-instance .monaco-editor") ?? document.querySelector(".part.editor .monaco-editor");
      if (!editor) return [];
      const lines = [...editor.querySelectorAll<HTMLElement>(".view-lines .view-line")];
      const out: Array<{ line: number; text: string; top: number; left: number; kind: "match" | "answer" }> = [];
      for (const deco of editor.querySelectorAll<HTMLElement>('.view-overlays [class*="ced-"]')) {
        const box = deco.getBoundingClientRect();
        if (box.width < 1) continue;
        const y = box.top + box.height / 2;
        const vl = lines.find((l) => {
          const r = l.getBoundingClientRect();
          return r.top <= y && y < r.bottom;
        });
        if (!vl) continue;
        let text = "";
        const walker = document.createTreeWalker(vl, NodeFilter.SHOW_TEXT);
        const range = document.createRange();
        for (let n = walker.nextNode(); n; n = walker.nextNode()) {
          const s = n.textContent ?? "";
          for (let i = 0; i < s.length; i++) {
            range.setStart(n, i);
            range.setEnd(n, i + 1);
            const r = range.getBoundingClientRect();
            const mid = r.left + r.width / 2;
            if (mid > box.left && mid < box.right) text += s[i];
          }
        }
        // The line number: the gutter's last number at or above this height
        // (a wrapped line numbers only its first row).
        let line = 0;
        let best = -Infinity;
        for (const n of editor.querySelectorAll<HTMLElement>(".margin-view-overlays .line-numbers")) {
          const t = n.getBoundingClientRect().top;
          if ((n.textContent ?? "").trim() && t <= y && t > best) {
            best = t;
            line = Number(n.textContent);
          }
        }
        // groove's answer decoration is the one with a dashed outline (highlights.ts).
        const kind = getComputedStyle(deco).outlineStyle === "dashed" ? ("answer" as const) : ("match" as const);
        out.push({ line, text: text.replace(/\u00a0/g, " "), top: box.top, left: box.left, kind });
      }
      out.sort((a, b) => a.top - b.top || a.left - b.left);
      return out.map(({ line, text, kind }) => ({ line, text, kind }));
    });
  }

  /**
   * The card rows (above the first result note) in the groove view whose
   * label VS Code cuts off with "…". Command lines (copied on click, in full
   * in their tooltip) and single words longer than a row (a path) may be.
   */
  async cutCardRows(): Promise<string[]> {
    return this.page.locator(".part.sidebar .monaco-list-row").evaluateAll((all) => {
      const firstNote = all.findIndex((r) => r.querySelector(".codicon-markdown"));
      const rows = firstNote < 0 ? all : all.slice(0, firstNote);
      return rows
        .filter((r) => !r.querySelector(".codicon-terminal"))
        .filter((r) => /\s/.test((r.querySelector(".label-name")?.textContent ?? "").trim()))
        .filter((r) => {
          const name = r.querySelector<HTMLElement>(".label-name");
          const box = r.querySelector<HTMLElement>(".monaco-icon-label-container");
          return !!name && !!box && (name.scrollWidth > name.clientWidth + 1 || name.getBoundingClientRect().right > box.getBoundingClientRect().right + 1);
        })
        .map((r) => r.textContent ?? "");
    });
  }

  /** Any notification toast on screen (the suite asserts background work never pops one). */
  async notifications(): Promise<string[]> {
    return this.page.locator(".notifications-toasts .notification-toast .notification-list-item-message").allTextContents();
  }

  async shot(name: string, clip?: { x: number; y: number; width: number; height: number }): Promise<string> {
    fs.mkdirSync(artifacts, { recursive: true });
    const file = path.join(artifacts, name);
    // An opening QuickPick fades in: wait until it is opaque.
    await this.page.waitForFunction(() =>
      [...document.querySelectorAll<HTMLElement>(".quick-input-widget")].every((w) => w.style.display === "none" || getComputedStyle(w).opacity === "1"),
    );
    await this.page.screenshot({ path: file, clip, animations: "disabled" });
    // The README's pictures (not failure shots) go to docs/ with GROOVE_UPDATE_SCREENSHOTS=1.
    if (process.env.GROOVE_UPDATE_SCREENSHOTS === "1" && name.startsWith("vscode-e2e-")) fs.copyFileSync(file, path.join(__dirname, "..", "docs", name));
    return file;
  }

  async close(): Promise<void> {
    await this.page.context().close().catch(() => {});
    if (this.proc.exitCode === null && this.proc.pid) {
      const exited = new Promise((r) => this.proc.once("exit", r));
      process.kill(-this.proc.pid, "SIGTERM");
      await exited;
    }
    // Children that outlive code-server (an extension host finishing its shutdown).
    if (this.proc.pid) {
      try {
        process.kill(-this.proc.pid, "SIGKILL");
      } catch {
        // the group is gone
      }
    }
  }

  log(): string {
    return this.serverLog();
  }
}

async function expectFile(file: string, text: string, timeoutMs = 10_000): Promise<void> {
  const t0 = Date.now();
  const parse = (t: string) => {
    try {
      return JSON.stringify(JSON.parse(t));
    } catch {
      return t;
    }
  };
  while (parse(fs.readFileSync(file, "utf8")) !== parse(text)) {
    if (Date.now() - t0 > timeoutMs) throw new Error(`${file} was not saved with the new settings`);
    await new Promise((r) => setTimeout(r, 50));
  }
}

export async function launchBrowser(p: Pieces): Promise<Browser> {
  return chromium.launch({ executablePath: p.chromium, args: ["--no-sandbox", "--disable-gpu", "--lang=en-US"] });
}

export function tempBase(prefix: string): string {
  // Short: code-server's IPC socket lives in the user-data dir (sun_path limit).
  return fs.mkdtempSync(path.join(os.tmpdir(), prefix));
}
