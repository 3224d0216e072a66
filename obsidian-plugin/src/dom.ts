/**
 * A tiny DOM builder on standard APIs only (no Obsidian `createEl`
 * augmentation), so the rendering code runs unchanged in Obsidian, happy-dom
 * unit tests and the headless-Chromium page.
 */
export interface ElOptions {
  cls?: string | string[];
  text?: string;
  attr?: Record<string, string | number | boolean | null | undefined>;
  title?: string;
}

export function el<K extends keyof HTMLElementTagNameMap>(
  parent: HTMLElement | DocumentFragment | null,
  tag: K,
  opts: ElOptions = {},
  doc: Document = parent?.ownerDocument ?? document,
): HTMLElementTagNameMap[K] {
  const node = doc.createElement(tag);
  if (opts.cls) node.className = Array.isArray(opts.cls) ? opts.cls.filter(Boolean).join(" ") : opts.cls;
  if (opts.text !== undefined) node.textContent = opts.text;
  if (opts.title) node.title = opts.title;
  for (const [k, v] of Object.entries(opts.attr ?? {})) {
    if (v === null || v === undefined || v === false) continue;
    node.setAttribute(k, v === true ? "" : String(v));
  }
  parent?.appendChild(node);
  return node;
}

export function clear(node: HTMLElement): void {
  while (node.firstChild) node.removeChild(node.firstChild);
}
