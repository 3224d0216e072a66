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


def describe_confidence(c: dict[str, Any]) -> str:
    """One line from a search's ``confidence`` explanation (pipeline/confidence.py)."""
    verdict = "low" if c.get("low_confidence") else "not low"
    rule = c.get("rule", "?")
    if "score" not in c:
        why = {"empty": "nothing matched", "off": "the flag is turned off (min_confidence_ratio 0)",
               "no-vector": "no vector leg to judge by (full text only)"}.get(rule, rule)
        return f"{verdict}: {why}"
    cmp = "<" if c["score"] < c["threshold"] else ">="
    out = f"{verdict}: {rule} score {c['score']:.2f} {cmp} {c['threshold']}"
    parts = []
    if "best_passage_z" in c:
        parts.append(f"best passage {c['best_passage_z']:.2f} spreads above unrelated questions")
    across = c.get("across_languages")
    if "known_share" in c and not (across and c["known_share"] == 1):  # 1 when nothing was left to check
        whose = "the other words" if across else "the query's words"
        parts.append(f"{int(c['known_share'] * 100 + 0.5)}% of {whose} are in the vault")
    if across:
        parts.append("asked in a script the vault is not written in: judged against that language's "
                     "probes, its words in that script not counted")
    if c.get("unknown_names"):  # low whatever the score (ADR 0220)
        parts.append("the vault never mentions " + ", ".join(f'"{n}"' for n in c["unknown_names"]))
    if c.get("named_note"):  # not low whatever the score (ADR 0251)
        parts.append("a hit is the note the query names")
    return out + (f" ({'; '.join(parts)})" if parts else "")
