"""Streamable HTTP on 127.0.0.1 only, behind a bearer token, so other local users cannot read it."""

from __future__ import annotations

import hmac
import sys
from typing import Any

from mcp.server.mcpserver import MCPServer

HOST = "127.0.0.1"


class BearerToken:
    """ASGI middleware: every HTTP request must carry `Authorization: Bearer <token>`."""

    def __init__(self, app: Any, token: str) -> None:
        self.app = app
        self.expected = f"Bearer {token}".encode()

    async def __call__(self, scope: dict, receive: Any, send: Any) -> None:
        if scope["type"] == "http":
            given = dict(scope.get("headers") or []).get(b"authorization", b"")
            if not hmac.compare_digest(given, self.expected):
                await send(
                    {
                        "type": "http.response.start",
                        "status": 401,
                        "headers": [
                            (b"content-type", b"text/plain"),
                            (b"www-authenticate", b"Bearer"),
                        ],
                    }
                )
                await send(
                    {
                        "type": "http.response.body",
                        "body": b"missing or wrong bearer token (see memoryos mcp --help)",
                    }
                )
                return
        await self.app(scope, receive, send)


def serve_http(server: MCPServer, *, port: int, token: str, host: str = HOST) -> None:
    """Serve until interrupted at http://<host>:<port>/mcp (127.0.0.1 unless told otherwise)."""
    import uvicorn

    # The app checks Host headers as for 127.0.0.1 even when a container binds 0.0.0.0: its
    # port is meant to be published on the host's loopback only.
    app = BearerToken(server.streamable_http_app(host=HOST), token)
    print(
        f"memoryos mcp: serving on http://{host}:{port}/mcp (send the header "
        "'Authorization: Bearer <token>')",
        file=sys.stderr,
    )
    uvicorn.Server(uvicorn.Config(app, host=host, port=port, log_level="warning")).run()
