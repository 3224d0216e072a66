/**
 * Markdown source -> the text a person reads, with the daemon's spans moved
 * along. The daemon's spans are UTF-8 byte offsets into a hit's `content`
 * (Markdown source); the panels show `[[Target|alias]]` as "alias", drop
 * `**` and friends, show embeds by name and inline code as code. Every
 * output character remembers the source character it came from, so a span
 * maps to exactly the display characters its source characters became; a
 * span that lies only in hidden source (a link's target, an embed's path)
 * lights the text the link shows. One implementation for both plugins.
 */
import { Utf8Mapper } from "./offsets";

/** A display range `[start, end)` in UTF-16 units of `DisplayText.text`. */
export interface DisplaySpan {
  start: number;
  end: number;
  /** Index of the span in the list it came from (`match_spans` / `answer_spans`). */
  index: number;
}

export interface DisplayText {
  text: string;
  /** Match spans (words of the query), in display order. */
  match: DisplaySpan[];
  /** Answer spans (sentences that answer the query), in display order. */
  answer: DisplaySpan[];
  /** Inline code and code-block text: shown as code. */
  code: Array<[number, number]>;
  /** Extra ranges passed as `marks` (e.g. the hit's own chunk inside expanded context). */
  marks: DisplaySpan[];
}

export type ByteRange = readonly [number, number];

export interface DisplayOptions {
  /** Every whitespace run as one space (list rows); otherwise line breaks stay (one per run). */
  oneLine?: boolean;
  /** Heading lines before the first other line, unless every span is in them (the heading path shows them). */
  dropLeadingHeadings?: boolean;
}

export interface DisplayInput {
  match?: ReadonlyArray<ByteRange>;
  answer?: ReadonlyArray<ByteRange>;
  marks?: ReadonlyArray<ByteRange>;
}

// Kana, kanji/hanzi, CJK punctuation, full-width forms, Hangul syllables.
const CJK = /[\u3000-\u30ff\u3400-\u4dbf\u4e00-\u9fff\uf900-\ufaff\uff00-\uffef\uac00-\ud7af]/;
// Written without spaces between words: a line wrapped between two of them is no word gap.
const UNSPACED = /[\u3000-\u30ff\u3400-\u4dbf\u4e00-\u9fff\uf900-\ufaff\uff00-\uffef]/;

/** Builds the output text; each UTF-16 unit keeps its source index (-1: synthetic). */
class Out {
  chars: string[] = [];
  src: number[] = [];
  code: Array<[number, number]> = [];
  groups: Array<{ s: number; e: number; o0: number; o1: number }> = [];
  private pending: { nl: boolean; at: number } | null = null;
  constructor(private readonly oneLine: boolean) {}

  get length(): number {
    return this.chars.length;
  }
  /** Whitespace at source index `at`, emitted (collapsed) before the next visible character. */
  space(at: number, newline: boolean): void {
    if (!this.chars.length) return;
    if (this.pending) this.pending.nl ||= newline;
    else this.pending = { nl: newline, at };
  }
  private flush(next: string): void {
    const p = this.pending;
    if (!p) return;
    this.pending = null;
    const prev = this.chars[this.chars.length - 1] ?? "";
    // A line wrapped inside Japanese/Chinese prose is no word gap.
    if (p.nl && this.oneLine && UNSPACED.test(prev) && UNSPACED.test(next)) return;
    this.chars.push(p.nl && !this.oneLine ? "\n" : " ");
    this.src.push(p.at);
  }
  /** Copies source characters [a, b) (`text` = the source). */
  copy(text: string, a: number, b: number): void {
    for (let i = a; i < b; i++) {
      const c = text[i]!;
      if (c === "\n" || c === "\r" || c === "\t" || c === " ") {
        this.space(i, c === "\n");
        continue;
      }
      this.flush(c);
      this.chars.push(c);
      this.src.push(i);
    }
  }
  /** Where a construct that began at output index `o0` really starts (pending whitespace is flushed lazily). */
  from(o0: number): number {
    while (o0 < this.chars.length && /\s/.test(this.chars[o0]!)) o0++;
    return o0;
  }
  /** Synthetic text (no source), e.g. " › " between a link's note and heading. */
  synth(s: string): void {
    if (!s) return;
    this.flush(s[0]!);
    for (const c of s) {
      this.chars.push(c);
      this.src.push(-1);
    }
  }
}

