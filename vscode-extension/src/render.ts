/** Text for QuickPick items and tree tooltips, built from a search hit. */
import { describeExplain, highlightSegments, snippetLine } from "@groove/editor-client";
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

/**
 * Tooltip Markdown: where the hit is, which ranges the parent retriever merged
 * (`expanded_from`), and the returned text with every match in bold.
 */
export function hitTooltipMarkdown(hit: SearchHit, maxChars = 1200): string {
  const parts: string[] = [];
  parts.push(`**${escapeMarkdown(hit.title)}**${headingTrail(hit) ? " › " + escapeMarkdown(headingTrail(hit)) : ""}`);
  parts.push(`\n\n${escapeMarkdown(hit.path)}, ${lines(hit.line_range)} · score ${hit.score.toFixed(4)} · rank ${hit.rank}`);
  if (hit.explain) parts.push(`\n\n*Why:* ${escapeMarkdown(describeExplain(hit.explain))}`);
  if (hit.expanded_from.length > 0) {
    parts.push(`\n\n*Expanded context* from ${hit.expanded_from.map((r) => lines(r.line_range)).join(", ")}:`);
  }
  let used = 0;
  const body = highlightSegments(hit.content, hit.match_spans)
    .map((s) => {
      if (used >= maxChars) return "";
      const t = s.text.length + used > maxChars ? s.text.slice(0, maxChars - used) + "…" : s.text;
      used += s.text.length;
      const esc = escapeMarkdown(t);
      return s.highlighted && esc.trim() ? `**${esc}**` : esc;
    })
    .join("");
  // Blockquote keeps the note text visually apart; line breaks stay breaks.
  parts.push("\n\n" + body.split(/\r?\n/).map((l) => `> ${l}`).join("  \n"));
  return parts.join("");
}
