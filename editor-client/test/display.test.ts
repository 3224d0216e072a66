import { describe, expect, it } from "vitest";
import { displayRuns, markdownDisplay, windowDisplay, type DisplaySpan, type DisplayText } from "../src/display";

const enc = new TextEncoder();
const B = (s: string) => enc.encode(s).length;
/** The byte span of the `nth` occurrence of `t` in `content`. */
function span(content: string, t: string, nth = 0): [number, number] {
  let i = -1;
  for (let k = 0; k <= nth; k++) i = content.indexOf(t, i + 1);
  if (i < 0) throw new Error(`${t} not in content`);
  const s = B(content.slice(0, i));
  return [s, s + B(t)];
}
const shown = (d: DisplayText, list: DisplaySpan[] = d.match) => list.map((s) => d.text.slice(s.start, s.end));

describe("markdownDisplay: text a person reads", () => {
  it("shows links by their display text: alias, note name, heading, Markdown link text", () => {
    const md = "See [[Folder/Target|the alias]], [[Other Note]], [[Sync#Conflicts]], [[#Local heading]] and [the docs](https://x.org/a_(b)).";
    expect(markdownDisplay(md).text).toBe("See the alias, Other Note, Sync › Conflicts, Local heading and the docs.");
  });

  it("reads a table's escaped alias bar `[[Target\\|alias]]` as the alias; cells split by spaces", () => {
    const md = "| Syntax | Note |\n| --- | --- |\n| [[Basic formatting syntax\\|formatting]] | **bold** |";
    expect(markdownDisplay(md, {}, { oneLine: true }).text).toBe("Syntax Note formatting bold");
  });

  it("drops emphasis markers, nested too, but not snake_case, list bullets or arithmetic", () => {
    const md = "- ***very*** **bold _and_ italic** ~~gone~~ ==marked== __under__ snake_case_name 2 * 3 * 4";
    expect(markdownDisplay(md).text).toBe("very bold and italic gone marked under snake_case_name 2 * 3 * 4");
  });

  it("shows embeds by name, drops icons, keeps image alt text", () => {
    const md = "Click ![[lucide-table.svg#icon]] then ![[Diagrams/Flow chart.png|400]] and ![[Note embed]] ![alt text](pic.png) and ![](x.png) end.";
    expect(markdownDisplay(md).text).toBe("Click then Flow chart.png and Note embed alt text and end.");
  });

  it("keeps code as code: inline code verbatim (markers inside untouched) and fenced blocks without fences", () => {
    const md = "Run `**not bold** [[x]]` now.\n\n```js\nconst a_b = 1;\n```\nDone.";
    const d = markdownDisplay(md);
    expect(d.text).toBe("Run **not bold** [[x]] now.\nconst a_b = 1;\nDone.");
    expect(d.code.map(([a, b]) => d.text.slice(a, b))).toEqual(["**not bold** [[x]]", "const a_b = 1;"]);
  });

  it("drops heading markers, block ids, callout tags, comments, footnote refs, html tags", () => {
    const md = "## Title ##\n> [!note] Careful\n> quoted text ^abc123\nA%%hidden%% b[^1]<br>c";
    expect(markdownDisplay(md).text).toBe("Title\nCareful\nquoted text\nA b c");
    // a heading inside a quote or a callout (was "### Option A" as written)
    expect(markdownDisplay("> text\n> ### Option A\n> > [!note] ## Why\n> more").text).toBe("text\nOption A\nWhy\nmore");
  });

  it("drops leading heading lines unless every span is in them", () => {
    const md = "# Note\n\n## Section\nBody text here";
    expect(markdownDisplay(md, {}, { dropLeadingHeadings: true }).text).toBe("Body text here");
    expect(markdownDisplay(md, { match: [span(md, "Section"), span(md, "text")] }, { dropLeadingHeadings: true }).text).toBe("Body text here");
    const d = markdownDisplay(md, { match: [span(md, "Section")] }, { dropLeadingHeadings: true });
    expect(d.text).toBe("Section\nBody text here");
    expect(shown(d)).toEqual(["Section"]);
  });
});

