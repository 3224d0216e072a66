"""The SDK's MCPServer with groove's argument rules (ADR 0116): arguments are
checked against the tool's published input schema *before* pydantic sees
them, so nothing is coerced ("yes" is not true, "5" is not 5), an unknown
argument is refused with the list of valid ones, and the message is
groove's own (no pydantic URLs). One leniency stays: a list argument sent
as a JSON string ('["a","b"]'), which some desktop clients always do.

Also: resources/list pages through the notes (the SDK lists only fixed
resources), and the tools' schemas are published short (``tool_schemas.py``,
ADR 0252)."""

from __future__ import annotations

import json
import re
from collections.abc import Callable
from typing import Any
from urllib.parse import quote

import jsonschema
from mcp.server.mcpserver import MCPServer
from mcp.server.mcpserver.exceptions import ToolError
from mcp_types import ListResourcesResult, Resource

from ..errors import clip, lone_surrogate_at
from .tool_schemas import compact_input, compact_output

_PYDANTIC_URL = re.compile(r"\s*For further information visit https://errors\.pydantic\.dev\S*")
RESOURCE_PAGE = 100

NotesPage = Callable[[int, int], dict[str, Any]]  # (offset, limit) -> a list_notes page


def _accepts_array(schema: dict[str, Any]) -> bool:
    kinds = [schema] + list(schema.get("anyOf") or [])
    return any(k.get("type") == "array" or "array" in (k.get("type") or []) for k in kinds)


def _describe(v: Any) -> str:
    kind = {str: "a string", bool: "a boolean", int: "an integer", float: "a number", list: "a list",
            dict: "an object", type(None): "null"}.get(type(v), type(v).__name__)
    shown = json.dumps(v, ensure_ascii=False)
    return f"{kind} ({shown[:60]}{'…' if len(shown) > 60 else ''})"


_TYPE_NAMES = {"integer": "an integer", "string": "a string", "boolean": "true or false", "number": "a number",
               "array": "a list", "object": "an object"}


def _message(err: jsonschema.ValidationError) -> str:
    where = ".".join(str(p) for p in err.absolute_path) or "arguments"
    if err.validator == "type" or (err.validator == "anyOf" and all(
            "type" in s for s in err.validator_value)):
        want = err.validator_value if err.validator == "type" else [s["type"] for s in err.validator_value]
        want = [_TYPE_NAMES.get(w, w) for w in (want if isinstance(want, list) else [want]) if w != "null"]
        return f"'{where}' must be {' or '.join(want)}, got {_describe(err.instance)}"
    if err.validator in ("exclusiveMaximum", "exclusiveMinimum"):
        # jsonschema's "2000 is greater than or equal to the maximum of 50" read as if 50 were allowed.
        side = "below" if err.validator == "exclusiveMaximum" else "above"
        return f"'{where}' must be {side} {err.validator_value}, got {_describe(err.instance)}"
    if err.validator == "required" and isinstance(err.instance, dict):
        # jsonschema says "'path' is a required property" of "arguments": name what is missing.
        missing = [k for k in err.validator_value if k not in err.instance]
        at = "" if where == "arguments" else f" in '{where}'"
        return f"missing required argument{'s' if len(missing) > 1 else ''} " \
               f"{', '.join(repr(k) for k in missing)}{at}"
    if err.validator in ("maxLength", "maxItems") and isinstance(err.instance, (str, list)):
        # The bound table (bounds.py): say the bound, not the whole value back.
        unit = "characters" if isinstance(err.instance, str) else "items"
        return f"'{where}' has {len(err.instance):,} {unit}; at most {err.validator_value:,} are accepted"
    return f"'{where}': {err.message}"


