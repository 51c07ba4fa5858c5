"""An MCPServer whose tool argument errors are plain sentences: unknown names are refused (not
silently dropped), a value of the wrong type is refused (not converted), and invalid values say
which argument is wrong and what it accepts."""

from __future__ import annotations

import json
from typing import Any

from mcp.server.mcpserver import MCPServer
from mcp.server.mcpserver.exceptions import ToolError, UnexpectedToolError
from mcp_types import CallToolResult, TextContent
from pydantic import ConfigDict, ValidationError

from engine.mcp.fit import compact


class Refused(ToolError):
    """A tool's own refusal ("not found", an empty exchange): its message is sent as it is,
    after the tool's name, not after the SDK's "Error executing tool ..."."""


class StrictServer(MCPServer):
    """Argument errors name the argument and what it accepts, instead of pydantic's report.

    With `strict_types`, arguments are validated in pydantic's strict mode: its default (lax)
    mode would take "3" or true for a number and "no", "false" or 0 for false, though the
    input schema says integer or boolean. With `status_errors` (the reference's tools) the
    error is also the reference's shape, `{"status": "error", "message": ...}`, as structured
    content of an error result. A result's text content is its JSON without indentation (the
    SDK's indented copy made results a third larger: see engine.mcp.fit).
    """

    def __init__(
        self, *args: Any, status_errors: bool = False, strict_types: bool = False, **kwargs: Any
    ) -> None:
        from engine.cli_parser import version

        # serverInfo.version: the SDK's default is "", which told a client nothing
        kwargs.setdefault("version", version())
        super().__init__(*args, **kwargs)
        self.status_errors = status_errors
        self.strict_types = strict_types

    def add_tool(self, fn: Any, name: str | None = None, *args: Any, **kwargs: Any) -> None:
        super().add_tool(fn, name, *args, **kwargs)
        if self.strict_types:
            metadata = self._tool_manager.get_tool(name or fn.__name__).fn_metadata
            model = metadata.arg_model
            # the same fields, validated strictly; the input schema clients see is unchanged
            metadata.arg_model = type(
                model.__name__,
                (model,),
                {"model_config": ConfigDict(strict=True), "__module__": model.__module__},
            )

    async def call_tool(self, name: str, arguments: dict[str, Any], context: Any = None) -> Any:
        tool = self._tool_manager.get_tool(name)
        if tool is None:
            return await super().call_tool(name, arguments, context)
        accepted = list(tool.parameters.get("properties", {}))
        unknown = sorted(set(arguments or {}) - set(accepted))
        if unknown:
            return self._refuse(
                f"{name}: unknown argument{'s' if len(unknown) > 1 else ''} "
                f"{', '.join(repr(u) for u in unknown)}; it takes "
                f"{', '.join(accepted) if accepted else 'no arguments'}"
            )
        try:
            result = await super().call_tool(name, arguments, context)
        except ToolError as exc:
            # The SDK validates arguments (pydantic, mcp.server.mcpserver.tools.base.Tool.run)
            # and reports a failure as a ToolError caused by the ValidationError, whose text is
            # pydantic's multi-line report with a documentation link: reworded here. A tool's
            # own refusal comes wrapped the same way, its text after "Error executing tool".
            cause = exc.__cause__
            if isinstance(exc, UnexpectedToolError):
                raise
            if isinstance(cause, ValidationError):
                problems = argument_problems(cause, tool.parameters)
                return self._refuse(f"{name}: {problems}", cause)
            if isinstance(cause, Refused):
                if self.status_errors:  # the reference's own words, as they are
                    return self._refuse(str(cause))
                return self._refuse(f"{name}: {str(cause).rstrip('.')}.")
            raise
        if isinstance(result, CallToolResult) and result.structured_content is not None:
            text = TextContent(type="text", text=compact(result.structured_content))
            result = result.model_copy(update={"content": [text]})
        return result

    def _refuse(self, message: str, cause: ValidationError | None = None) -> Any:
        if not self.status_errors:
            # from the ValidationError: the SDK then logs only the names of the bad fields
            raise ToolError(message) from cause
        body = {"status": "error", "message": message}
        return CallToolResult(
            content=[TextContent(type="text", text=json.dumps(body))],
            structured_content=body,
            is_error=True,
        )


def argument_problems(error: ValidationError, schema: dict[str, Any]) -> str:
    """One sentence per bad argument, e.g. "max_results must be a whole number from 1 to 100."
    What is allowed comes from the tool's input schema, the one clients were given."""
    properties = schema.get("properties", {})
    sentences: list[str] = []
    seen: set[str] = set()
    for item in error.errors():
        name = str(item["loc"][0]) if item["loc"] else ""
        if name in seen:
            continue  # a union type reports each branch: one sentence per argument
        seen.add(name)
        allowed = describe(properties.get(name, {}), schema.get("$defs", {}))
        if not name:
            sentences.append(f"the arguments are invalid ({item['msg'].lower()}).")
        elif item["type"] == "missing":
            sentences.append(f"{name} is required" + (f" ({allowed})." if allowed else "."))
        else:
            sentences.append(f"{name} must be {allowed or 'valid'}.")
    return " ".join(sentences)


def describe(prop: dict[str, Any], defs: dict[str, Any]) -> str:
    """What a JSON schema accepts, in words ("" when it says nothing a person can use)."""
    if "$ref" in prop:
        prop = defs.get(str(prop["$ref"]).rsplit("/", 1)[-1], {})
    branches = prop.get("anyOf")
    if branches:
        kinds = [describe(b, defs) for b in branches if b.get("type") != "null"]
        words = " or ".join(k for k in kinds if k)
        nullable = any(b.get("type") == "null" for b in branches)
        return f"{words} (or left out)" if words and nullable else words
    if "enum" in prop:
        return "one of " + ", ".join(str(v) for v in prop["enum"])
    if "const" in prop:
        return repr(prop["const"])
    kind = prop.get("type")
    if kind == "integer":
        return "a whole number" + _range(prop.get("minimum"), prop.get("maximum"))
    if kind == "number":
        return "a number" + _range(prop.get("minimum"), prop.get("maximum"))
    if kind == "string":
        least, most = prop.get("minLength"), prop.get("maxLength")
        if least == 1 and most is not None:
            return f"non-empty text of at most {most} characters"
        if least == 1:
            return "non-empty text"
        return "text" + (f" of at most {most} characters" if most is not None else "")
    if kind == "boolean":
        return "true or false"
    if kind == "object":
        return "a JSON object"
    if kind == "array":
        return "a list"
    return ""


def _range(least: Any, most: Any) -> str:
    if least is not None and most is not None:
        return f" from {least} to {most}"
    if least is not None:
        return f" of at least {least}"
    if most is not None:
        return f" of at most {most}"
    return ""
