"""A vault of the files people really have (issue 15, D1-D3, D6, D15, D16):
the run completes, each bad file is skipped with its reason, the ordinary
notes are searchable, and the next run is incremental. llama.cpp really
runs (the tiny random BERT); faults are injected only where no real file
can make them (a parser or model bug)."""

from __future__ import annotations

import os
import sys
import time
from pathlib import Path

import pytest

from groove import operations
from groove.errors import ModelFailed
from groove.pipeline import SearchParams
from helpers import make_runtime
from test_indexer import assert_consistent, write

POSIX = os.name == "posix"
SJIS_NAME = "テスト.md".encode("cp932")  # what a Windows zip leaves on Linux
SJIS_SHOWN = r"\x83e\x83X\x83g.md"


def alias_bomb(levels: int = 9, fanout: int = 10) -> str:
    """The classic billion laughs: 10^9 values from a few hundred bytes."""
    lines = ['a0: &a0 ["lol"]']
    for i in range(1, levels + 1):
        lines.append(f"a{i}: &a{i} [" + ",".join([f"*a{i - 1}"] * fanout) + "]")
    return "---\n" + "\n".join(lines) + "\n---\n# Bomb\n\nzanzibarite body survives the bomb\n"


def build_hostile_vault(root: Path) -> Path:
    v = root / "vault"
    write(v, "good/apples.md", "# Apples\n\nquorrelberry apples grow in the orchard.\n")
    write(v, "good/pears.md", "---\ntags: [fruit]\n---\n# Pears\n\nvelmtastic pears ripen late.\n")
    write(v, "good/plain.md", "No heading at all, only flimbrous text.\n")
    write(v, "deep-quote.md", ">" * 500 + " x glorpquote")
    write(v, "deep-list.md", "".join("  " * i + "- item\n" for i in range(200)) + "\nglorplist ends here\n")
    write(v, "bomb.md", alias_bomb())
    write(v, "self-alias.md", "---\na: &a [*a]\n---\nselfaliasword body\n")
    write(v, "links.md", "[a](" * 10_000 + "\n===\n\nlinkpilesword\n")
    write(v, "hugeline.md", "# Huge line\n\n" + "hugelineword " * 80_000 + "\n")
    (v / "bom.md").write_bytes(b"\xef\xbb\xbf---\ntitle: Bom Title\ntags: [bomtag]\n---\n# Body\n\nbomfrontword here\n")
    (v / "utf16le.md").write_bytes("\ufeff# Sechzehn\n\nlittleendword 東京\n".encode("utf-16-le"))
    (v / "utf16be.md").write_bytes("\ufeff# Sechzehn BE\n\nbigendword text\n".encode("utf-16-be"))
    (v / "utf16-nobom.md").write_bytes("# no mark\n\nplain words\n".encode("utf-16-le"))
    (v / "binary.md").write_bytes(b"\x89PNG\r\n\x1a\n\x00\x00\x00\rIHDR")
    (v / "empty.md").write_bytes(b"")
    if POSIX:
        fd = os.open(os.fsencode(v) + b"/" + SJIS_NAME, os.O_WRONLY | os.O_CREAT, 0o644)
        os.write(fd, b"# sjis\n\nshiftjisword\n")
        os.close(fd)
        os.mkfifo(v / "x.md")
        os.symlink("loop.md", v / "loop.md")
        write(v, "ctl\x01\x1b[31m.md", "# ctl\n\ncontrolnameword\n")
        write(v, "new\nline.md", "# nl\n\nnewlinenameword\n")
    return v


EXPECTED_SKIPS = {  # path -> words the reason must contain
    "binary.md": ["binary"],
    "utf16-nobom.md": ["UTF-16", "without a byte-order mark"],
    **({
        "x.md": ["named pipe", "regular file"],
        "loop.md": ["symlink loop"],
        SJIS_SHOWN: ["not valid UTF-8", "テスト.md", "rename"],
    } if POSIX else {}),
}
SEARCHABLE = {  # a word only that note holds -> the note
    "quorrelberry": "good/apples.md", "velmtastic": "good/pears.md", "flimbrous": "good/plain.md",
    "glorpquote": "deep-quote.md", "glorplist": "deep-list.md", "zanzibarite": "bomb.md",
    "selfaliasword": "self-alias.md", "linkpilesword": "links.md", "bomfrontword": "bom.md",
    "littleendword": "utf16le.md", "bigendword": "utf16be.md", "hugelineword": "hugeline.md",
    **({"controlnameword": "ctl\x01\x1b[31m.md", "newlinenameword": "new\nline.md"} if POSIX else {}),
}


@pytest.fixture
def hostile(tmp_path) -> Path:
    return build_hostile_vault(tmp_path)


