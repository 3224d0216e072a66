"""A folder where the daemon's socket (or lock, state, log) goes is a
message naming it, not an IsADirectoryError (issue 50 R13)."""

from __future__ import annotations

import subprocess
import sys

from groove.daemon import discovery

from .conftest import daemon_env, make_vault


def test_a_folder_where_the_socket_goes_is_named(groove_home, tiny_model, tmp_path):
    vault = make_vault(tmp_path, 2)
    env = daemon_env(groove_home)
    for which in ("socket", "state"):
        files = discovery.files_for(vault)
        path = files.socket if which == "socket" else files.state
        path.mkdir()
        try:
            r = subprocess.run([sys.executable, "-m", "groove", "serve", "--vault", str(vault), "--foreground",
                                "--model", str(tiny_model)], env=env, capture_output=True, text=True, timeout=120)
        finally:
            path.rmdir()
        assert r.returncode != 0
        assert "Traceback" not in r.stderr and "IsADirectoryError" not in r.stderr, r.stderr
        assert f"a folder is where groove's {which}" in r.stderr and str(path) in r.stderr, r.stderr
