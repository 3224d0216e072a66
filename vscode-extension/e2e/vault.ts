/** The test vault: English and Japanese notes, wikilinks to headings, and the folders that do and do not use groove. */
import * as fs from "node:fs";
import * as path from "node:path";

export const NOTES: Record<string, string> = {
  ".obsidian/app.json": "{}\n",
  "Sync/Conflicts.md": [
    "# Conflicts",
    "",
    "## Resolving sync conflicts",
    "",
    "When two devices edit the same note offline, the sync service keeps both versions and marks a conflict.",
    "Open the conflict file and merge the paragraphs by hand.",
    "",
    "## Backups",
    "",
    "Nightly backups are stored in the archive folder.",
    "",
  ].join("\n"),
  "Sync/Mobile sync.md": [
    "# Mobile sync",
    "",
    "## Setting up sync on the phone",
    "",
    "Install the app, sign in and pick the vault. Sync runs in the background, so the notes on your phone and your laptop stay the same.",
    "",
  ].join("\n"),
  "日本語/会議メモ.md": "# 会議メモ\r\n\r\n## 予算の承認\r\n\r\n来期の予算について議論し、承認された。🎉 次回の会議は月曜日。\r\n\r\n## 議事録の共有\r\n\r\n議事録はチームの共有フォルダに保存する。\r\n",
  "日本語/旅行計画.md": "# 旅行計画\r\n\r\n## 京都\r\n\r\n春に京都へ行く予定。🌸 桜の季節はホテルが混む。\r\n\r\n## 予算の内訳\r\n\r\n宿は三万円、交通は一万五千円。予算の残りは食事に使う。\r\n",
  "Cooking/Bread.md": "# Bread\n\nSourdough needs a lively starter, flour, water and salt. Bake at 250 degrees.\n",
  "Home.md": [
    "# Home",
    "",
    "Start here.",
    "",
    "- When sync goes wrong: [[Conflicts#Backups]]",
    "- On the phone: [[Mobile sync]]",
    "- 会議: [[会議メモ#議事録の共有|議事録]]",
    "",
  ].join("\n"),
};

export function writeNotes(dir: string, notes: Record<string, string>): void {
  for (const [rel, text] of Object.entries(notes)) {
    const p = path.join(dir, rel);
    fs.mkdirSync(path.dirname(p), { recursive: true });
    fs.writeFileSync(p, text);
  }
}

/** 1-based line of the first line of `text` equal to `line`. */
export function lineOf(text: string, line: string): number {
  const i = text.split(/\r?\n/).indexOf(line);
  if (i < 0) throw new Error(`no line "${line}"`);
  return i + 1;
}
