import { fileURLToPath } from "node:url";
import { defineConfig } from "vitest/config";

export default defineConfig({
  resolve: {
    // VS Code provides `vscode` only inside the extension host; tests get a fake.
    alias: { vscode: fileURLToPath(new URL("./test/fake-vscode.ts", import.meta.url)) },
  },
  test: {
    include: ["test/**/*.test.ts"],
    testTimeout: 20_000,
    hookTimeout: 120_000,
    // The daemon and vsce tests spawn processes; two cores, keep files serial.
    fileParallelism: false,
  },
});
