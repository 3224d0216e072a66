/**
 * Opening a hit / link in Obsidian at the exact place.
 */
import { Keymap, MarkdownView, TFile, type App, type EditorPosition, type PaneType, type WorkspaceLeaf } from "obsidian";
import { hitSelection, lineRangeSelection, type FileSelection } from "@groove/editor-client/hits";
import type { SearchHit } from "@groove/editor-client/protocol";

/** Modifier-click (Cmd/Ctrl, middle click) opens a new tab, Cmd/Ctrl+Alt a split… like Obsidian's own links. */
export function paneFor(evt: MouseEvent | KeyboardEvent | null | undefined): PaneType | boolean {
  if (!evt) return false;
  if ("button" in evt && evt.button === 1) return "tab";
  return Keymap.isModEvent(evt);
}

/** Raw file text: the adapter does not normalise CRLF, so it matches the daemon's byte offsets. */
async function readRaw(app: App, file: TFile): Promise<string> {
  try {
    return await app.vault.adapter.read(file.path);
  } catch {
    return app.vault.read(file);
  }
}

export async function openAt(app: App, file: TFile, sel: Pick<FileSelection, "from" | "to">, newLeaf: PaneType | boolean): Promise<WorkspaceLeaf> {
  const leaf = app.workspace.getLeaf(newLeaf);
  // eState.line scrolls reading view too; the selection below is for the editor.
  await leaf.openFile(file, { active: true, eState: { line: sel.from.line } });
  const view = leaf.view;
  if (view instanceof MarkdownView && view.getMode() === "source") {
    const from: EditorPosition = sel.from;
    const to: EditorPosition = sel.to;
    view.editor.setSelection(from, to);
    view.editor.scrollIntoView({ from, to }, true); // true: centre the line
    view.editor.focus();
  }
  return leaf;
}

export async function openHit(app: App, hit: SearchHit, spanIndex: number, evt?: MouseEvent | KeyboardEvent | null): Promise<void> {
  const file = app.vault.getFileByPath(hit.path);
  if (!(file instanceof TFile)) throw new Error(`"${hit.path}" is not in the vault (deleted or renamed since indexing?)`);
  const text = await readRaw(app, file);
  await openAt(app, file, hitSelection(hit, text, spanIndex), paneFor(evt));
}

/** Opens `path` at a 1-based line (or the top). */
export async function openPathAtLine(app: App, path: string, line: number | null, evt?: MouseEvent | KeyboardEvent | null, lineEnd?: number): Promise<void> {
  const file = app.vault.getFileByPath(path);
  if (!(file instanceof TFile)) throw new Error(`"${path}" is not in the vault`);
  if (!line) {
    await app.workspace.getLeaf(paneFor(evt)).openFile(file, { active: true });
    return;
  }
  const text = await readRaw(app, file);
  const sel = lineRangeSelection([line, lineEnd ?? line], text);
  // Land on the start of the target line (not the whole range selected).
  await openAt(app, file, { from: sel.from, to: sel.from }, paneFor(evt));
}
