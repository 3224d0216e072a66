import { describe, expect, it } from "vitest";
import { Uri } from "vscode";
import { FakeTextDocument } from "./fake-vscode";
import { lineStartOffset, locateHit } from "../src/locate";
import { byteOf, bytes, hitFor } from "./helpers";

const JA = [
  "# 同期",
  "",
  "## 衝突 😀 の解決",
  "",
  "モバイルで同期の衝突が起きたら、🎉 設定を開いて「競合ファイル」を確認します。",
  "English text: resolve the sync conflict.",
  "",
].join("\n");

function textAt(doc: FakeTextDocument, [s, e]: [number, number]): string {
  return doc.getText({ start: doc.positionAt(s), end: doc.positionAt(e) } as never);
}

describe("locateHit: UTF-8 byte offsets to document positions", () => {
  it("selects Japanese and emoji spans exactly (bytes differ from UTF-16 units)", () => {
    const doc = new FakeTextDocument(Uri.file("/v/同期.md"), JA);
    const hit = hitFor(JA, "同期.md", "## 衝突", null, ["競合ファイル", "🎉 設定", "conflict"]);
    // Sanity: this test is only meaningful if bytes and UTF-16 offsets differ.
    expect(hit.byte_range[0]).not.toBe(JA.indexOf("## 衝突"));
    const loc = locateHit(doc.getText(), hit);
    expect(loc.quality).toBe("exact");
    expect(loc.spans.map((s) => textAt(doc, s))).toEqual(["🎉 設定", "競合ファイル", "conflict"]);
    const first = doc.positionAt(loc.selection[0]);
    expect(first.line).toBe(4);
    expect(JA.split("\n")[4].slice(first.character).startsWith("🎉 設定")).toBe(true);
  });

  it("keeps positions right in a CRLF file", () => {
    const crlf = JA.replace(/\n/g, "\r\n");
    const doc = new FakeTextDocument(Uri.file("/v/a.md"), crlf);
    const hit = hitFor(crlf, "a.md", "## 衝突", null, ["conflict"]);
    const loc = locateHit(doc.getText(), hit);
    expect(textAt(doc, loc.spans[0])).toBe("conflict");
    expect(doc.positionAt(loc.spans[0][0]).line).toBe(5);
  });

  it("maps spans through expanded_from ranges merged with a separator", () => {
    const file = "# A\n\nalpha 😀 one\n\n# B\n\nbeta two\n\n# C\n\ngamma 日本 three\n";
    const r1: [number, number] = [byteOf(file, "# A"), byteOf(file, "# B")];
    const r3: [number, number] = [byteOf(file, "# C"), bytes(file)];
    const piece = (r: [number, number]) => new TextDecoder().decode(new TextEncoder().encode(file).slice(r[0], r[1]));
    const content = piece(r1) + "\n…\n" + piece(r3); // non-adjacent ranges, joined by the daemon
    const span = (t: string): [number, number] => [byteOf(content, t), byteOf(content, t) + bytes(t)];
    const hit = {
      ...hitFor(file, "x.md", "# C", null, []),
      content,
      match_spans: [span("😀"), span("日本")],
      expanded_from: [
        { chunk_id: 1, byte_range: r1, line_range: [1, 4] as [number, number] },
        { chunk_id: 3, byte_range: r3, line_range: [9, 11] as [number, number] },
      ],
    };
    const doc = new FakeTextDocument(Uri.file("/v/x.md"), file);
    const loc = locateHit(file, hit);
    expect(loc.spans.map((s) => textAt(doc, s))).toEqual(["😀", "日本"]);
    expect(doc.positionAt(loc.spans[1][0]).line).toBe(10);
  });

  it("finds the text when lines were inserted above it after indexing", () => {
    const hit = hitFor(JA, "a.md", "## 衝突", null, ["競合ファイル"]);
    const edited = "新しい行\n追加 😀\n" + JA;
    const loc = locateHit(edited, hit);
    expect(loc.quality).toBe("moved");
    const doc = new FakeTextDocument(Uri.file("/v/a.md"), edited);
    expect(textAt(doc, loc.spans[0])).toBe("競合ファイル");
  });

  it("falls back to the hit's first line when the text is gone", () => {
    const hit = hitFor(JA, "a.md", "English", null, ["sync"]);
    const rewritten = JA.replace("English text: resolve the sync conflict.", "rewritten");
    const loc = locateHit(rewritten, hit);
    expect(loc.quality).toBe("lines");
    expect(loc.spans).toEqual([]);
    expect(loc.selection[0]).toBe(lineStartOffset(rewritten, 6));
  });

  it("lands on the chunk start when the hit has no lexical span", () => {
    const hit = hitFor(JA, "a.md", "## 衝突", null, []);
    const loc = locateHit(JA, hit);
    expect(loc.selection).toEqual([JA.indexOf("## 衝突"), JA.indexOf("## 衝突")]);
  });
});

describe("locateHit on a canvas (ADR 0195): spans inside a card's JSON string", () => {
  const card = 'Pour-over "coffee" at 94°C 😀\nthen rest';
  const file = ['{', '\t"nodes":[', '\t\t{"id":"a","type":"text","text":' + JSON.stringify(card) + ',"x":0,"y":0,"width":1,"height":1}', "\t]", "}"].join("\n");
  const written = JSON.stringify(card).slice(1, -1);
  const content = card + "\n";
  const span = (t: string): [number, number] => [byteOf(content, t), byteOf(content, t) + bytes(t)];
  const hit = {
    ...hitFor(file, "Board.canvas", written, null, []),
    content,
    match_spans: [span("coffee"), span("rest")],
    byte_range: [byteOf(file, written), byteOf(file, written) + bytes(written)] as [number, number],
    line_range: [3, 3] as [number, number],
  };

  it("selects each match where the card text is written, escapes walked", () => {
    const doc = new FakeTextDocument(Uri.file("/v/Board.canvas"), file);
    const loc = locateHit(doc.getText(), hit);
    expect(loc.quality).toBe("exact");
    expect(loc.spans.map((s) => textAt(doc, s))).toEqual(["coffee", "rest"]);
    expect(doc.positionAt(loc.selection[0]).line).toBe(2);
  });

  it("lands on the card's line when the canvas was written with other escapes", () => {
    const ascii = file.replace(written, JSON.stringify(card).slice(1, -1).replace("°", "\\u00b0"));
    const doc = new FakeTextDocument(Uri.file("/v/Board.canvas"), ascii);
    const loc = locateHit(doc.getText(), hit);
    expect(loc.quality).toBe("lines");
    expect(doc.positionAt(loc.selection[0]).line).toBe(2);
  });
});
