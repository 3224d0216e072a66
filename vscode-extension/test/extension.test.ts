/** activate() against the fake `vscode`: manifest/code agreement, errors, toggles. */
import * as fs from "node:fs";
import * as os from "node:os";
import * as path from "node:path";
import { afterEach, beforeEach, describe, expect, it, vi } from "vitest";
import * as vscode from "vscode";
import { fake, type FakeQuickPick } from "./fake-vscode";
import { activate, deactivate, type GrooveExtension } from "../src/extension";

const manifest = JSON.parse(fs.readFileSync(path.join(__dirname, "..", "package.json"), "utf8"));

let vault: string;
let ext: GrooveExtension;
const context = () => ({ subscriptions: [] as Array<{ dispose(): unknown }> }) as unknown as vscode.ExtensionContext;

beforeEach(() => {
  fake.reset();
  vault = fs.mkdtempSync(path.join(os.tmpdir(), "groove-ext-"));
  fs.writeFileSync(path.join(vault, "a.md"), "# A\n");
  fake.workspaceFolders = [{ uri: vscode.Uri.file(vault), name: "vault", index: 0 }];
  fake.config.set("groove.executablePath", path.join(vault, "no-such-groove"));
});
afterEach(() => {
  deactivate();
  fs.rmSync(vault, { recursive: true, force: true });
});

describe("activation", () => {
  it("registers a handler for every command the manifest contributes", () => {
    ext = activate(context());
    const contributed = manifest.contributes.commands.map((c: { command: string }) => c.command);
    for (const id of contributed) expect(fake.commands.has(id), id).toBe(true);
    expect(fake.linkProviders).toHaveLength(1);
    expect(fake.definitionProviders).toHaveLength(1);
    expect(fake.treeViews.map((v) => v.id)).toEqual(manifest.contributes.views.groove.map((v: { id: string }) => v.id));
  });

  it("a command the user runs explains a missing backend once, with the fix, in a notification and the status bar", async () => {
    ext = activate(context());
    const qp = (await vscode.commands.executeCommand("groove.search"), fake.quickPicks[0]) as FakeQuickPick<unknown>;
    qp.type("sync");
    await vi.waitFor(() => expect(fake.messages.some((m) => m.level === "error")).toBe(true), { timeout: 5000 });
    const err = fake.messages.find((m) => m.level === "error")!;
    expect(err.text).toContain("no-such-groove");
    expect(err.text).toContain("groove.executablePath");
    expect(err.text).toContain(process.platform === "win32" ? "py -m pipx install groove-search" : "pipx install groove-search");
    expect(err.text).not.toContain("pip install groove"); // someone else's package on PyPI (issue 19)
    expect(err.items).toEqual(["Open Settings", "Show Log"]);
    await vi.waitFor(() => expect(fake.statusItems[0].text).toBe("$(error) groove: not installed"));
    await vi.waitFor(() => expect(qp.title).toMatch(/backend was not found/), { timeout: 5000 });
    // The same problem again: logged, not shown again.
    qp.type("sync again");
    await vi.waitFor(() => expect(fake.output.filter((l) => l.includes("no-such-groove")).length).toBeGreaterThan(1), { timeout: 5000 });
    expect(fake.messages.filter((m) => m.level === "error")).toHaveLength(1);
  });

  it("never pops up from background work: activation and link hovers go to the status bar and the log", async () => {
    fs.mkdirSync(path.join(vault, ".obsidian"));
    fs.writeFileSync(path.join(vault, ".obsidian", "app.json"), "{}");
    ext = activate(context());
    await vi.waitFor(() => expect(fake.statusItems[0].text).toBe("$(error) groove: not installed"), { timeout: 5000 });
    fs.writeFileSync(path.join(vault, "b.md"), "[[A]] [[A#X]]\n");
    const b = await vscode.workspace.openTextDocument(vscode.Uri.file(path.join(vault, "b.md")));
    expect(await ext.links.provideDefinition(b as never, new vscode.Position(0, 3))).toBeUndefined();
    const links = ext.links.provideDocumentLinks(b as never);
    await ext.links.resolveDocumentLink(links[1] as never);
    expect(fake.messages).toEqual([]);
    expect(fake.output.filter((l) => l.includes("no-such-groove")).length).toBeGreaterThan(1);
    expect((fake.statusItems[0].tooltip as string)).toMatch(/backend was not found[\s\S]*groove\.executablePath/);
  });

  it("the same state again (a background reconnect) neither redraws the view nor re-lays it out", async () => {
    fs.mkdirSync(path.join(vault, ".obsidian"));
    fs.writeFileSync(path.join(vault, ".obsidian", "app.json"), "{}");
    ext = activate(context());
    await vi.waitFor(() => expect(fake.statusItems[0].text).toBe("$(error) groove: not installed"), { timeout: 5000 });
    const view = fake.treeViews[0]!;
    let redraws = 0;
    ext.tree.onDidChangeTreeData(() => redraws++);
    const layouts = view.layouts;
    const b = ext.backendFor()!;
    // The connection re-sends a state equal to the one shown (as it does after a background reconnect).
    const resend = (b as unknown as { emit(e: "state", s: unknown): void }).emit.bind(b);
    resend("state", { ...b.state });
    resend("state", { ...b.state });
    expect(fake.statusItems[0].text).toBe("$(error) groove: not installed");
    expect(redraws).toBe(0);
    expect(view.layouts).toBe(layouts);
  });

  it("in a vault with auto-start off and no daemon, the status bar says 'not running' (and nothing is started)", async () => {
    fs.mkdirSync(path.join(vault, ".obsidian"));
    fs.writeFileSync(path.join(vault, ".obsidian", "app.json"), "{}");
    const calls = path.join(vault, "calls.log");
    const bin = path.join(vault, "fake-groove");
    const info = JSON.stringify({ vault, transport: "unix", address: path.join(vault, "no.sock"), token: "t", pid: null, running: false, protocol_version: 1 });
    fs.writeFileSync(bin, `#!/bin/sh\necho "$@" >> ${calls}\necho '${info}'\n`, { mode: 0o755 });
    fake.config.set("groove.executablePath", bin);
    fake.config.set("groove.autoStart", false);
    ext = activate(context());
    await vi.waitFor(() => expect(fake.statusItems[0].text).toBe("$(warning) groove: not running"), { timeout: 5000 });
    expect(fake.statusItems[0].command).toBe("groove.results.focus"); // its card has Start groove
    expect(fs.readFileSync(calls, "utf8")).not.toContain("--start");
    expect(fake.messages).toEqual([]);
  });

  it("after groove.executablePath changes, the status bar says what the new path finds (not a bare 'groove')", async () => {
    fs.mkdirSync(path.join(vault, ".obsidian"));
    fs.writeFileSync(path.join(vault, ".obsidian", "app.json"), "{}");
    ext = activate(context());
    await vi.waitFor(() => expect(fake.statusItems[0].text).toBe("$(error) groove: not installed"), { timeout: 5000 });
    await vscode.workspace.getConfiguration("groove").update("executablePath", path.join(vault, "still-no-groove"));
    await vi.waitFor(() => expect(fake.statusItems[0].text).toBe("$(error) groove: not installed"), { timeout: 5000 });
    expect(fake.statusItems[0].tooltip as string).toContain("still-no-groove");
    expect(fake.messages).toEqual([]);
  });

  it("in a folder without .obsidian/ or groove.toml, activation runs nothing and says nothing", async () => {
    const calls = path.join(vault, "calls.log");
    const bin = path.join(vault, "fake-groove");
    fs.writeFileSync(bin, `#!/bin/sh\necho "$@" >> ${calls}\nexit 3\n`, { mode: 0o755 });
    fake.config.set("groove.executablePath", bin);
    ext = activate(context());
    await new Promise((r) => setTimeout(r, 300));
    // warmUp asks connect-info (never --start) once; nothing is started, nothing pops up.
    const lines = fs.existsSync(calls) ? fs.readFileSync(calls, "utf8").trim().split("\n") : [];
    expect(lines.every((l) => !l.includes("--start"))).toBe(true);
    expect(fake.messages.map((m) => m.text)).toEqual([]);
    expect(ext.registry.all().every((b) => b.client.state !== "connected")).toBe(true);
  });

  it("toggles flip the setting and show in the results view header", async () => {
    ext = activate(context());
    await vscode.commands.executeCommand("groove.toggleReranker");
    expect(fake.config.get("groove.search.reranker")).toBe(true);
    expect(fake.treeViews[0].description).toContain("rerank on");
    await vscode.commands.executeCommand("groove.toggleReranker");
    expect(fake.config.get("groove.search.reranker")).toBe(false);
    await vscode.commands.executeCommand("groove.toggleParentRetriever");
    expect(fake.treeViews[0].description).toBe("rerank off · mmr default · parent on");
  });
});

