"""What an LLM client trips over (issue 17, rows M1-M10), each driven through
the official MCP client over stdio against a real `groove mcp` subprocess:
a never-indexed or stale vault, the response budget, strict arguments,
did-you-mean, and the browsing tools peers have."""

from __future__ import annotations

import os
import time
from pathlib import Path

import pytest

from conftest import write_vault
from groove.tokens import estimate_tokens, json_tokens
from mcp_support import SyncSession, groove_index, inproc_session, text_of

EN_PARA = ("The garden journal records when each bed was watered, which seeds sprouted and how the soil felt. "
           "Compost goes in every autumn and the tomatoes need staking by June. ")
JA_PARA = "庭の日記には、毎朝の水やりと種の発芽、土の状態を記録する。秋には堆肥を入れ、六月までにトマトに支柱を立てる。"


def _big_vault(root: Path, extra: int = 20) -> Path:
    """The shared test vault plus ``extra`` small notes, a long English note
    and a long Japanese one (each far over any tool result cap)."""
    write_vault(root)
    for i in range(extra):
        (root / "Log").mkdir(exist_ok=True)
        (root / "Log" / f"Entry {i:02d}.md").write_text(
            f"---\ntags: [log, {'even' if i % 2 == 0 else 'odd'}]\ndate: 2024-02-{i + 1:02d}\n---\n"
            f"# Entry {i}\n\nGarden log entry {i}: watered the beds. See [[Home]].\nAnd [[Home]] again.\n",
            encoding="utf-8")
    (root / "Long English.md").write_text(
        "# Long English\n\n" + "\n\n".join(f"## Part {i}\n\n" + EN_PARA * 12 for i in range(120)), encoding="utf-8")
    (root / "長い日本語.md").write_text(
        "# 長い日本語\n\n" + "\n\n".join(f"## 第{i}節\n\n" + JA_PARA * 12 for i in range(120)), encoding="utf-8")
    return root


def _size(r) -> int:
    """Tokens of a tool result as the client receives it: text and structured content."""
    return estimate_tokens(text_of(r)) + json_tokens(r.structured_content)


@pytest.fixture(scope="module")
def big(tmp_path_factory, tiny_model, server_env):
    root = tmp_path_factory.mktemp("big")
    vault = _big_vault(root / "vault")
    index = root / "index.sqlite"
    groove_index(vault, index, tiny_model, server_env)
    return vault, index


@pytest.fixture(scope="module")
def s(big, tiny_model, server_env, tmp_path_factory):
    vault, index = big
    sess = SyncSession(lambda: inproc_session(
        ["--vault", str(vault), "--model", str(tiny_model), "--index", str(index), "--standalone"],
        tmp_path_factory.mktemp("log") / "err.log"))
    yield sess
    sess.close()


def _server(vault: Path, index: Path, model: Path, env: dict, log: Path) -> SyncSession:
    return SyncSession(lambda: inproc_session(
        ["--vault", str(vault), "--model", str(model), "--index", str(index), "--standalone"], log))


# ----------------------------------------------------------------------------- M1, M8: never indexed, stale


def test_m1_a_never_indexed_vault_answers_what_to_do_then_works_after_reindex(tmp_path, tiny_model, server_env):
    vault = _big_vault(tmp_path / "vault")  # 29 notes: more than are indexed on the fly
    sess = _server(vault, tmp_path / "none.sqlite", tiny_model, server_env, tmp_path / "err.log")
    try:
        assert "NOT indexed" in sess.session.initialize_result.instructions
        for name, args in (("search", {"query": "garden"}), ("resolve_link", {"link": "[[Home]]"}),
                           ("list_notes", {})):
            r = sess.call(name, args)
            assert r.is_error, name
            assert "not been indexed yet" in text_of(r) and "reindex" in text_of(r) and "groove index" in text_of(r)
        ri = sess.call("reindex", {})
        assert not ri.is_error and ri.structured_content["indexed"] == 29
        r = sess.call("search", {"query": "garden plan", "limit": 3})
        assert not r.is_error and r.structured_content["results"]
        assert sess.call("resolve_link", {"link": "[[Home]]"}).structured_content["exists"] is True
    finally:
        sess.close()


