"""`groove mcp` over stdio, driven by the official SDK's stdio client: a real
subprocess, the real protocol, results checked against the index."""

from __future__ import annotations

import shutil
from pathlib import Path
from urllib.parse import quote

import anyio
import apsw
import jsonschema
import pytest
from pydantic import TypeAdapter
from test_mcp_notes import ESCAPES

from groove.wire.mcp_outputs import McpIndexStatus
from mcp_support import TOOLS, SyncSession, stdio_session, text_of


@pytest.fixture(scope="module")
def server_args(vault: Path, tiny_model: Path, indexed: Path) -> list[str]:
    return ["--vault", str(vault), "--model", str(tiny_model), "--index", str(indexed), "--standalone"]


@pytest.fixture(scope="module")
def errlog(tmp_path_factory: pytest.TempPathFactory) -> Path:
    return tmp_path_factory.mktemp("stdio-log") / "server-stderr.log"


@pytest.fixture(scope="module")
def s(server_args, server_env, errlog):
    """One `groove mcp` subprocess shared by this module's tests."""
    sess = SyncSession(lambda: stdio_session(server_args, server_env, errlog))
    yield sess
    sess.close()


@pytest.fixture(scope="module")
def local_rt(vault: Path, tiny_model: Path, indexed: Path):
    """The same index and model in this process, to compare the server's answers with."""
    from groove.models.registry import load_embedder
    from groove.runtime import open_runtime

    rt = open_runtime(vault, index_path=indexed, model=str(tiny_model))
    rt._embedder = load_embedder(str(tiny_model))
    yield rt
    rt.close()


def test_lists_tools_with_llm_facing_schemas(s) -> None:
    tools = s.list_tools().tools
    templates = s.list_resource_templates().resource_templates
    by = {t.name: t for t in tools}
    assert set(by) == TOOLS
    search = by["search"]
    props = search.input_schema["properties"]
    # SearchParams' fields (test_mcp_search_args.py), but no reranker is
    # configured for the test vault: `rerank` is not offered (M6).
    assert {"query", "path_globs", "mmr", "explain", "limit", "offset", "max_tokens", "where"} <= set(props)
    assert "rerank" not in props and "reranker" not in props
    assert search.input_schema["required"] == ["query"]
    assert props["limit"]["default"] == 10 and "at most 50" in props["limit"]["description"]
    assert '"double quotes"' in search.description and "'-' before a word" in search.description
    assert set(search.output_schema["properties"]) == {"results", "low_confidence", "filter_applied", "warnings",
                                                       "confidence", "offset", "next_offset", "truncated",
                                                       "approx_tokens"}
    for name in TOOLS - {"reindex"}:
        assert by[name].annotations.read_only_hint is True, name
    assert by["reindex"].annotations.read_only_hint is False
    assert by["reindex"].annotations.destructive_hint is False
    assert [t.uri_template for t in templates] == ["groove://note/{+path}"]


def test_search_returns_the_pipeline_answer_as_structured_content(s, local_rt, indexed) -> None:
    from groove import operations
    from groove.pipeline import SearchParams

    r = s.call("search", {"query": "garden plan", "limit": 3})
    assert not r.is_error, text_of(r)
    sc = r.structured_content
    assert set(sc) == {"results", "low_confidence", "filter_applied", "warnings", "confidence", "offset",
                       "next_offset", "truncated", "approx_tokens"}
    assert sc["confidence"] is None  # only an explained search says why
    assert sc["truncated"] is False and all(h.pop("content_truncated") is False for h in sc["results"])
    want = operations.search(local_rt, SearchParams(query="garden plan", limit=3)).to_json()
    assert {k: sc[k] for k in want} == want
    assert 0 < len(sc["results"]) <= 3
    db = apsw.Connection(str(indexed), flags=apsw.SQLITE_OPEN_READONLY)
    for h in sc["results"]:
        row = db.execute("SELECT d.path, c.line_start, c.line_end FROM chunks c JOIN documents d "
                         "ON d.id = c.doc_id WHERE c.id = ?", (h["chunk_id"],)).fetchone()
        assert row == (h["path"], *h["line_range"])
    text = text_of(r)
    assert text.startswith(f'{len(sc["results"])} result') and sc["results"][0]["path"] in text


