"""The vault's rules: which files are part of the vault (ADR 0150, 0190).

``ignore_rules(vault)`` is the one live rule check (ADR 0235): the walk, the
watcher, the link resolver, the read gate and every list the index answers
with ask it, and it reads ``.grooveignore`` and ``.obsidian/app.json`` as
they are on disk now. The answer is kept while neither file's stat (mtime,
size, inode, ctime) moves, so asking costs two ``stat`` calls.

A rule file that cannot be used fails closed (ADR 0236): one bad
``.grooveignore`` line or ``userIgnoreFilters`` entry is skipped with its
line or entry named, the others apply; an app.json that is not JSON (a
half-written sync) or a file that cannot be read keeps the last good rules
(remembered in this process and, through ``remember_with``, in the index),
with a warning on every surface.
"""

from __future__ import annotations

import hashlib
import json
import os
import re
import stat
import threading
import time
from collections.abc import Callable
from dataclasses import dataclass
from pathlib import Path
from typing import TYPE_CHECKING

if TYPE_CHECKING:
    import pathspec

    from ..wire.status_types import ExclusionSource

# Folders that are never notes. Hidden folders (".anything") are skipped too.
SKIP_DIRS = {".obsidian", ".trash", ".git", "node_modules"}
IGNORE_FILE = ".grooveignore"
OBSIDIAN_APP_FILE = ".obsidian/app.json"  # Settings → Files and links → Excluded files (ADR 0190)
OBSIDIAN_RULE = "Obsidian's Excluded files"
RACY_NS = 2_000_000_000  # a rule file changed this recently is read again (its stat may not move on the next write)


class _Unusable(Exception):
    """A rule file that cannot be used as it is now; the message says why."""


def _read_ignore_lines(vault: Path) -> list[str] | None:
    """.grooveignore's lines; None when there is no such file."""
    f = vault / IGNORE_FILE
    try:
        data = f.read_bytes()
    except FileNotFoundError:
        return None
    except IsADirectoryError:
        raise _Unusable(f"{IGNORE_FILE} is a folder, not a file") from None
    except OSError as e:
        raise _Unusable(f"{IGNORE_FILE} cannot be read ({e.strerror or e})") from None
    return data.decode("utf-8", errors="replace").splitlines()


def _ignore_spec(lines: list[str]) -> tuple[pathspec.GitIgnoreSpec, tuple[str, ...], list[str]]:
    """The spec of every line pathspec can read; each other line is named
    with its number and skipped (issue 50 R4: one '!' or '[z-a]' must not
    end an index run, a status or the daemon's watcher)."""
    import pathspec  # 7 ms: only a walk needs it, not the CLI's daemon path

    good: list[str] = []
    warnings: list[str] = []
    for n, line in enumerate(lines, start=1):
        try:
            pathspec.GitIgnoreSpec.from_lines([line]).match_file("probe")
        except (ValueError, re.error, TypeError, IndexError) as e:
            shown = line if len(line) <= 80 else line[:77] + "..."
            warnings.append(f"{IGNORE_FILE} line {n} ({shown!r}) cannot be read ({e}): that line is skipped, "
                            "the other lines apply; fix or remove it")
            continue
        good.append(line)
    return pathspec.GitIgnoreSpec.from_lines(good), tuple(warnings), good


@dataclass(frozen=True)
class ObsidianFilters:
    """Obsidian's ``userIgnoreFilters`` as Obsidian applies them (ADR 0190):
    an entry between slashes is a regular expression searched in the
    vault-relative path; any other entry is a prefix of that path (the
    folder picker writes ``Templates/``; ``Templates`` also covers
    ``Templates 2/``, as in Obsidian). An entry Python cannot compile is a
    warning and skipped; an app.json that cannot be read keeps the last good
    entries (ADR 0236)."""

    prefixes: tuple[str, ...] = ()
    patterns: tuple[tuple[str, re.Pattern[str]], ...] = ()
    warnings: tuple[str, ...] = ()

    @property
    def entries(self) -> int:
        return len(self.prefixes) + len(self.patterns)

    def entry_for(self, rel: str) -> str | None:
        """The first entry that excludes the file at ``rel``, or None."""
        for p in self.prefixes:
            if rel.startswith(p):
                return p
        for entry, rx in self.patterns:
            if rx.search(rel):
                return entry
        return None

    def covers_dir(self, rel: str) -> bool:
        """Every path under the folder ``rel`` starts with a prefix entry
        (regexes are asked of each file: a folder's own name may not match)."""
        return any((rel + "/").startswith(p) for p in self.prefixes)


