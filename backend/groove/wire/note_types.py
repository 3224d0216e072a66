"""What the note and browse operations return, as the types the code builds
them with: ``get_document`` and ``read_note`` (``notes.py``), ``resolve_link``,
``related_notes`` (``related.py``), ``unlinked_connections`` (``unlinked.py``),
``list_notes``, ``recent_notes`` and ``list_tags`` (``browse.py``).

TypedDicts, as ``status_types.py`` (ADR 0172): the result is the JSON object
itself, so a reply is what the code built, byte for byte, and
``wire/protocol.json`` is generated from these classes (field docstrings
as descriptions). A ``NotRequired`` key is one the schema has always left
optional; the code may still send it every time. A ``line_range`` is a JSON
array of two, built as a list. Imports nothing of pydantic: the bounds load
lazily (``lazy_constraints.py``).
"""

from __future__ import annotations

from typing import TYPE_CHECKING, Annotated, Any

from typing_extensions import NotRequired, TypedDict

if TYPE_CHECKING:
    from . import constraints
else:
    from .lazy_constraints import constraints


# ----------------------------------------------------------------------------- reading


class Link(TypedDict):
    target: str
    path: str | None
    """The note or attachment the link resolves to; null when none exists"""
    heading: str | None
    block: str | None
    alias: str | None
    embed: bool
    line: int
    attachment: bool
    """The link names a file that is not a note (an image, a PDF …): an attachment, never a missing note"""


class Document(TypedDict):
    path: str
    title: str
    content: str
    frontmatter: dict[str, Any]
    links: list[Link]
    # The description in the annotation: MCP's BudgetedDocument inherits it, where pydantic
    # reads attribute docstrings of the class itself only.
    line_range: Annotated[tuple[Annotated[int, constraints.Field(ge=1)], constraints.NonNeg], constraints.Field(
        description="[first, last] lines returned, 1-based; [1, 0] for an empty note")]
    truncated: bool


class NoteText(TypedDict):
    path: str
    text: str
    """The note's whole text as stored"""


class ResolvedLink(TypedDict):
    path: str | None
    heading: str | None
    block: str | None
    line_range: constraints.LineRange | None
    exists: bool
    anchor_found: NotRequired[bool | None]
    """False when the note exists but the heading or block the link names does not; null when it names none"""
    warning: NotRequired[str | None]


# ----------------------------------------------------------------------------- related notes


class Similar(TypedDict):
    path: str
    title: str
    score: float
    """The cosine of the two notes' vectors (``relevance``, when present, is what orders the list)"""
    linked: NotRequired[bool]
    """A link joins the two notes, in either direction (resolved as backlinks and outgoing links are)"""
    relevance: NotRequired[float]
    """The ranking score (ADR 0276): standard deviations above this note's usual similarity, plus link evidence"""


class Backlink(TypedDict):
    path: str
    title: str
    line: int
    """The first line of the note that links here"""
    occurrences: NotRequired[Annotated[int, constraints.Field(ge=1)]]


class Outgoing(TypedDict):
    target: str
    path: str | None
    heading: str | None
    line: int
    """The first line with this link"""
    occurrences: NotRequired[Annotated[int, constraints.Field(ge=1)]]


class Attachment(TypedDict):
    target: str
    """As written in the link, e.g. 'Sleep-2026.webp'"""
    path: str | None
    """The vault file it names; null when the vault has no such file"""
    embed: bool
    """Written as an embed (![[…]]), not a link"""
    line: int
    """The first line with this link"""
    occurrences: NotRequired[Annotated[int, constraints.Field(ge=1)]]


class OwnHeading(TypedDict):
    heading: str | None
    block: str | None
    line: int
    """The first line with this link ([[#Heading]] or [[#^block]]: a place in the note itself)"""
    occurrences: NotRequired[Annotated[int, constraints.Field(ge=1)]]


class Related(TypedDict):
    path: str
    similar: list[Similar]
    backlinks: list[Backlink]
    outgoing: list[Outgoing]
    """Links to other notes (resolved or not); attachments and links to the note's own headings are apart"""
    attachments: list[Attachment]
    """Links and embeds of files that are not notes (images, PDFs …)"""
    own_headings: list[OwnHeading]
    """Links to the note's own headings or blocks"""


class Connection(TypedDict):
    path: str
    title: str
    score: float
    link: str
    """The wikilink to write in the note: '[[Name]]', or '[[Folder/Name]]' when another note has that name"""
    aliases: NotRequired[list[str]]
    """The target's frontmatter aliases: display text for '[[Name|alias]]', never a link target"""


class UnlinkedConnections(TypedDict):
    path: str
    connections: list[Connection]
    """The most similar notes no link joins to this one, nearest first"""


# ----------------------------------------------------------------------------- browsing


class NoteEntry(TypedDict):
    path: str
    title: str
    tags: list[str]
    date: str | None
    """The note's day, if it has one: a daily note's from its file name, else the frontmatter date or created"""
    modified: float
    """The file's modification time when indexed, seconds since the epoch"""
    size: constraints.NonNeg


class NotePage(TypedDict):
    notes: list[NoteEntry]
    total: constraints.NonNeg
    """How many notes match in all"""
    offset: constraints.NonNeg
    next_offset: constraints.NonNeg | None
    """Pass as offset for the next page; null on the last page"""


class TagCount(TypedDict):
    tag: str
    count: constraints.NonNeg


class TagList(TypedDict):
    tags: list[TagCount]
    total: constraints.NonNeg


for _t in (Link, Document, NoteText, ResolvedLink, Similar, Backlink, Outgoing, Attachment, OwnHeading, Related,
           Connection, UnlinkedConnections, NoteEntry, NotePage, TagCount, TagList):
    # A TypedDict class takes no attributes in its type, hence setattr.
    setattr(_t, "__pydantic_config__", {"use_attribute_docstrings": True})  # noqa: B010
