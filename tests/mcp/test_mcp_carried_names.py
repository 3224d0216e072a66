"""A warning never contradicts the hits (issue 48, ADR 0251): a name a note
carries as its title, an alias or a tag is known to the vault, though
aliases and tags are not in the text index. Searched by that name, the
response has no "the vault never mentions" warning and low_confidence is
false, in the CLI and over MCP (the real default model, a real index).
A name no note carries is still flagged."""

from __future__ import annotations

import json
import os
import subprocess
from pathlib import Path

import pytest

from groove.pipeline import SearchParams, run_search
from groove.runtime import open_runtime
from mcp_support import GROOVE, SyncSession, groove_index, stdio_session, text_of

pytestmark = pytest.mark.needs_default_model

NOTES = {
    # The title spells it out; only the alias says "eBPF" (the note).
    "OS/Extended Berkley Packet Filter.md": (
        "---\naliases: [eBPF]\ntags: [os, kernel]\n---\n# Extended Berkley Packet Filter\n\n"
        "Small programs run inside the Linux kernel without changing its source or loading a module.\n"
        "A verifier checks each program before it is attached to a hook: a socket, a tracepoint, a kprobe "
        "or the XDP path of a network driver.\nPrograms share state with user space through maps.\n"),
    # Only the tag says "k8s".
    "Cluster/Container orchestration.md": (
        "---\ntags: [k8s, ops]\n---\n# Container orchestration\n\n"
        "A control plane schedules pods onto nodes; a deployment keeps the wanted number of replicas running.\n"
        "Services give a stable address to a changing set of pods, and an ingress routes outside traffic.\n"),
    "Network/DHCP Lease.md": (
        "# DHCP Lease\n\nA client asks for an address with DISCOVER, the server OFFERs one, the client "
        "REQUESTs it and the server ACKs. It renews at half the lease time.\n"),
    "Network/ARP spoofing.md": (
        "# ARP spoofing\n\nAn attacker answers ARP requests for the gateway with its own MAC address.\n"),
    "Biology/Mitochondria.md": (
        "# Mitochondria\n\nThe organelle that makes ATP by oxidative phosphorylation; it has its own DNA.\n"),
}


@pytest.fixture(scope="module")
def indexed(tmp_path_factory, default_model_path: Path, server_env: dict) -> tuple[Path, Path]:
    root = tmp_path_factory.mktemp("carried")
    vault = root / "vault"
    for rel, text in NOTES.items():
        (vault / rel).parent.mkdir(parents=True, exist_ok=True)
        (vault / rel).write_text(text, encoding="utf-8")
    index = root / "index.sqlite"
    groove_index(vault, index, default_model_path, server_env)
    return vault, index


def _cli_search(query: str, vault: Path, index: Path, model: Path, env: dict) -> dict:
    out = subprocess.run([GROOVE, "search", query, "--vault", str(vault), "--index", str(index), "--model",
                          str(model), "--json", "--limit", "3"], env={**os.environ, **env},
                         capture_output=True, text=True, timeout=300)
    assert out.returncode == 0, out.stderr
    return json.loads(out.stdout)


CARRIED = [("eBPF", "OS/Extended Berkley Packet Filter.md"), ("k8s", "Cluster/Container orchestration.md")]


@pytest.mark.parametrize("query,note", CARRIED)
def test_the_cli_knows_a_name_a_note_carries_as_alias_or_tag(indexed, default_model_path, server_env, query, note):
    vault, index = indexed
    d = _cli_search(query, vault, index, default_model_path, server_env)
    # The alias is a note's name (the named-note rule puts it first); a tag only makes the word known.
    paths = [h["path"] for h in d["results"]]
    assert paths[0] == note if query == "eBPF" else note in paths, paths
    assert not any("never mentions" in w for w in d["warnings"]), d["warnings"]
    assert d["low_confidence"] is False


def test_over_mcp_too_and_a_name_no_note_carries_is_still_flagged(indexed, default_model_path, server_env,
                                                                    tmp_path):
    vault, index = indexed
    args = ["--vault", str(vault), "--model", str(default_model_path), "--index", str(index), "--standalone"]
    sess = SyncSession(lambda: stdio_session(args, server_env, tmp_path / "stderr.log"))
    try:
        for query, note in CARRIED:
            r = sess.call("search", {"query": query, "limit": 3})
            sc = r.structured_content
            assert note in [h["path"] for h in sc["results"]], query
            assert sc["low_confidence"] is False, (query, sc["warnings"])
            assert "never mentions" not in text_of(r) and "low confidence" not in text_of(r)
        r = sess.call("search", {"query": "import my notes from Joplin", "limit": 3})  # no note or text has it
        assert r.structured_content["low_confidence"] is True
        assert 'the vault never mentions "Joplin"' in text_of(r)
        assert "(low confidence: the notes probably do not answer this; say so" in text_of(r)  # for Claude
    finally:
        sess.close()


def test_a_hit_the_query_names_is_never_low_confidence(indexed, default_model_path):
    """The named-note rule and the verdict agree: with a margin threshold
    every query fails, the one that names a hit's note is still not low."""
    vault, index = indexed
    rt = open_runtime(vault, index_path=index, model=str(default_model_path))
    try:
        strict = {"limit": 3, "min_confidence_ratio": 0.99, "explain": True}
        named = run_search(rt, SearchParams(query="eBPF", **strict))
        assert named.results[0].path == "OS/Extended Berkley Packet Filter.md"
        assert named.low_confidence is False and named.confidence["named_note"] is True
        other = run_search(rt, SearchParams(query="kernel packet filter programs", **strict))
        assert other.low_confidence is True and "named_note" not in other.confidence
    finally:
        rt.close()