def test_a_hostile_vault_indexes_to_the_end_and_reports_each_bad_file(hostile, tiny_embedder, tmp_path):
    rt = make_runtime(hostile, tiny_embedder, tmp_path)
    s = operations.reindex(rt)
    reasons = {sk.path: sk.reason for sk in s.skipped}
    assert set(reasons) == set(EXPECTED_SKIPS), reasons
    for path, words in EXPECTED_SKIPS.items():
        for w in words:
            assert w in reasons[path], (path, reasons[path])
    warned = {p: w for p, w in s.warnings}
    assert "alias bomb" in warned["bomb.md"]
    assert "refers to the node that contains it" in warned["self-alias.md"]
    assert "nested more than" in warned["deep-quote.md"] and "nested more than" in warned["deep-list.md"]
    assert "UTF-16 LE" in warned["utf16le.md"] and "UTF-16 BE" in warned["utf16be.md"]
    assert "bom.md" not in warned  # a BOM is no problem
    docs = {r[0] for r in rt.index.conn.execute("SELECT path FROM documents")}
    assert set(SEARCHABLE.values()) | {"empty.md"} <= docs
    for word, path in SEARCHABLE.items():
        hits = [h.path for h in operations.search(rt, SearchParams(word, limit=3)).results]
        assert path in hits, (word, hits)
    assert_consistent(rt)


@pytest.mark.skipif(not POSIX, reason="such names cannot be created on Windows")
def test_a_note_with_control_characters_in_its_name_opens_by_the_path_search_gave(hostile, tiny_embedder, tmp_path):
    """Issue 15 D16: indexed and found, so it must open too (the surfaces
    escape such names when they print or log them)."""
    from groove.errors import PathOutsideVault
    from groove.operations import notes, related

    rt = make_runtime(hostile, tiny_embedder, tmp_path)
    operations.reindex(rt)
    for word in ("controlnameword", "newlinenameword"):
        hit = operations.search(rt, SearchParams(word, limit=1)).results[0]
        doc = notes.get_document(rt, hit.path)
        assert word in doc["content"], hit.path
        assert related.related_notes(rt, hit.path) is not None
    with pytest.raises(PathOutsideVault, match="NUL"):
        notes.get_document(rt, "ctl\x00.md")


def test_a_bom_does_not_hide_the_frontmatter_and_offsets_skip_it(hostile, tiny_embedder, tmp_path):
    rt = make_runtime(hostile, tiny_embedder, tmp_path)
    operations.reindex(rt)
    title, tags = rt.index.conn.execute("SELECT title, tags FROM documents WHERE path = 'bom.md'").fetchone()
    assert title == "Bom Title" and "bomtag" in tags
    text = (hostile / "bom.md").read_bytes()[3:]  # what an editor holds: the text without its BOM
    for start, end, line_start, content in rt.index.conn.execute(
            "SELECT byte_start, byte_end, line_start, content FROM chunks c JOIN documents d ON d.id = c.doc_id "
            "WHERE d.path = 'bom.md'"):
        assert text[start:end].decode("utf-8") == content
        assert text.split(b"\n")[line_start - 1].decode() == content.split("\n")[0]


@pytest.mark.parametrize("name, codec", [("utf16le.md", "utf-16-le"), ("utf16be.md", "utf-16-be")])
def test_utf16_notes_are_decoded_and_their_ranges_point_into_their_text(hostile, tiny_embedder, tmp_path, name, codec):
    rt = make_runtime(hostile, tiny_embedder, tmp_path)
    operations.reindex(rt)
    text = (hostile / name).read_bytes().decode(codec).lstrip("\ufeff")
    lines = text.split("\n")
    rows = list(rt.index.conn.execute(
        "SELECT byte_start, byte_end, line_start, line_end, content FROM chunks c JOIN documents d "
        "ON d.id = c.doc_id WHERE d.path = ?", (name,)))
    assert rows
    for start, end, ls, le, content in rows:
        assert text.encode("utf-8")[start:end].decode("utf-8") == content
        assert "\n".join(lines[ls - 1:le]) == content.rstrip("\n")


def test_a_second_run_is_incremental_and_does_not_retry_skipped_notes(hostile, tiny_embedder, tmp_path, monkeypatch):
    from groove import indexer

    rt = make_runtime(hostile, tiny_embedder, tmp_path)
    first = operations.reindex(rt)
    read: list[str] = []
    real_read = indexer._read
    monkeypatch.setattr(indexer, "_read", lambda nf, cfg: (read.append(nf.path), real_read(nf, cfg))[1])
    again = operations.reindex(rt)
    assert again.indexed == [] and again.chunks_embedded == 0
    assert {(s.path, s.reason) for s in again.skipped} == {(s.path, s.reason) for s in first.skipped}
    assert read == [], "unchanged notes (and notes skipped for their content) were read again"
    assert operations.index_status(rt)["stale_files"] == 0
    # Fixing a skipped note gets it indexed on the next run.
    (hostile / "binary.md").write_text("# Fixed\n\nrepairedword\n", encoding="utf-8")
    third = operations.reindex(rt)
    assert third.indexed == ["binary.md"]
    assert "binary.md" not in {s.path for s in third.skipped}


