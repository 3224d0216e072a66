"""Several vaults behind one MCP server (ADR 0205).

``groove mcp --vault A --vault B`` serves each vault through its own
``Session`` (its own Backend: its daemon, or a Runtime here, exactly as a
one-vault server; its own freshness check and read gate). This module is
the routing between them:

* names: a vault is called by its folder's name; two folders with the same
  name get their parent folder's name in parentheses (``Notes (work)``). A
  tool's ``vault`` argument takes the name (any case) or the folder's path.
* ``VaultSet.pick``: the Session a tool call goes to. With one vault the
  argument is not offered at all (the tools' schemas stay as they were);
  with several, every tool but ``search`` needs it, and a name that is not
  served is refused with the list of those that are. A path is only ever
  read by the Session of the vault it was asked of: the read gate is per
  vault because the Backend is.
* ``fuse``: search across vaults. Scores of separate indexes are not
  comparable, so each vault's list is kept in its own order and the lists
  are merged by weighted reciprocal rank: a hit at rank r of vault v scores
  ``w_v / (RRF_K + r)``. ``w_v`` is a softmax of each vault's calibrated
  confidence (ADR 0103: the query's best passage in that vault's own
  spreads, minus its unknown words), one spread the unit: the vault the
  question is about leads, and vaults that answer equally well interleave.
  Without a calibrated score in every vault the weights are equal (plain
  RRF). Before the weights, tiers (``vault_tier``): vaults that read the
  query in its own script before those that read it across languages
  (whose calibrated score is lenient by design, ADR 0131), and within
  each, vaults confident of an answer before those that say low
  confidence. ``low_confidence`` is true when every vault that reads the
  query in its own script says so (every vault, when none does).
"""

from __future__ import annotations

import math
from collections.abc import Sequence
from dataclasses import dataclass, field
from pathlib import Path
from typing import Annotated, Any
from urllib.parse import unquote

import anyio
from mcp.server.mcpserver.exceptions import ToolError
from mcp_types import CallToolResult
from pydantic import Field

from ..config import FusionConfig
from ..wire.bounds import MAX_PATH_CHARS
from .session import READ_ONLY, Session, call, fresh, result
from .strict import GrooveMCP

RRF_K = FusionConfig().rrf_k  # the same constant that fuses a vault's own legs

VaultArg = Annotated[str | None, Field(max_length=MAX_PATH_CHARS, description=(
    "Which vault: its name (as index_status, search hits and the server's instructions give it) or its "
    "folder's path. Needed by every tool but search when the server serves several vaults; search "
    "without it looks in all of them."))]

ONE_VAULT_HINT = ("`vault` is only accepted when the server serves several vaults "
                  "(`groove mcp --vault A --vault B`); this one serves one.")


def vault_names(paths: Sequence[Path]) -> list[str]:
    """A short, unique name per vault folder: its own name, and its parent's
    in parentheses when two share one (then a number, if those agree too)."""
    base = [p.name or "root" for p in paths]  # never a "/": note URIs split the name off at the first
    names = [f"{b} ({p.parent.name or 'root'})" if base.count(b) > 1 else b for p, b in zip(paths, base)]
    seen: dict[str, int] = {}
    out = []
    for n in names:
        if names.count(n) > 1:
            seen[n] = seen.get(n, 0) + 1
            n = f"{n} {seen[n]}"
        out.append(n)
    return out


