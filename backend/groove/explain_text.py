"""A hit's ``explain`` object (pipeline/explain.py) as one line of text, for
the CLI and the MCP text content. No pipeline import: the CLI's daemon path
stays light (ADR 0119)."""

from __future__ import annotations

from typing import Any


def describe(e: dict[str, Any]) -> str:
    """One line from a hit's ``explain``: legs with rank and RRF share, then stages 2-4."""
    legs = []
    for name, leg in e.get("legs", {}).items():
        extra = "".join(f" {k} {leg[k]}" for k in ("cosine", "coverage") if k in leg)
        legs.append(f"{name} #{leg['rank']} (+{leg['rrf']:.4f}{extra})")
    parts = [", ".join(legs) or "no leg", f"fused {e.get('fused_score', 0):.4f} = stage-1 #{e.get('stage1_rank')}"]
    if "rerank" in e:
        parts.append(f"reranked {e['rerank']['score']:.3f} -> #{e['rerank']['rank']}")
    if "mmr" in e:
        parts.append(f"MMR #{e['mmr']['rank_before']} -> #{e['mmr']['rank_after']}")
    if e.get("expanded"):
        parts.append("widened by the parent retriever")
    return "; ".join(parts)