def test_a_search_naming_what_the_vault_never_mentions_tells_the_model_so(s) -> None:
    # ADR 0220: low confidence, and a warning naming the word, without explain
    r = s.call("search", {"query": "garden plan in Joplin", "limit": 3})
    assert not r.is_error, text_of(r)
    sc = r.structured_content
    assert sc["low_confidence"] and sc["confidence"] is None
    assert any(w.startswith('the vault never mentions "Joplin"') for w in sc["warnings"])
    assert 'warning: the vault never mentions "Joplin"' in text_of(r)


@pytest.mark.parametrize("args", [{"path_globs": ["Nope/**"]}, {"where": ["status=nope"]},
                                  {"query": '+"quantum flux" garden'}])
def test_filters_that_leave_nothing_are_not_called_a_vault_without_the_answer(s, args) -> None:
    # The vault holds the garden; the filters left no passage. The text said "low confidence: the notes
    # probably do not answer this; say so", and a model told the user the notes lack it.
    r = s.call("search", {"query": "garden", "limit": 3, **args})
    assert not r.is_error and not r.structured_content["results"], text_of(r)
    assert "nothing passes the filters below; this does not mean the notes lack it" in text_of(r)
    assert "probably do not answer" not in text_of(r)


def test_a_limit_past_the_maximum_is_clamped_with_the_cli_and_daemon_words(s) -> None:
    # Issue 48: one limit everywhere; MCP refused 51 where the CLI crashed and the daemon clamped.
    r = s.call("search", {"query": "garden", "limit": 205})
    assert not r.is_error, text_of(r)
    assert "limit 205 is above the maximum 50; using 50" in r.structured_content["warnings"]
    r = s.call("search", {"query": "garden", "limit": 40, "offset": 20})
    assert not r.is_error, text_of(r)
    assert any(w.startswith("limit 40 is above the maximum 30; using 30") for w in r.structured_content["warnings"])


def test_search_filters_and_stage_options(s) -> None:
    out = {
        "globs": s.call("search", {"query": "plan", "path_globs": ["Archive/**"]}),
        "tags": s.call("search", {"query": "code", "tags_any": ["work"]}),
        "dates": s.call("search", {"query": "meeting", "date_from": "2024-01-01", "date_to": "2024-01-31"}),
        "stages": s.call("search", {"query": "garden", "mmr": True, "parent_retriever": True, "limit": 5}),
        "phrase": s.call("search", {"query": '"Cats dig the beds" -coffee'}),
    }
    for k, r in out.items():
        assert not r.is_error, (k, text_of(r))
    paths = lambda r: {h["path"] for h in r.structured_content["results"]}  # noqa: E731
    assert paths(out["globs"]) and all(p.startswith("Archive/") for p in paths(out["globs"]))
    assert paths(out["tags"]) == {"Meeting notes.md"}
    assert paths(out["dates"]) <= {"Meeting notes.md", "Daily/2024-01-02.md"}
    assert out["globs"].structured_content["filter_applied"]
    assert len(out["stages"].structured_content["results"]) <= 5
    phrase = out["phrase"].structured_content["results"]
    assert phrase and phrase[0]["path"] == "Projects/Plan.md" and "Cats dig the beds" in phrase[0]["content"]
    assert all("coffee" not in h["content"].lower() for h in phrase)