def _from_js(source: str) -> str:
    """A JavaScript regular expression's named groups in Python's spelling;
    the rest of the common syntax is the same in both."""
    source = re.sub(r"\(\?<(?=[A-Za-z_])", "(?P<", source)
    return re.sub(r"\\k<([A-Za-z_]\w*)>", r"(?P=\1)", source)


def _read_obsidian_entries(vault: Path) -> list | None:
    """app.json's ``userIgnoreFilters`` as written; None when there is no file or no such key."""
    f = vault / OBSIDIAN_APP_FILE
    try:
        raw = f.read_bytes()
    except FileNotFoundError:
        return None
    except OSError as e:
        raise _Unusable(f"{OBSIDIAN_APP_FILE} cannot be read ({e.strerror or e})") from None
    try:
        data = json.loads(raw.decode("utf-8-sig"))
    except (UnicodeDecodeError, ValueError) as e:
        raise _Unusable(f"{OBSIDIAN_APP_FILE} is not valid JSON ({e})") from None
    filters = data.get("userIgnoreFilters") if isinstance(data, dict) else None
    if filters is None:
        return None
    if not isinstance(filters, list):
        raise _Unusable(f"{OBSIDIAN_APP_FILE}: userIgnoreFilters is not a list")
    return filters


def _obsidian_filters(filters: list) -> ObsidianFilters:
    prefixes: list[str] = []
    patterns: list[tuple[str, re.Pattern[str]]] = []
    warnings: list[str] = []
    for entry in filters:
        if not isinstance(entry, str) or not entry:
            if entry != "":
                warnings.append(f"{OBSIDIAN_APP_FILE}: userIgnoreFilters entry {entry!r} is not a string: ignored")
            continue
        if len(entry) > 2 and entry.startswith("/") and entry.endswith("/"):
            try:
                patterns.append((entry, re.compile(_from_js(entry[1:-1]))))
            except (re.error, RecursionError, OverflowError) as e:
                warnings.append(f"{OBSIDIAN_APP_FILE}: userIgnoreFilters entry {entry!r} is a regular expression "
                                f"groove cannot read ({e}): that entry is not applied, the others are")
            continue
        prefixes.append(entry)
    return ObsidianFilters(tuple(prefixes), tuple(patterns), tuple(warnings))