describe("status bar text", async () => {
  const { statusText } = await import("../src/status");
  const { GrooveError, diagnose } = await import("@groove/editor-client");
  const status = { documents: 173, chunks: 1240, model: "e5", dim: 384, last_indexed: 1, stale_files: 0, indexing: false, progress: null, index_path: "/i" };
  const hints = { executableSetting: "x", autoStartSetting: "y", vault: "/v" };
  const problem = (e: InstanceType<typeof GrooveError>) => ({ kind: "problem" as const, problem: diagnose(e, hints) });
  it.each([
    [{ kind: "first-index", progress: { phase: "embed", done: 12, total: 48 }, status: null }, "$(sync~spin) groove: indexing 12/48"],
    [{ kind: "indexing", progress: { phase: "embed", done: 1234, total: 5000 }, status }, "$(sync~spin) groove: indexing 1,234/5,000"],
    [{ kind: "ready", status }, "$(check) groove: 173 notes"],
    [problem(new GrooveError("not-installed", "x")), "$(error) groove: not installed"],
    [problem(new GrooveError("not-running", "x")), "$(warning) groove: not running"],
    [problem(new GrooveError("auth", "x")), "$(debug-disconnect) groove: token rejected"],
    [problem(new GrooveError("protocol", "x", { data: { reason: "daemon-too-old" } })), "$(warning) groove: update groove"],
    [problem(new GrooveError("disconnected", "x")), "$(debug-disconnect) groove: reconnecting"],
  ])("%o -> %s", (state, text) => {
    expect(statusText(state as never).text).toBe(text);
  });
  it("lists the exclusion rules in force in the ready tooltip, Obsidian's entries as written", () => {
    const exclusions = [
      { rule: "hidden and tool folders", entries: 4 },
      { rule: "Obsidian's Excluded files (.obsidian/app.json userIgnoreFilters)", entries: 2, values: ["Templates/", "/\\.excalidraw\\.md$/"] },
    ];
    const t = statusText({ kind: "ready", status: { ...status, exclusions } } as never).tooltip;
    expect(t.split("Excluded from search:\n")[1]).toBe(
      "• hidden and tool folders — 4 entries\n• Obsidian's Excluded files (.obsidian/app.json userIgnoreFilters) — 2 entries: Templates/, /\\.excalidraw\\.md$/",
    );
    expect(statusText({ kind: "ready", status } as never).tooltip).not.toContain("Excluded from search");
  });
});
