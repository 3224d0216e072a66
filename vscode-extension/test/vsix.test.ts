/**
 * Packaging: `vsce package` builds a .vsix whose manifest VS Code will
 * accept, and the bundled dist/extension.js (vscode external, shared client
 * inlined) loads and activates in a CommonJS host.
 */
import { execFile } from "node:child_process";
import * as fs from "node:fs";
import Module, { createRequire } from "node:module";
import * as os from "node:os";
import * as path from "node:path";
import { promisify } from "node:util";
import { afterAll, beforeAll, describe, expect, it } from "vitest";
import yauzl from "yauzl";
import * as fakeVscode from "./fake-vscode";

const root = path.join(__dirname, "..");
const out = fs.mkdtempSync(path.join(os.tmpdir(), "groove-vsix-"));
const source = JSON.parse(fs.readFileSync(path.join(root, "package.json"), "utf8"));
const vsixPath = path.join(out, `groove-${source.version}.vsix`);
let files: Map<string, Buffer>;

function readZip(file: string): Promise<Map<string, Buffer>> {
  return new Promise((resolve, reject) => {
    yauzl.open(file, { lazyEntries: true }, (err, zip) => {
      if (err || !zip) return reject(err);
      const entries = new Map<string, Buffer>();
      zip.on("entry", (entry: yauzl.Entry) => {
        zip.openReadStream(entry, (e, stream) => {
          if (e || !stream) return reject(e);
          const chunks: Buffer[] = [];
          stream.on("data", (c: Buffer) => chunks.push(c));
          stream.on("end", () => {
            entries.set(entry.fileName, Buffer.concat(chunks));
            zip.readEntry();
          });
        });
      });
      zip.on("end", () => resolve(entries));
      zip.on("error", reject);
      zip.readEntry();
    });
  });
}

beforeAll(async () => {
  const vsce = path.join(path.dirname(createRequire(__filename).resolve("@vscode/vsce/package.json")), "vsce");
  // --no-dependencies: everything is bundled into dist/extension.js.
  await promisify(execFile)(process.execPath, [vsce, "package", "--no-dependencies", "--out", vsixPath], { cwd: root, timeout: 120_000 });
  files = await readZip(vsixPath);
}, 150_000);
afterAll(() => fs.rmSync(out, { recursive: true, force: true }));