def test_m8_standalone_notices_an_edited_note_and_reports_many(tmp_path, tiny_model, server_env):
    vault = _big_vault(tmp_path / "vault")
    index = tmp_path / "index.sqlite"
    groove_index(vault, index, tiny_model, server_env)
    sess = _server(vault, index, tiny_model, server_env, tmp_path / "err.log")
    try:
        assert "29 notes" in sess.session.initialize_result.instructions
        (vault / "Home.md").write_text("# Home\n\nThe zebracorn lives here now.\n", encoding="utf-8")
        time.sleep(2.1)  # past the freshness check's interval
        r = sess.call("search", {"query": "zebracorn", "limit": 1})
        assert not r.is_error and r.structured_content["warnings"] == [], text_of(r)
        hit = r.structured_content["results"][0]
        assert hit["path"] == "Home.md" and "zebracorn" in hit["content"]  # re-indexed before the search
        for i in range(25):
            (vault / "Log" / f"Entry {i:02d}.md").write_text(f"# Entry {i}\n\nrewritten {i}\n", encoding="utf-8")
        time.sleep(2.1)
        r = sess.call("search", {"query": "garden", "limit": 2})
        assert not r.is_error
        warn = " ".join(r.structured_content["warnings"])
        assert "25 notes changed on disk" in warn and "reindex" in warn and "'Log/Entry 00.md'" in warn
        st = sess.call("index_status").structured_content
        assert st["stale_files"] == 25 and "Log/Entry 00.md" in st["stale_paths"] and st["auto_reindex_max"] == 20
    finally:
        sess.close()


# ----------------------------------------------------------------------------- M2: the response budget


@pytest.mark.parametrize("query", ["garden journal compost tomatoes", "庭の日記 堆肥 トマト"])
def test_m2_the_largest_search_stays_under_the_default_budget(s, query):
    r = s.call("search", {"query": query, "limit": 50, "parent_retriever": True})
    assert not r.is_error, text_of(r)
    sc = r.structured_content
    assert _size(r) <= 10_000 and sc["approx_tokens"] <= 10_000
    assert sc["truncated"] is True and any(h["content_truncated"] for h in sc["results"])
    for h in sc["results"]:  # spans still point into the (cut) content
        b = h["content"].encode()
        for a, e in h["match_spans"]:
            assert 0 <= a < e <= len(b)
            b[a:e].decode()
    small = s.call("search", {"query": query, "limit": 50, "parent_retriever": True, "max_tokens": 2000})
    assert _size(small) <= 2000


def test_m2_search_pages_with_offset(s):
    full = s.call("search", {"query": "garden log entry", "limit": 6}).structured_content["results"]
    page = s.call("search", {"query": "garden log entry", "limit": 3, "offset": 3}).structured_content
    assert [h["chunk_id"] for h in page["results"]] == [h["chunk_id"] for h in full[3:6]]
    assert page["results"][0]["rank"] == 4 and page["offset"] == 3 and page["next_offset"] == 6
    # Past the 50 a search ranks: clamped with the CLI's and the daemon's words (issue 48), not refused.
    late = s.call("search", {"query": "garden", "limit": 30, "offset": 30})
    assert not late.is_error and late.structured_content["next_offset"] is None
    assert any(w.startswith("limit 30 is above the maximum 20; using 20") for w in late.structured_content["warnings"])


@pytest.mark.parametrize("path", ["Long English.md", "長い日本語.md"])
def test_m2_a_long_note_is_cut_under_budget_and_read_on(s, path):
    d = s.call("get_document", {"path": path})
    assert not d.is_error and _size(d) <= 10_000
    sc = d.structured_content
    assert sc["truncated"] is True and sc["next_line_start"] == sc["line_range"][1] + 1
    more = s.call("get_document", {"path": path, "line_start": sc["next_line_start"], "max_tokens": 3000})
    assert not more.is_error and _size(more) <= 3000
    assert more.structured_content["line_range"][0] == sc["next_line_start"]


def test_get_documents_shares_one_budget_and_reports_each_failure(s):
    paths = ["Home.md", "Nope.md", "Long English.md", "長い日本語.md", "Projects/Plan.md"]
    r = s.call("get_documents", {"paths": paths, "max_tokens": 6000})
    assert not r.is_error
    sc = r.structured_content
    assert _size(r) <= 6000
    assert [d["path"] for d in sc["documents"]][:2] == ["Home.md", "Long English.md"]
    assert sc["errors"][0]["path"] == "Nope.md" and "no note" in sc["errors"][0]["error"]
    assert sc["truncated"] and (sc["not_returned"] or any(d["truncated"] for d in sc["documents"]))


# ----------------------------------------------------------------------------- M4, M6, M7, M9, M10


def test_m4_the_description_says_exclusion_drops_whole_notes(s):
    search = {t.name: t for t in s.list_tools().tools}["search"]
    assert "leave out every note containing it" in search.description and "whole notes" in search.description


