/** "groove: Related Notes": embedding neighbours, backlinks, outgoing links, attachments and links within the active note. */
import * as vscode from "vscode";
import { attachmentRow, ownHeadingRow, similarFigure, type RelatedNotesResult } from "@groove/editor-client";

export interface RelatedItem extends vscode.QuickPickItem {
  /** Vault-relative note to open, and 1-based line (null: top of the note). */
  open?: { path: string; line: number | null; link?: string };
  /** The "Unlinked only" switch: picking it lists the notes again with the filter flipped. */
  toggle?: boolean;
}

const folderOf = (p: string) => (p.includes("/") ? p.slice(0, p.lastIndexOf("/")) : "(vault root)");

/**
 * Quick-pick items for related notes. Every item names its note's path, so
 * three notes called "Dup" in three folders stay apart; notes whose titles
 * collide also say "in <folder>" in the label itself.
 */
export function relatedItems(r: RelatedNotesResult, opts: { unlinkedOnly?: boolean } = {}): RelatedItem[] {
  const items: RelatedItem[] = [];
  // As in Obsidian's panel (ADR 0200): similar notes say whether this note links them; the switch hides the linked ones.
  items.push(
    opts.unlinkedOnly
      ? { label: "$(check) Unlinked only", description: "similar notes this note does not link yet — pick to show all", toggle: true, alwaysShow: true }
      : { label: "$(filter) Unlinked only", description: "hide similar notes this note already links", toggle: true, alwaysShow: true },
  );
  const section = (label: string) => items.push({ label, kind: vscode.QuickPickItemKind.Separator });
  const titles = new Map<string, Set<string>>();
  for (const x of [...r.similar, ...r.backlinks]) {
    const k = (x.title || x.path).toLowerCase();
    if (!titles.has(k)) titles.set(k, new Set());
    titles.get(k)!.add(x.path);
  }
  const name = (title: string, p: string) => ((titles.get((title || p).toLowerCase())?.size ?? 0) > 1 ? `${title || p} — in ${folderOf(p)}` : title || p);
  if (r.similar.length) {
    section(opts.unlinkedOnly ? "Similar notes, not linked" : "Similar notes");
    for (const s of r.similar) {
      const linked = s.linked === true;
      const figure = similarFigure(s); // the figure that orders the list (relevance, ADR 0276; the cosine without it)
      items.push({
        label: `${linked ? "$(link)" : "$(sparkle)"} ${name(s.title, s.path)}`,
        description: s.path,
        detail: `${figure.name} ${figure.value} · ${linked ? "linked" : "not linked"}`,
        open: { path: s.path, line: null },
      });
    }
  } else if (opts.unlinkedOnly) {
    items.push({ label: "Every similar note is linked already", description: "pick “Unlinked only” to see them" });
  }
  if (r.backlinks.length) {
    section("Backlinks");
    for (const b of r.backlinks) items.push({ label: `$(arrow-left) ${name(b.title, b.path)}`, description: `${b.path}:${b.line}`, open: { path: b.path, line: b.line } });
  }
  if (r.outgoing.length) {
    section("Outgoing links");
    for (const o of r.outgoing) {
      // The heading stays on the link, so the pick lands on it.
      const label = o.heading ? `${o.target}#${o.heading}` : o.target;
      items.push(
        o.path
          ? // Resolve again on pick, so a heading link lands on the heading's line.
            { label: `$(arrow-right) ${label}`, description: o.path, open: { path: o.path, line: null, link: `[[${label}]]` } }
          : { label: `$(circle-slash) ${label}`, description: "no such note" },
      );
    }
  }
  // Files that are not notes, and places in this note itself, apart from the notes (ADR 0257).
  if (r.attachments?.length) {
    section("Attachments");
    for (const a of r.attachments) {
      const row = attachmentRow(a);
      items.push(
        row.path
          ? { label: `$(file-media) ${row.label}`, description: row.path, detail: row.detail, open: { path: row.path, line: null } }
          : { label: `$(circle-slash) ${row.label}`, description: "no such file", detail: row.detail },
      );
    }
  }
  if (r.own_headings?.length) {
    section("Links within this note");
    // To the link's target in this note: resolved on pick like any link, from this note.
    for (const o of r.own_headings) {
      const row = ownHeadingRow(o);
      items.push({ label: `$(symbol-number) ${row.label}`, description: row.detail, open: { path: r.path, line: null, link: `[[${row.linktext}]]` } });
    }
  }
  if (items.length === 1) items.push({ label: "No related notes yet", description: "the index may still be building" });
  return items;
}
