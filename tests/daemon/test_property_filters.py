"""The socket's search takes ``where`` (ADR 0191): typed conditions over the
notes' properties, a bad entry answered as an invalid argument naming it,
and, while the vault is watched, an edited property or new daily-notes
settings reflected without a restart."""

from __future__ import annotations

import json
import tempfile
from pathlib import Path

import pytest

from groove.daemon import protocol
from groove.daemon.client import RpcError
from groove.wire import rpc

from .conftest import poll

TIMEOUT = 30.0
NOTES = {
    "Alpha.md": "---\ntype: meeting\nattendees: [Ann, Bob]\nscore: 7\n---\n# Alpha\n\nquinceword minutes\n",
    "Beta.md": "---\ntype: idea\nscore: 2\nshipped: false\n---\n# Beta\n\nquinceword sketch\n",
    "Log/2026-11-03.md": "# Tuesday\n\nquinceword log entry\n",
}


@pytest.fixture(scope="module")
def daemon(module_home, tiny_model):
    from .conftest import new_daemon

    vault = Path(tempfile.mkdtemp(prefix="g", dir=module_home)) / "vault"
    for rel, text in NOTES.items():
        (vault / rel).parent.mkdir(parents=True, exist_ok=True)
        (vault / rel).write_text(text, encoding="utf-8")
    (vault / "groove.toml").write_text("[watch]\ndebounce_ms = 150\n", encoding="utf-8")
    (vault / ".obsidian").mkdir()
    d = new_daemon(module_home, tiny_model, vault=vault)
    d.start()
    yield d
    d.stop()


def _paths(c, **params) -> set[str]:
    resp = c.call("search", {"query": "quinceword", "limit": 20, **params})
    protocol.validator("result", "search").validate(resp)
    return {h["path"] for h in resp["results"]}


def test_where_over_the_socket(daemon, groove_home):
    with daemon.client() as c:
        daemon.wait_idle(c)
        assert _paths(c, where=["type=meeting"]) == {"Alpha.md"}
        assert _paths(c, where=["attendees=ann"]) == {"Alpha.md"}
        assert _paths(c, where=["score>5"]) == {"Alpha.md"}
        assert _paths(c, where=["score<5", "shipped=false"]) == {"Beta.md"}
        assert _paths(c, where=["type!=meeting"]) == {"Beta.md", "Log/2026-11-03.md"}
        # No settings file: a note named by its day is a daily note, wherever it lies.
        assert _paths(c, date_from="2026-11-03", date_to="2026-11-03") == {"Log/2026-11-03.md"}
        resp = c.call("search", {"query": "quinceword", "where": ["score>=7"]})
        assert resp["filter_applied"] == {"where": ["score>=7"]}


def test_a_bad_where_is_an_invalid_argument_naming_the_entry(daemon, groove_home):
    with daemon.client() as c:
        for entry, says in (("type", "no operator"), ("type<meeting", "orders numbers and dates")):
            with pytest.raises(RpcError) as e:
                c.call("search", {"query": "quinceword", "where": [entry]})
            assert e.value.code == rpc.INVALID_PARAMS and e.value.data == {"parameter": "where"}
            assert says in e.value.message and repr(entry) in e.value.message
        with pytest.raises(RpcError) as e:  # the schema's bound, before any work
            c.call("search", {"query": "quinceword", "where": ["a=b"] * 101})
        assert e.value.code == rpc.INVALID_PARAMS and "where" in e.value.message


def test_edits_while_watched_move_notes_in_and_out_of_a_filter(daemon, groove_home):
    vault = daemon.vault
    with daemon.client() as c:
        daemon.wait_idle(c)
        (vault / "Beta.md").write_text(NOTES["Beta.md"].replace("type: idea", "type: meeting"), encoding="utf-8")
        poll(lambda: _paths(c, where=["type=meeting"]) == {"Alpha.md", "Beta.md"}, TIMEOUT,
             "the edited property to be filtered on")
        # Daily notes kept under Journal/ from now on: the Log note is no longer one.
        (vault / ".obsidian" / "daily-notes.json").write_text(
            json.dumps({"folder": "Journal", "format": "YYYY-MM-DD"}), encoding="utf-8")
        poll(lambda: _paths(c, date_from="2026-11-03", date_to="2026-11-03") == set(), TIMEOUT,
             "the Log note to lose its daily-note day")
