/** Opening a note at a hit or a line. */
import * as path from "node:path";
import * as vscode from "vscode";
import type { SearchHit } from "@groove/editor-client";
import type { Highlights } from "./highlights";
import { locateHit } from "./locate";

/** Vault-relative "/" path -> absolute file path. */
export function vaultFile(root: string, rel: string): string {
  return path.join(root, ...rel.split("/"));
}

/**
 * Opens the hit's note, selects match span `opts.span` (an index into
 * `hit.match_spans`; default the first answer span, else the first match in
 * the note, else the chunk start), reveals it in the centre and decorates
 * every match and answer span.
 */
export async function openHit(root: string, hit: SearchHit, highlights: Highlights, opts: { preview?: boolean; span?: number } = {}): Promise<vscode.TextEditor> {
  const uri = vscode.Uri.file(vaultFile(root, hit.path));
  const doc = await vscode.workspace.openTextDocument(uri);
  const editor = await vscode.window.showTextDocument(doc, { preview: opts.preview ?? true });
  const loc = locateHit(doc.getText(), hit, opts.span);
  const ranges = loc.spans.map(([s, e]) => new vscode.Range(doc.positionAt(s), doc.positionAt(e)));
  const answers = loc.answers.map(([s, e]) => new vscode.Range(doc.positionAt(s), doc.positionAt(e)));
  const [s, e] = loc.selection;
  const sel = new vscode.Selection(doc.positionAt(s), doc.positionAt(e));
  editor.selection = sel;
  editor.revealRange(new vscode.Range(sel.start, sel.end), vscode.TextEditorRevealType.InCenter);
  highlights.show(doc.uri.fsPath, ranges, answers);
  return editor;
}

/** Opens `rel` at 1-based `line` (cursor at the line start, centred). */
export async function openAtLine(root: string, rel: string, line: number | null | undefined): Promise<vscode.TextEditor> {
  const doc = await vscode.workspace.openTextDocument(vscode.Uri.file(vaultFile(root, rel)));
  const editor = await vscode.window.showTextDocument(doc, { preview: true });
  const l = Math.max(0, Math.min((line ?? 1) - 1, doc.lineCount - 1));
  const pos = new vscode.Position(l, 0);
  editor.selection = new vscode.Selection(pos, pos);
  editor.revealRange(new vscode.Range(pos, pos), vscode.TextEditorRevealType.InCenter);
  return editor;
}
