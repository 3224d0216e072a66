import { defineConfig } from "vitest/config";
import { fileURLToPath } from "node:url";

export default defineConfig({
  resolve: {
    // The npm "obsidian" package is types only: tests run against a fake.
    alias: { obsidian: fileURLToPath(new URL("./test/fake-obsidian.ts", import.meta.url)) },
  },
  test: {
    include: ["test/**/*.test.ts"],
    // Says loudly when the browser tests cannot run here, and how to enable them.
    globalSetup: ["test/browser/announce.ts"],
    environment: "happy-dom",
    testTimeout: 20_000,
    hookTimeout: 180_000,
  },
});