interface Ctx {
  text: string;
  out: Out;
  /** Source index -> emphasis delimiter run length to skip. */
  drop: Map<number, number>;
  table: boolean;
}

const ESCAPABLE = /[\\`*_{}[\]()#+\-.!|<>~=^%$]/;

/** Emphasis delimiter runs of one line that pair up (CommonMark-like flanking, simplified). */
function emphasisDrops(text: string, a: number, b: number, drop: Map<number, number>): void {
  const runs: Array<{ at: number; len: number; ch: string; open: boolean; close: boolean }> = [];
  let i = a;
  while (i < b) {
    const c = text[i]!;
    if (c === "\\") {
      i += 2;
      continue;
    }
    if (c === "`") {
      let n = 0;
      while (text[i + n] === "`") n++;
      const close = text.indexOf("`".repeat(n), i + n);
      i = close >= 0 && close < b ? close + n : i + n;
      continue;
    }
    if (c === "[" && text[i + 1] === "[") {
      const close = text.indexOf("]]", i + 2);
      if (close >= 0 && close < b) {
        i = close + 2;
        continue;
      }
    }
    if (c === "]" && text[i + 1] === "(") {
      const close = text.indexOf(")", i + 2);
      if (close >= 0 && close < b) {
        i = close + 1;
        continue;
      }
    }
    if (c === "*" || c === "_" || c === "~" || c === "=") {
      let n = 0;
      while (i + n < b && text[i + n] === c) n++;
      if ((c === "~" || c === "=") && n !== 2) {
        i += n;
        continue;
      }
      const before = i > a ? text[i - 1]! : " ";
      const after = i + n < b ? text[i + n]! : " ";
      const ws = (x: string) => /\s/.test(x);
      const punct = (x: string) => /[\p{P}\p{S}]/u.test(x);
      const word = (x: string) => /[\p{L}\p{N}]/u.test(x);
      const left = !ws(after) && (!punct(after) || ws(before) || punct(before));
      const right = !ws(before) && (!punct(before) || ws(after) || punct(after));
      let open = left;
      let close = right;
      if (c === "_") {
        // snake_case is no emphasis
        open = left && !word(before);
        close = right && !word(after);
      }
      runs.push({ at: i, len: n, ch: c, open, close });
      i += n;
      continue;
    }
    i++;
  }
  const stack: typeof runs = [];
  for (const r of runs) {
    if (r.close) {
      let k = stack.length - 1;
      while (k >= 0 && !(stack[k]!.ch === r.ch && stack[k]!.len === r.len)) k--;
      if (k >= 0) {
        drop.set(stack[k]!.at, r.len);
        drop.set(r.at, r.len);
        stack.length = k;
        continue;
      }
    }
    if (r.open) stack.push(r);
  }
}

/** An embed Obsidian draws as an icon (a Lucide SVG, `#icon`): dropped from the text. */
function isIcon(target: string): boolean {
  return /#icon$/i.test(target) || /(^|\/)lucide-[\w-]+\.svg/i.test(target);
}

