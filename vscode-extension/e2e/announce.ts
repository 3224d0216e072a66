/**
 * vitest globalSetup: when the suite cannot run here, say so loudly before
 * the run and again at its end. Under CI (CI=true) a missing piece is an
 * error, not a skip: .ci/run installs everything.
 */
import { banner, piecesMissing } from "./pieces";

export default function setup(): () => void {
  const why = piecesMissing();
  if (why && process.env.CI === "true") throw new Error(`the VS Code e2e suite cannot run in CI: ${why.replace(/\n/g, "; ")}`);
  if (why) console.warn(banner(why));
  return () => {
    if (why) console.warn(banner(why));
  };
}
