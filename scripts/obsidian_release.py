"""Stage the Obsidian plugin's release files and check them against the
community-plugin rules.

    python3 scripts/obsidian_release.py stage dist/obsidian   # copy + check (make obsidian-release)
    python3 scripts/obsidian_release.py check dist/obsidian   # check a staged folder

A release is a GitHub release whose tag is the manifest's version, with
main.js, manifest.json and styles.css attached; versions.json (plugin
version -> minimum app version) and LICENSE sit beside them in the repo.
The rules are the ones Obsidian's submission docs, its review bot
(validate-plugin-entry) and its ESLint `validate-manifest` rule enforce;
each problem names the rule. Standard library only.
"""

from __future__ import annotations

import json
import re
import shutil
import sys
from dataclasses import dataclass
from pathlib import Path

ROOT = Path(__file__).resolve().parents[1]
PLUGIN = ROOT / "obsidian-plugin"
RELEASE_FILES = ("main.js", "manifest.json", "styles.css", "versions.json", "LICENSE")
SOURCES = {name: PLUGIN / name for name in RELEASE_FILES[:4]} | {"LICENSE": ROOT / "LICENSE"}

REQUIRED = {"id": str, "name": str, "version": str, "minAppVersion": str, "description": str,
            "author": str, "isDesktopOnly": bool}
OPTIONAL = {"authorUrl": str, "fundingUrl": (str, dict)}
VERSION = re.compile(r"^\d+\.\d+\.\d+$")  # x.y.z: the release tag, no "v"
DESCRIPTION_CHARS = re.compile(r"""^[A-Za-z0-9\s.,!?'"-]+$""")  # no emoji or special characters


@dataclass(frozen=True)
class Problem:
    file: str
    rule: str

    def __str__(self) -> str:
        return f"{self.file}: {self.rule}"


def _word(word: str, text: str) -> bool:
    return re.search(rf"\b{word}\b", text, re.IGNORECASE) is not None


def check_manifest(m: object) -> list[Problem]:
    out: list[Problem] = []

    def bad(rule: str) -> None:
        out.append(Problem("manifest.json", rule))

    if not isinstance(m, dict):
        return [Problem("manifest.json", "must be one JSON object")]
    for key, typ in REQUIRED.items():
        if key not in m:
            bad(f"missing required field '{key}'")
        elif not isinstance(m[key], typ):
            bad(f"'{key}' must be a {typ.__name__}")
    for key in m:
        if key not in REQUIRED and key not in OPTIONAL:
            bad(f"'{key}' is not an allowed field (allowed: {', '.join([*REQUIRED, *OPTIONAL])})")
    pid, name, desc = (str(m.get(k, "")) for k in ("id", "name", "description"))
    if not re.fullmatch(r"[a-z0-9_-]+", pid):
        bad("id may use only lowercase letters, digits, '-' and '_'")
    if "obsidian" in pid.lower():
        bad("id must not contain 'obsidian'")
    if pid.lower().endswith("plugin"):
        bad("id must not end with 'plugin'")
    for field, text in (("name", name), ("description", desc)):
        for word in ("obsidian", "plugin"):
            if _word(word, text):
                bad(f"{field} must not contain the word '{word}'")
    if name.lower().startswith("obsi") or name.lower().endswith("dian"):
        bad("name must not start with 'Obsi' or end with 'dian'")
    if not 10 <= len(desc) <= 250:
        bad(f"description must be 10-250 characters (is {len(desc)})")
    if desc and not desc[0].isupper():
        bad("description must start with a capital letter")
    if not desc.endswith("."):
        bad("description must end with a period")
    if desc and not DESCRIPTION_CHARS.match(desc):
        odd = sorted({c for c in desc if not DESCRIPTION_CHARS.match(c)})
        bad(f"description must not use emoji or special characters (found {' '.join(odd)!s})")
    if re.match(r"this (is an? )?plugin", desc, re.IGNORECASE):
        bad("description must say what the plugin does, not start with 'This plugin'")
    for key in ("version", "minAppVersion"):
        if isinstance(m.get(key), str) and not VERSION.match(m[key]):
            bad(f"{key} must be x.y.z (numbers and dots; the release tag has no 'v'), got {m[key]!r}")
    for key in ("authorUrl", "fundingUrl"):
        if isinstance(m.get(key), str) and "obsidian.md" in m[key]:
            bad(f"{key} must not point to the Obsidian website")
    if "author" in m and re.fullmatch(r"[^@\s]+@[^@\s]+\.[^@\s]+", str(m["author"])):
        bad("author should be a name, not an e-mail address")
    return out


