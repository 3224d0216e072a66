/** Text for QuickPick items and tree tooltips, built from a search hit. */
import { describeExplain, displayRuns, hitDisplay, sliceRuns, snippetLine, type DisplayRun } from "@groove/editor-client";
import type { SearchHit } from "@groove/editor-client";

/** "Title › H1 › H2" without repeating the title when it is the first heading. */
export function headingTrail(hit: SearchHit): string {
  const hp = hit.heading_path[0] === hit.title ? hit.heading_path.slice(1) : hit.heading_path;
  return hp.join(" › ");
}

/**
 * One-line snippet around the matches for plain-text places (QuickPick
 * `detail`): no Markdown heading markers, whitespace collapsed.
 */
export function snippet(hit: SearchHit, width = 60): string {
  return snippetLine(hit, width).text;
}

/** Escapes Markdown so note text shows literally inside a MarkdownString. */
export function escapeMarkdown(text: string): string {
  return text.replace(/[\\`*_{}[\]()#+\-.!|<>~]/g, "\\$&");
}

function lines(r: [number, number]): string {
  return r[0] === r[1] ? `line ${r[0]}` : `lines ${r[0]}–${r[1]}`;
}

/** Characters of context kept on each side of the hit's own lines in the hover. */
export const HOVER_CONTEXT = 400;

/**
 * Display runs as Markdown: word matches bold, answer sentences italic (one
 * `*…*` around each answer's stretch of a line; a stretch with a bold word in
 * it stays upright), code as code.
 */
function runsMarkdown(runs: DisplayRun[]): string {
  const piece = (r: DisplayRun, t: string) => {
    if (!t.trim()) return t;
    let m = r.code ? "`" + t.replace(/`/g, "ˋ") + "`" : escapeMarkdown(t);
    if (r.match !== undefined) m = `**${m}**`;
    return m;
  };
  // Markdown emphasis cannot wrap a line break: work line by line.
  const lines: Array<Array<{ r: DisplayRun; t: string }>> = [[]];
  for (const r of runs) {
    r.text.split("\n").forEach((t, i) => {
      if (i > 0) lines.push([]);
      if (t) lines[lines.length - 1]!.push({ r, t });
    });
  }
  return lines
    .map((line) => {
      let out = "";
      for (let k = 0; k < line.length; ) {
        const a = line[k]!.r.answer;
        let j = k;
        let body = "";
        while (j < line.length && line[j]!.r.answer === a) {
          body += piece(line[j]!.r, line[j]!.t);
          j++;
        }
        const lead = body.match(/^\s*/)![0];
        const tail = body.slice(lead.length).match(/\s*$/)![0];
        const core = body.slice(lead.length, body.length - tail.length);
        // VS Code's hover renderer shows the markers of an italic stretch with bold inside it
        // literally (seen in code-server): such a stretch keeps its bold words only.
        const nested = line.slice(k, j).some((x) => x.r.match !== undefined);
        out += a !== undefined && core && !nested ? `${lead}*${core}*${tail}` : body;
        k = j;
      }
      return out;
    })
    .join("\n");
}

/** A block of text as Markdown lines, each prefixed (e.g. "> " for a quote). */
function block(md: string, prefix: string): string {
  return md
    .split("\n")
    .map((l) => `${prefix}${l}`)
    .join("  \n");
}

/**
 * Tooltip Markdown: where the hit is, why it ranked (explain), and its text
 * as a person reads it (Markdown removed, matches bold, the answer italic).
 * With the parent retriever's context (`expanded_from`) the hit's own lines
 * are set apart between rules, the context around them quoted and capped at
 * HOVER_CONTEXT characters each side.
 */
export function hitTooltipMarkdown(hit: SearchHit, maxChars = 1200): string {
  const parts: string[] = [];
  parts.push(`**${escapeMarkdown(hit.title)}**${headingTrail(hit) ? " › " + escapeMarkdown(headingTrail(hit)) : ""}`);
  parts.push(`\n\n${escapeMarkdown(hit.path)}, ${lines(hit.line_range)} · score ${hit.score.toFixed(4)} · rank ${hit.rank}`);
  if (hit.explain) parts.push(`\n\n*Why:* ${escapeMarkdown(describeExplain(hit.explain))}`);
  const d = hitDisplay(hit, { withContext: true });
  const runs = displayRuns(d);
  const own = d.marks[0];
  if (!own) {
    const cut = d.text.length > maxChars ? d.text.lastIndexOf(" ", maxChars) : d.text.length;
    const end = cut > maxChars / 2 ? cut : Math.min(maxChars, d.text.length);
    parts.push("\n\n" + block(runsMarkdown(sliceRuns(runs, 0, end)) + (end < d.text.length ? " …" : ""), "> "));
    return parts.join("");
  }
  const ctx = hit.expanded_from.map((r) => lines(r.line_range)).join(", ");
  const a = Math.max(0, own.start - HOVER_CONTEXT);
  const b = Math.min(d.text.length, own.end + HOVER_CONTEXT);
  const before = sliceRuns(runs, a, own.start);
  const after = sliceRuns(runs, own.end, b);
  if (before.length) parts.push("\n\n" + block((a > 0 ? "… " : "") + runsMarkdown(before), "> "));
  parts.push(`\n\n---\n\n▶ **This hit** (${lines(hit.line_range)}):\n\n${block(runsMarkdown(sliceRuns(runs, own.start, own.end)), "")}\n\n---`);
  if (after.length) parts.push("\n\n" + block(runsMarkdown(after) + (b < d.text.length ? " …" : ""), "> "));
  parts.push(`\n\n*Context from ${ctx}${a > 0 || b < d.text.length ? "; capped — open the hit to read it all" : ""}.*`);
  return parts.join("");
}
