"""Did-you-mean for a path that names no note (issue 48, ADR 0250): on a
vault of plausible names, the note spelled alike is offered, a name that
only shares scattered letters is not ('Hardware/CPU Flag.md' for
'Network/DHCP Leasng.md'), and the wanted folder orders the offers."""

from __future__ import annotations

import pytest

from groove.errors import NoteNotFound
from groove.operations import notes
from groove.vault.suggest import close_paths, name_similarity
from helpers import indexed_runtime

NAMES = [
    "Network/DHCP Lease.md", "Network/DHCP Lease Time.md", "Network/DHCP Relay.md", "Network/ARP spoofing.md",
    "Network/Cron.md", "Hardware/CPU Flag.md", "Hardware/CPU Flags and microcode.md", "Hardware/Cron.md",
    "OS/Extended Berkley Packet Filter.md", "Daily/2024-03-02.md", "Obsidian hotkeys.md", "Projects/Plan.md",
]


@pytest.fixture(scope="module")
def rt(tmp_path_factory, tiny_embedder):
    tmp = tmp_path_factory.mktemp("suggest")
    texts = {p: f"# {p.rsplit('/', 1)[-1][:-3]}\n\nA note.\n" for p in NAMES}
    texts["OS/Extended Berkley Packet Filter.md"] = "---\naliases: [eBPF]\n---\n# Extended Berkley Packet Filter\n"
    runtime = indexed_runtime(tmp, texts, tiny_embedder)
    yield runtime
    runtime.close()


def _offered(rt, path: str) -> list[str]:
    with pytest.raises(NoteNotFound) as e:
        notes.get_document(rt, path)
    said = str(e.value)
    assert "Did you mean" in said, said
    return [p for p in NAMES if repr(p) in said.partition("Did you mean")[2]]


def test_a_misspelt_name_gets_the_notes_spelled_alike_and_not_letters_in_common(rt):
    offered = _offered(rt, "Network/DHCP Leasng.md")
    assert offered[:1] == ["Network/DHCP Lease.md"] and "Network/DHCP Lease Time.md" in offered
    assert "Hardware/CPU Flag.md" not in offered
    assert notes.suggestions(rt, "Network/DHCP Leasng.md")[0] == "Network/DHCP Lease.md"  # the CLI's call


def test_the_wanted_folder_orders_names_spelled_alike(rt):
    assert notes.suggestions(rt, "Hardware/Cronn.md")[:2] == ["Hardware/Cron.md", "Network/Cron.md"]
    assert notes.suggestions(rt, "Network/Cronn")[:2] == ["Network/Cron.md", "Hardware/Cron.md"]
    # The right name in the wrong folder: both, the nearer folder first.
    assert notes.suggestions(rt, "Netwrk/Cron.md")[:2] == ["Network/Cron.md", "Hardware/Cron.md"]


def test_an_alias_a_word_of_the_name_and_nothing_alike(rt):
    assert notes.suggestions(rt, "ebpf.md") == ["OS/Extended Berkley Packet Filter.md"]
    assert notes.suggestions(rt, "Hotkeys")[0] == "Obsidian hotkeys.md"
    assert notes.suggestions(rt, "Plam")[0] == "Projects/Plan.md"
    assert notes.suggestions(rt, "Mitochondria.md") == []


def test_the_similarity_weighs_words_not_scattered_letters():
    assert name_similarity("DHCP Leasng", "CPU Flag") < 0.65 < name_similarity("DHCP Leasng", "DHCP Lease")
    assert name_similarity("cronn", "Cron") > 0.85
    listed = [("A/DHCP Lease.md", ()), ("B/CPU Flag.md", ()), ("A/Leasing.md", ("DHCP leasing",))]
    assert close_paths("A/DHCP Leasng.md", listed, 5) == ["A/Leasing.md", "A/DHCP Lease.md"]
