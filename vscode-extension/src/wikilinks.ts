/**
 * Finding `[[wikilinks]]` in Markdown text. Pure string logic (no `vscode`),
 * so the link provider's parsing is testable on its own. Resolution — which
 * note, which line — is the backend's job (`resolve_link`), so Obsidian,
 * groove's CLI and this extension agree on what a link means.
 */

export interface WikiLink {
  /** UTF-16 [start, end) of the whole `[[…]]` (or `![[…]]`) in the text. */
  start: number;
  end: number;
  /** UTF-16 [start, end) of the text between the brackets: the clickable part. */
  innerStart: number;
  innerEnd: number;
  /** The link as written, brackets included; what `resolve_link` receives. */
  raw: string;
  target: string;
  heading: string | null;
  block: string | null;
  alias: string | null;
  embed: boolean;
}

// [[target#heading^block|alias]]: every part optional except the brackets.
// `\|` is how a pipe is written inside a Markdown table cell.
const LINK = /(!?)\[\[([^\[\]\r\n]+?)\]\]/g;

/** Parses the inside of `[[…]]`; null for an empty link. */
export function parseLinkBody(body: string): Omit<WikiLink, "start" | "end" | "innerStart" | "innerEnd" | "raw" | "embed"> | null {
  let rest = body;
  let alias: string | null = null;
  const pipe = rest.search(/\\?\|/);
  if (pipe >= 0) {
    const sep = rest[pipe] === "\\" ? 2 : 1;
    alias = rest.slice(pipe + sep).trim() || null;
    rest = rest.slice(0, pipe);
  }
  let block: string | null = null;
  const caret = rest.indexOf("^");
  if (caret >= 0) {
    block = rest.slice(caret + 1).trim() || null;
    rest = rest.slice(0, caret);
  }
  let heading: string | null = null;
  const hash = rest.indexOf("#");
  if (hash >= 0) {
    // Obsidian writes block refs as [[Note#^id]]; the "#" is then just glue.
    heading = rest.slice(hash + 1).trim() || null;
    rest = rest.slice(0, hash);
  }
  const target = rest.trim();
  if (!target && !heading && !block) return null;
  return { target, heading, block, alias };
}

/** UTF-16 ranges of fenced code blocks and inline code, where `[[` is literal. */
function codeRanges(text: string): Array<[number, number]> {
  const out: Array<[number, number]> = [];
  const fence = /^( {0,3})(`{3,}|~{3,})[^\n]*$/gm;
  let open: { at: number; marker: string } | null = null;
  for (let m = fence.exec(text); m; m = fence.exec(text)) {
    const marker = m[2];
    if (!open) open = { at: m.index, marker };
    else if (marker[0] === open.marker[0] && marker.length >= open.marker.length && m[0].trim() === marker) {
      out.push([open.at, m.index + m[0].length]);
      open = null;
    }
  }
  if (open) out.push([open.at, text.length]); // an unclosed fence runs to the end
  const inline = /(`+)(?!`)[\s\S]*?(?<!`)\1(?!`)/g;
  for (let m = inline.exec(text); m; m = inline.exec(text)) {
    if (!out.some(([s, e]) => m!.index >= s && m!.index < e)) out.push([m.index, m.index + m[0].length]);
  }
  return out;
}

export function findWikiLinks(text: string): WikiLink[] {
  const code = codeRanges(text);
  const links: WikiLink[] = [];
  for (const m of text.matchAll(LINK)) {
    const start = m.index!;
    if (code.some(([s, e]) => start >= s && start < e)) continue;
    const parsed = parseLinkBody(m[2]);
    if (!parsed) continue;
    const embed = m[1] === "!";
    const innerStart = start + m[1].length + 2;
    links.push({
      start,
      end: start + m[0].length,
      innerStart,
      innerEnd: innerStart + m[2].length,
      raw: m[0].slice(m[1].length).replace(/\\\|/g, "|"),
      embed,
      ...parsed,
    });
  }
  return links;
}

/** The link whose `[[…]]` contains UTF-16 offset `at`, if any. */
export function wikiLinkAt(text: string, at: number): WikiLink | undefined {
  return findWikiLinks(text).find((l) => at >= l.start && at <= l.end);
}