def check_arguments(tool: str, schema: dict[str, Any], args: dict[str, Any], hints: dict[str, str]) -> dict[str, Any]:
    """``args`` as the tool may take them, or a ToolError that says what to fix."""
    bad = lone_surrogate_at(args)
    if bad is not None:
        # JSON may escape one; no note or UTF-8 reply can hold it, and a reply
        # echoing it could not be written at all (the call would go unanswered).
        raise ToolError(f"invalid argument {'name' if bad == 'key' else repr(bad)} for {tool}: it holds a lone "
                        "UTF-16 surrogate, which no note name or text can contain")
    props: dict[str, Any] = schema.get("properties") or {}
    unknown = [k for k in args if k not in props]
    if unknown:
        hint = " ".join(hints[k] for k in unknown if k in hints)
        raise ToolError(
            f"unknown argument{'s' if len(unknown) > 1 else ''} {', '.join(repr(k) for k in unknown)} for {tool}; "
            f"valid arguments: {', '.join(props) or '(none)'}" + (f". {hint}" if hint else ""))
    fixed = dict(args)
    for k, v in args.items():
        if isinstance(v, str) and v.lstrip().startswith("[") and _accepts_array(props[k]):
            try:
                parsed = json.loads(v)
            except ValueError:
                continue
            if isinstance(parsed, list):
                fixed[k] = parsed
    errors = sorted(jsonschema.Draft202012Validator(schema).iter_errors(fixed), key=lambda e: list(e.absolute_path))
    if errors:
        raise ToolError(f"invalid arguments for {tool}: " + "; ".join(_message(e) for e in errors[:5]))
    return fixed


class GrooveMCP(MCPServer):
    """MCPServer plus strict arguments, a paged resources/list and short schemas."""

    def __init__(self, *args: Any, notes_page: NotesPage | None = None, **kw: Any) -> None:
        super().__init__(*args, **kw)
        self.argument_hints: dict[str, str] = {}  # argument name -> why it is not offered
        # Tools whose text is their structured result as JSON: the model reads
        # every key there, so no output schema is published (ADR 0252).
        self.json_text_tools: set[str] = set()
        self.notes_page = notes_page  # resources/list pages through it; None: the SDK's fixed list

    async def call_tool(self, name: str, arguments: dict[str, Any], context: Any = None) -> Any:
        tool = self._tool_manager.get_tool(name)
        if tool is not None:
            arguments = check_arguments(name, tool.parameters, arguments or {}, self.argument_hints)
        try:
            return await super().call_tool(name, arguments, context)
        except ToolError as e:
            clean = clip(_PYDANTIC_URL.sub("", str(e)))
            if clean != str(e):
                raise ToolError(clean) from e
            raise

    def remove_argument(self, tool: str, arg: str, hint: str) -> None:
        """Leave ``arg`` out of ``tool``'s input schema (so it is not offered);
        a caller that sends it anyway is told ``hint``."""
        t = self._tool_manager.get_tool(tool)
        assert t is not None
        t.parameters.get("properties", {}).pop(arg, None)
        self.argument_hints[arg] = hint

    async def list_tools(self) -> list[Any]:
        tools = await super().list_tools()
        for t in tools:
            if t.name in self.json_text_tools:
                t.output_schema = None  # the SDK still validates each result against the tool's type
        return tools

    def compact_schemas(self) -> None:
        """Every tool's input and output schema as ``tool_schemas`` writes them
        short (ADR 0252), in place: the SDK publishes these same objects."""
        for t in self._tool_manager.list_tools():
            _replace(t.parameters, compact_input(t.parameters))
            if t.output_schema:
                _replace(t.output_schema, compact_output(t.output_schema))

    async def _handle_list_resources(self, ctx: Any, params: Any) -> ListResourcesResult:
        if self.notes_page is None:
            return await super()._handle_list_resources(ctx, params)
        cursor = getattr(params, "cursor", None) if params is not None else None
        try:
            offset = max(0, int(cursor)) if cursor else 0
        except ValueError:
            offset = 0
        import anyio.to_thread

        page = await anyio.to_thread.run_sync(self.notes_page, offset, RESOURCE_PAGE)
        res = [Resource(uri=f"groove://note/{quote(n['path'], safe='/')}", name=n["path"], title=n["title"],
                        mime_type="text/markdown", size=n.get("size")) for n in page["notes"]]
        nxt = page.get("next_offset")
        return ListResourcesResult(resources=res, next_cursor=str(nxt) if nxt is not None else None)


def _replace(schema: dict[str, Any], new: dict[str, Any]) -> None:
    schema.clear()
    schema.update(new)