def check_versions(versions: object, manifest: dict) -> list[Problem]:
    if not isinstance(versions, dict) or not versions:
        return [Problem("versions.json", "must map each plugin version to its minimum app version")]
    out = [Problem("versions.json", f"{k!r}: {v!r} must map x.y.z to x.y.z")
           for k, v in versions.items() if not (VERSION.match(str(k)) and VERSION.match(str(v)))]
    ver, app = manifest.get("version"), manifest.get("minAppVersion")
    if ver not in versions:
        out.append(Problem("versions.json", f"has no entry for the manifest's version {ver!r}"))
    elif versions[ver] != app:
        out.append(Problem("versions.json", f"maps {ver} to {versions[ver]!r}, the manifest says minAppVersion {app!r}"))
    return out


def check_folder(folder: Path, package_json: Path | None = PLUGIN / "package.json") -> list[Problem]:
    """Every release file present and sane, manifest and versions.json by the rules."""
    out: list[Problem] = []
    for name in RELEASE_FILES:
        p = folder / name
        if not p.is_file() or p.stat().st_size == 0:
            out.append(Problem(name, "missing or empty"))
    try:
        manifest = json.loads((folder / "manifest.json").read_text(encoding="utf-8"))
    except (OSError, ValueError) as e:
        return [*out, Problem("manifest.json", f"not readable JSON: {e}")]
    out += check_manifest(manifest)
    try:
        out += check_versions(json.loads((folder / "versions.json").read_text(encoding="utf-8")),
                              manifest if isinstance(manifest, dict) else {})
    except (OSError, ValueError) as e:
        out.append(Problem("versions.json", f"not readable JSON: {e}"))
    if package_json and package_json.is_file() and isinstance(manifest, dict):
        pkg = json.loads(package_json.read_text(encoding="utf-8")).get("version")
        if pkg != manifest.get("version"):
            out.append(Problem("manifest.json", f"version {manifest.get('version')!r} differs from package.json's {pkg!r}"))
    main = folder / "main.js"
    if main.is_file():
        text = main.read_text(encoding="utf-8", errors="replace")
        if "sourceMappingURL=data:" in text:
            out.append(Problem("main.js", "carries an inline source map: build for production"))
        if "module.exports" not in text and "exports." not in text:
            out.append(Problem("main.js", "is not a CommonJS bundle (Obsidian loads main.js with require)"))
    if (folder / "LICENSE").is_file() and not (folder / "LICENSE").read_text(encoding="utf-8").strip():
        out.append(Problem("LICENSE", "is empty"))
    return out


def stage(folder: Path) -> list[Problem]:
    """Copy the release files into ``folder`` (emptied first), then check it."""
    if folder.exists():
        shutil.rmtree(folder)
    folder.mkdir(parents=True)
    for name, src in SOURCES.items():
        if src.is_file():
            shutil.copy2(src, folder / name)
    return check_folder(folder)


def main(argv: list[str]) -> int:
    if len(argv) != 3 or argv[1] not in {"stage", "check"}:
        print(__doc__.strip().split("\n\n")[1], file=sys.stderr)
        return 2
    folder = Path(argv[2])
    problems = stage(folder) if argv[1] == "stage" else check_folder(folder)
    for p in problems:
        print(f"obsidian release: {p}", file=sys.stderr)
    if problems:
        return 1
    files = ", ".join(f"{n} ({(folder / n).stat().st_size:,} B)" for n in RELEASE_FILES)
    print(f"obsidian release OK in {folder}: {files}")
    return 0


if __name__ == "__main__":
    sys.exit(main(sys.argv))