@dataclass
class VaultSet:
    """The Sessions of the served vaults, in the order given."""

    sessions: list[Session]
    paths: list[Path] = field(default_factory=list)

    @property
    def multi(self) -> bool:
        return len(self.sessions) > 1

    @property
    def names(self) -> list[str]:
        return [s.name or "" for s in self.sessions]

    def find(self, vault: str) -> Session | None:
        for s in self.sessions:
            if s.name == vault:
                return s
        folded = [s for s in self.sessions if (s.name or "").casefold() == vault.casefold()]
        if len(folded) == 1:
            return folded[0]
        try:
            asked = Path(vault).expanduser().resolve()
        except (OSError, ValueError):
            return None
        for s, p in zip(self.sessions, self.paths):
            if p == asked:
                return s
        return None

    def unknown(self, vault: str) -> ToolError:
        return ToolError(f"unknown vault {vault!r}: this server serves {self.listing()}; pass one of these names "
                         "as `vault`")

    def listing(self) -> str:
        return ", ".join(repr(n) for n in self.names)

    def pick(self, vault: str | None) -> Session:
        """The vault a call that reads one vault goes to."""
        if not self.multi:
            return self.sessions[0]
        if vault is None:
            raise ToolError(f"this server serves several vaults ({self.listing()}): pass `vault` to say which")
        s = self.find(vault)
        if s is None:
            raise self.unknown(vault)
        return s

    def chosen(self, vault: str | None) -> list[Session]:
        """The vaults a search looks in: the one named, else all of them."""
        if vault is None:
            return list(self.sessions)
        return [self.pick(vault)] if self.multi else [self.sessions[0]]


def with_vault(out: dict[str, Any], s: Session) -> dict[str, Any]:
    """The answer, naming its vault when the server serves several."""
    if s.name is not None:
        out["vault"] = s.name
    return out


# -- search across vaults ---------------------------------------------------------


@dataclass(frozen=True)
class VaultWeight:
    name: str
    weight: float
    rule: str  # "calibrated" (softmax of the confidence scores) | "equal"
    score: float | None  # the vault's calibrated score minus its threshold, when calibrated


def vault_weights(named: Sequence[tuple[str, dict[str, Any]]]) -> list[VaultWeight]:
    """Each vault's share of the fused list, from its response's
    ``confidence`` (asked with ``explain``). A vault with no hits has
    nothing to share; it keeps weight 0 whatever the rule."""
    confs = [(n, r.get("confidence") or {}) for n, r in named]
    live = [(n, c) for (n, c), (_, r) in zip(confs, named) if r.get("results")]
    if live and all(c.get("rule") == "calibrated" and "score" in c for _, c in live):
        margins = {n: float(c["score"]) - float(c.get("threshold") or 0.0) for n, c in live}
        top = max(margins.values())
        exp = {n: math.exp(m - top) for n, m in margins.items()}
        total = sum(exp.values())
        return [VaultWeight(n, exp.get(n, 0.0) / total, "calibrated", margins.get(n)) for n, _ in confs]
    share = 1.0 / len(live) if live else 0.0
    return [VaultWeight(n, share if any(n == m for m, _ in live) else 0.0, "equal", None) for n, _ in confs]


def vault_tier(resp: dict[str, Any]) -> tuple[int, int]:
    """(1 when the vault read the query across languages, 1 when it says
    low confidence): a fused list takes the lower tiers first. A reading
    across languages (ADR 0131: the query's script absent from the vault)
    is judged against a lenient yardstick, with the query's words left
    uncounted: its confidence says the vault may answer, not that it
    answers as well as a vault written in the query's language."""
    conf = resp.get("confidence") or {}
    return (int(bool(conf.get("across_languages"))), int(bool(resp.get("low_confidence", True))))


