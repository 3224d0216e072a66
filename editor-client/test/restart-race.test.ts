/**
 * "Start groove" (restart) while a background reconnect is in flight: that
 * attempt asked `connect-info` without --start, so joining it would only
 * fail "not running" again. Seen in the real VS Code workbench (the e2e
 * suite): with auto-start off, a click on Start groove sometimes did nothing.
 */
import * as fs from "node:fs";
import { afterEach, beforeEach, expect, it } from "vitest";
import { GrooveClient } from "../src/client";
import { VaultConnection } from "../src/connection";
import { FakeDaemon, infoFor, tmpDir, until, writeFakeGroove } from "./support/fake-daemon";

let dir: string;
let daemon: FakeDaemon;

beforeEach(async () => {
  dir = tmpDir();
  daemon = new FakeDaemon(dir);
  await daemon.listen();
});
afterEach(async () => {
  await daemon.stop().catch(() => {});
  fs.rmSync(dir, { recursive: true, force: true });
});

it("Start groove during a background reconnect still starts the daemon", async () => {
  const groove = writeFakeGroove(dir);
  groove.setState(infoFor(daemon, false));
  const client = new GrooveClient({ executable: groove.bin, vault: "/vault", autoStart: false, reconnectDelayMs: { initial: 60_000, max: 60_000 } });
  const conn = new VaultConnection(client, { hints: { executableSetting: "x", autoStartSetting: "y", vault: "/vault" }, refreshDelayMs: 10 });
  try {
    await conn.start();
    expect(conn.state.kind === "problem" && conn.state.problem.cause).toBe("daemon-not-running");
    const background = client.connect().catch(() => {}); // what the reconnect timer does
    expect(await conn.restart()).toBe(true);
    await background;
    await until(() => conn.state.kind === "ready", 3000, "ready");
    expect(groove.calls().at(-1)).toEqual(["connect-info", "--vault", "/vault", "--start"]);
  } finally {
    conn.dispose();
    client.close();
  }
});
