"""Real daemons for the daemon tests: `python -m groove.daemon` subprocesses
on temp vaults, with GROOVE_HOME isolating sockets, tokens, indexes and logs,
the token forced into the 0600 file store (never the developer's keyring),
and the tiny random BERT GGUF as the embedding model.
"""

from __future__ import annotations

import os
import shutil
import signal
import subprocess
import sys
import tempfile
import time
from collections.abc import Callable, Iterator
from pathlib import Path

import pytest

sys.path.insert(0, str(Path(__file__).resolve().parents[1]))
from groove.daemon import discovery  # noqa: E402
from groove.daemon.client import DaemonClient  # noqa: E402
from tinymodels import write_tiny_bert_embedder  # noqa: E402


@pytest.fixture(scope="session")
def tiny_model(tmp_path_factory: pytest.TempPathFactory) -> Path:
    return write_tiny_bert_embedder(tmp_path_factory.mktemp("models") / "tiny-bert.gguf")


def make_vault(root: Path, n: int = 30, debounce_ms: int = 150) -> Path:
    vault = root / "vault"
    vault.mkdir(parents=True)
    (vault / "groove.toml").write_text(f"[watch]\ndebounce_ms = {debounce_ms}\n", encoding="utf-8")
    topics = ["coffee", "tea", "garden", "python code", "travel japan", "music", "bread recipe", "meeting notes"]
    for i in range(n):
        folder = vault / ("projects" if i % 3 == 0 else "journal")
        folder.mkdir(exist_ok=True)
        t = topics[i % len(topics)]
        (folder / f"note{i:03d}.md").write_text(
            f"# Note {i} about {t}\n\nThis is a note on {t} and the day {i}.\n\n"
            f"## Details\n\nMore on {t}: ideas, plans, books and links.\n",
            encoding="utf-8",
        )
    return vault


class DaemonProc:
    """One daemon subprocess and how to reach it."""

    def __init__(self, vault: Path, model: Path | None, env: dict[str, str], log: Path) -> None:
        self.vault, self.model, self.env, self.log = vault, model, env, log
        self.proc: subprocess.Popen | None = None

    def start(self, timeout: float = 60.0) -> dict:
        cmd = [sys.executable, "-m", "groove.daemon", "--vault", str(self.vault), "--foreground"]
        if self.model is not None:  # None = the default model
            cmd += ["--model", str(self.model)]
        with open(self.log, "ab") as logf:
            self.proc = subprocess.Popen(cmd, env=self.env, stdin=subprocess.DEVNULL, stdout=logf, stderr=logf)
        return self.wait_ready(timeout)

    def wait_ready(self, timeout: float = 60.0) -> dict:
        try:
            return discovery.wait_ready(self.vault, timeout=timeout, proc=self.proc)
        except Exception:
            print(self.log.read_text(errors="replace")[-4000:])
            raise

    @property
    def info(self) -> dict:
        return discovery.connect_info(self.vault)

    def client(self, name: str = "pytest") -> DaemonClient:
        return DaemonClient.connect(self.info, client=name)

    def wait_idle(self, c: DaemonClient, timeout: float = 60.0) -> dict:
        """Poll index_status until no job runs or is queued."""
        deadline = time.monotonic() + timeout
        while True:
            st = c.index_status()
            if not st["indexing"] and not st.get("pending_changes"):
                return st
            if time.monotonic() > deadline:
                raise TimeoutError(f"daemon still indexing after {timeout}s: {st}")
            time.sleep(0.05)

    def stop(self) -> None:
        if self.proc and self.proc.poll() is None:
            self.proc.send_signal(signal.SIGTERM)
            try:
                self.proc.wait(15)
            except subprocess.TimeoutExpired:
                self.proc.kill()
                self.proc.wait(5)

    def kill9(self) -> None:
        assert self.proc is not None
        self.proc.send_signal(signal.SIGKILL)
        self.proc.wait(10)


@pytest.fixture(scope="module")
def module_home() -> Iterator[Path]:
    """One GROOVE_HOME per test module (daemons of a module share it; each
    has its own vault, hence its own socket, token and index)."""
    # Short path under /tmp: a unix socket path must fit in ~104 bytes.
    home = Path(tempfile.mkdtemp(prefix="gd-", dir="/tmp"))
    with pytest.MonkeyPatch.context() as mp:
        mp.setenv("GROOVE_HOME", str(home))
        mp.setenv("GROOVE_TOKEN_STORE", "file")
        yield home
    shutil.rmtree(home, ignore_errors=True)


@pytest.fixture
def groove_home(module_home: Path, monkeypatch: pytest.MonkeyPatch) -> Path:
    # Overrides the suite-wide autouse fixture: the daemons' home, not a per-test one.
    monkeypatch.setenv("GROOVE_HOME", str(module_home))
    monkeypatch.setenv("GROOVE_TOKEN_STORE", "file")
    return module_home


def daemon_env(home: Path) -> dict[str, str]:
    env = dict(os.environ)
    env["GROOVE_HOME"] = str(home)
    env["GROOVE_TOKEN_STORE"] = "file"
    return env


def new_daemon(home: Path, model: Path | None, vault: Path | None = None, n: int = 30) -> DaemonProc:
    root = Path(tempfile.mkdtemp(prefix="v", dir=home))
    v = vault or make_vault(root, n)
    return DaemonProc(v, model, daemon_env(home), root / "daemon.log")


@pytest.fixture
def spawn(groove_home: Path, tiny_model: Path) -> Iterator[Callable[..., DaemonProc]]:
    """spawn(vault=None, n=30, start=True) -> a DaemonProc; all stopped at teardown."""
    procs: list[DaemonProc] = []

    def _spawn(vault: Path | None = None, n: int = 30, start: bool = True) -> DaemonProc:
        d = new_daemon(groove_home, tiny_model, vault, n)
        procs.append(d)
        if start:
            d.start()
        return d

    yield _spawn
    for d in procs:
        d.stop()


def poll(fn: Callable[[], object], timeout: float, what: str, interval: float = 0.05) -> object:
    """fn() until truthy, or fail after ``timeout`` seconds."""
    deadline = time.monotonic() + timeout
    last: object = None
    while time.monotonic() < deadline:
        last = fn()
        if last:
            return last
        time.sleep(interval)
    raise AssertionError(f"timed out after {timeout}s waiting for {what} (last: {last!r})")