def fuse(named: Sequence[tuple[str, dict[str, Any]]], limit: int, explain: bool = False) -> dict[str, Any]:
    """One search response from each vault's (``name``, response) (each asked
    with ``explain`` so its calibrated confidence is known): the first
    ``limit`` hits by weighted reciprocal rank, each naming its vault, with
    its fused score as ``score`` and its place as ``rank``. One vault's
    answer is kept as it is (its own scores and ranks)."""
    if len(named) == 1:  # one vault asked (``vault=``): its own answer, each hit naming it
        name, resp = named[0]
        hits = [{**h, "vault": name} for h in resp.get("results", [])[:limit]]
        if not explain:
            for h in hits:
                h.pop("explain", None)
        return {**resp, "results": hits, "warnings": [f"[{name}] {w}" for w in resp.get("warnings", [])],
                "confidence": resp.get("confidence") if explain else None}
    weights = vault_weights(named)
    tiers = [vault_tier(r) for _, r in named]
    keyed: list[tuple[tuple[int, int], float, int, int, dict[str, Any]]] = []
    for vi, ((name, resp), w) in enumerate(zip(named, weights)):
        for h in resp.get("results", []):
            own_rank = int(h["rank"])
            key = w.weight / (RRF_K + own_rank)
            hit = {**h, "vault": name}
            if explain:
                hit["explain"] = {**(h.get("explain") or {}), "vault": {
                    "name": name, "rank": own_rank, "score": h["score"], "weight": round(w.weight, 6),
                    "fused": round(key, 8), "tier": list(tiers[vi])}}
            else:
                hit.pop("explain", None)
            keyed.append((tiers[vi], key, vi, own_rank, hit))
    keyed.sort(key=lambda t: (t[0], -t[1], t[2], t[3]))
    results = []
    for i, (_, key, _, _, hit) in enumerate(keyed[:limit]):
        hit["rank"] = i + 1
        hit["score"] = round(key, 8)
        results.append(hit)
    confs = {n: r.get("confidence") for n, r in named}
    # The judges of "nothing here": the vaults that read the query in its own script, else all.
    judges = [r for (_, r), t in zip(named, tiers) if t[0] == 0] or [r for _, r in named]
    low = all(bool(r.get("low_confidence", True)) for r in judges)
    filters: dict[str, Any] = next((r["filter_applied"] for _, r in named if r.get("filter_applied")), {})
    warnings = [f"[{n}] {w}" for n, r in named for w in r.get("warnings", [])]
    out: dict[str, Any] = {"results": results, "low_confidence": low, "filter_applied": filters,
                           "warnings": warnings, "confidence": None}
    if explain:
        out["confidence"] = {
            "low_confidence": low, "rule": "every vault",
            "vaults": {w.name: {**(confs.get(w.name) or {}), "fusion_weight": round(w.weight, 6),
                                "weighting": w.rule} for w in weights}}
    return out


async def search_vaults(vaults: VaultSet, vault: str | None, params: dict[str, Any]) -> dict[str, Any]:
    """``search`` with the tool's params in the vaults asked (all by default),
    as one response. A vault that fails is left out with a warning naming
    it (every failure is local); when all fail, the first error is raised."""
    chosen = vaults.chosen(vault)
    explain = bool(params.get("explain"))
    asked = {**params, "explain": True}  # each vault's calibrated confidence weighs its list
    answers: list[tuple[Session, dict[str, Any] | None, Exception | None]] = [(s, None, None) for s in chosen]

    async def one(i: int, s: Session) -> None:
        try:
            warnings = await fresh(s)
            resp = await call(s.backend.call, "search", asked)
            answers[i] = (s, {**resp, "warnings": warnings + list(resp.get("warnings", []))}, None)
        except ToolError as e:
            answers[i] = (s, None, e)

    async with anyio.create_task_group() as tg:
        for i, s in enumerate(chosen):
            tg.start_soon(one, i, s)
    named = [(s.name or "", r) for s, r, _ in answers if r is not None]
    failed = [(s, e) for s, _, e in answers if e is not None]
    if not named:
        raise failed[0][1]
    out = fuse(named, int(params["limit"]), explain)
    out["warnings"] += [f"[{s.name}] not searched: {e}" for s, e in failed]
    return out


