/**
 * vitest globalSetup: when the headless-Chromium tests cannot run, say so
 * loudly — before the run and again at its end, where it is seen — with how
 * to enable them. (CI installs Chromium in .ci/run, so they never skip there.)
 */
import { chromiumUnavailable } from "./chromium";

function banner(why: string): string {
  const lines = [
    "SKIPPED: the Obsidian plugin's headless-Chromium tests (browser.test.ts)",
    `  ${why}`,
    "  They click every highlight in the real panel and take the README's screenshots.",
    "  Enable: apt-get install -y chromium fonts-ipafont-gothic fonts-noto-color-emoji",
    "          (or CHROMIUM_BIN=/path/to/chromium make test)",
  ];
  const bar = "#".repeat(78);
  return ["", bar, ...lines.map((l) => `# ${l}`), bar, ""].join("\n");
}

export default function setup(): () => void {
  const why = chromiumUnavailable();
  if (why) console.warn(banner(why));
  return () => {
    if (why) console.warn(banner(why));
  };
}
