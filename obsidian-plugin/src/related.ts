/**
 * The "Related notes" section of the sidebar view: similar notes (with an
 * "Unlinked only" toggle and an "Insert link" action on each), backlinks and
 * outgoing links of the active note; and, when the note is left out of the
 * index, which rule leaves it out. Plus "Excluded from search": the rules in
 * force (ADR 0190). Framework-free like the search panel, so the same
 * code runs in the ItemView and in the headless-Chromium test.
 */
import type { IndexStatus, RelatedNotesResult } from "@groove/editor-client/protocol";
import { excludedText, exclusionLine } from "@groove/editor-client/exclusions";
import { clear, el } from "./dom";
import { renderRelated, type RelatedHandlers } from "./render";

export interface RelatedSource {
  /** related_notes for `path`; `unlinkedOnly` leaves out the notes a link already joins to it. */
  related(path: string, unlinkedOnly: boolean): Promise<RelatedNotesResult>;
  /** index_status, with `why` for a path: which rule leaves it out. */
  status(why?: string): Promise<Pick<IndexStatus, "exclusions" | "why">>;
}

export interface RelatedPanelOptions extends RelatedHandlers {
  source: RelatedSource;
  unlinkedOnly?: boolean;
  /** The toggle changed (the plugin saves it). */
  onUnlinkedOnly?(on: boolean): void;
}

export class RelatedPanel {
  readonly root: HTMLElement;
  readonly body: HTMLElement;
  readonly toggle: HTMLInputElement;
  readonly exclusionsEl: HTMLElement;
  private readonly o: RelatedPanelOptions;
  private unlinkedOnly: boolean;
  private shownFor: string | null = null;
  /** Bumped per request: an answer for a note no longer shown is dropped. */
  private seq = 0;

  constructor(container: HTMLElement, opts: RelatedPanelOptions) {
    this.o = opts;
    this.unlinkedOnly = !!opts.unlinkedOnly;
    this.root = el(container, "details", { cls: "groove-related", attr: { open: true } });
    el(this.root, "summary", { text: "Related notes" });
    const bar = el(this.root, "div", { cls: "groove-related-controls" });
    const label = el(bar, "label", { cls: "groove-chip groove-unlinked-only", title: "Only the similar notes that no link joins to this note, in either direction" });
    this.toggle = el(label, "input", { attr: { type: "checkbox" } });
    this.toggle.checked = this.unlinkedOnly;
    label.appendChild(label.ownerDocument.createTextNode(" Unlinked only"));
    this.toggle.addEventListener("change", () => {
      this.unlinkedOnly = this.toggle.checked;
      this.o.onUnlinkedOnly?.(this.unlinkedOnly);
      if (this.shownFor) void this.show(this.shownFor, true);
    });
    this.body = el(this.root, "div", { cls: "groove-related-body" });

    const ex = el(container, "details", { cls: "groove-exclusions" });
    el(ex, "summary", { text: "Excluded from search" });
    this.exclusionsEl = el(ex, "div", { cls: "groove-exclusions-body" });
    // Read when opened (index_status scans the vault): the rules change rarely.
    ex.addEventListener("toggle", () => {
      if ((ex as HTMLDetailsElement).open) void this.showExclusions();
    });
  }

  /** The path whose related notes are on screen (or being fetched). */
  get path(): string | null {
    return this.shownFor;
  }

  /** Related notes of `path`; when groove leaves the note out, which rule does. */
  async show(path: string, force = false): Promise<void> {
    if (!force && this.shownFor === path) return;
    this.shownFor = path;
    const mine = ++this.seq;
    let related: RelatedNotesResult;
    try {
      related = await this.o.source.related(path, this.unlinkedOnly);
    } catch (e) {
      const why = await this.o.source.status(path).then((s) => s.why?.excluded_by ?? null, () => null);
      if (mine !== this.seq) return;
      clear(this.body);
      if (why) el(this.body, "div", { cls: "groove-related-empty groove-excluded-note", text: excludedText(why) });
      else el(this.body, "div", { cls: "groove-related-empty", text: (e as Error).message });
      return;
    }
    if (mine !== this.seq) return; // another note was opened meanwhile
    renderRelated(this.body, related, { ...this.o, unlinkedOnly: this.unlinkedOnly });
  }

  /** The exclusion sources in force, one line each. */
  async showExclusions(): Promise<void> {
    const target = this.exclusionsEl;
    let st: Pick<IndexStatus, "exclusions" | "why">;
    try {
      st = await this.o.source.status();
    } catch (e) {
      clear(target);
      el(target, "div", { cls: "groove-related-empty", text: (e as Error).message });
      return;
    }
    clear(target);
    const list = el(target, "ul", { cls: "groove-exclusions-list" });
    for (const x of st.exclusions ?? []) el(list, "li", { cls: "groove-exclusion", text: exclusionLine(x), attr: { "data-rule": x.rule } });
  }
}
