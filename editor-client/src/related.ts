/**
 * What both plugins show of a note's attachments and of its links to its own
 * headings (related_notes' `attachments` and `own_headings`, ADR 0257): one
 * row each, worded the same in the Obsidian panel and in VS Code.
 */
import type { Attachment, OwnHeading, Similar } from "./protocol";

export interface AttachmentRow {
  /** The file as the link names it, e.g. "Sleep-2026.webp" */
  label: string;
  /** "embedded" or "linked", the line, and "missing" when the vault has no such file */
  detail: string;
  /** The vault file to open; null when it is missing */
  path: string | null;
  line: number;
}

export interface OwnHeadingRow {
  /** "#Heading" or "#^block", as the link reads */
  label: string;
  /** The link text that lands on that place in the note itself */
  linktext: string;
  detail: string;
  line: number;
}

const times = (n: number | undefined) => (n && n > 1 ? ` · ${n}×` : "");

export function attachmentRow(a: Attachment): AttachmentRow {
  const how = a.embed ? "embedded" : "linked";
  return {
    label: a.target,
    detail: `${how} · line ${a.line}${times(a.occurrences)}${a.path ? "" : " · missing"}`,
    path: a.path,
    line: a.line,
  };
}

export function ownHeadingRow(h: OwnHeading): OwnHeadingRow {
  const anchor = h.block != null ? `#^${h.block}` : `#${h.heading ?? ""}`;
  return { label: anchor, linktext: anchor, detail: `line ${h.line}${times(h.occurrences)}`, line: h.line };
}

export interface SimilarFigure {
  /** "relevance" or "similarity": what the number is */
  name: string;
  /** The number as shown, e.g. "2.06" */
  value: string;
  /** A tooltip: what orders the list, and the cosine beside it */
  title: string;
}

/**
 * The number shown beside a similar note: the one that orders the list, so
 * the figures fall steadily down it. That is `relevance` (ADR 0276) when the
 * daemon sends it; the cosine (`score`) only orders a list without it (plain
 * nearest notes), and is otherwise kept for the tooltip. The CLI prints the same.
 * Relevance is a z-score against the vault: below 0 a note is no closer than
 * a typical one, shown as 0.00 (a reader took "-0.23" for a fault), and the
 * tooltip says so.
 */
export function similarFigure(s: Similar): SimilarFigure {
  const cos = `cosine ${s.score.toFixed(3)}`;
  if (typeof s.relevance === "number" && Number.isFinite(s.relevance)) {
    const value = Math.max(0, s.relevance).toFixed(2);
    const floor = s.relevance <= 0 ? ": no closer than a typical note of this vault" : "";
    return { name: "relevance", value, title: `relevance ${value}${floor} (orders this list: higher is closer) · ${cos}` };
  }
  return { name: "similarity", value: s.score.toFixed(3), title: cos };
}