def test_a_watcher_batch_naming_a_file_as_the_os_does_is_indexed_not_aborted(hostile, tiny_embedder, tmp_path):
    # The watcher walks new folders with os.walk: a name that is not UTF-8
    # arrives with lone surrogates. The batch must still run (it aborted with
    # UnicodeEncodeError in record_skipped, so nothing of it was recorded).
    rt = make_runtime(hostile, tiny_embedder, tmp_path)
    as_os_names = {os.fsdecode(SJIS_NAME), "x.md", "binary.md", "bom.md"}
    s = operations.reindex(rt, only=as_os_names)
    reasons = {sk.path: sk.reason for sk in s.skipped}
    assert {"x.md", "binary.md"} <= set(reasons)
    assert any("not valid UTF-8" in r for r in reasons.values()), reasons
    assert "bom.md" in {r[0] for r in rt.index.conn.execute("SELECT path FROM documents")}


def test_index_status_lists_the_skipped_notes_with_their_reasons(hostile, tiny_embedder, tmp_path):
    rt = make_runtime(hostile, tiny_embedder, tmp_path)
    operations.reindex(rt)
    st = operations.index_status(rt)
    assert st["skipped_count"] == len(EXPECTED_SKIPS)
    assert {s["path"] for s in st["skipped"]} == set(EXPECTED_SKIPS)
    assert all(s["reason"] for s in st["skipped"])


def test_groove_index_prints_each_skip_with_control_characters_escaped(hostile, tiny_model_path, tmp_path):
    import subprocess

    proc = subprocess.run(
        [sys.executable, "-m", "groove", "index", str(hostile), "--index", str(tmp_path / "i.sqlite"),
         "--model", str(tiny_model_path)],
        capture_output=True, text=True, timeout=300, env={**os.environ},
    )
    assert proc.returncode == 0, proc.stderr
    out = proc.stdout
    assert f"skipped {len(EXPECTED_SKIPS)}" in out
    for path in EXPECTED_SKIPS:
        assert f"  skipped {path}: " in out
    assert "\x1b" not in out, "a terminal escape from a file name reached the terminal"
    assert "Traceback" not in proc.stderr


def test_a_note_whose_parser_fails_is_skipped_and_the_run_goes_on(hostile, tiny_embedder, tmp_path, monkeypatch):
    from groove import indexer

    real = indexer.parse_file

    def parse_file(path, data, **kw):  # a parser bug that only this note triggers
        if path == "good/pears.md":
            raise RecursionError("maximum recursion depth exceeded")
        return real(path, data, **kw)

    monkeypatch.setattr(indexer, "parse_file", parse_file)
    rt = make_runtime(hostile, tiny_embedder, tmp_path)
    s = operations.reindex(rt)
    reasons = {sk.path: sk.reason for sk in s.skipped}
    assert "could not be parsed (RecursionError" in reasons["good/pears.md"]
    assert "good/apples.md" in s.indexed
    assert_consistent(rt)


class _PoisonedEmbedder:
    """The real tiny model, failing on one note's text (or on everything)."""

    def __init__(self, real, poison: str | None) -> None:
        self.real, self.poison = real, poison

    def __getattr__(self, name):
        return getattr(self.real, name)

    def embed_passages(self, texts):
        if self.poison is None or any(self.poison in t for t in texts):
            raise RuntimeError("llama_decode returned -1")
        return self.real.embed_passages(texts)


def test_a_note_the_model_cannot_embed_is_skipped_and_the_others_are_indexed(hostile, tiny_embedder, tmp_path):
    rt = make_runtime(hostile, _PoisonedEmbedder(tiny_embedder, "velmtastic"), tmp_path)
    s = operations.reindex(rt)
    reasons = {sk.path: sk.reason for sk in s.skipped}
    assert "could not be embedded (RuntimeError: llama_decode returned -1)" in reasons["good/pears.md"]
    assert {"good/apples.md", "good/plain.md", "bomb.md"} <= set(s.indexed)
    assert_consistent(rt)


def test_a_broken_model_stops_the_run_with_one_clear_error(hostile, tiny_embedder, tmp_path):
    rt = make_runtime(hostile, _PoisonedEmbedder(tiny_embedder, None), tmp_path)
    with pytest.raises(ModelFailed, match="fails on any text"):
        operations.reindex(rt)
    assert rt.index.counts() == (0, 0)
    assert_consistent(rt)


def _parse_seconds(text: str) -> float:
    from groove.vault.markdown import parse_note

    t0 = time.perf_counter()
    parse_note("x.md", text.encode())
    return time.perf_counter() - t0


@pytest.mark.parametrize("unit, n", [("[a](", 20_000), ("**[*_", 20_000), ("> " * 40 + "x\n\n", 200)])
def test_parsing_cost_grows_linearly_with_a_pathological_note(unit, n):
    # Inline parsing made "[a](" * n quadratic (40 KB: 56 s); a ratio, not a time,
    # over inputs big enough (80 KB) that a scheduler hiccup is not a tenfold.
    small = min(_parse_seconds(unit * n) for _ in range(3))
    big = min(_parse_seconds(unit * n * 10) for _ in range(2))
    assert big / max(small, 1e-4) < 30, (small, big)  # linear: ~10x; quadratic: ~100x