def test_m3_the_model_is_told_what_low_confidence_false_does_not_promise(s):
    """A question next to what the notes cover is usually not flagged
    (docs/eval.md): the description and the prompt say to check the hits."""
    search = {t.name: t for t in s.list_tools().tools}["search"]
    assert "If low_confidence is true" in search.description
    assert "False means the notes are about the topic, not that a hit answers the question" in search.description
    msg = s.get_prompt("answer_from_notes", {"question": "When do I water?"}).messages[0].content.text
    assert "`low_confidence: false` means my notes are about the topic, not that they answer" in msg


def test_m6_rerank_is_not_offered_without_a_reranker_and_says_how_to_configure(s):
    search = {t.name: t for t in s.list_tools().tools}["search"]
    assert "rerank" not in search.input_schema["properties"]
    t0 = time.monotonic()
    r = s.call("search", {"query": "garden", "rerank": True})
    assert r.is_error and "no reranker is configured" in text_of(r) and "groove.toml" in text_of(r)
    assert time.monotonic() - t0 < 2.0  # refused before any model work


def test_m6_rerank_is_offered_when_a_reranker_is_configured(tmp_path, tiny_model, server_env, big):
    vault = tmp_path / "vault"
    write_vault(vault)
    (vault / "groove.toml").write_text('[search]\nreranker = "some-reranker"\n', encoding="utf-8")
    sess = _server(vault, tmp_path / "i.sqlite", tiny_model, server_env, tmp_path / "err.log")
    try:
        search = {t.name: t for t in sess.list_tools().tools}["search"]
        assert "rerank" in search.input_schema["properties"]
    finally:
        sess.close()


@pytest.mark.parametrize("name,args,msg", [
    ("reindex", {"force": "yes"}, "'force' must be true or false, got a string"),
    ("search", {"query": "garden", "limit": "5"}, "'limit' must be an integer, got a string"),
    ("search", {"query": "garden", "mmr": "true"}, "'mmr' must be true or false"),
    ("search", {"query": "garden", "lmit": 5}, "unknown argument 'lmit' for search; valid arguments: query, limit"),
    ("get_document", {"path": "Home.md", "lines": "1-3"}, "valid arguments: path, line_start, line_end"),
    ("list_notes", {"sort": "size"}, "'sort'"),
])
def test_m7_arguments_are_strict_and_errors_plain(s, name, args, msg):
    r = s.call(name, args)
    assert r.is_error, text_of(r)
    assert msg in text_of(r), text_of(r)
    assert "pydantic" not in text_of(r) and "https://" not in text_of(r)
    st = s.call("index_status").structured_content
    assert st["indexing"] is False  # {"force": "yes"} did not start a rebuild


def test_m7_a_list_sent_as_a_json_string_is_still_read(s):
    r = s.call("search", {"query": "garden", "path_globs": '["Projects/**"]', "limit": 3})
    assert not r.is_error and {h["path"] for h in r.structured_content["results"]} == {"Projects/Plan.md"}


@pytest.mark.parametrize("given,meant", [("Meeting", "Meeting notes.md"), ("Plam", "Projects/Plan.md"),
                                         ("Standup", "Meeting notes.md")])
def test_m9_get_document_suggests_what_was_meant(s, given, meant):
    r = s.call("get_document", {"path": given})
    assert r.is_error and "Did you mean" in text_of(r) and repr(meant) in text_of(r), text_of(r)


def test_m10_a_missing_heading_is_flagged(s):
    r = s.call("resolve_link", {"link": "[[Plan#No such heading]]"}).structured_content
    assert r["exists"] is True and r["anchor_found"] is False and r["line_range"] is None
    assert "no heading" in r["warning"]
    ok = s.call("resolve_link", {"link": "[[Plan#Goals]]"}).structured_content
    assert ok["anchor_found"] is True
    assert s.call("resolve_link", {"link": "[[Plan]]"}).structured_content["anchor_found"] is None


def test_m10_related_notes_lists_each_link_once(s):
    r = s.call("related_notes", {"path": "Home.md"}).structured_content
    back = [b["path"] for b in r["backlinks"]]
    assert len(back) == len(set(back)) and "Log/Entry 00.md" in back
    entry = next(b for b in r["backlinks"] if b["path"] == "Log/Entry 00.md")
    assert entry["occurrences"] == 2
    out = s.call("related_notes", {"path": "Log/Entry 00.md"}).structured_content["outgoing"]
    assert [(o["path"], o["occurrences"]) for o in out] == [("Home.md", 2)]


