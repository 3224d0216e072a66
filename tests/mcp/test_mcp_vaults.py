"""Several vaults from one MCP server (issue 39, ADR 0205), through the SDK's
client: in this process (the in-memory transport) and once over stdio with
`groove mcp --vault A --vault B`. Two tiny vaults, each indexed by the real
CLI with the tiny model: the same path in both holds different text, a note
one vault excludes exists in the other, and a word is found in only one."""

from __future__ import annotations

import logging
from contextlib import asynccontextmanager
from pathlib import Path

import anyio
import pytest

from helpers import write_note
from mcp_support import SyncSession, groove_index, stdio_session, text_of

WORK = {
    "Shared.md": "# Shared\n\nWORK COPY of the shared note: the quarterly budget review.\n",
    "Budget.md": "# Budget\n\nThe quarterly budget spreadsheet and the invoices.\n",
    "Only work.md": "# Only work\n\nThe zeppelin hangar lease, a word only this vault holds.\n",
    "private/salary.md": "# Salary\n\nWORK SECRET salary figures.\n",
}
HOME = {
    "Shared.md": "# Shared\n\nHOME COPY of the shared note: the garden and the budget for seeds.\n",
    "Garden.md": "# Garden\n\nTomatoes, beans and the seed budget for spring.\n",
    "private/salary.md": "# Salary at home\n\nHome salary note, readable here.\n",
}


def _vault(root: Path, notes: dict[str, str]) -> Path:
    for rel, text in notes.items():
        write_note(root, rel, text)
    return root


@pytest.fixture(scope="module")
def two(tmp_path_factory: pytest.TempPathFactory, tiny_model: Path, server_env: dict) -> list[tuple[Path, Path]]:
    out = []
    for name, notes in (("Work", WORK), ("Home", HOME)):
        vault = _vault(tmp_path_factory.mktemp("vaults") / name, notes)
        index = tmp_path_factory.mktemp(f"index-{name}") / "index.sqlite"
        assert groove_index(vault, index, tiny_model, server_env)["indexed"] == len(notes)
        out.append((vault, index))
    # Excluded after indexing (the worst case): the index still holds Work's salary note.
    (out[0][0] / ".grooveignore").write_text("private/\n", encoding="utf-8")
    return out


@asynccontextmanager
async def _inproc(two: list[tuple[Path, Path]], model: Path, errlog: Path):
    from mcp.client import Client

    from groove.mcp import ServerOptions, build_server

    opts = [ServerOptions(vault=v, index_path=i, model=str(model), attach=False) for v, i in two]
    handler = logging.FileHandler(errlog, encoding="utf-8")
    logging.getLogger("groove").addHandler(handler)
    try:
        async with Client(build_server(opts), mode="legacy") as client:
            yield client.session
    finally:
        logging.getLogger("groove").removeHandler(handler)
        handler.close()


@pytest.fixture(scope="module")
def s(two, tiny_model, tmp_path_factory):
    sess = SyncSession(lambda: _inproc(two, tiny_model, tmp_path_factory.mktemp("log") / "err.log"))
    yield sess
    sess.close()


def test_the_server_lists_its_vaults_by_folder_name(s, two) -> None:
    r = s.call("list_vaults")
    assert not r.is_error, text_of(r)
    rows = r.structured_content["vaults"]
    assert [(x["name"], x["documents"]) for x in rows] == [("Work", 4), ("Home", 3)]
    assert rows[0]["path"] == str(two[0][0].resolve())
    tools = {t.name: t for t in s.list_tools().tools}
    for name in ("search", "get_document", "related_notes", "list_notes", "index_status", "reindex"):
        desc = tools[name].input_schema["properties"]["vault"]["description"]
        assert "'Work'" in desc and "'Home'" in desc, name
    assert "vault" in tools["search"].output_schema["properties"]


def test_search_looks_in_every_vault_and_names_each_hits_vault(s) -> None:
    r = s.call("search", {"query": "budget", "limit": 10})
    assert not r.is_error, text_of(r)
    hits = r.structured_content["results"]
    assert {h["vault"] for h in hits} == {"Work", "Home"}
    assert [h["rank"] for h in hits] == list(range(1, len(hits) + 1))
    assert [h["score"] for h in hits] == sorted((h["score"] for h in hits), reverse=True)
    assert ("Work", "Shared.md") in {(h["vault"], h["path"]) for h in hits}
    assert ("Home", "Shared.md") in {(h["vault"], h["path"]) for h in hits}
    assert "[Work] " in text_of(r) and "[Home] " in text_of(r)


def test_a_word_only_one_vault_holds_is_found_there(s) -> None:
    hits = s.call("search", {"query": '"zeppelin"'}).structured_content["results"]
    assert (hits[0]["vault"], hits[0]["path"]) == ("Work", "Only work.md")
    assert all(h["match_spans"] == [] for h in hits if h["vault"] == "Home")


def test_the_vault_argument_narrows_search_to_that_vault(s, two) -> None:
    for name in ("Home", "home", str(two[1][0])):  # the name, any case, or the folder's path
        hits = s.call("search", {"query": "budget", "vault": name}).structured_content["results"]
        assert hits and {h["vault"] for h in hits} == {"Home"}, name


