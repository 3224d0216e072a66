"""`+"phrase"` (issue 48): a phrase a note must hold. `"lease time"` ranks
notes holding the phrase higher but keeps the others (an OR'ed phrase);
`+"lease time"` keeps only the notes that hold it, in every leg, and a
query without `+` compiles exactly as before."""

from __future__ import annotations

from groove.pipeline import SearchParams, run_search
from groove.query import parse_query
from helpers import indexed_runtime

NOTES = {
    "Net/Lease.md": "# DHCP lease\n\nThe lease time of a DHCP address is one day; renewal starts halfway.\n",
    "Net/Renewal.md": "# Renewal\n\nRenewal of an address: the time to renew, then the lease again.\n",
    "Net/Time.md": "# Time servers\n\nNTP sets the time; a lease has nothing to do with it.\n",
    "Home.md": "# Home\n\nGarden and kitchen notes, and the lease time of the flat.\n",
}


def test_the_plus_phrase_compiles_as_a_required_phrase_and_a_search_phrase():
    p = parse_query('+"lease time" renewal')
    assert p.required == ["lease time"]
    assert "lease time" in p.positives and "renewal" in p.positives
    assert "+" not in p.embed_text and '"lease time"' in p.embed_text


def test_queries_without_plus_compile_as_before():
    for q in ('"lease time" renewal', "C++ templates", "a + b", "+renewal", '+ "lease time"'):
        p = parse_query(q)
        assert p.required == [], q
    plain = parse_query('"lease time" renewal')
    assert plain.positives == ["lease time", "renewal"] and plain.embed_text == '"lease time" renewal'


def test_a_short_required_phrase_is_ignored_with_a_warning():
    p = parse_query('+"ab" renewal')
    assert p.required == [] and any("required phrase" in w for w in p.warnings)


def test_only_notes_holding_the_required_phrase_are_returned(tmp_path, tiny_embedder):
    rt = indexed_runtime(tmp_path, NOTES, tiny_embedder)
    loose = {h.path for h in run_search(rt, SearchParams('"lease time" renewal', limit=10)).results}
    assert {"Net/Renewal.md", "Net/Time.md"} & loose  # the OR'ed phrase keeps notes without it
    resp = run_search(rt, SearchParams('+"lease time" renewal', limit=10))
    assert {h.path for h in resp.results} == {"Net/Lease.md", "Home.md"}
    assert resp.filter_applied["required_phrases"] == ["lease time"]
    # with a filter, both hold
    tagged = run_search(rt, SearchParams('+"lease time" renewal', limit=10, path_globs=("Net/**",)))
    assert {h.path for h in tagged.results} == {"Net/Lease.md"}
    none = run_search(rt, SearchParams('+"lease period" renewal', limit=10))
    assert none.results == []