/** Inline Markdown of source [a, b) into `ctx.out`. */
function inline(ctx: Ctx, a: number, b: number): void {
  const { text, out } = ctx;
  let i = a;
  while (i < b) {
    const c = text[i]!;
    const dropLen = ctx.drop.get(i);
    if (dropLen) {
      i += dropLen;
      continue;
    }
    if (c === "\\" && i + 1 < b && ESCAPABLE.test(text[i + 1]!)) {
      out.copy(text, i + 1, i + 2);
      i += 2;
      continue;
    }
    if (c === "`") {
      let n = 0;
      while (text[i + n] === "`") n++;
      const close = text.indexOf("`".repeat(n), i + n);
      if (close >= 0 && close + n <= b) {
        let s = i + n;
        let e = close;
        if (e - s >= 2 && text[s] === " " && text[e - 1] === " ") {
          s++;
          e--;
        }
        const o0 = out.length;
        out.copy(text, s, e);
        if (out.length > out.from(o0)) out.code.push([out.from(o0), out.length]);
        i = close + n;
        continue;
      }
      out.copy(text, i, i + n);
      i += n;
      continue;
    }
    if (c === "%" && text[i + 1] === "%") {
      const close = text.indexOf("%%", i + 2);
      if (close >= 0 && close + 2 <= b) {
        i = close + 2;
        continue;
      }
    }
    const embed = c === "!" && text[i + 1] === "[" && text[i + 2] === "[";
    if ((c === "[" && text[i + 1] === "[") || embed) {
      const s0 = embed ? i + 3 : i + 2;
      const close = text.indexOf("]]", s0);
      if (close >= 0 && close + 2 <= b && !text.slice(s0, close).includes("\n")) {
        const o0 = out.length;
        wikilink(ctx, s0, close, embed);
        if (out.length > out.from(o0)) out.groups.push({ s: i, e: close + 2, o0: out.from(o0), o1: out.length });
        i = close + 2;
        continue;
      }
    }
    const image = c === "!" && text[i + 1] === "[";
    if (c === "[" || image) {
      const t0 = image ? i + 2 : i + 1;
      if (text[t0] === "^") {
        // a footnote reference [^1]
        const close = text.indexOf("]", t0);
        if (close >= 0 && close < b && !image) {
          i = close + 1;
          continue;
        }
      }
      const m = matchLink(text, t0, b);
      if (m) {
        const o0 = out.length;
        if (image) {
          // ![alt](url): the alt text, or nothing
          out.copy(text, t0, m.textEnd);
        } else inline(ctx, t0, m.textEnd);
        if (out.length > out.from(o0)) out.groups.push({ s: i, e: m.end, o0: out.from(o0), o1: out.length });
        i = m.end;
        continue;
      }
    }
    if (c === "|" && ctx.table) {
      out.space(i, false);
      i++;
      continue;
    }
    if (c === "<") {
      const tag = /^<\/?[A-Za-z][A-Za-z0-9-]*(?:\s[^<>]*)?\/?>/.exec(text.slice(i, Math.min(b, i + 200)));
      if (tag) {
        out.space(i, false);
        i += tag[0].length;
        continue;
      }
    }
    // surrogate pairs stay together
    const code = text.charCodeAt(i);
    const w = code >= 0xd800 && code <= 0xdbff && i + 1 < b ? 2 : 1;
    out.copy(text, i, i + w);
    i += w;
  }
}

/** `[text](url)` starting after the "[": where the text ends and the whole link ends. */
function matchLink(text: string, t0: number, b: number): { textEnd: number; end: number } | null {
  let depth = 0;
  for (let k = t0; k < b; k++) {
    const c = text[k];
    if (c === "\\") {
      k++;
      continue;
    }
    if (c === "[") depth++;
    else if (c === "]") {
      if (depth > 0) {
        depth--;
        continue;
      }
      if (text[k + 1] !== "(") return null;
      let par = 0;
      for (let j = k + 2; j < b; j++) {
        if (text[j] === "(") par++;
        else if (text[j] === ")") {
          if (par === 0) return { textEnd: k, end: j + 1 };
          par--;
        }
      }
      return null;
    }
  }
  return null;
}

/** `[[target#heading|alias]]` (inner source [s, e)) as Obsidian shows it. */
function wikilink(ctx: Ctx, s: number, e: number, embed: boolean): void {
  const { text, out } = ctx;
  // In a table the alias bar is written `\|`.
  let bar = -1;
  for (let k = s; k < e; k++) {
    if (text[k] === "|") {
      bar = k;
      break;
    }
  }
  const targetEnd = bar >= 0 && text[bar - 1] === "\\" ? bar - 1 : bar >= 0 ? bar : e;
  const target = text.slice(s, targetEnd);
  if (embed && isIcon(target)) return;
  if (bar >= 0) {
    const alias = text.slice(bar + 1, e);
    // ![[image.png|300]] / |300x200: a size, not a name
    if (!(embed && /^\s*\d+(x\d+)?\s*$/.test(alias))) {
      out.copy(text, bar + 1, e);
      return;
    }
  }
  const hash = target.indexOf("#");
  let noteEnd = hash >= 0 ? s + hash : targetEnd;
  // Folder part hidden, as Obsidian shows a link by its note name.
  const slash = text.lastIndexOf("/", noteEnd - 1);
  const noteStart = slash >= s ? slash + 1 : s;
  if (!embed && /\.md$/i.test(text.slice(noteStart, noteEnd))) noteEnd -= 3;
  if (noteEnd > noteStart) out.copy(text, noteStart, noteEnd);
  if (hash >= 0) {
    let h = s + hash + 1;
    if (text[h] === "^") h++; // a block id
    if (h < targetEnd) {
      if (noteEnd > noteStart) out.synth(" › ");
      out.copy(text, h, targetEnd);
    }
  }
}

