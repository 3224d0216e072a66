/**
 * `[[wikilinks]]` in Markdown: underlined and clickable (DocumentLinkProvider)
 * and Go to Definition (DefinitionProvider). Both resolve through the
 * daemon's `resolve_link`, so headings and block refs land on the right line.
 */
import * as vscode from "vscode";
import type { ResolveLinkResult } from "@groove/editor-client";
import { vaultFile } from "./jump";
import { findWikiLinks, wikiLinkAt, type WikiLink } from "./wikilinks";

/** The daemon for a document's workspace folder, or undefined outside any vault. */
export interface LinkResolver {
  resolve(doc: vscode.TextDocument, raw: string): Promise<{ root: string; result: ResolveLinkResult } | undefined>;
}

export class GrooveDocumentLink extends vscode.DocumentLink {
  constructor(
    range: vscode.Range,
    readonly doc: vscode.TextDocument,
    readonly link: WikiLink,
  ) {
    super(range);
  }
}

export const MISSING_LINK_COMMAND = "groove.linkMissing";

/** `file:///…#L12`: VS Code opens the file and reveals that (1-based) line. */
export function lineUri(file: string, line: number | null | undefined): vscode.Uri {
  const uri = vscode.Uri.file(file);
  return line && line > 0 ? uri.with({ fragment: `L${line}` }) : uri;
}

function describe(link: WikiLink): string {
  const where = link.block ? ` ^${link.block}` : link.heading ? ` › ${link.heading}` : "";
  return `${link.target || "this note"}${where}`;
}

export class WikiLinkProvider implements vscode.DocumentLinkProvider<GrooveDocumentLink>, vscode.DefinitionProvider {
  constructor(private readonly resolver: LinkResolver) {}

  // Cheap: parsing only. Resolution happens per link when VS Code asks
  // (hover / click), so a note with hundreds of links costs no round trips.
  provideDocumentLinks(doc: vscode.TextDocument): GrooveDocumentLink[] {
    return findWikiLinks(doc.getText()).map((l) => {
      const dl = new GrooveDocumentLink(new vscode.Range(doc.positionAt(l.innerStart), doc.positionAt(l.innerEnd)), doc, l);
      dl.tooltip = `Open ${describe(l)} (groove)`;
      return dl;
    });
  }

  async resolveDocumentLink(link: GrooveDocumentLink): Promise<GrooveDocumentLink> {
    const r = await this.resolver.resolve(link.doc, link.link.raw).catch(() => undefined);
    if (r?.result.exists && r.result.path) {
      link.target = lineUri(vaultFile(r.root, r.result.path), r.result.line_range?.[0]);
    } else {
      // A target-less link makes VS Code say "target is missing" with no
      // context; a command explains which note or heading was not found.
      const args = encodeURIComponent(JSON.stringify([link.link.raw, r ? (r.result.path ?? null) : undefined]));
      link.target = vscode.Uri.parse(`command:${MISSING_LINK_COMMAND}?${args}`);
    }
    return link;
  }

  async provideDefinition(doc: vscode.TextDocument, position: vscode.Position): Promise<vscode.LocationLink[] | undefined> {
    const l = wikiLinkAt(doc.getText(), doc.offsetAt(position));
    if (!l) return undefined;
    const r = await this.resolver.resolve(doc, l.raw);
    if (!r || !r.result.exists || !r.result.path) return undefined;
    const uri = vscode.Uri.file(vaultFile(r.root, r.result.path));
    const [first, last] = r.result.line_range ?? [1, 1];
    const start = new vscode.Position(Math.max(0, first - 1), 0);
    return [
      {
        originSelectionRange: new vscode.Range(doc.positionAt(l.start), doc.positionAt(l.end)),
        targetUri: uri,
        // Peek shows the whole heading section; the cursor lands on its first line.
        targetRange: new vscode.Range(start, new vscode.Position(Math.max(0, last - 1), Number.MAX_SAFE_INTEGER)),
        targetSelectionRange: new vscode.Range(start, start),
      },
    ];
  }
}

/** Message for a link that did not resolve. */
export function missingLinkMessage(raw: string, notePath: string | null | undefined): string {
  if (notePath === undefined) return `groove: could not resolve ${raw} — is the groove backend running for this folder?`;
  if (notePath) return `groove: ${raw} — the note ${notePath} exists, but not that heading or block.`;
  return `groove: ${raw} does not match any note in this vault.`;
}