describe("markdownDisplay: spans line up after the Markdown is gone", () => {
  it("a span around bold text covers the words, not the markers", () => {
    const md = "Turn on **Sync** today";
    const d = markdownDisplay(md, { match: [span(md, "**Sync**"), span(md, "today")] });
    expect(d.text).toBe("Turn on Sync today");
    expect(shown(d)).toEqual(["Sync", "today"]);
  });

  it("a span inside a link's alias marks those alias characters", () => {
    const md = "Use [[Sync your notes across devices|cross-device sync]] now";
    const d = markdownDisplay(md, { match: [span(md, "sync", 0)] });
    expect(d.text).toBe("Use cross-device sync now");
    expect(shown(d)).toEqual(["sync"]);
  });

  it("a span only inside a hidden link target lights the text the link shows", () => {
    const md = "Read [[Obsidian Sync|this page]] or [guide](https://sync.example.org).";
    const d = markdownDisplay(md, { match: [span(md, "Sync"), span(md, "sync")] });
    expect(d.text).toBe("Read this page or guide.");
    expect(d.match.map((s) => [d.text.slice(s.start, s.end), s.index])).toEqual([
      ["this page", 0],
      ["guide", 1],
    ]);
  });

  it("a span on an icon embed or only on markers shows nothing (left out), the others keep their index", () => {
    const md = "A ![[lucide-table.svg#icon]] table **x**";
    const d = markdownDisplay(md, { match: [span(md, "table"), span(md, "**", 0), span(md, "table", 1)] });
    expect(d.text).toBe("A table x");
    expect(d.match.map((s) => [d.text.slice(s.start, s.end), s.index])).toEqual([["table", 2]]);
  });

  it("emoji (surrogate pairs) and CJK: byte spans land on the right UTF-16 characters", () => {
    const md = "🎉 **同期**の😀競合は、[[オフライン編集|オフライン]]で起きます 🔧 sync";
    const d = markdownDisplay(md, { match: [span(md, "同期"), span(md, "競合"), span(md, "オフライン", 1), span(md, "sync")], answer: [span(md, "😀競合は")] });
    expect(d.text).toBe("🎉 同期の😀競合は、オフラインで起きます 🔧 sync");
    expect(shown(d)).toEqual(["同期", "競合", "オフライン", "sync"]);
    expect(shown(d, d.answer)).toEqual(["😀競合は"]);
  });

  it("spans arrive unsorted: each keeps the index of its place in the input", () => {
    const md = "alpha beta gamma";
    const d = markdownDisplay(md, { match: [span(md, "gamma"), span(md, "alpha")] });
    expect(d.match.map((s) => [d.text.slice(s.start, s.end), s.index])).toEqual([
      ["alpha", 1],
      ["gamma", 0],
    ]);
  });

  it("one line: whitespace runs are one space, a line wrapped in Japanese prose joins without one", () => {
    const md = "同じノートを使いたい\nときは、同期します。\n\nNext line\nin English";
    expect(markdownDisplay(md, {}, { oneLine: true }).text).toBe("同じノートを使いたいときは、同期します。 Next line in English");
  });
});

describe("windowDisplay: cut between words around the first highlight", () => {
  const long = "Lorem ipsum dolor sit amet consectetur adipiscing elit sed do eiusmod tempor incididunt ut labore et dolore magna aliqua and on secondary devices the vault syncs ";
  it("never starts or ends mid-word, puts the highlight near the start, one ellipsis each side", () => {
    const md = long + "with Obsidian Sync when you log in, " + long;
    const d = markdownDisplay(md, { match: [span(md, "Sync")] }, { oneLine: true });
    const w = windowDisplay(d, { before: 20, width: 60 });
    expect(w.text.startsWith("… ")).toBe(true);
    expect(w.text.endsWith(" …")).toBe(true);
    const body = w.text.slice(2, -2);
    expect(md).toContain(body);
    // whole words at both cuts
    expect(md[md.indexOf(body) - 1]).toBe(" ");
    expect(md[md.indexOf(body) + body.length]).toBe(" ");
    expect(shown(w)).toEqual(["Sync"]);
    expect(w.match[0]!.start).toBeLessThanOrEqual(24);
    expect(w.text).not.toContain("… …");
  });

  it("prefers the first answer span over a later word match", () => {
    const md = long + "Open the two notes side by side in split panes. " + long + " split";
    const d = markdownDisplay(md, { match: [span(md, "split", 1)], answer: [span(md, "Open the two notes side by side in split panes.")] }, { oneLine: true });
    const w = windowDisplay(d, { before: 10, width: 80 });
    expect(w.answer.length).toBe(1);
    expect(w.text.slice(w.answer[0]!.start).startsWith("Open the two notes")).toBe(true);
  });

  it("CJK text is cut between characters; an ellipsis already in the text is not doubled", () => {
    const md = "あいうえおかきくけこさしすせそたちつてとなにぬねの同期はまみむめもやゆよ";
    const d = markdownDisplay(md, { match: [span(md, "同期")] }, { oneLine: true });
    const w = windowDisplay(d, { before: 5, width: 12 });
    expect(w.text).toBe("… なにぬねの同期はまみむめ …");
    expect(shown(w)).toEqual(["同期"]);
    const e = markdownDisplay("first part … second part with a word", { match: [span("first part … second part with a word", "word")] }, { oneLine: true });
    expect(windowDisplay(e, { before: 18, width: 40 }).text).not.toMatch(/… …/);
  });

  it("never splits a surrogate pair at a cut", () => {
    const md = "😀".repeat(30) + " target " + "😀".repeat(30);
    const d = markdownDisplay(md, { match: [span(md, "target")] }, { oneLine: true });
    const w = windowDisplay(d, { before: 7, width: 20 });
    expect(w.text).not.toMatch(/[\ud800-\udbff](?![\udc00-\udfff])|(?<![\ud800-\udbff])[\udc00-\udfff]/);
    expect(shown(w)).toEqual(["target"]);
  });
});

describe("displayRuns", () => {
  it("cuts the text at every span and code edge; each run says what it is", () => {
    const md = "Use `sync` to sync notes";
    const d = markdownDisplay(md, { match: [span(md, "sync", 1)], answer: [span(md, "Use `sync` to sync")] });
    const runs = displayRuns(d);
    expect(runs.map((r) => r.text).join("")).toBe(d.text);
    expect(runs.map((r) => [r.text, r.match ?? null, r.answer ?? null, !!r.code])).toEqual([
      ["Use ", null, 0, false],
      ["sync", null, 0, true],
      [" to ", null, 0, false],
      ["sync", 0, 0, false],
      [" notes", null, null, false],
    ]);
  });
});