const HEADING = /^[ \t]{0,3}#{1,6}(?:[ \t]+|$)/;

function parse(text: string, out: Out, opts: DisplayOptions, touched: (a: number, b: number) => boolean): void {
  let i = 0;
  let fence: string | null = null;
  let leading = opts.dropLeadingHeadings ?? false;
  while (i < text.length) {
    let nl = text.indexOf("\n", i);
    if (nl < 0) nl = text.length;
    let end = nl;
    if (end > i && text[end - 1] === "\r") end--;
    const line = text.slice(i, end);
    const f = /^[ \t]{0,3}(`{3,}|~{3,})/.exec(line);
    if (fence !== null) {
      if (f && f[1]![0] === fence[0] && f[1]!.length >= fence.length && !line.slice(f[0].length).trim()) fence = null;
      else {
        const o0 = out.length;
        out.copy(text, i, end);
        if (out.length > out.from(o0)) out.code.push([out.from(o0), out.length]);
      }
      out.space(end, true);
      i = nl + 1;
      continue;
    }
    if (f) {
      fence = f[1]!;
      leading = false;
      i = nl + 1;
      continue;
    }
    if (!line.trim()) {
      out.space(i, true);
      i = nl + 1;
      continue;
    }
    const heading = HEADING.exec(line);
    if (leading && heading && !touched(i, end)) {
      i = nl + 1;
      continue;
    }
    leading = false;
    let p = i;
    let tableRow = false;
    if (heading) {
      p += heading[0].length;
      // closing hashes: "## Title ##"
      const closing = /[ \t]+#+[ \t]*$/.exec(text.slice(p, end));
      if (closing) end = p + closing.index;
    } else {
      // thematic break, table delimiter row: nothing to read
      if (/^[ \t]*([-*_])([ \t]*\1){2,}[ \t]*$/.test(line) || (/^[ \t|:-]+$/.test(line) && line.includes("-") && line.includes("|"))) {
        out.space(end, true);
        i = nl + 1;
        continue;
      }
      const bq = /^[ \t]*(?:>[ \t]?)+/.exec(line);
      if (bq) p += bq[0].length;
      const callout = /^\[![\w-]+\][+-]?[ \t]*/.exec(text.slice(p, end));
      if (callout) p += callout[0].length;
      // a heading inside a quote or a callout: "> ### Title"
      const quotedHeading = bq ? /^#{1,6}(?:[ \t]+|$)/.exec(text.slice(p, end)) : null;
      if (quotedHeading) p += quotedHeading[0].length;
      const list = /^[ \t]*(?:[-*+]|\d{1,9}[.)])[ \t]+(?:\[[ xX/-]\][ \t]+)?/.exec(text.slice(p, end));
      if (list) p += list[0].length;
      tableRow = /^[ \t]*\|/.test(text.slice(p, end));
    }
    // a block id at the end of a line: "text ^abc123"
    const block = /[ \t]\^[\w-]+[ \t]*$/.exec(text.slice(p, end));
    if (block) end = p + block.index;
    const drop = new Map<number, number>();
    emphasisDrops(text, p, end, drop);
    inline({ text, out, drop, table: tableRow }, p, end);
    out.space(end, true);
    i = nl + 1;
  }
}

/**
 * The display text of Markdown `content` and where each span lands in it.
 * `input` spans are `[start, end)` UTF-8 byte offsets into `content` (the
 * daemon's convention); the result's spans are UTF-16 indices into `text`,
 * each with its index in the input list. A span that shows nothing (only
 * emphasis markers, an icon embed) is left out.
 */
export function markdownDisplay(content: string, input: DisplayInput = {}, opts: DisplayOptions = {}): DisplayText {
  const m = new Utf8Mapper(content);
  const toUnits = (list: ReadonlyArray<ByteRange> | undefined): Array<[number, number, number]> =>
    [...(list ?? [])].map(([s, e], k) => [s, e, k] as const).sort((x, y) => x[0] - y[0]).map(([s, e, k]) => [m.toIndex(s), m.toIndex(e), k]);
  const match = toUnits(input.match);
  const answer = toUnits(input.answer);
  const marks = toUnits(input.marks);
  // Leading heading lines repeat the heading path the panels show apart: they go, unless
  // every span is in them (then they are the only place the highlight can show).
  let headEnd = 0;
  for (let m2: RegExpExecArray | null; (m2 = /^[ \t]{0,3}#{1,6}(?:[ \t][^\n]*)?(?:\n|$)|^[ \t]*\r?\n/.exec(content.slice(headEnd))) && m2[0].length; ) headEnd += m2[0].length;
  const all = [...match, ...answer];
  const bodyHasSpan = all.some(([, e]) => e > headEnd);
  const touched = (a: number, b: number) => !bodyHasSpan && all.some(([s, e]) => s < b && e > a);

  const out = new Out(opts.oneLine ?? false);
  parse(content, out, opts, touched);
  // trailing whitespace never shows: nothing flushes it
  const n = content.length;
  // firstOut[k]: first output index whose source >= k; lastEnd[k]: 1 + last output index whose source < k.
  const firstOut = new Int32Array(n + 2).fill(out.length);
  const lastEnd = new Int32Array(n + 2).fill(0);
  for (let o = out.length - 1; o >= 0; o--) {
    const s = out.src[o]!;
    if (s >= 0 && firstOut[s]! > o) firstOut[s] = o;
  }
  for (let k = n; k >= 0; k--) firstOut[k] = Math.min(firstOut[k]!, firstOut[k + 1]!);
  for (let o = 0; o < out.length; o++) {
    const s = out.src[o]!;
    if (s >= 0) lastEnd[s + 1] = Math.max(lastEnd[s + 1]!, o + 1);
  }
  for (let k = 1; k <= n + 1; k++) lastEnd[k] = Math.max(lastEnd[k]!, lastEnd[k - 1]!);

  const mapOne = ([s, e, index]: [number, number, number]): DisplaySpan | null => {
    const lo = firstOut[Math.min(s, n)]!;
    let hi = lastEnd[Math.min(e, n + 1)]!;
    // Whitespace at the span's edges is no part of what it marks.
    let a = lo;
    while (a < hi && /\s/.test(out.chars[a]!)) a++;
    while (hi > a && /\s/.test(out.chars[hi - 1]!)) hi--;
    if (hi > a) return { start: a, end: hi, index };
    // Only hidden source (a link's target, an embed's path): the text the link shows.
    const g = out.groups.filter((x) => x.s < e && x.e > s);
    if (!g.length) return null;
    return { start: Math.min(...g.map((x) => x.o0)), end: Math.max(...g.map((x) => x.o1)), index };
  };
  const mapAll = (list: Array<[number, number, number]>) =>
    list
      .map(mapOne)
      .filter((x): x is DisplaySpan => x !== null)
      .sort((x, y) => x.start - y.start || x.index - y.index);
  return { text: out.chars.join(""), match: mapAll(match), answer: mapAll(answer), code: out.code, marks: mapAll(marks) };
}

const isSpace = (c: string | undefined) => c !== undefined && /\s/.test(c);
const isCjk = (c: string | undefined) => c !== undefined && CJK.test(c);
const isLowSurrogate = (s: string, k: number) => {
  const c = s.charCodeAt(k);
  return c >= 0xdc00 && c <= 0xdfff;
};

/** A cut at `k` between two words (or two CJK characters, or at punctuation-space)? */
function boundary(t: string, k: number): boolean {
  if (k <= 0 || k >= t.length) return true;
  if (isLowSurrogate(t, k)) return false;
  const a = t[k - 1]!;
  const b = t[k]!;
  return isSpace(a) || isSpace(b) || isCjk(a) || isCjk(b);
}

export interface WindowOptions {
  /** Characters shown before the focused span (at most). */
  before: number;
  /** Characters in the whole window (at most, unless one word is longer). */
  width: number;
  ellipsis?: string;
  /** The span to show (default: the first answer span, else the first match span). */
  focus?: DisplaySpan;
}

/**
 * A window of `d` around its first highlight (the first answer span if any,
 * else the first match span), cut only between words (or CJK characters):
 * a row never starts mid-word, the highlight sits near the start so a narrow
 * side bar shows it, "…" marks each cut (never two in a row).
 */
export function windowDisplay(d: DisplayText, o: WindowOptions): DisplayText {
  const t = d.text;
  const ell = o.ellipsis ?? "…";
  const focus = o.focus ?? d.answer[0] ?? d.match[0];
  let start = 0;
  if (focus && focus.start > o.before) {
    start = focus.start - o.before;
    while (start < focus.start && !boundary(t, start)) start++;
    while (start < focus.start && isSpace(t[start])) start++;
  }
  let end = Math.min(t.length, start + o.width);
  if (end < t.length) {
    const min = focus ? Math.min(focus.end, start + o.width) : start + 1;
    let k = end;
    while (k > min && !boundary(t, k)) k--;
    if (k > min || boundary(t, k)) end = k;
    else {
      // one long word: cut at the next boundary instead
      while (end < t.length && !boundary(t, end)) end++;
    }
    while (end > start && isSpace(t[end - 1])) end--;
  }
  if (start === 0 && end >= t.length) return d;
  const cutStart = start > 0;
  const cutEnd = end < t.length;
  let body = t.slice(start, end);
  let lead = "";
  if (cutStart && !body.startsWith(ell)) lead = `${ell} `;
  let tail = "";
  if (cutEnd && !body.endsWith(ell)) tail = ` ${ell}`;
  const shift = (list: DisplaySpan[]): DisplaySpan[] =>
    list
      .map((s) => ({ start: Math.max(s.start, start) - start + lead.length, end: Math.min(s.end, end) - start + lead.length, index: s.index }))
      .filter((s) => s.end > s.start);
  const code = d.code.map(([a, b]) => [Math.max(a, start) - start + lead.length, Math.min(b, end) - start + lead.length] as [number, number]).filter(([a, b]) => b > a);
  body = lead + body + tail;
  return { text: body, match: shift(d.match), answer: shift(d.answer), code, marks: shift(d.marks) };
}

/** A run of display text with what it is: a word match (its index), inside an answer, code, inside a mark. */
export interface DisplayRun {
  text: string;
  start: number;
  match?: number;
  answer?: number;
  code?: boolean;
  mark?: number;
}

/** `d` cut at every span edge: what a renderer walks to draw marks and code. */
export function displayRuns(d: DisplayText): DisplayRun[] {
  const cuts = new Set<number>([0, d.text.length]);
  for (const s of [...d.match, ...d.answer, ...d.marks]) cuts.add(s.start).add(s.end);
  for (const [a, b] of d.code) cuts.add(a).add(b);
  const at = [...cuts].filter((k) => k >= 0 && k <= d.text.length).sort((a, b) => a - b);
  const runs: DisplayRun[] = [];
  for (let k = 0; k + 1 < at.length; k++) {
    const a = at[k]!;
    const b = at[k + 1]!;
    if (b <= a) continue;
    const r: DisplayRun = { text: d.text.slice(a, b), start: a };
    const m = d.match.find((s) => s.start <= a && s.end >= b);
    if (m) r.match = m.index;
    const an = d.answer.find((s) => s.start <= a && s.end >= b);
    if (an) r.answer = an.index;
    if (d.code.some(([x, y]) => x <= a && y >= b)) r.code = true;
    const mk = d.marks.find((s) => s.start <= a && s.end >= b);
    if (mk) r.mark = mk.index;
    runs.push(r);
  }
  return runs;
}

/** The runs inside display range `[a, b)`, cut at its edges (e.g. the context before a hit's own lines). */
export function sliceRuns(runs: DisplayRun[], a: number, b: number): DisplayRun[] {
  const out: DisplayRun[] = [];
  for (const r of runs) {
    const s = Math.max(r.start, a);
    const e = Math.min(r.start + r.text.length, b);
    if (e > s) out.push({ ...r, text: r.text.slice(s - r.start, e - r.start), start: s });
  }
  return out;
}
