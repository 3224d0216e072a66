/**
 * The link-resolution table (editor-client/test/fixtures/link-resolution.json)
 * through the plugin's resolver on the fake `obsidian` module, whose
 * getFirstLinkpathDest / resolveSubpath follow the rules written in the table.
 * Every case lands where Obsidian lands, and the daemon is never asked.
 */
import * as fs from "node:fs";
import * as os from "node:os";
import * as path from "node:path";
import { afterAll, beforeAll, describe, expect, it } from "vitest";
import { App } from "./fake-obsidian";
import { linktextOf, resolveLinkInVault } from "../src/links";

interface LinkCase {
  id: string;
  link: string;
  from: string;
  expect: { path: string | null; line: number | null; subpath_found?: boolean };
}
const table: { notes: Record<string, string>; not_yet_indexed: Record<string, string>; cases: LinkCase[] } = JSON.parse(
  fs.readFileSync(path.join(__dirname, "..", "..", "editor-client", "test", "fixtures", "link-resolution.json"), "utf8"),
);

let vault: string;
let app: App;
beforeAll(() => {
  vault = fs.mkdtempSync(path.join(os.tmpdir(), "groove-links-"));
  for (const [rel, text] of Object.entries({ ...table.notes, ...table.not_yet_indexed })) {
    fs.mkdirSync(path.dirname(path.join(vault, rel)), { recursive: true });
    fs.writeFileSync(path.join(vault, rel), text);
  }
  app = new App(vault);
});
afterAll(() => fs.rmSync(vault, { recursive: true, force: true }));

const neverAsked = async () => {
  throw new Error("the daemon was asked");
};

describe("links resolve the way Obsidian resolves them (shared table)", () => {
  for (const c of table.cases) {
    it(`${c.id}: ${c.link} from ${c.from}`, async () => {
      const jump = await resolveLinkInVault(app as never, c.link, c.from, neverAsked);
      const got = jump ? { path: jump.path, line: jump.line, subpath_found: jump.subpathFound } : { path: null, line: null, subpath_found: true };
      expect(got).toEqual({ ...c.expect, subpath_found: c.expect.subpath_found ?? true });
    });
  }
});

describe("linktextOf", () => {
  it.each([
    ["[[Note#H|alias]]", "Note#H"],
    ["![[Note]]", "Note"],
    ["Note\\|alias", "Note"],
    ["  Note#^id ", "Note#^id"],
  ])("%s -> %s", (raw, want) => expect(linktextOf(raw)).toBe(want));
});
