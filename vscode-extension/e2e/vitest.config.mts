import { defineConfig } from "vitest/config";

// The end-to-end suite: the real workbench (code-server + Chromium), the
// real daemon, the built .vsix. No `vscode` alias: VS Code itself runs.
export default defineConfig({
  test: {
    root: new URL("..", import.meta.url).pathname,
    include: ["e2e/**/*.e2e.test.ts"],
    globalSetup: ["e2e/announce.ts"],
    // Generous: on a shared, loaded machine code-server and the daemon are slow;
    // the steps wait for what they need, so the bound only stops a hang.
    testTimeout: 300_000,
    hookTimeout: 240_000,
    fileParallelism: false,
    // One workbench at a time: the steps of a scenario build on each other.
    sequence: { concurrent: false },
  },
});
