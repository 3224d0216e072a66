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

  it("explains a missing backend with the install command, in a notification and the status bar", async () => {
    ext = activate(context());
    const qp = (await vscode.commands.executeCommand("groove.search"), fake.quickPicks[0]) as FakeQuickPick<unknown>;
    qp.type("sync");
    await vi.waitFor(() => expect(fake.messages.some((m) => m.level === "error")).toBe(true), { timeout: 5000 });
    const err = fake.messages.find((m) => m.level === "error")!;
    expect(err.text).toContain("no-such-groove");
    expect(err.text).toContain("pip install groove");
    expect(err.text).toContain("make demo");
    expect(err.items).toContain("Copy Install Command");
    await vi.waitFor(() => expect(fake.statusItems[0].text).toContain("not installed"));
    await vi.waitFor(() => expect(qp.title).toContain("not found"), { timeout: 5000 });
  });

  it("shows one notification per distinct problem, however many requests fail", async () => {
    ext = activate(context());
    await vi.waitFor(() => expect(fake.messages.filter((m) => m.level === "error")).toHaveLength(1), { timeout: 5000 });
    const doc = await vscode.workspace.openTextDocument(vscode.Uri.file(path.join(vault, "a.md")));
    for (let i = 0; i < 3; i++) expect(await ext.links.provideDefinition(doc as never, new vscode.Position(0, 0))).toBeUndefined();
    fs.writeFileSync(path.join(vault, "b.md"), "[[A]] [[A#X]]\n");
    const b = await vscode.workspace.openTextDocument(vscode.Uri.file(path.join(vault, "b.md")));
    await ext.links.provideDefinition(b as never, new vscode.Position(0, 3));
    await ext.links.provideDefinition(b as never, new vscode.Position(0, 9));
    expect(fake.messages.filter((m) => m.level === "error")).toHaveLength(1);
    expect(fake.output.filter((l) => l.includes("pip install groove")).length).toBeGreaterThan(1);
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
  const { GrooveError } = await import("@groove/editor-client");
  it.each([
    [{ kind: "indexing", done: 1234, total: 5000, phase: "embed" }, "indexing 1,234/5,000"],
    [{ kind: "ready", documents: 173, chunks: 1240, stale: 0 }, "173 notes"],
    [{ kind: "error", error: new GrooveError("not-installed", "x") }, "not installed"],
    [{ kind: "error", error: new GrooveError("not-running", "x") }, "not running"],
  ])("%o -> %s", (state, text) => {
    expect(statusText(state as never).text).toContain(text);
  });
});
