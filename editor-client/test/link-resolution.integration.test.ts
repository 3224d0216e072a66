/**
 * The link-resolution table (fixtures/link-resolution.json: where Obsidian
 * lands each link) against the REAL daemon's `resolve_link`, which VS Code
 * uses: every case must agree (ADR 0117).
 */
import * as fs from "node:fs";
import * as path from "node:path";
import { afterAll, beforeAll, describe, expect, it } from "vitest";
import type { GrooveClient } from "../src/client";
import type { ResolveLinkResult } from "../src/protocol";
import { daemonUnavailable, startRealDaemon, type RealDaemon } from "./support/real-daemon";

export interface LinkCase {
  id: string;
  link: string;
  from: string;
  expect: { path: string | null; line: number | null; subpath_found?: boolean };
  rule: string;
}
export interface LinkTable {
  notes: Record<string, string>;
  not_yet_indexed: Record<string, string>;
  cases: LinkCase[];
}

export const LINK_TABLE: LinkTable = JSON.parse(fs.readFileSync(path.join(__dirname, "fixtures", "link-resolution.json"), "utf8"));

/** The daemon's answer in the table's terms. */
export function daemonAnswer(r: ResolveLinkResult): LinkCase["expect"] {
  if (!r.exists || !r.path) return { path: null, line: null };
  const hasSubpath = !!(r.heading || r.block);
  if (!hasSubpath) return { path: r.path, line: null };
  if (!r.line_range) return { path: r.path, line: null, subpath_found: false };
  return { path: r.path, line: r.line_range[0] };
}

/**
 * Where the daemon's answer may differ from Obsidian's, with the reason (each
 * runs as \`it.fails\`). Empty since the daemon follows the table (ADR 0117).
 */
const DAEMON_DIFFERS: Record<string, string> = {};

const skip = daemonUnavailable();

describe.skipIf(!!skip)("the daemon's resolve_link against Obsidian's link table", () => {
  let d: RealDaemon;
  let client: GrooveClient;

  beforeAll(async () => {
    // A watcher that waits 10 minutes: the notes written after the first index stay unindexed for the test.
    d = await startRealDaemon({ ...LINK_TABLE.notes, "groove.toml": "[watch]\ndebounce_ms = 600000\n" }, { prefix: "gvl-" });
    client = d.client();
    await client.connect();
    await d.waitIndexed(client, Object.keys(LINK_TABLE.notes).filter((p) => p.endsWith(".md")).length);
    for (const [rel, text] of Object.entries(LINK_TABLE.not_yet_indexed)) d.write(rel, text);
  }, 180_000);

  afterAll(async () => {
    await d?.stop();
  });

  for (const c of LINK_TABLE.cases) {
    const why = DAEMON_DIFFERS[c.id];
    const title = `${c.id}: ${c.link} from ${c.from} -> ${c.expect.path ?? "unresolved"}${c.expect.line ? `:${c.expect.line}` : ""}`;
    (why ? it.fails : it)(why ? `${title} (daemon today: ${why})` : title, async () => {
      const r = await client.resolveLink(c.link, c.from);
      const got = daemonAnswer(r);
      expect({ ...got, subpath_found: got.subpath_found ?? true }).toEqual({ ...c.expect, subpath_found: c.expect.subpath_found ?? true });
    });
  }

  it("the not-yet-indexed notes really are not indexed while the table runs", async () => {
    const st = await client.indexStatus();
    expect(st.documents).toBe(Object.keys(LINK_TABLE.notes).filter((p) => p.endsWith(".md")).length);
  });
});

if (skip) {
  describe("link table against the daemon", () => {
    it.skip(`skipped: ${skip}`, () => {});
  });
}
