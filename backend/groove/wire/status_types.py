"""What ``index_status`` and ``reindex`` return, as the types the code builds them with.

They are TypedDicts: the operation's result is the JSON object itself (a
dict at run time), so what a surface sends is what the code built, byte for
byte, and ``wire/protocol.json`` is generated from these same classes
(field docstrings as descriptions; a ``NotRequired`` key is one a reply may
leave out). Imports nothing of pydantic: the bounds load lazily
(``lazy_constraints.py``).
"""

from __future__ import annotations

from typing import TYPE_CHECKING, Annotated, Literal

from typing_extensions import NotRequired, TypedDict

if TYPE_CHECKING:
    from . import constraints
else:
    from .lazy_constraints import constraints


WordIndexState = Literal["off", "small", "ready", "building", "stale"]
VectorCopyState = Literal["off", "small", "ready", "loading", "stale"]

class SkippedNote(TypedDict):
    path: str
    reason: str


class IndexProgress(TypedDict):
    phase: Literal["scan", "embed", "done"]
    done: constraints.NonNeg
    total: constraints.NonNeg
    path: NotRequired[str]
    chunks: NotRequired[constraints.NonNeg]
    """Chunks embedded so far (embed events)"""


class LowConfidenceStatus(TypedDict):
    """Which ``low_confidence`` rule searches use on this index (docs/eval.md)"""

    calibrated: bool
    rule: Literal["calibrated", "margin"]
    reason: NotRequired[str | None]
    """Why the margin rule is used (no calibration yet: run `groove index`)"""
    probes: NotRequired[constraints.NonNeg | None]
    chunks_at_calibration: NotRequired[constraints.NonNeg | None]
    seconds: NotRequired[float | None]
    """What measuring the calibration cost at index time"""
    stale: NotRequired[bool | None]
    """The vault changed too much since: still used, measured again by the next index run"""
    cross_language_scripts: NotRequired[list[Literal["latin", "cjk"]] | None]
    """Scripts the vault is not written in: queries in them are read as asked across languages"""


class WordIndexStatus(TypedDict):
    """The in-memory word index big vaults rank plain-word queries with (ADR 0132)"""

    state: WordIndexState
    """off: this process keeps none (a one-shot run); small: under min_rows chunks, FTS5 ranks;
    building / stale: the rows changed, FTS5 ranks until it is rebuilt"""
    min_rows: constraints.NonNeg
    rows: NotRequired[constraints.NonNeg | None]
    megabytes: NotRequired[float | None]
    build_seconds: NotRequired[float | None]


class VectorCopyStatus(TypedDict):
    """The in-memory copy big vaults search their vectors in (ADR 0121, 0133, 0134)"""

    state: VectorCopyState
    """off: this process keeps none (a one-shot run, or vector_copy = false); small: under min_rows chunks;
    loading / stale: the rows changed. In every state but ready, sqlite-vec scans the vectors"""
    min_rows: constraints.NonNeg
    rows: NotRequired[constraints.NonNeg | None]
    megabytes: NotRequired[float | None]
    load_seconds: NotRequired[float | None]
    head_scan: NotRequired[bool]
    """The copy is scanned on its leading principal axes, then re-scored (40k+ chunks, ADR 0133)"""


class ExclusionSource(TypedDict):
    rule: str
    """hidden and tool folders, .grooveignore, or Obsidian's Excluded files (.obsidian/app.json userIgnoreFilters)"""
    entries: constraints.NonNeg
    values: NotRequired[list[str]]
    """Obsidian's entries as written (prefixes, then /regex/ entries)"""


class WhyExcluded(TypedDict):
    path: str
    excluded_by: str | None
    """The rule that leaves the path out, in words; null when the vault's rules take it"""


