"""An MCPServer that refuses unknown tool arguments instead of silently dropping them."""

from __future__ import annotations

import json
from typing import Any

from mcp.server.mcpserver import MCPServer
from mcp.server.mcpserver.exceptions import ToolError
from mcp_types import CallToolResult, TextContent


class StrictServer(MCPServer):
    """Unknown argument names are an error naming them and the accepted ones.

    With `status_errors` (the reference's tools) the error is also the reference's shape,
    `{"status": "error", "message": ...}`, as structured content of an error result.
    """

    def __init__(self, *args: Any, status_errors: bool = False, **kwargs: Any) -> None:
        super().__init__(*args, **kwargs)
        self.status_errors = status_errors

    async def call_tool(self, name: str, arguments: dict[str, Any], context: Any = None) -> Any:
        tool = self._tool_manager.get_tool(name)
        if tool is not None:
            accepted = list(tool.parameters.get("properties", {}))
            unknown = sorted(set(arguments or {}) - set(accepted))
            if unknown:
                message = (
                    f"{name}: unknown argument{'s' if len(unknown) > 1 else ''} "
                    f"{', '.join(repr(u) for u in unknown)}; it takes "
                    f"{', '.join(accepted) if accepted else 'no arguments'}"
                )
                if not self.status_errors:
                    raise ToolError(message)
                body = {"status": "error", "message": message}
                return CallToolResult(
                    content=[TextContent(type="text", text=json.dumps(body))],
                    structured_content=body,
                    is_error=True,
                )
        return await super().call_tool(name, arguments, context)
