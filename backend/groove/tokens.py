"""A cheap, conservative estimate of how many LLM tokens a text costs.

MCP clients cap a tool result by tokens (Claude Code refuses results over
25k), not characters, and the two differ by 4x between English and Japanese:
BPE tokenizers give ~4 characters of English or code per token, but about
one token per CJK character (often more for rare kanji). So ASCII counts a
quarter token a character and everything else a whole token: it overcounts
accented Latin text a little, which errs on the safe side of a cap.
"""

from __future__ import annotations

import json
from typing import Any

ASCII_CHARS_PER_TOKEN = 4


def estimate_tokens(text: str) -> int:
    """Tokens ``text`` costs, rounded up; 0 for the empty string."""
    if not text:
        return 0
    n = len(text)
    ascii_n = len(text.encode("ascii", errors="ignore"))
    return -(-ascii_n // ASCII_CHARS_PER_TOKEN) + (n - ascii_n)


def json_tokens(value: Any) -> int:
    """Tokens of ``value`` serialized as JSON the way MCP sends it (UTF-8, not \\u-escaped)."""
    return estimate_tokens(json.dumps(value, ensure_ascii=False, separators=(",", ":")))

