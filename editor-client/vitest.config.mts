import { defineConfig } from "vitest/config";

export default defineConfig({
  test: {
    include: ["test/**/*.test.ts"],
    // Daemon integration tests start a real `groove serve`; model loading can take a while.
    testTimeout: 20_000,
    hookTimeout: 120_000,
  },
});
