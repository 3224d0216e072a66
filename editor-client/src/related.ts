/**
 * What both plugins show of a note's attachments and of its links to its own
 * headings (related_notes' `attachments` and `own_headings`, ADR 0257): one
 * row each, worded the same in the Obsidian panel and in VS Code.
 */
import type { Attachment, OwnHeading } from "./protocol";

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
