"""The wire's named types (``wire/rpc.py``, ``wire/envelope.py``) are what the code sends:
connect-info, the error object, the error codes' names."""

from __future__ import annotations

import ast
from pathlib import Path

from groove.daemon import discovery, protocol
from groove.errors import BadQuery, InvalidArgument, NoteNotFound
from groove.wire.rpc import ERROR_CODES, ERROR_NAMES
from wirecheck import problems

WIRE = Path(__file__).resolve().parents[1] / "backend" / "groove" / "wire"


def test_connect_info_is_the_declared_type(tmp_path):
    vault = tmp_path / "v"
    vault.mkdir()
    info = discovery.connect_info(vault, with_token=False)
    assert problems(info, "ConnectInfo") == []
    assert problems({**info, "port": 1}, "ConnectInfo") == ["undeclared key ConnectInfo.port"]


def test_error_objects_are_the_declared_type_and_every_code_has_a_name():
    for exc in (BadQuery("x"), InvalidArgument("y", param="limit"), NoteNotFound("z"), RuntimeError("boom")):
        err = protocol.error_for(exc).to_json()
        assert problems(err, "JsonRpcError") == []
        assert problems({"jsonrpc": "2.0", "id": 1, "error": err}, "JsonRpcResponse") == []
        assert err["code"] in ERROR_CODES
    assert sorted(ERROR_NAMES.values()) == sorted(set(ERROR_CODES))


def test_the_wire_package_imports_nothing_of_groove_above_it():
    # The floor layer: every other package may name its types, so it names none of theirs.
    for f in WIRE.glob("*.py"):
        for node in ast.walk(ast.parse(f.read_text(encoding="utf-8"))):
            if isinstance(node, ast.ImportFrom) and node.level >= 2:
                raise AssertionError(f"{f.name} imports ..{node.module}")
            if isinstance(node, ast.ImportFrom) and node.level == 0 and (node.module or "").startswith("groove"):
                assert (node.module or "").startswith("groove.wire"), f"{f.name} imports {node.module}"


def test_the_cli_daemon_path_reads_the_codes_without_typing_imports():
    # `groove search` against a running daemon imports the client, the codes
    # and the search result: none of that may pull typing_extensions or
    # pydantic in (the envelope's TypedDicts live apart, in envelope.py).
    import os
    import subprocess
    import sys

    probe = ("import sys, groove.daemon.client, groove.wire.rpc, groove.wire.search; "
             "print('typing_extensions' in sys.modules, 'pydantic' in sys.modules)")
    env = {**os.environ, "PYTHONPATH": str(WIRE.parents[1])}
    out = subprocess.run([sys.executable, "-c", probe], capture_output=True, text=True, env=env, timeout=60)
    assert out.returncode == 0, out.stderr
    assert out.stdout.split() == ["False", "False"]
