"""Unlinked connections on the socket (ADR 0200): related_notes marks each
similar note linked or not and can leave the linked ones out before the
limit; unlinked_connections gives the [[link]] that resolves to each; a
link written into the note while the daemon watches moves its target from
unlinked to linked."""

from __future__ import annotations

import tempfile
from pathlib import Path

import pytest

from groove.daemon import protocol
from groove.daemon.client import RpcError
from groove.wire import rpc
from unlinked_vault import INDEXED, LINKED, NOTES, SOURCE, write_vault

from .conftest import poll

TIMEOUT = 30.0


@pytest.fixture(scope="module")
def daemon(module_home, tiny_model):
    from .conftest import new_daemon

    vault = write_vault(Path(tempfile.mkdtemp(prefix="u", dir=module_home)) / "vault")
    (vault / "groove.toml").write_text("[watch]\ndebounce_ms = 150\n", encoding="utf-8")
    d = new_daemon(module_home, tiny_model, vault=vault)
    d.start()
    yield d
    d.stop()


def _related(c, **params) -> dict:
    r = c.call("related_notes", {"path": SOURCE, **params})
    protocol.validator("result", "related_notes").validate(r)
    return r


def test_related_notes_marks_links_and_filters_before_the_limit(daemon, groove_home):
    with daemon.client() as c:
        daemon.wait_idle(c)
        everything = _related(c, limit=50)["similar"]
        assert {s["path"] for s in everything} == INDEXED - {SOURCE}
        assert {s["path"] for s in everything if s["linked"]} == LINKED
        unlinked = [s for s in everything if not s["linked"]]
        for k in (1, 3):
            assert _related(c, limit=k, unlinked_only=True)["similar"] == unlinked[:k]
        assert _related(c, limit=50, unlinked_only=False)["similar"] == everything


def test_unlinked_connections_give_links_that_resolve_to_their_notes(daemon, groove_home):
    with daemon.client() as c:
        daemon.wait_idle(c)
        r = c.call("unlinked_connections", {"path": SOURCE, "limit": 50})
        protocol.validator("result", "unlinked_connections").validate(r)
        by_path = {x["path"]: x for x in r["connections"]}
        assert set(by_path) == INDEXED - {SOURCE} - LINKED
        assert by_path["Kitchen/Oven.md"]["link"] == "[[Kitchen/Oven]]"  # two notes are named Oven
        assert by_path["Garage/Oven.md"]["link"] == "[[Garage/Oven]]"
        assert by_path["Baking/Levain.md"]["link"] == "[[Levain]]"
        assert by_path["Baking/Levain.md"]["aliases"] == ["Mother dough"]
        for path, x in by_path.items():
            assert c.resolve_link(x["link"], from_path=SOURCE)["path"] == path


def test_a_wrong_unlinked_only_is_refused_by_name(daemon, groove_home):
    with daemon.client() as c:
        with pytest.raises(RpcError) as e:
            c.call("related_notes", {"path": SOURCE, "unlinked_only": "yes"})
        assert e.value.code == rpc.INVALID_PARAMS and "unlinked_only" in e.value.message


def test_a_link_written_while_watched_moves_the_note_to_linked(daemon, groove_home):
    vault = daemon.vault
    with daemon.client() as c:
        daemon.wait_idle(c)
        (vault / SOURCE).write_text(NOTES[SOURCE] + "\nBake it in the [[Kitchen/Oven]].\n", encoding="utf-8")
        poll(lambda: "Kitchen/Oven.md" in {s["path"] for s in _related(c, limit=50)["similar"] if s["linked"]},
             TIMEOUT, "the new link to be seen")
        assert "Kitchen/Oven.md" not in {s["path"] for s in _related(c, limit=50, unlinked_only=True)["similar"]}
        left = {x["path"] for x in c.call("unlinked_connections", {"path": SOURCE, "limit": 50})["connections"]}
        assert left == INDEXED - {SOURCE} - LINKED - {"Kitchen/Oven.md"}