def test_note_tools_answer_like_groove_notes(s, local_rt) -> None:
    from groove.operations import notes, related

    calls = [
        ("get_document", {"path": "Projects/Plan.md", "heading": "Goals"},
         lambda: notes.get_document(local_rt, "Projects/Plan.md", heading="Goals")),
        ("get_document", {"path": "Home.md", "line_start": 6, "line_end": 8},
         lambda: notes.get_document(local_rt, "Home.md", 6, 8)),
        ("related_notes", {"path": "Home.md", "limit": 3}, lambda: related.related_notes(local_rt, "Home.md", 3)),
        ("resolve_link", {"link": "[[Plan#Goals#Details|the details]]", "from_path": "Home.md"},
         lambda: notes.resolve_link(local_rt, "[[Plan#Goals#Details|the details]]", "Home.md")),
        ("resolve_link", {"link": "[[Plan]]", "from_path": "Archive/Old/Notes.md"},
         lambda: notes.resolve_link(local_rt, "[[Plan]]", "Archive/Old/Notes.md")),
        ("resolve_link", {"link": "[[Meeting notes^decision-1]]"},
         lambda: notes.resolve_link(local_rt, "[[Meeting notes^decision-1]]")),
    ]
    for name, args, local in calls:
        r = s.call(name, args)
        assert not r.is_error, (name, text_of(r))
        want = local()
        got = r.structured_content
        assert {k: got[k] for k in want} == want, (name, args)
    doc = s.call("get_document", {"path": "Projects/Plan.md", "heading": "Goals"})
    assert text_of(doc).startswith("Projects/Plan.md (Plan), lines 5-11")


def test_index_status_reports_freshness_and_model_latency(s, indexed) -> None:
    s.call("search", {"query": "coffee"})
    r = s.call("index_status")
    assert not r.is_error, text_of(r)
    st = r.structured_content
    db = apsw.Connection(str(indexed), flags=apsw.SQLITE_OPEN_READONLY)
    assert st["documents"] == db.execute("SELECT count(*) FROM documents").fetchone()[0] == 7
    assert st["chunks"] == db.execute("SELECT count(*) FROM chunks").fetchone()[0]
    assert st["stale_files"] == 0 and st["indexing"] is False and st["last_indexed"]
    assert st["mode"] == "standalone" and st["model_loaded"] is True
    assert isinstance(st["model_load_seconds"], float) and st["model_load_seconds"] >= 0
    assert isinstance(st["first_search_seconds"], float)
    # The low_confidence rule is part of the declared output (a test vault holding both scripts)
    assert st["low_confidence"]["rule"] == "calibrated" and "cross_language_scripts" not in st["low_confidence"]
    # Its text is this JSON, so no output schema is published (ADR 0252); the type in the code holds.
    assert next(t for t in s.list_tools().tools if t.name == "index_status").output_schema is None
    schema = TypeAdapter(McpIndexStatus).json_schema()
    assert "low_confidence" in schema["properties"]
    jsonschema.validate(st, schema)


ERRORS = [
    ("search", {"query": "-garden -cats"}, "only excludes"),
    # was: ten hits of the embedder's guess at "???", not low confidence ("🎉🎉" was refused)
    ("search", {"query": "???"}, "it has no letters or digits; search with a word"),
    ("search", {"query": "garden", "limit": "ten"}, "'limit' must be an integer, got a string"),
    ("search", {"query": "garden", "limit": 0}, "less than the minimum of 1"),
    ("search", {"query": "garden", "mmr_lambda": 0.5}, "set it under [search] in the vault's groove.toml"),
    ("search", {"limit": 3}, "query"),
    # was: "'arguments': 'query' is a required property"
    ("search", {"limit": 3}, "invalid arguments for search: missing required argument 'query'"),
    ("unlinked_connections", {}, "missing required argument 'path'"),
    # was: "2000 is greater than or equal to the maximum of 50"
    ("search", {"query": "garden", "offset": 2000}, "'offset' must be below 50, got an integer (2000)"),
    ("search", {"query": "garden", "rerank": True}, "no reranker is configured"),  # a caller mistake, not internal
    ("search", {"query": "garden", "date_from": "2024-13-45"}, "'date_from' must be a date"),
    ("get_document", {"path": "../secret.md"}, "inside the vault"),
    ("get_document", {"path": "Nope/Missing.md"}, "no note"),
    ("get_document", {"path": "Home.md", "line_start": "first"}, "line_start"),
    ("get_document", {"path": "Projects/Plan.md", "heading": "Nope"}, "headings are"),
    ("related_notes", {}, "pass 'path'"),
    ("related_notes", {"path": "Missing.md"}, "not an indexed note"),
    ("resolve_link", {"link": "[[Plan]]", "from_path": "/etc/passwd"}, "absolute path"),
    ("resolve_link", {"link": 42}, "'link' must be a string"),
]