class AnswerVectorsStatus(TypedDict):
    """Sentence vectors kept in the index for answer_spans, stored by an idle daemon (ADR 0281)"""

    stored: constraints.NonNeg
    """Sentences whose vector the index holds"""
    to_store: NotRequired[constraints.NonNeg | None]
    """A daemon's: sentences it has still to store while idle (0: all stored); null before it has looked"""


class IndexStatus(TypedDict):
    """The index's state: counts, model, freshness, skipped notes, the rules that leave notes out;
    a daemon adds watching, watch_problem, pending_changes and last_error"""

    vault: NotRequired[str]
    index_path: str
    documents: constraints.NonNeg
    chunks: constraints.NonNeg
    model: str | None
    dim: int | None
    last_indexed: float | None
    last_indexed_iso: NotRequired[str | None]
    stale_files: Annotated[constraints.NonNeg | None, constraints.Field(description=(
        "Notes changed on disk since they were indexed; null when the vault could not be scanned"))]
    stale_paths: NotRequired[Annotated[list[str], constraints.Field(description=(
        "The first 100 of those notes (new, changed or deleted)"))]]
    skipped: NotRequired[Annotated[list[SkippedNote], constraints.Field(description=(
        "Notes left out of the index and why (the first 100; see skipped_count)"))]]
    skipped_count: NotRequired[constraints.NonNeg]
    indexing: bool
    progress: IndexProgress | None
    model_load_seconds: NotRequired[float | None]
    groove_version: NotRequired[str]
    warnings: NotRequired[list[str]]
    exclusions: NotRequired[Annotated[list[ExclusionSource], constraints.Field(description=(
        "The rules that leave notes out of the index, with their entry counts (ADR 0190)"))]]
    low_confidence: NotRequired[LowConfidenceStatus | None]
    word_index: NotRequired[WordIndexStatus | None]
    vector_copy: NotRequired[VectorCopyStatus | None]
    answer_vectors: NotRequired[AnswerVectorsStatus | None]
    why: NotRequired[Annotated[WhyExcluded | None, constraints.Field(description=(
        "Present when the params named a path"))]]
    watching: NotRequired[bool]
    watch_problem: NotRequired[Annotated[str | None, constraints.Field(description=(
        "Why the daemon is not watching the vault (its folder is gone or was replaced), or null"))]]
    pending_changes: NotRequired[constraints.NonNeg]
    last_error: NotRequired[Annotated[str | None, constraints.Field(description=(
        "The daemon's last index job's failure; null when it succeeded (docs/protocol.md)"))]]


class IndexWarning(TypedDict):
    path: str
    warning: str


class ReindexSummary(TypedDict):
    """What one index run did"""

    indexed: constraints.NonNeg
    unchanged: constraints.NonNeg
    renamed: NotRequired[list[tuple[str, str]]]
    """[old path, new path] of each note moved with its vectors kept"""
    deleted: constraints.NonNeg
    skipped: list[SkippedNote]
    warnings: NotRequired[list[IndexWarning]]
    """A note's problem (it is indexed anyway), a settings file's, or the whole run's (path empty)"""
    chunks_embedded: NotRequired[constraints.NonNeg]
    """Chunks this run embedded"""
    seconds: NotRequired[float]
    """The run's wall time"""
    boilerplate_lines: NotRequired[constraints.NonNeg]
    """The vault's common lines, left out of what is embedded (ADR 0210)"""
    boilerplate_refreshed: NotRequired[constraints.NonNeg]
    """Other notes whose vectors were redone because that set of lines changed"""


# IndexStatus' descriptions are in its annotations: a subclass (MCP's) inherits
# those, where pydantic reads attribute docstrings of the class itself only.
for _t in (IndexProgress, LowConfidenceStatus, WordIndexStatus, VectorCopyStatus, ExclusionSource, WhyExcluded,
           IndexStatus, ReindexSummary):
    # A TypedDict class takes no attributes in its type, hence setattr.
    setattr(_t, "__pydantic_config__", {"use_attribute_docstrings": True})  # noqa: B010
