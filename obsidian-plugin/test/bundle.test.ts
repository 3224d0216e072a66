/**
 * The built main.js and manifest.json in Obsidian's plugin format: Obsidian
 * evaluates main.js as CommonJS with its own `require` (providing "obsidian"
 * and Node builtins on desktop) and instantiates the default export.
 */
import * as fs from "node:fs";
import * as path from "node:path";
import { createRequire } from "node:module";
import * as vm from "node:vm";
import { beforeAll, describe, expect, it } from "vitest";
import * as fakeObsidian from "./fake-obsidian";

const root = path.resolve(__dirname, "..");
const mainJs = path.join(root, "main.js");
const nodeRequire = createRequire(import.meta.url);

beforeAll(() => {
  if (!fs.existsSync(mainJs)) throw new Error("main.js missing: run `npm run build` (npm test does it first)");
});

function loadBundle(obsidian: object = fakeObsidian) {
  const required: string[] = [];
  const module = { exports: {} as any };
  const sandboxRequire = (id: string) => {
    required.push(id);
    if (id === "obsidian") return obsidian;
    if (nodeRequire("node:module").builtinModules.includes(id)) return nodeRequire(id);
    throw new Error(`main.js requires "${id}", which Obsidian does not provide`);
  };
  const code = fs.readFileSync(mainJs, "utf8");
  const fn = vm.runInThisContext(`(function (module, exports, require) {${code}\n})`, { filename: "main.js" });
  fn(module, module.exports, sandboxRequire);
  return { exports: module.exports, required };
}

describe("bundle", () => {
  it("is CommonJS exporting a Plugin subclass as default", () => {
    const { exports, required } = loadBundle();
    const PluginClass = exports.default ?? exports;
    expect(typeof PluginClass).toBe("function");
    expect(PluginClass.prototype).toBeInstanceOf(fakeObsidian.Plugin);
    expect(required).toContain("obsidian");
    // No "node:" specifiers (older Electron) and nothing but obsidian + builtins.
    expect(required.filter((r) => r.startsWith("node:"))).toEqual([]);
  });

  it("loads and registers its commands when instantiated like Obsidian does", async () => {
    const { exports } = loadBundle();
    const app = new fakeObsidian.App(root);
    const plugin = new exports.default(app, JSON.parse(fs.readFileSync(path.join(root, "manifest.json"), "utf8")));
    await plugin.onload();
    expect(plugin.commands.map((c: { id: string }) => c.id)).toContain("open-search");
    plugin.onunload();
  });

  it("takes every Obsidian class from the app's obsidian module, not from a bundled copy", async () => {
    // A stand-in module with classes of its own: the plugin must extend exactly these.
    class AppPlugin extends fakeObsidian.Plugin {}
    class AppItemView extends fakeObsidian.ItemView {}
    const { exports } = loadBundle({ ...fakeObsidian, Plugin: AppPlugin, ItemView: AppItemView });
    const PluginClass = exports.default ?? exports;
    expect(Object.getPrototypeOf(PluginClass)).toBe(AppPlugin);
    const app = new fakeObsidian.App(root);
    const plugin = new PluginClass(app, { id: "groove-search", name: "groove", version: "0.1.0" });
    await plugin.onload();
    const view = app.workspace.viewCreators.get("groove-search-view")!(new fakeObsidian.WorkspaceLeaf(app));
    expect(view).toBeInstanceOf(AppItemView);
    plugin.onunload();
  });
});

describe("manifest.json", () => {
  const manifest = JSON.parse(fs.readFileSync(path.join(root, "manifest.json"), "utf8"));
  const pkg = JSON.parse(fs.readFileSync(path.join(root, "package.json"), "utf8"));

  it("has the fields Obsidian requires", () => {
    expect(manifest).toMatchObject({ id: "groove-search", isDesktopOnly: true });
    for (const k of ["id", "name", "version", "minAppVersion", "description", "author"]) expect(typeof manifest[k]).toBe("string");
    expect(manifest.version).toMatch(/^\d+\.\d+\.\d+$/);
    expect(manifest.minAppVersion).toMatch(/^\d+\.\d+\.\d+$/);
    // Obsidian rejects ids containing "obsidian"; the folder name must equal the id.
    expect(manifest.id).not.toMatch(/obsidian/);
  });

  it("has the same version as package.json", () => {
    expect(manifest.version).toBe(pkg.version);
  });

  it("ships a styles.css that uses theme variables, not hard-coded colours", () => {
    const css = fs.readFileSync(path.join(root, "styles.css"), "utf8");
    expect(css).toMatch(/var\(--text-highlight-bg\)/);
    expect(css).not.toMatch(/#[0-9a-fA-F]{3,8}\b|rgba?\(|hsla?\(/);
  });
});
