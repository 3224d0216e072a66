/** Where the headless-Chromium tests find the browser, and why they skip when they cannot. */
import * as fs from "node:fs";

export const CHROMIUM = process.env.CHROMIUM_BIN ?? "/usr/bin/chromium";

export function chromiumUnavailable(): string | null {
  return fs.existsSync(CHROMIUM) ? null : `no Chromium at ${CHROMIUM}`;
}