def test_get_document_reads_the_same_path_from_the_vault_named(s) -> None:
    work = s.call("get_document", {"path": "Shared.md", "vault": "Work"})
    home = s.call("get_document", {"path": "Shared.md", "vault": "Home"})
    assert "WORK COPY" in work.structured_content["content"] and work.structured_content["vault"] == "Work"
    assert "HOME COPY" in home.structured_content["content"] and home.structured_content["vault"] == "Home"
    batch = s.call("get_documents", {"paths": ["Garden.md", "Budget.md"], "vault": "Home"}).structured_content
    assert [d["path"] for d in batch["documents"]] == ["Garden.md"]
    assert [e["path"] for e in batch["errors"]] == ["Budget.md"]  # Work's note is not Home's
    assert s.read_resource("groove://note/Home/Shared.md").contents[0].text == HOME["Shared.md"]
    assert s.read_resource("groove://note/Work/Shared.md").contents[0].text == WORK["Shared.md"]


def test_a_path_of_one_vault_is_never_served_from_another(s) -> None:
    r = s.call("get_document", {"path": "Garden.md", "vault": "Work"})
    assert r.is_error and "Tomatoes" not in text_of(r)
    # Excluded in Work; Home's note of the same path stays Home's alone.
    r = s.call("get_document", {"path": "private/salary.md", "vault": "Work"})
    assert r.is_error and "WORK SECRET" not in text_of(r) and "Home salary" not in text_of(r)
    r = s.call("get_document", {"path": "../Home/Garden.md", "vault": "Work"})
    assert r.is_error and "Tomatoes" not in text_of(r)
    assert "Home salary" in s.call("get_document", {"path": "private/salary.md", "vault": "Home"}
                                   ).structured_content["content"]
    hits = s.call("search", {"query": "salary figures", "limit": 20}).structured_content["results"]
    assert all("WORK SECRET" not in h["content"] for h in hits)
    assert all(h["vault"] == "Home" for h in hits if h["path"].startswith("private/"))
    try:
        text = s.read_resource("groove://note/Work/private/salary.md").contents[0].text
    except Exception as e:  # refused: a JSON-RPC error
        text = f"refused: {e}"
    assert text.startswith("refused") and "WORK SECRET" not in text


def test_an_unknown_vault_is_refused_with_the_vaults_served(s) -> None:
    for tool, args in (("search", {"query": "budget"}), ("get_document", {"path": "Shared.md"}),
                       ("list_notes", {}), ("index_status", {})):
        r = s.call(tool, {**args, "vault": "Attic"})
        assert r.is_error, tool
        assert "unknown vault 'Attic'" in text_of(r) and "'Work', 'Home'" in text_of(r), text_of(r)


def test_tools_that_read_one_vault_ask_which_when_not_told(s) -> None:
    r = s.call("get_document", {"path": "Shared.md"})
    assert r.is_error and "pass `vault`" in text_of(r) and "'Work', 'Home'" in text_of(r)
    page = s.call("list_notes", {"vault": "Home"}).structured_content
    assert sorted(n["path"] for n in page["notes"]) == ["Garden.md", "Shared.md", "private/salary.md"]
    assert page["vault"] == "Home"


def test_resources_list_names_each_notes_vault(s) -> None:
    uris = [str(r.uri) for r in s.list_resources().resources]
    assert "groove://note/Home/Garden.md" in uris and "groove://note/Work/Only%20work.md" in uris
    assert not any("private" in u and "/Work/" in u for u in uris)


def test_one_vault_offers_no_vault_argument(two, tiny_model, tmp_path) -> None:
    from mcp_support import inproc_session

    vault, index = two[1]
    args = ["--vault", str(vault), "--index", str(index), "--model", str(tiny_model), "--standalone"]
    one = SyncSession(lambda: inproc_session(args, tmp_path / "err.log"))
    try:
        tools = {t.name: t for t in one.list_tools().tools}
        assert "list_vaults" not in tools
        assert all("vault" not in t.input_schema.get("properties", {}) for t in tools.values())
        # No output schema names a vault (index_status names its folder in its JSON text, which has no
        # published schema: ADR 0252).
        naming = [n for n, t in tools.items() if "vault" in (t.output_schema or {}).get("properties", {})]
        assert naming == []
        hit = one.call("search", {"query": "budget"}).structured_content["results"][0]
        assert "vault" not in hit
        r = one.call("search", {"query": "budget", "vault": "Home"})
        assert r.is_error and "only accepted when the server serves several vaults" in text_of(r)
    finally:
        one.close()


