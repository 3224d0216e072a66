"""The vault the unlinked-connections tests share (CLI, socket, MCP): a note
that links out to one note and is linked from another, two notes named
'Oven', a note known by an alias, and a template Obsidian's Excluded files
leave out."""

from __future__ import annotations

import json
from pathlib import Path

SOURCE = "Baking/Sourdough starter.md"
NOTES = {
    # [[Mother dough]] is Levain's alias: aliases are not link targets (ADR 0051), so Levain stays unlinked.
    SOURCE: "# Sourdough starter\n\nFeed the sourdough starter flour and water; it makes bread. See [[Bread]] "
            "and [[Mother dough]].\n",
    "Baking/Bread.md": "# Bread\n\nBake sourdough bread from the starter: flour, water, salt.\n",
    "Baking/Flour.md": "# Flour\n\nRye and wheat flour feed the sourdough starter. Back to [[Sourdough starter]].\n",
    "Kitchen/Oven.md": "# Oven\n\nBake the sourdough bread in a hot oven; preheat the dutch pot.\n",
    "Garage/Oven.md": "# Oven\n\nThe old pizza oven in the garage also bakes bread loaves.\n",
    "Baking/Levain.md": "---\naliases: [Mother dough]\n---\n# Levain\n\nA levain is a sourdough starter built "
                        "the night before baking bread.\n",
    "Baking/Rye bread.md": "# Rye bread\n\nRye bread with a sourdough starter rises slowly.\n",
    "Travel/Kyoto.md": "# Kyoto\n\nTemples, gardens and cherry blossoms in April.\n",
    "Templates/Daily.md": "# {{date}}\n\n## Tasks\n\nsourdough starter bread flour\n",
}
LINKED = {"Baking/Bread.md", "Baking/Flour.md"}
INDEXED = {p for p in NOTES if not p.startswith("Templates/")}


def write_vault(vault: Path) -> Path:
    for rel, text in NOTES.items():
        (vault / rel).parent.mkdir(parents=True, exist_ok=True)
        (vault / rel).write_text(text, encoding="utf-8")
    (vault / ".obsidian").mkdir(exist_ok=True)
    (vault / ".obsidian" / "app.json").write_text(json.dumps({"userIgnoreFilters": ["Templates/"]}), encoding="utf-8")
    return vault
