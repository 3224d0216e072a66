"""The Obsidian release files obey the community-plugin rules
(scripts/obsidian_release.py, run by `make obsidian-release`), and each rule
catches the mistake it is for."""

from __future__ import annotations

import importlib.util
import json
import shutil
import subprocess
import sys
from pathlib import Path

import pytest

ROOT = Path(__file__).resolve().parents[2]
_spec = importlib.util.spec_from_file_location("obsidian_release", ROOT / "scripts" / "obsidian_release.py")
rel = importlib.util.module_from_spec(_spec)
sys.modules["obsidian_release"] = rel  # dataclasses look their module up there
_spec.loader.exec_module(rel)  # type: ignore[union-attr]

MANIFEST = json.loads((ROOT / "obsidian-plugin" / "manifest.json").read_text(encoding="utf-8"))


def test_the_repos_manifest_and_versions_json_pass_every_rule():
    versions = json.loads((ROOT / "obsidian-plugin" / "versions.json").read_text(encoding="utf-8"))
    assert rel.check_manifest(MANIFEST) == []
    assert rel.check_versions(versions, MANIFEST) == []


@pytest.mark.parametrize("change, rule", [
    ({"id": "obsidian-groove"}, "id must not contain 'obsidian'"),
    ({"id": "groove-plugin"}, "id must not end with 'plugin'"),
    ({"id": "Groove Search"}, "id may use only lowercase"),
    ({"name": "Obsidian groove"}, "name must not contain the word 'obsidian'"),
    ({"name": "groove plugin"}, "name must not contain the word 'plugin'"),
    ({"description": "Search notes: by meaning."}, "special characters (found :)"),
    ({"description": "Search notes by meaning 🔍."}, "special characters"),
    ({"description": "Search notes by meaning"}, "must end with a period"),
    ({"description": "search notes by meaning."}, "start with a capital letter"),
    ({"description": "A" * 250 + "."}, "10-250 characters (is 251)"),
    ({"description": "This plugin searches notes."}, "not start with 'This plugin'"),
    ({"description": "Search your Obsidian vault."}, "description must not contain the word 'obsidian'"),
    ({"version": "v0.1.0"}, "version must be x.y.z"),
    ({"minAppVersion": "1.7"}, "minAppVersion must be x.y.z"),
    ({"isDesktopOnly": "yes"}, "'isDesktopOnly' must be a bool"),
    ({"homepage": "https://example.org"}, "'homepage' is not an allowed field"),
    ({"authorUrl": "https://obsidian.md"}, "authorUrl must not point to the Obsidian website"),
])
def test_each_manifest_rule_catches_its_mistake(change, rule):
    problems = [str(p) for p in rel.check_manifest({**MANIFEST, **change})]
    assert any(rule in p for p in problems), problems


def test_a_missing_required_field_is_named():
    m = {k: v for k, v in MANIFEST.items() if k != "minAppVersion"}
    assert "manifest.json: missing required field 'minAppVersion'" in [str(p) for p in rel.check_manifest(m)]


def test_versions_json_must_map_the_manifest_version_to_its_min_app_version():
    assert [str(p) for p in rel.check_versions({"0.0.9": "1.0.0"}, MANIFEST)] == [
        f"versions.json: has no entry for the manifest's version {MANIFEST['version']!r}"]
    bad = rel.check_versions({MANIFEST["version"]: "0.15.0"}, MANIFEST)
    assert len(bad) == 1 and "minAppVersion" in str(bad[0])


@pytest.fixture
def staged(tmp_path) -> Path:
    """The release folder as `make obsidian-release` stages it, with a freshly built main.js."""
    if not (ROOT / "node_modules" / "esbuild").is_dir() or shutil.which("node") is None:
        pytest.skip("node_modules (npm ci) and node are needed to build main.js")
    r = subprocess.run(["node", "esbuild.config.mjs"], cwd=ROOT / "obsidian-plugin", capture_output=True,
                       text=True, timeout=120)
    assert r.returncode == 0, r.stderr
    out = tmp_path / "obsidian"
    r = subprocess.run([sys.executable, str(ROOT / "scripts" / "obsidian_release.py"), "stage", str(out)],
                       capture_output=True, text=True, timeout=60)
    assert r.returncode == 0, r.stderr
    assert "obsidian release OK" in r.stdout
    return out


def test_the_staged_release_has_the_five_files_and_passes(staged):
    assert sorted(p.name for p in staged.iterdir()) == sorted(rel.RELEASE_FILES)
    assert rel.check_folder(staged) == []


def test_a_staged_release_without_styles_or_license_fails(staged):
    (staged / "styles.css").unlink()
    (staged / "LICENSE").write_text("")
    assert {str(p) for p in rel.check_folder(staged)} >= {"styles.css: missing or empty", "LICENSE: missing or empty"}
    r = subprocess.run([sys.executable, str(ROOT / "scripts" / "obsidian_release.py"), "check", str(staged)],
                       capture_output=True, text=True, timeout=60)
    assert r.returncode == 1 and "styles.css: missing or empty" in r.stderr


def test_a_version_bump_in_the_manifest_alone_is_caught(staged):
    m = json.loads((staged / "manifest.json").read_text(encoding="utf-8"))
    (staged / "manifest.json").write_text(json.dumps({**m, "version": "9.9.9"}), encoding="utf-8")
    problems = [str(p) for p in rel.check_folder(staged)]
    assert any("differs from package.json" in p for p in problems)
    assert any("no entry for the manifest's version '9.9.9'" in p for p in problems)
