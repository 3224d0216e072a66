"""Model registry, resolution, and pulling GGUFs from a real local HTTP server."""

from __future__ import annotations

import http.server
import json
import threading
from pathlib import Path

import pytest
from click.testing import CliRunner

from groove.models import ModelError
from groove.models.registry import KNOWN_MODELS, hf_url, load_embedder, load_reranker, pull, resolve_model
from tinymodels import write_tiny_bert_embedder


class _Server:
    """Serves ``files`` (path -> bytes); honours Range; can cut a response short once."""

    def __init__(self) -> None:
        self.files: dict[str, bytes] = {}
        self.cut_after: dict[str, int] = {}  # path -> bytes to send before dropping the connection
        self.requests: list[tuple[str, str | None]] = []
        outer = self

        class Handler(http.server.BaseHTTPRequestHandler):
            def log_message(self, *args: object) -> None:
                pass

            def do_GET(self) -> None:  # noqa: N802
                outer.requests.append((self.path, self.headers.get("Range")))
                body = outer.files.get(self.path)
                if body is None:
                    self.send_error(404, "Not Found")
                    return
                start = 0
                rng = self.headers.get("Range")
                if rng and rng.startswith("bytes="):
                    start = int(rng[6:].split("-")[0])
                    if start >= len(body):
                        self.send_response(416)
                        self.end_headers()
                        return
                    self.send_response(206)
                    self.send_header("Content-Range", f"bytes {start}-{len(body) - 1}/{len(body)}")
                else:
                    self.send_response(200)
                rest = body[start:]
                self.send_header("Content-Length", str(len(rest)))
                self.end_headers()
                cut = outer.cut_after.pop(self.path, None)
                if cut is not None:
                    self.wfile.write(rest[:cut])
                    self.wfile.flush()
                    self.close_connection = True
                    return
                self.wfile.write(rest)

        self.httpd = http.server.ThreadingHTTPServer(("127.0.0.1", 0), Handler)
        self.url = f"http://127.0.0.1:{self.httpd.server_address[1]}"
        self.thread = threading.Thread(target=self.httpd.serve_forever, daemon=True)
        self.thread.start()

    def close(self) -> None:
        self.httpd.shutdown()
        self.httpd.server_close()


@pytest.fixture
def server():
    s = _Server()
    yield s
    s.close()


@pytest.fixture
def tiny_bytes(tmp_path) -> bytes:
    return write_tiny_bert_embedder(tmp_path / "src.gguf").read_bytes()


def test_pull_downloads_from_local_http_server_atomically(server, tiny_bytes, tmp_path, monkeypatch):
    monkeypatch.setenv("GROOVE_HF_ENDPOINT", server.url)
    server.files["/me/tiny-GGUF/resolve/main/tiny.gguf"] = tiny_bytes
    # The first attempt dies half way: nothing appears under the final name.
    server.cut_after["/me/tiny-GGUF/resolve/main/tiny.gguf"] = len(tiny_bytes) // 2
    dest = tmp_path / "models"
    with pytest.raises(ModelError, match="kept in"):
        pull("hf:me/tiny-GGUF/tiny.gguf", dest)
    assert not (dest / "tiny.gguf").exists()
    assert (dest / "tiny.gguf.part").stat().st_size == len(tiny_bytes) // 2
    # The retry resumes with a Range request and renames the finished file into place.
    messages: list[str] = []
    path = pull("hf:me/tiny-GGUF/tiny.gguf", dest, messages.append)
    assert path == dest / "tiny.gguf" and path.read_bytes() == tiny_bytes
    assert server.requests[-1][1] == f"bytes={len(tiny_bytes) // 2}-"
    assert sorted(p.name for p in dest.iterdir()) == ["tiny.gguf"]
    assert any("saved" in m for m in messages)
    # Present already: no new request.
    n = len(server.requests)
    assert pull("hf:me/tiny-GGUF/tiny.gguf", dest) == path and len(server.requests) == n
    # And the pulled file is a working model.
    emb = load_embedder(str(path))
    assert emb.embed_passages(["hello world"]).shape == (1, emb.dim)


def test_pull_rejects_a_file_that_is_not_gguf(server, tmp_path):
    server.files["/page.gguf"] = b"<html>login required</html>"
    with pytest.raises(ModelError, match="not a GGUF"):
        pull(f"{server.url}/page.gguf", tmp_path)
    assert list(tmp_path.iterdir()) == []


def test_pull_reports_http_errors_clearly(server, tmp_path, monkeypatch):
    with pytest.raises(ModelError, match="HTTP 404"):
        pull(f"{server.url}/missing.gguf", tmp_path)
    with pytest.raises(ModelError, match="download failed"):
        pull("http://127.0.0.1:9/nothing.gguf", tmp_path, timeout=2)
    with pytest.raises(ModelError, match="cannot pull"):
        pull("ftp://example/x.gguf", tmp_path)


def test_hf_refs_map_to_resolve_urls(monkeypatch):
    monkeypatch.delenv("GROOVE_HF_ENDPOINT", raising=False)
    assert hf_url("hf:owner/repo/file.gguf") == "https://huggingface.co/owner/repo/resolve/main/file.gguf"
    assert hf_url("hf:o/r@v2/sub/f.gguf") == "https://huggingface.co/o/r/resolve/v2/sub/f.gguf"
    monkeypatch.setenv("GROOVE_HF_ENDPOINT", "http://localhost:1/")
    assert hf_url("hf:o/r/f.gguf") == "http://localhost:1/o/r/resolve/main/f.gguf"
    with pytest.raises(ModelError):
        hf_url("hf:just-a-repo")


def test_resolve_model_known_names_and_paths(tmp_path):
    from groove.paths import models_dir

    spec = resolve_model(None)
    assert spec.id == "multilingual-e5-small" and spec.family == "e5" and spec.path == models_dir() / spec.file
    assert resolve_model("bge-reranker-v2-m3").kind == "reranker"
    p = write_tiny_bert_embedder(tmp_path / "my-model.gguf")
    ad_hoc = resolve_model(str(p))
    assert ad_hoc.id == "my-model" and ad_hoc.path == p.resolve() and ad_hoc.family == "generic"
    with pytest.raises(ModelError, match="unknown model"):
        resolve_model("no-such-model")
    for spec in KNOWN_MODELS.values():
        assert spec.file.endswith(".gguf") and spec.kind in ("embedder", "reranker")


def test_loading_a_missing_known_model_says_how_to_get_it():
    with pytest.raises(ModelError, match="groove models pull bge-m3"):
        load_embedder("bge-m3")
    with pytest.raises(ModelError, match="not a reranker|is an embedding model"):
        load_reranker("multilingual-e5-small")
    with pytest.raises(ModelError, match="is a reranker"):
        load_embedder("bge-reranker-v2-m3")


def test_cli_models_list_and_default_path(tmp_path):
    from groove.cli.models import models
    from groove.paths import models_dir

    res = CliRunner().invoke(models, ["list", "--json"])
    assert res.exit_code == 0, res.output
    data = json.loads(res.output)
    assert data["models_dir"] == str(models_dir())
    ids = {m["id"]: m for m in data["models"]}
    assert ids["multilingual-e5-small"]["default"] is True
    res = CliRunner().invoke(models, ["default-path"])
    assert res.exit_code == 0 and Path(res.output.strip()).name == "multilingual-e5-small-q4_0.gguf"
    res = CliRunner().invoke(models, ["pull", "not-a-thing"])
    assert res.exit_code != 0
