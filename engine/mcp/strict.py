"""An MCPServer whose tool argument errors are plain sentences: unknown names are refused (not
silently dropped) and invalid values say which argument is wrong and what it accepts."""

from __future__ import annotations

import json
from typing import Any

from mcp.server.mcpserver import MCPServer
from mcp.server.mcpserver.exceptions import ToolError, UnexpectedToolError
from mcp_types import CallToolResult, TextContent
from pydantic import ValidationError


class StrictServer(MCPServer):
    """Argument errors name the argument and what it accepts, instead of pydantic's report.

    With `status_errors` (the reference's tools) the error is also the reference's shape,
    `{"status": "error", "message": ...}`, as structured content of an error result.
    """

    def __init__(self, *args: Any, status_errors: bool = False, **kwargs: Any) -> None:
        super().__init__(*args, **kwargs)
        self.status_errors = status_errors

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
            return await super().call_tool(name, arguments, context)
        except ToolError as exc:
            # The SDK validates arguments (pydantic, mcp.server.mcpserver.tools.base.Tool.run)
            # and reports a failure as a ToolError caused by the ValidationError, whose text is
            # pydantic's multi-line report with a documentation link: reworded here.
            cause = exc.__cause__
            if isinstance(exc, UnexpectedToolError) or not isinstance(cause, ValidationError):
                raise
            return self._refuse(f"{name}: {argument_problems(cause, tool.parameters)}", cause)

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
