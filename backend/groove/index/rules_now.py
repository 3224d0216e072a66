"""What the index returns, under the vault's rules as they are now (ADR 0235).

The index holds what the last run let in; ``.grooveignore`` or Obsidian's
Excluded files may have changed since, with no daemon to reindex (issue 50
R6). ``left_out`` is the notes the index holds that the live rules
(``vault/rules.py`` ``ignore_rules``, the read gate's own) leave out now:
search drops them inside every leg (pipeline/filters.py), and list_notes,
recent_notes, list_tags, related notes and the resource list leave them out
before they count or page. The answer is kept per index version and rule
version, and each path's verdict per rule version, so a search after an edit
judges only the new paths.

``attach`` and ``keep`` tie the rules' last good copy (ADR 0236) to the index:
kept at each index run, read back only when a rule file cannot be used.
"""

from __future__ import annotations

from dataclasses import dataclass
from pathlib import Path

from ..storage.db import Index
from ..vault import rules as vault_rules
from ..vault.rules import IgnoreRules, ignore_rules
from ..vault.scan import NoteFile, Skipped, scan_vault
from .notes import documents_signature

META_KEY = "rules_last_good"
INDEXED_KEY = "rules_indexed"  # the fingerprint of the rules the last full run walked with


def attach(idx: Index, vault: Path) -> None:
    """Let the rules fall back on the copy this index kept (read only when needed)."""
    vault_rules.remember_with(vault, lambda: idx.get_meta(META_KEY))


def keep(idx: Index, vault: Path) -> None:
    """Keep the rules last read good in the index, for a later process."""
    saved = vault_rules.last_good(vault)
    if saved is not None and saved != idx.get_meta(META_KEY):
        idx.set_meta(META_KEY, saved)


@dataclass(frozen=True)
class LeftOut:
    rules: IgnoreRules
    ids: frozenset[int]  # documents.id of each indexed note the rules leave out now
    paths: frozenset[str]

    @property
    def warnings(self) -> list[str]:
        out = list(self.rules.warnings)
        if self.ids:
            out.append(f"{len(self.ids)} indexed notes are left out by the vault's rules as they are now "
                       "(changed since the last index): they are not shown; `groove index` removes them")
        return out


def _skips_name(rules: IgnoreRules, path: str, folders: dict[str, bool]) -> bool:
    """``rules.skips_name(path)``, each folder judged once for all its notes."""
    parts = path.split("/")
    for i in range(1, len(parts)):
        folder = "/".join(parts[:i])
        out = folders.get(folder)
        if out is None:
            out = folders[folder] = rules.skips_dir(folder)
        if out:
            return True
    return rules.skips_file(path)


@dataclass(frozen=True)
class Walk:
    files: list[NoteFile]
    skipped: list[Skipped]
    warned: list[tuple[str, str]]  # (rule file, warning)
    fingerprint: str | None  # of the rules the walk used; None when they changed during it


def scan(idx: Index, vault: Path) -> Walk:
    """An index run's walk: with the last good rules this index kept to fall
    back on, and keeping the rules it read good for the next process."""
    attach(idx, vault)
    before = ignore_rules(vault)
    files, skipped = scan_vault(vault)
    rules = ignore_rules(vault)
    keep(idx, vault)
    return Walk(files, skipped, rules.warned, rules.fingerprint if rules.fingerprint == before.fingerprint else None)


def indexed_with(idx: Index, fingerprint: str) -> None:
    """A full run walked with these rules: the index holds no note they leave out by name."""
    if idx.get_meta(INDEXED_KEY) != fingerprint:
        idx.set_meta(INDEXED_KEY, fingerprint)


def left_out(idx: Index, vault: Path) -> LeftOut:
    rules = ignore_rules(vault)
    sig = documents_signature(idx)
    held: tuple[IgnoreRules, tuple, LeftOut] | None = idx.derived.get("left_out")
    if held is not None and held[0] is rules and held[1] == sig:
        return held[2]
    if idx.get_meta(INDEXED_KEY) == rules.fingerprint:
        # The rules the last full run walked with, unchanged: nothing indexed is left out by
        # them (a partial run adds only what the walk takes). No row needs reading.
        answer = LeftOut(rules, frozenset(), frozenset())
        idx.derived["left_out"] = (rules, sig, answer)
        return answer
    memo: tuple[IgnoreRules, dict[str, bool]] | None = idx.derived.get("left_out_verdicts")
    verdicts = memo[1] if memo is not None and memo[0] is rules else {}
    ids: set[int] = set()
    paths: set[str] = set()
    folders: dict[str, bool] = {}
    for doc_id, path in idx.conn.execute("SELECT id, path FROM documents"):
        out = verdicts.get(path)
        if out is None:
            out = verdicts[path] = _skips_name(rules, path, folders)
        if out:
            ids.add(int(doc_id))
            paths.add(path)
    answer = LeftOut(rules, frozenset(ids), frozenset(paths))
    idx.derived["left_out_verdicts"] = (rules, verdicts)
    idx.derived["left_out"] = (rules, sig, answer)
    return answer
