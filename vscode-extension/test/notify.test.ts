import { describe, expect, it } from "vitest";
import { GrooveError, type EditorHints } from "@groove/editor-client";
import { describeError, errorActions } from "../src/notify";
import { VSCODE_HINTS } from "../src/backend";

const hints: EditorHints = { ...VSCODE_HINTS, executable: "groove", vault: "/v", platform: "linux" };

describe("error texts fit where they are shown (a notification has nothing below it)", () => {
  const crashed = new GrooveError("connect-info", "daemon exited", { data: { crashed: true, pid: 42 } });
  const exited = new GrooveError("connect-info", "daemon exited", { data: { code: "daemon-exited" } });
  const failed = new GrooveError("connect-info", "connect-info failed", { data: { code: null } });

  it("no 'below' in any of them; the log is behind Show Log, the command is written out", () => {
    for (const e of [crashed, exited, failed]) {
      const text = describeError(e, hints);
      expect(text).not.toMatch(/below/);
    }
    expect(describeError(crashed, hints)).toMatch(/killed\. Its log is behind Show Log\./);
    expect(describeError(failed, hints)).toContain("Run `groove connect-info --vault /v --start` in a terminal");
    expect(describeError(failed, hints)).not.toMatch(/\(groove connect-info/); // not written twice
  });

  it("a crashed daemon's notification offers Restart; a missing backend Open Settings", () => {
    expect(errorActions(crashed, hints)).toEqual(["Restart", "Show Log"]);
    expect(errorActions(exited, hints)).toEqual(["Restart", "Show Log"]);
    expect(errorActions(new GrooveError("not-installed", "spawn groove ENOENT"), hints)).toEqual(["Open Settings", "Show Log"]);
    expect(errorActions(failed, hints)).toEqual(["Show Log"]);
  });
});