def test_m10_output_schemas_are_typed(s):
    """Typed at the top level, short (ADR 0252): the keys and their JSON
    types, a list of objects naming its items' keys; the tools whose text
    is their result as JSON publish none."""
    by = {t.name: t for t in s.list_tools().tools}
    for name in ("index_status", "reindex", "related_notes", "resolve_link"):
        assert by[name].output_schema is None, name
    schema = by["search"].output_schema
    assert schema["properties"]["next_offset"] == {"type": ["integer", "null"]}
    assert schema["properties"]["low_confidence"] == {"type": "boolean"}
    results = schema["properties"]["results"]
    assert results["type"] == "array" and results["items"] == {"type": "object"}
    assert "path, title, heading_path" in results["description"] and "line_range" in results["description"]
    assert "$defs" not in schema
    for name in ("list_notes", "recent_notes", "list_tags", "get_documents", "get_document", "unlinked_connections"):
        assert by[name].output_schema and by[name].output_schema.get("properties"), name


# ----------------------------------------------------------------------------- peer tools


def test_list_notes_filters_sorts_and_pages(s):
    page = s.call("list_notes", {"folder": "Log", "limit": 8}).structured_content
    assert page["total"] == 20 and len(page["notes"]) == 8 and page["next_offset"] == 8
    assert [n["path"] for n in page["notes"]][:2] == ["Log/Entry 00.md", "Log/Entry 01.md"]
    nxt = s.call("list_notes", {"folder": "Log", "limit": 8, "offset": 8}).structured_content
    assert nxt["notes"][0]["path"] == "Log/Entry 08.md"
    odd = s.call("list_notes", {"tag": "#odd"}).structured_content
    assert odd["total"] == 10 and all("odd" in n["tags"] for n in odd["notes"])
    dated = s.call("list_notes", {"folder": "Log", "date_from": "2024-02-05", "date_to": "2024-02-07",
                                  "sort": "date"}).structured_content
    assert [n["date"] for n in dated["notes"]] == ["2024-02-07", "2024-02-06", "2024-02-05"]
    glob = s.call("list_notes", {"glob": "Archive/**"}).structured_content
    assert {n["path"] for n in glob["notes"]} == {"Archive/Old/Plan.md", "Archive/Old/Notes.md"}


def test_recent_notes_and_list_tags(s, big):
    vault, _ = big
    old = time.time() - 30 * 86400
    os.utime(vault / "Home.md", (old, old))  # on disk only; the index keeps the indexed mtime
    recent = s.call("recent_notes", {"days": 1, "limit": 5}).structured_content
    assert recent["total"] == 29 and len(recent["notes"]) == 5
    mods = [n["modified"] for n in recent["notes"]]
    assert mods == sorted(mods, reverse=True)
    tags = s.call("list_tags", {}).structured_content
    counts = {t["tag"]: t["count"] for t in tags["tags"]}
    assert counts["log"] == 20 and counts["even"] == 10 and counts["journal"] == 1
    assert tags["tags"][0]["tag"] == "log"


def test_resources_are_listed_and_prompts_teach_the_workflow(s):
    res = s.list_resources()
    uris = {str(r.uri) for r in res.resources}
    assert len(uris) == 29 and "groove://note/Projects/Plan.md" in uris and res.next_cursor is None
    assert "groove://note/%E6%97%A5%E6%9C%AC/%E4%BC%9A%E8%AD%B0.md" in uris
    prompts = {p.name for p in s.list_prompts().prompts}
    assert prompts == {"answer_from_notes", "summarize_recent", "explore_topic"}
    msg = s.get_prompt("answer_from_notes", {"question": "When do I water?"}).messages[0].content.text
    assert "When do I water?" in msg and "low_confidence" in msg and "[[" in msg
    instr = s.session.initialize_result.instructions
    assert "29 notes" in instr and "list_notes" in instr


def test_the_budget_defaults_are_documented(s):
    search = {t.name: t for t in s.list_tools().tools}["search"]
    assert search.input_schema["properties"]["max_tokens"]["default"] == 10_000


def test_an_explained_search_says_which_legs_found_each_hit(s):
    plain = s.call("search", {"query": "garden plan", "limit": 3}).structured_content
    told = s.call("search", {"query": "garden plan", "limit": 3, "explain": True})
    assert not told.is_error
    hits = told.structured_content["results"]
    assert [h["chunk_id"] for h in hits] == [h["chunk_id"] for h in plain["results"]]
    assert all("explain" not in h for h in plain["results"])
    for h in hits:
        legs = h["explain"]["legs"]
        assert set(legs) <= {"vector", "full_text", "title", "note", "named_note"} and legs
        assert all(leg["rank"] >= 1 and leg["rrf"] > 0 for leg in legs.values())
    assert plain["confidence"] is None
    conf = told.structured_content["confidence"]
    assert conf["low_confidence"] == told.structured_content["low_confidence"] and conf["rule"] == "calibrated"
    assert "\nconfidence: " in told.content[0].text
    assert s.call("search", {"query": "garden", "explain": "yes"}).is_error  # strict: no coercion
