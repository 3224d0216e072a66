"""A huge one-line note (a pasted log, minified JSON) through `groove mcp
--standalone`'s server driven by the SDK's client (issue 50 R1): its search
is cut to the budget, and a request sent while it runs is answered at once,
not after it.

Over stdio (a real subprocess: the client's clock is not the server's event
loop). A wait under a second is "at once" whatever the search takes: on a
quiet machine the 2 MB line's search is itself well under a second."""

from __future__ import annotations

import random
import time
from pathlib import Path

import anyio
import pytest

from mcp_support import groove_index, stdio_session

WORDS = ["apple", "river", "status", "entry", "value", "ok", "mill", "garden", "note", "token"]


@pytest.fixture(scope="module")
def long_vault(tmp_path_factory: pytest.TempPathFactory, tiny_model: Path, server_env: dict) -> tuple[Path, Path]:
    vault = tmp_path_factory.mktemp("long-line-vault")
    rng = random.Random(50)
    line = " ".join(rng.choice(WORDS) for _ in range(320_000))  # ~2 MB, one line
    (vault / "log.md").write_text("onelinetoken " + line + "\n", encoding="utf-8")
    (vault / "Garden.md").write_text("# Garden\n\nApples by the river. #garden\n", encoding="utf-8")
    index = tmp_path_factory.mktemp("long-line-index") / "index.sqlite"
    assert groove_index(vault, index, tiny_model, server_env)["indexed"] == 2
    return vault, index


def test_a_request_sent_during_a_huge_hits_search_is_answered_at_once(long_vault, tiny_model: Path,
                                                                      server_env: dict, tmp_path: Path) -> None:
    vault, index = long_vault
    args = ["--vault", str(vault), "--model", str(tiny_model), "--index", str(index), "--standalone"]

    async def main() -> tuple[list[float], float, object]:
        async with stdio_session(args, server_env, tmp_path / "server.log") as s:
            await s.call_tool("list_tags", {})  # warm: model loaded, index open
            got: dict = {}
            waits: list[float] = []

            async def big() -> None:
                t0 = time.perf_counter()
                r = await s.call_tool("search", {"query": "onelinetoken apple river", "limit": 5})
                got["search"] = (time.perf_counter() - t0, r)

            with anyio.fail_after(900):
                async with anyio.create_task_group() as tg:
                    tg.start_soon(big)
                    # A small request every 0.1 s while the search runs, whatever stage it is in.
                    while "search" not in got:
                        t0 = time.perf_counter()
                        tags = await s.call_tool("list_tags", {})
                        assert not tags.is_error
                        waits.append(time.perf_counter() - t0)
                        await anyio.sleep(0.1)
            search_s, r = got["search"]
            return waits, search_s, r

    waits, search_s, r = anyio.run(main)
    assert not r.is_error
    hit = next(h for h in r.structured_content["results"] if h["path"] == "log.md")
    assert hit["content_truncated"] and len(hit["content"]) < 5_000
    b = hit["content"].encode()
    assert all(b[s:e].decode().casefold() in {"apple", "river", "onelinetoken"} for s, e in hit["match_spans"])
    # No list_tags waited for the search: each took a small share of it.
    assert waits and max(waits) < max(search_s / 3, 1.0), (max(waits), search_s, len(waits))