@dataclass(frozen=True)
class IgnoreRules:
    """Which notes are part of the vault (ADR 0150), as predicates on
    vault-relative '/' paths: hidden and tool folders, hidden files,
    ``.grooveignore`` patterns and, when ``root`` is known, what symlinks
    lead to. The walk below, the watcher's batches (through the walk), the
    link resolver and the read gate (vault/gate.py) all ask these, so a name
    cannot reach what the walk leaves out."""

    spec: pathspec.GitIgnoreSpec | None
    root: Path | None = None  # the vault, resolved: links are followed only when known
    obsidian: ObsidianFilters | None = None  # .obsidian/app.json's userIgnoreFilters (ADR 0190)
    ignore_warnings: tuple[str, ...] = ()  # .grooveignore lines skipped, or the file kept from before (ADR 0236)
    fingerprint: str = ""  # of the lines and entries in force: equal fingerprints leave out the same names

    @property
    def warned(self) -> list[tuple[str, str]]:
        """Each warning with the rule file it is about."""
        return ([(IGNORE_FILE, w) for w in self.ignore_warnings]
                + [(OBSIDIAN_APP_FILE, w) for w in (self.obsidian.warnings if self.obsidian else ())])

    @property
    def warnings(self) -> tuple[str, ...]:
        return tuple(w for _, w in self.warned)

    def skips_dir(self, rel: str) -> bool:
        name = rel.rsplit("/", 1)[-1]
        return (name in SKIP_DIRS or name.startswith(".") or bool(self.spec and self.spec.match_file(rel + "/"))
                or bool(self.obsidian and self.obsidian.covers_dir(rel)))

    def skips_file(self, rel: str) -> bool:
        return (rel.rsplit("/", 1)[-1].startswith(".") or bool(self.spec and self.spec.match_file(rel))
                or bool(self.obsidian and self.obsidian.entry_for(rel) is not None))

    def rule_for(self, rel: str) -> str | None:
        """Which rule leaves the file at ``rel`` out by its name, in words, or None."""
        parts = rel.split("/")
        for i in range(1, len(parts) + 1):
            here = "/".join(parts[:i])
            name = parts[i - 1]
            if (name in SKIP_DIRS and i < len(parts)) or name.startswith("."):
                return f"the hidden or tool folder or file '{here}'"
            if self.spec and self.spec.match_file(here + ("/" if i < len(parts) else "")):
                return f"{IGNORE_FILE} ('{here}' matches a pattern there)"
        if self.obsidian:
            entry = self.obsidian.entry_for(rel)
            if entry is not None:
                return obsidian_rule(entry)
        return None

    def skips_name(self, rel: str) -> bool:
        """The rules on the name alone: a folder on the way or the file itself is left out."""
        parts = rel.split("/")
        return any(self.skips_dir("/".join(parts[:i])) for i in range(1, len(parts))) or self.skips_file(rel)

    def _skips_name_without_obsidian(self, rel: str) -> bool:
        return IgnoreRules(self.spec).skips_name(rel)

    def sources(self) -> list[ExclusionSource]:
        """The exclusion sources in force, for `groove status` and index_status."""
        out: list[ExclusionSource] = [{"rule": "hidden and tool folders", "entries": len(SKIP_DIRS)}]
        if self.spec is not None:
            out.append({"rule": IGNORE_FILE, "entries": sum(p.include is not None for p in self.spec.patterns)})
        if self.obsidian is not None:
            out.append({"rule": f"{OBSIDIAN_RULE} ({OBSIDIAN_APP_FILE} userIgnoreFilters)",
                        "entries": self.obsidian.entries,
                        "values": list(self.obsidian.prefixes) + [e for e, _ in self.obsidian.patterns]})
        return out

    def skips(self, rel: str) -> bool:
        """The walk never reaches or never takes the file at ``rel``."""
        return self.why_left_out(rel) is not None

    def why_left_out(self, rel: str) -> str | None:
        """Why the file at ``rel`` is not part of the vault, or None when it is."""
        if self.skips_name(rel):
            entry = self.obsidian.entry_for(rel) if self.obsidian else None
            if entry is not None and not self._skips_name_without_obsidian(rel):
                return obsidian_rule(entry)
            return LEFT_OUT_BY_RULES
        return self.link_reason(rel) if self.root is not None else None

    def link_reason(self, rel: str) -> str | None:
        """What the name's symlinks make of it: a path through a symlinked
        folder is not walked (the folder's notes are indexed by their own
        path, once); a symlinked note is taken only when its target is
        inside the vault and a note the rules take. Parts not on disk are
        left to the name rules."""
        assert self.root is not None
        parts = rel.split("/")
        here = self.root
        for i, part in enumerate(parts):
            here = here / part
            try:
                st = os.lstat(here)
            except OSError:
                return None
            if not stat.S_ISLNK(st.st_mode):
                continue
            if i < len(parts) - 1:
                return THROUGH_LINKED_FOLDER.format(folder="/".join(parts[:i + 1]))
            try:
                target = here.resolve().relative_to(self.root).as_posix()
            except (ValueError, OSError, RuntimeError):  # outside, or a loop
                return LINK_LEAVES
            if target == "." or self.skips_name(target):
                return LINK_TO_LEFT_OUT
        return None


LEFT_OUT_BY_RULES = "left out by the vault's rules (.grooveignore, hidden or tool folders)"
OBSIDIAN_REASON = "excluded by " + OBSIDIAN_RULE + " (userIgnoreFilters: {entry})"


def obsidian_rule(entry: str) -> str:
    return OBSIDIAN_REASON.format(entry=entry)


THROUGH_LINKED_FOLDER = ("a path through the symlinked folder '{folder}', which groove does not follow "
                         "(a note there is indexed under its own path)")
LINK_TO_LEFT_OUT = ("a symlink to a note the vault's rules leave out (.grooveignore, hidden or tool "
                    "folders): not indexed")
LINK_LEAVES = "symlink pointing outside the vault (not followed)"


# ----------------------------------------------------------------------------- the live check


@dataclass
class _Memory:
    """A vault's last good rule files, as read (ADR 0236)."""

    ignore: list[str] | None = None  # .grooveignore's lines (None: no file)
    obsidian: list | None = None  # userIgnoreFilters as written (None: none)
    known_ignore: bool = False  # whether ``ignore`` was ever read good
    known_obsidian: bool = False
    recall: Callable[[], str | None] | None = None  # reads what the index kept (set by the runtime)
    recalled: bool = False


_lock = threading.Lock()
_memory: dict[str, _Memory] = {}
_answers: dict[str, tuple[tuple, IgnoreRules]] = {}
_generation = 0  # bumped when a memory is seeded: answers made before are made again


def remember_with(vault: Path, recall: Callable[[], str | None]) -> None:
    """Where the last good rules were kept by an earlier process (the index's
    meta, read lazily: only when a rule file cannot be used now)."""
    with _lock:
        m = _memory.setdefault(str(Path(vault).resolve()), _Memory())
        m.recall, m.recalled = recall, False
        global _generation
        _generation += 1


