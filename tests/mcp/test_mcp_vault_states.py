"""What the server says about a vault it cannot search yet (issue 48,
ADR 0253), through the official stdio client against a real `groove mcp`:
a vault folder that does not exist starts a server whose instructions and
every tool name the folder (not a bare "connection closed"), and a
never-indexed vault's instructions say what the first search will do."""

from __future__ import annotations

from mcp_support import SyncSession, stdio_session, text_of

EVERY_TOOL: list[tuple[str, dict]] = [
    ("search", {"query": "garden"}),
    ("get_document", {"path": "Home.md"}),
    ("get_documents", {"paths": ["Home.md"]}),
    ("related_notes", {"path": "Home.md"}),
    ("resolve_link", {"link": "[[Home]]"}),
    ("list_notes", {}),
    ("recent_notes", {}),
    ("list_tags", {}),
    ("index_status", {}),
    ("reindex", {}),
    ("unlinked_connections", {"path": "Home.md"}),
]


def test_a_missing_vault_folder_is_named_by_the_instructions_and_every_tool(tmp_path, server_env, tiny_model):
    missing = tmp_path / "Notse"  # a typo in the client's configuration
    args = ["--vault", str(missing), "--model", str(tiny_model), "--standalone"]
    sess = SyncSession(lambda: stdio_session(args, server_env, tmp_path / "stderr.log"))
    try:
        instructions = sess.session.initialize_result.instructions
        assert f"the vault folder {missing} does not exist" in instructions
        for name, call_args in EVERY_TOOL:
            r = sess.call(name, call_args)
            assert r.is_error, name
            assert f"the vault folder {missing} does not exist" in text_of(r), (name, text_of(r))
            assert "--vault" in text_of(r) and "internal error" not in text_of(r), name
        assert {p.name for p in sess.list_prompts().prompts}  # the rest of the server works
        # The folder appears (a drive mounted late): the same server now reads it.
        missing.mkdir()
        (missing / "Home.md").write_text("# Home\n\nThe garden plan.\n", encoding="utf-8")
        r = sess.call("search", {"query": "garden"})
        assert not r.is_error, text_of(r)
        assert r.structured_content["results"][0]["path"] == "Home.md"
    finally:
        sess.close()
    assert "does not exist" in (tmp_path / "stderr.log").read_text(encoding="utf-8")


def test_a_folder_that_is_a_file_is_said_so(tmp_path, server_env, tiny_model):
    file = tmp_path / "notes.md"
    file.write_text("# Not a folder\n", encoding="utf-8")
    sess = SyncSession(lambda: stdio_session(["--vault", str(file), "--model", str(tiny_model), "--standalone"],
                                             server_env, tmp_path / "stderr.log"))
    try:
        r = sess.call("list_notes", {})
        assert r.is_error and f"the vault folder {file} is not a folder" in text_of(r)
    finally:
        sess.close()


def test_a_small_never_indexed_vault_is_told_to_be_indexed_by_the_first_search(tmp_path, server_env, tiny_model):
    vault = tmp_path / "vault"
    vault.mkdir()
    for i, topic in enumerate(("garden beds", "tomato staking", "compost heap")):
        (vault / f"Note {i}.md").write_text(f"# Note {i}\n\nAbout the {topic}.\n", encoding="utf-8")
    args = ["--vault", str(vault), "--model", str(tiny_model), "--index", str(tmp_path / "i.sqlite"),
            "--standalone"]
    sess = SyncSession(lambda: stdio_session(args, server_env, tmp_path / "stderr.log"))
    try:
        instructions = sess.session.initialize_result.instructions
        assert "is not indexed yet: its 3 notes are indexed by the first search" in instructions, instructions
        assert "searches fail" not in instructions
        r = sess.call("search", {"query": "compost heap", "limit": 3})  # what the instructions promised
        assert not r.is_error, text_of(r)
        assert sess.call("index_status").structured_content["documents"] == 3
    finally:
        sess.close()
