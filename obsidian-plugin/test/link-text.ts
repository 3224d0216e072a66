/**
 * The link text Obsidian's `fileManager.generateMarkdownLink` writes with its
 * default settings ("shortest path when possible", wikilinks on): the bare
 * name when no other note in the vault has it, else the vault path; ".md"
 * left off. `useMarkdownLinks` gives `[name](path%20encoded.md)`. Pure, so
 * the fake `obsidian` module (Node) and the headless-Chromium page share it.
 */
export function generateMarkdownLink(paths: readonly string[], target: string, opts: { useMarkdownLinks?: boolean } = {}): string {
  const name = (p: string) => p.split("/").pop()!;
  const stem = (p: string) => name(p).replace(/\.md$/i, "");
  const same = paths.filter((p) => name(p).toLowerCase() === name(target).toLowerCase()).length;
  const linkpath = same > 1 ? target : name(target);
  if (opts.useMarkdownLinks) return `[${stem(target)}](${encodeURI(linkpath)})`;
  return `[[${linkpath.replace(/\.md$/i, "")}]]`;
}
