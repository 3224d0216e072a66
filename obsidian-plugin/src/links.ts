/**
 * Where a wikilink lands, decided the way Obsidian decides it: the note by
 * `metadataCache.getFirstLinkpathDest`, the heading or ^block by the note's
 * metadata cache (`resolveSubpath`). The daemon is asked only for what
 * Obsidian cannot answer yet — the line of a heading in a note Obsidian has
 * not parsed — and always about the note Obsidian chose. So a click in the
 * groove panel lands where a click in the note would (ambiguous names,
 * aliases, notes the daemon has not indexed yet; see
 * editor-client/test/fixtures/link-resolution.json).
 */
import { parseLinktext, resolveSubpath, type App } from "obsidian";
import type { ResolveLinkResult } from "@groove/editor-client/protocol";

export interface LinkJump {
  /** Vault path of the target note (or attachment). */
  path: string;
  /** 1-based first line of the heading/block; null = the note itself. */
  line: number | null;
  /** 1-based last line of the heading's section / the block, when known. */
  lineEnd: number | null;
  /** False when the link names a heading or block the note does not have (it opens at the top). */
  subpathFound: boolean;
  /** Who placed the line: Obsidian's cache, or the daemon for a note Obsidian has not parsed. */
  via: "obsidian" | "daemon";
}

export type DaemonResolver = (link: string, fromPath: string) => Promise<ResolveLinkResult>;

/** `Note#Heading|alias` from `[[Note#Heading|alias]]`, `![[…]]` or the bare text. */
export function linktextOf(link: string): string {
  const inner = link.trim().replace(/^!?\[\[/, "").replace(/\]\]$/, "");
  const pipe = inner.search(/\\?\|/);
  return (pipe >= 0 ? inner.slice(0, pipe) : inner).trim();
}

/**
 * Resolves `link` written in `sourcePath`. Null when Obsidian does not
 * resolve it either (a click there would offer to create the note).
 */
export async function resolveLinkInVault(app: App, link: string, sourcePath: string, daemon?: DaemonResolver): Promise<LinkJump | null> {
  const { path, subpath } = parseLinktext(linktextOf(link));
  const file = app.metadataCache.getFirstLinkpathDest(path, sourcePath);
  if (!file) return null;
  const whole: LinkJump = { path: file.path, line: null, lineEnd: null, subpathFound: true, via: "obsidian" };
  if (!subpath || subpath === "#") return whole;
  const cache = app.metadataCache.getFileCache(file);
  if (cache) {
    const r = resolveSubpath(cache, subpath);
    if (!r) return { ...whole, subpathFound: false };
    // `end` is where the next heading starts (0-based), or the block's last line.
    const end = r.end ? (r.type === "heading" ? r.end.line : r.end.line + 1) : null;
    return { ...whole, line: r.start.line + 1, lineEnd: end };
  }
  if (daemon && file.extension === "md") {
    // Obsidian has not parsed the note yet: ask the daemon about the note Obsidian chose.
    try {
      const r = await daemon(`[[${file.path}${subpath}]]`, sourcePath);
      if (r.exists && r.path === file.path && r.line_range) {
        return { ...whole, line: r.line_range[0], lineEnd: r.line_range[1], via: "daemon" };
      }
    } catch {
      /* the note still opens, at the top */
    }
  }
  return { ...whole, subpathFound: false };
}