def register_list_vaults(mcp: GrooveMCP, vaults: VaultSet) -> None:
    """list_vaults, offered only when the server serves several vaults."""

    @mcp.tool(name="list_vaults", title="List the vaults", annotations=READ_ONLY, description=(
        "The vaults this server serves: each one's name (pass it as `vault` to the other tools), folder, "
        "and how many notes its index holds. search looks in all of them unless given `vault`."))
    async def list_vaults() -> CallToolResult:
        rows = []
        for s, p in zip(vaults.sessions, vaults.paths):
            try:
                st = await call(s.backend.call, "index_status", {})
                rows.append({"name": s.name, "path": str(p), "documents": st.get("documents", 0),
                             "last_indexed_iso": st.get("last_indexed_iso"), "stale_files": st.get("stale_files")})
            except ToolError as e:  # one vault's broken index does not hide the others
                rows.append({"name": s.name, "path": str(p), "documents": 0, "error": str(e)})
        text = "\n".join(f'{r["name"]}: {r["path"]} ({r["documents"]:,} notes'
                         + (f'; {r["error"]}' if r.get("error") else "") + ")" for r in rows)
        return result(text, {"vaults": rows})


# -- schemas and resources --------------------------------------------------------


def publish_vault_argument(mcp: GrooveMCP, vaults: VaultSet) -> None:
    """One vault: take ``vault`` out of every tool's input schema (so the
    tools read as they always did). Several: name the vaults in its
    description, and say in each output schema where the vault is named."""
    for t in mcp._tool_manager.list_tools():
        props = t.parameters.get("properties", {})
        if "vault" not in props:
            continue
        if not vaults.multi:
            mcp.remove_argument(t.name, "vault", ONE_VAULT_HINT)
            continue
        props["vault"]["description"] = props["vault"].get("description", "") + f" Vaults: {vaults.listing()}."
        if t.output_schema:
            _name_vault(t.output_schema, t.name)


_VAULT_FIELD = {"type": "string", "description": "The vault this comes from"}


def _name_vault(schema: dict[str, Any], tool: str) -> None:
    schema.setdefault("properties", {})["vault"] = dict(_VAULT_FIELD)
    if tool == "search":
        hit = _hit_schema(schema)
        if hit is not None:
            hit.setdefault("properties", {})["vault"] = dict(_VAULT_FIELD)


def _hit_schema(schema: dict[str, Any]) -> dict[str, Any] | None:
    items = schema.get("properties", {}).get("results", {}).get("items", {})
    ref = items.get("$ref", "")
    if ref.startswith("#/$defs/"):
        return schema.get("$defs", {}).get(ref.split("/")[-1])
    return items or None


def split_note_uri(vaults: VaultSet, path: str) -> tuple[Session, str]:
    """``groove://note/<vault>/<path>`` (several vaults) -> (its Session, the path in it)."""
    for raw in (path, unquote(path)):
        name, _, rest = raw.partition("/")
        s = vaults.find(name)
        if s is not None and rest:
            return s, rest
    raise ToolError(f"a note's URI names its vault first when the server serves several "
                    f"(groove://note/<vault>/<path>); the vaults are {vaults.listing()}")


def notes_page(vaults: VaultSet, offset: int, limit: int) -> dict[str, Any]:
    """resources/list across vaults: each vault's notes in turn, their paths
    prefixed by the vault's name (as ``split_note_uri`` reads them back)."""
    notes: list[dict[str, Any]] = []
    start = offset
    total = 0
    for s in vaults.sessions:
        want = limit - len(notes)
        page = s.backend.call("list_notes", {"offset": max(0, start), "limit": max(1, want)})
        n = int(page["total"])
        if want > 0 and start < n:
            notes += [{**x, "path": f"{s.name}/{x['path']}"} for x in page["notes"][:want]]
        start = max(0, start - n)
        total += n
    nxt = offset + len(notes)
    return {"notes": notes, "total": total, "offset": offset, "next_offset": nxt if nxt < total else None}


__all__ = ["ONE_VAULT_HINT", "RRF_K", "VaultArg", "VaultSet", "VaultWeight", "fuse", "notes_page",
           "publish_vault_argument", "register_list_vaults", "search_vaults", "split_note_uri", "vault_names",
           "vault_tier", "vault_weights", "with_vault"]