@pytest.mark.parametrize("name,args,msg", ERRORS, ids=[f"{n}-{m}" for n, _, m in ERRORS])
def test_errors_are_tool_errors_and_the_server_keeps_serving(s, name, args, msg) -> None:
    bad = s.call(name, args)
    assert bad.is_error
    assert msg in text_of(bad), text_of(bad)
    assert "internal error" not in text_of(bad)
    good = s.call("search", {"query": "garden", "limit": 1})
    assert not good.is_error and good.structured_content["results"]


@pytest.mark.parametrize("trick", ESCAPES)
def test_every_path_escape_is_refused_over_mcp(s, trick) -> None:
    doc = s.call("get_document", {"path": trick})
    rel = s.call("related_notes", {"path": trick})
    link = s.call("resolve_link", {"link": "[[Home]]", "from_path": trick})
    try:
        res = s.read_resource("groove://note/" + quote(trick, safe=""))
        res_text = " ".join(getattr(c, "text", "") for c in res.contents)
    except Exception as e:  # refused: a JSON-RPC error
        res_text = f"refused: {e}"
    assert doc.is_error and rel.is_error, trick
    for t in (text_of(doc), text_of(rel), text_of(link), res_text):
        assert "TOP SECRET" not in t
    assert res_text.startswith("refused"), res_text
    assert not s.call("get_document", {"path": "Home.md"}).is_error


def test_note_resource_reads_the_file(s, vault) -> None:
    a = s.read_resource("groove://note/Projects/Plan.md")
    b = s.read_resource("groove://note/" + quote("日本/会議.md"))
    assert a.contents[0].text == (vault / "Projects/Plan.md").read_text(encoding="utf-8")
    assert a.contents[0].mime_type == "text/markdown"
    assert "東京" in b.contents[0].text


def test_reindex_is_incremental_and_reports_progress(vault, tiny_model, server_env, tmp_path) -> None:
    work = tmp_path / "vault"
    shutil.copytree(vault, work, symlinks=True)
    args = ["--vault", str(work), "--model", str(tiny_model), "--index", str(tmp_path / "i.sqlite"), "--standalone"]
    events: list[tuple[float, float | None, str | None]] = []

    async def progress(p: float, total: float | None, msg: str | None) -> None:
        events.append((p, total, msg))

    async def go():
        async with stdio_session(args, server_env, tmp_path / "err.log") as s:
            first = await s.call_tool("reindex", {}, progress_callback=progress)
            (work / "Home.md").write_text("# Home\n\nRewritten about coffee.\n", encoding="utf-8")
            (work / "Daily/2024-01-02.md").unlink()
            second = await s.call_tool("reindex", {"force": False})
            forced = await s.call_tool("reindex", {"force": True})
            found = await s.call_tool("search", {"query": "Rewritten about coffee"})
            return first, second, forced, found

    first, second, forced, found = anyio.run(go)
    assert first.structured_content["indexed"] == 7
    assert events and events[-1][0] == events[-1][1] == 7.0  # done == total at the end
    assert any(m and "embed" in m for _, _, m in events)
    assert second.structured_content["indexed"] == 1
    assert second.structured_content["unchanged"] == 5 and second.structured_content["deleted"] == 1
    assert forced.structured_content["indexed"] == 6
    assert found.structured_content["results"][0]["path"] == "Home.md"
