// Bundles the plugin into main.js in Obsidian's plugin format: one CommonJS
// file, `obsidian`/`electron`/CodeMirror provided by the app, Node builtins
// from Electron. The shared client (@groove/editor-client) is compiled in from
// its TypeScript source.
import { build, context } from "esbuild";
import { builtinModules } from "node:module";
import { fileURLToPath } from "node:url";
import path from "node:path";

const here = path.dirname(fileURLToPath(import.meta.url));
const watch = process.argv.includes("--watch");
const production = !watch;

// Old Electron builds do not know the "node:" prefix: emit require("net").
const stripNodePrefix = {
  name: "strip-node-prefix",
  setup(b) {
    b.onResolve({ filter: /^node:/ }, (args) => ({ path: args.path.slice(5), external: true }));
  },
};

const options = {
  absWorkingDir: here,
  entryPoints: ["src/main.ts"],
  outfile: "main.js",
  bundle: true,
  format: "cjs",
  platform: "browser",
  target: "es2020",
  external: ["obsidian", "electron", "@codemirror/*", "@lezer/*", ...builtinModules],
  plugins: [stripNodePrefix],
  sourcemap: production ? false : "inline",
  minify: false, // readable stack traces for bug reports; the bundle is small
  logLevel: "warning",
  banner: { js: "/* groove-search: built with esbuild from obsidian-plugin/src — do not edit */" },
};

if (watch) {
  const ctx = await context(options);
  await ctx.watch();
} else {
  await build(options);
}
