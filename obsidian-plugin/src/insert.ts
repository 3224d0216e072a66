/**
 * "Insert link" on a related note: Obsidian writes the link text itself
 * (`fileManager.generateMarkdownLink`), so the link follows the user's
 * settings — wikilink or Markdown link, shortest path or relative/absolute —
 * and resolves where Obsidian resolves it. Type-only imports: the same
 * function runs in the headless-Chromium test on a textarea-backed editor.
 */
import type { App, Editor } from "obsidian";

/**
 * Writes a link to `targetPath` at `editor`'s cursor (over the selection) in
 * the note at `sourcePath`, and gives the editor the focus back (the click
 * was in the sidebar) so typing goes on after the link; returns the link.
 */
export function insertLink(app: Pick<App, "vault" | "fileManager">, editor: Pick<Editor, "replaceSelection" | "focus">, sourcePath: string, targetPath: string): string {
  const file = app.vault.getFileByPath(targetPath);
  if (!file) throw new Error(`'${targetPath}' is not in the vault any more`);
  const link = app.fileManager.generateMarkdownLink(file, sourcePath);
  editor.replaceSelection(link);
  editor.focus();
  return link;
}
