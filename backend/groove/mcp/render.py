"""The text each MCP tool returns beside its structured content: what an
LLM reads first, so it is short and says where to read more."""

from __future__ import annotations

import json
from typing import Any

from ..explain_text import describe, describe_confidence

SNIPPET_CHARS = 700  # per hit in the text rendering
ANSWER_CHARS = 300  # the answer line's cap


def _one_line(s: str) -> str:
    return " ".join(s.split())


def _answer(h: dict[str, Any]) -> str:
    """The hit's first answer span (the sentence that answers the query by meaning), on one line."""
    spans = h.get("answer_spans") or []
    if not spans:
        return ""
    a, b = spans[0]
    text = _one_line(h["content"].encode("utf-8")[a:b].decode("utf-8", errors="ignore"))
    return text[:ANSWER_CHARS] + " …" if len(text) > ANSWER_CHARS else text


def render_search(query: str, resp: dict[str, Any]) -> str:
    hits = resp["results"]
    head = f'{len(hits)} result{"s" if len(hits) != 1 else ""} for "{query}"'
    if not hits and resp.get("filter_applied"):
        # The filters left nothing: that says nothing of what the notes hold,
        # so no "the notes probably do not answer this" (it read as a verdict).
        head += (": nothing passes the filters below; this does not mean the notes lack it. Loosen or drop a "
                 "filter and search again")
    elif resp.get("low_confidence"):
        # One sentence for the model: what the flag means and what to do (ADR 0251).
        head += (" (low confidence: the notes probably do not answer this; say so, or rephrase, rather than "
                 "answer from these closest passages)")
    out = [head]
    if resp.get("filter_applied"):
        out.append("filters: " + json.dumps(resp["filter_applied"], ensure_ascii=False))
    out.extend(f"warning: {w}" for w in resp.get("warnings", []))
    if resp.get("confidence"):
        out.append("confidence: " + describe_confidence(resp["confidence"]))
    for h in hits:
        where = " > ".join(h["heading_path"]) or h["title"]
        a, b = h["line_range"]
        vault = f'[{h["vault"]}] ' if h.get("vault") else ""  # a server of several vaults
        out.append(f'\n{h["rank"]}. {vault}{h["path"]} | {where} | lines {a}-{b} | score {h["score"]:.4f}')
        text = _one_line(h["content"])
        out.append("   " + (text[:SNIPPET_CHARS] + " …" if len(text) > SNIPPET_CHARS else text))
        answer = _answer(h)
        if answer:
            out.append("   answer: " + answer)
        na = h.get("note_answer")
        if na:  # the note's answer is in a section not returned (ADR 0269)
            text = _one_line(na["text"])[:ANSWER_CHARS]
            out.append(f'   note\'s answer ({" > ".join(na["heading_path"])}, lines {na["line_range"][0]}-'
                       f'{na["line_range"][1]}): {text}')
        if h.get("explain"):
            out.append("   why: " + describe(h["explain"]))
    if hits:
        out.append("\nRead more with get_document(path, line_start, line_end).")
    if resp.get("truncated"):
        cut = "passages were cut to fit the response budget"
        if resp.get("next_offset") is not None:
            cut += f"; more results with offset={resp['next_offset']}"
        out.append(f"({cut})")
    return "\n".join(out)


def render_document(d: dict[str, Any]) -> str:
    a, b = d["line_range"]
    return f'{d["path"]} ({d["title"]}), lines {a}-{b}{" [truncated]" if d["truncated"] else ""}\n\n{d["content"]}'


def render_documents(batch: dict[str, Any]) -> str:
    parts = [render_document(d) for d in batch["documents"]]
    parts += [f'{e["path"]}: {e["error"]}' for e in batch["errors"]]
    if batch["not_returned"]:
        parts.append("not returned (over the response budget): " + ", ".join(batch["not_returned"]))
    return "\n\n---\n\n".join(parts)