def last_good(vault: Path) -> str | None:
    """The last good rules, as JSON for the index to keep; None when none were read."""
    with _lock:
        m = _memory.get(str(Path(vault).resolve()))
        if m is None or not (m.known_ignore or m.known_obsidian):
            return None
        out: dict = {}
        if m.known_ignore:
            out["grooveignore"] = m.ignore
        if m.known_obsidian:
            out["userIgnoreFilters"] = m.obsidian
        return json.dumps(out, sort_keys=True, ensure_ascii=False)


def _recalled(m: _Memory) -> None:
    """Fill what this process never read good from the index's copy."""
    if m.recalled or m.recall is None:
        return
    m.recalled = True
    try:
        saved = json.loads(m.recall() or "null")
    except Exception:  # noqa: BLE001 - an unreadable copy is no copy; the warning says none is known
        return
    if not isinstance(saved, dict):
        return

    def strings(v: object) -> bool:
        return v is None or (isinstance(v, list) and all(isinstance(x, str) for x in v))

    if not m.known_ignore and strings(saved.get("grooveignore", 0)):
        m.ignore, m.known_ignore = saved["grooveignore"], True
    if not m.known_obsidian and isinstance(saved.get("userIgnoreFilters", 0), (list, type(None))):
        m.obsidian, m.known_obsidian = saved["userIgnoreFilters"], True


def _stat_key(p: str) -> tuple[int, int, int, int] | None:
    try:
        st = os.stat(p)
    except OSError:
        return None
    return (st.st_mtime_ns, st.st_size, st.st_ino, st.st_ctime_ns)


def _build(vault: Path, m: _Memory) -> IgnoreRules:
    ignore_warnings: list[str] = []
    try:
        lines = _read_ignore_lines(vault)
        m.ignore, m.known_ignore = lines, True
    except _Unusable as e:
        _recalled(m)
        lines = m.ignore
        ignore_warnings.append(f"{e}: " + (
            "the last good .grooveignore still applies until it is fixed" if m.known_ignore else
            "NO earlier good copy is known, so its exclusions are NOT applied: notes it would leave out "
            "can be indexed and searched; fix the file"))
    spec = None
    good: list[str] | None = None
    if lines is not None:
        spec, skipped, good = _ignore_spec(lines)
        ignore_warnings += skipped
    try:
        entries = _read_obsidian_entries(vault)
        m.obsidian, m.known_obsidian = entries, True
        obsidian = _obsidian_filters(entries) if entries is not None else None
    except _Unusable as e:
        _recalled(m)
        kept = _obsidian_filters(m.obsidian) if m.known_obsidian and m.obsidian is not None else ObsidianFilters()
        if m.known_obsidian:
            said = (f"{e}: the last good {OBSIDIAN_RULE} ({kept.entries} entries) still apply until it is fixed; "
                    "fix the file or set them again in Obsidian")
        else:
            said = (f"{e}: NO earlier good copy is known, so {OBSIDIAN_RULE} are NOT applied: notes they exclude "
                    "can be indexed and searched; fix the file or set them again in Obsidian")
        obsidian = ObsidianFilters(kept.prefixes, kept.patterns, (said, *kept.warnings))
    in_force = [good, list(obsidian.prefixes) + [e for e, _ in obsidian.patterns] if obsidian else None]
    fingerprint = hashlib.blake2b(json.dumps(in_force).encode("utf-8", "surrogatepass"), digest_size=16).hexdigest()
    return IgnoreRules(spec, Path(vault), obsidian, tuple(ignore_warnings), fingerprint)


_roots: dict[str, Path] = {}


def _resolved(vault: Path) -> Path:
    """The vault folder resolved, kept by its spelling (resolving cost ~0.3 ms a call)."""
    root = _roots.get(str(vault))
    if root is None:
        if len(_roots) >= 64:
            _roots.clear()
        root = _roots[str(vault)] = Path(vault).resolve()
    return root


def ignore_rules(vault: Path) -> IgnoreRules:
    """The vault's rules as its rule files are now; the same object while
    neither file changed (a file changed in the last ``RACY_NS`` is read again)."""
    root = _resolved(vault)
    key = str(root)
    stats = (_stat_key(f"{key}/{IGNORE_FILE}"), _stat_key(f"{key}/{OBSIDIAN_APP_FILE}"))
    with _lock:
        held = _answers.get(key)
        if held is not None and held[0] == (stats, _generation):
            return held[1]
        m = _memory.setdefault(key, _Memory())
        rules = _build(root, m)
        now = time.time_ns()
        settled = all(s is None or now - max(s[0], s[3]) > RACY_NS for s in stats)
        if settled:
            if len(_answers) >= 16:
                _answers.clear()
            _answers[key] = ((stats, _generation), rules)
        else:
            _answers.pop(key, None)
        return rules