def test_two_vaults_over_stdio_end_to_end(two, tiny_model, server_env, tmp_path) -> None:
    (w, wi), (h, hi) = two
    args = ["--vault", str(w), "--vault", str(h), "--index", str(wi), "--index", str(hi),
            "--model", str(tiny_model), "--standalone", "--no-warm"]

    import groove

    env = {**server_env, "PYTHONPATH": str(Path(groove.__file__).parents[1])}  # this checkout's groove

    async def go() -> None:
        async with stdio_session(args, env, tmp_path / "err.log") as sess:
            hits = (await sess.call_tool("search", {"query": "budget"})).structured_content["results"]
            assert {x["vault"] for x in hits} == {"Work", "Home"}
            home = await sess.call_tool("get_document", {"path": "Shared.md", "vault": "Home"})
            assert "HOME COPY" in home.structured_content["content"]
            bad = await sess.call_tool("get_document", {"path": "Shared.md", "vault": "Attic"})
            assert bad.is_error and "'Work', 'Home'" in text_of(bad)

    anyio.run(go)


def test_two_vaults_over_streamable_http(two, tiny_model, server_env, tmp_path) -> None:
    import groove
    from mcp_support import HttpServer, http_session

    (w, wi), (h, hi) = two
    env = {**server_env, "PYTHONPATH": str(Path(groove.__file__).parents[1])}
    server = HttpServer(["--vault", str(w), "--vault", str(h), "--index", str(wi), "--index", str(hi),
                         "--model", str(tiny_model), "--standalone", "--no-warm"], env, tmp_path / "http.log")
    try:
        assert f"for {w}, {h} at" in (tmp_path / "http.log").read_text()

        async def go() -> None:
            async with http_session(server.url) as sess:
                hits = (await sess.call_tool("search", {"query": "budget"})).structured_content["results"]
                assert {x["vault"] for x in hits} == {"Work", "Home"}
                work = await sess.call_tool("get_document", {"path": "Shared.md", "vault": "Work"})
                assert "WORK COPY" in work.structured_content["content"]

        anyio.run(go)
    finally:
        server.stop()


def test_the_cli_refuses_unpaired_indexes_and_a_vault_twice(two, tiny_model, server_env) -> None:
    import os
    import subprocess

    from mcp_support import GROOVE

    (w, wi), (h, _) = two
    env = {**os.environ, **server_env}
    for args, why in ((["--vault", str(w), "--vault", str(h), "--index", str(wi)], "one --index per vault"),
                      (["--vault", str(w), "--vault", str(w) + "/"], "given twice")):
        out = subprocess.run([GROOVE, "mcp", *args], env=env, capture_output=True, text=True, timeout=60,
                             stdin=subprocess.DEVNULL)
        assert out.returncode == 2 and why in out.stderr, out.stderr


def test_each_vault_goes_to_its_own_daemon_when_one_runs(two, tiny_model, server_env, tmp_path) -> None:
    import os
    import shutil
    import subprocess

    from mcp_support import GROOVE

    (w, wi), (h, hi) = two
    work = tmp_path / "Work"  # a copy: the daemon's watcher may re-index it
    shutil.copytree(w, work)
    shutil.copy(wi, tmp_path / "work.sqlite")
    # The daemon registers under this test's GROOVE_HOME, where the in-process server looks.
    env = {**os.environ, **server_env, "GROOVE_HOME": os.environ["GROOVE_HOME"]}
    out = subprocess.run([GROOVE, "serve", "--vault", str(work), "--model", str(tiny_model),
                          "--index", str(tmp_path / "work.sqlite")], env=env, capture_output=True, text=True,
                         timeout=180)
    assert out.returncode == 0, out.stderr
    try:
        from groove.mcp import ServerOptions, build_server

        opts = [ServerOptions(vault=work, model=str(tiny_model)),
                ServerOptions(vault=h, index_path=hi, model=str(tiny_model), warm=False)]

        async def go() -> None:
            from mcp.client import Client

            async with Client(build_server(opts), mode="legacy") as client:
                s = client.session
                modes = [(await s.call_tool("index_status", {"vault": v})).structured_content["mode"]
                         for v in ("Work", "Home")]
                assert modes == ["daemon", "standalone"]
                hits = (await s.call_tool("search", {"query": "budget"})).structured_content["results"]
                assert {x["vault"] for x in hits} == {"Work", "Home"}
                d = await s.call_tool("get_document", {"path": "Shared.md", "vault": "Work"})
                assert "WORK COPY" in d.structured_content["content"]
                gate = await s.call_tool("get_document", {"path": "private/salary.md", "vault": "Work"})
                assert gate.is_error and "WORK SECRET" not in text_of(gate)

        anyio.run(go)
    finally:
        subprocess.run([GROOVE, "serve", "--stop", "--vault", str(work)], env=env, capture_output=True, timeout=60)


def test_pages_of_a_search_across_vaults_follow_on(s) -> None:
    whole = s.call("search", {"query": "budget", "limit": 4}).structured_content["results"]
    first = s.call("search", {"query": "budget", "limit": 2}).structured_content
    rest = s.call("search", {"query": "budget", "limit": 2, "offset": first["next_offset"]}).structured_content
    assert first["next_offset"] == 2
    assert [(h["vault"], h["chunk_id"]) for h in first["results"] + rest["results"]] == [
        (h["vault"], h["chunk_id"]) for h in whole]