describe("vsce package", () => {
  it("writes groove-<version>.vsix with only the bundle, media and docs", () => {
    expect(fs.existsSync(vsixPath)).toBe(true);
    const names = [...files.keys()].sort();
    expect(names).toContain("extension/dist/extension.js");
    expect(names).toContain("extension/media/groove.svg");
    expect(names).not.toContain("extension/media/make-icon.mjs");
    expect(names.some((n) => n.toLowerCase() === "extension/readme.md")).toBe(true);
    expect(names.filter((n) => /node_modules|\/src\/|\/test\/|\.map$/.test(n))).toEqual([]);
  });

  it("ships a manifest with the commands, view container, keybindings, settings and activation events", () => {
    const pkg = JSON.parse(files.get("extension/package.json")!.toString("utf8"));
    expect(pkg).toMatchObject({ name: "groove", publisher: "groove", license: "MIT", main: "./dist/extension.js" });
    expect(pkg.engines.vscode).toMatch(/^\^1\.\d+\.\d+$/);
    // Quiet: only folders that use groove activate it at start-up; commands and the view
    // activate it implicitly (VS Code >= 1.74), so no onCommand/onView entries.
    expect(pkg.activationEvents).toEqual(["workspaceContains:.obsidian/*.json", "workspaceContains:groove.toml"]);
    const [major, minor] = pkg.engines.vscode.replace(/^\^/, "").split(".").map(Number);
    expect(major > 1 || minor >= 74).toBe(true);
    expect(pkg.contributes.configuration.properties["groove.search.limit"]).toMatchObject({ minimum: 1, maximum: 50 });
    expect(pkg.icon).toBe("media/icon.png");
    const titles = Object.fromEntries(pkg.contributes.commands.map((c: any) => [c.command, `${c.category}: ${c.title}`]));
    expect(titles["groove.search"]).toBe("groove: Semantic Search");
    expect(titles["groove.relatedNotes"]).toBe("groove: Related Notes");
    expect(titles["groove.rebuildIndex"]).toBe("groove: Rebuild Index");
    expect(["groove.toggleReranker", "groove.toggleMmr", "groove.toggleParentRetriever"].map((t) => titles[t])).toEqual([
      "groove: Toggle Reranker",
      "groove: Toggle MMR (diverse results)",
      "groove: Toggle Parent Retriever (expanded context)",
    ]);
    expect(pkg.contributes.viewsContainers.activitybar[0]).toMatchObject({ id: "groove", icon: "media/groove.svg" });
    expect(pkg.contributes.views.groove[0].id).toBe("groove.results");
    expect(pkg.contributes.keybindings.map((k: any) => k.command)).toContain("groove.search");
    expect(Object.keys(pkg.contributes.configuration.properties)).toEqual(
      expect.arrayContaining(["groove.executablePath", "groove.autoStart", "groove.search.limit", "groove.search.reranker", "groove.search.mmr", "groove.search.parentRetriever"]),
    );
    // Every command a menu or keybinding names must exist.
    const menuCommands = Object.values(pkg.contributes.menus).flat().map((m: any) => m.command);
    for (const c of [...menuCommands, ...pkg.contributes.keybindings.map((k: any) => k.command)]) expect(Object.keys(titles), c).toContain(c);
  });

  it("ships a 128x128 PNG marketplace icon", () => {
    const png = files.get("extension/media/icon.png")!;
    expect(png.subarray(0, 8)).toEqual(Buffer.from([0x89, 0x50, 0x4e, 0x47, 0x0d, 0x0a, 0x1a, 0x0a]));
    expect(png.subarray(12, 16).toString("ascii")).toBe("IHDR");
    expect([png.readUInt32BE(16), png.readUInt32BE(20)]).toEqual([128, 128]);
    const xml = files.get("extension.vsixmanifest")!.toString("utf8");
    expect(xml).toMatch(/<Icon>extension\/media\/icon\.png<\/Icon>/);
  });

  it("declares identity and engine in extension.vsixmanifest", () => {
    const xml = files.get("extension.vsixmanifest")!.toString("utf8");
    expect(xml).toMatch(new RegExp(`<Identity [^>]*Id="groove"[^>]*Version="${source.version}"[^>]*Publisher="groove"`));
    expect(xml).toContain(`Id="Microsoft.VisualStudio.Code.Engine" Value="${source.engines.vscode}"`);
    expect(xml).toMatch(/<DisplayName>groove/);
  });

  it("bundles a dist/extension.js that loads with vscode external and activates", () => {
    const dir = fs.mkdtempSync(path.join(out, "ext-"));
    const file = path.join(dir, "extension.js");
    fs.writeFileSync(file, files.get("extension/dist/extension.js")!);
    const js = fs.readFileSync(file, "utf8");
    expect(js).toMatch(/require\("vscode"\)/);
    expect(js).not.toMatch(/require\("@groove\/editor-client/); // inlined, not a runtime dependency
    const load = (Module as any)._load;
    (Module as any)._load = function (request: string, ...rest: unknown[]) {
      return request === "vscode" ? fakeVscode : load.call(this, request, ...rest);
    };
    try {
      fakeVscode.fake.reset();
      const ext = createRequire(file)(file);
      expect(typeof ext.activate).toBe("function");
      expect(typeof ext.deactivate).toBe("function");
      const context = { subscriptions: [] as Array<{ dispose(): void }> };
      ext.activate(context);
      expect(fakeVscode.fake.commands.has("groove.search")).toBe(true);
      ext.deactivate();
    } finally {
      (Module as any)._load = load;
    }
  });
});
