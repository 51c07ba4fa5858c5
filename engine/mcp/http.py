"""Streamable HTTP on 127.0.0.1 only, behind a bearer token, so other local users cannot read it."""

from __future__ import annotations

import hmac
import sys
from typing import Any

from mcp.server.mcpserver import MCPServer
from mcp.server.transport_security import TransportSecuritySettings

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


def transport_security(port: int) -> TransportSecuritySettings:
    """DNS-rebinding protection, set here rather than left to the SDK's defaults: only the
    loopback names of this port may appear in Host, and no web page's Origin is accepted
    except one served from this computer on this port."""
    hosts = [f"127.0.0.1:{port}", f"localhost:{port}", f"[::1]:{port}"]
    return TransportSecuritySettings(
        enable_dns_rebinding_protection=True,
        allowed_hosts=hosts,
        allowed_origins=[f"http://{host}" for host in hosts],
    )


def serve_http(server: MCPServer, *, port: int, token: str, host: str = HOST) -> None:
    """Serve until interrupted at http://<host>:<port>/mcp (127.0.0.1 unless told otherwise)."""
    import uvicorn

    # The app checks Host headers as for 127.0.0.1 even when a container binds 0.0.0.0: its
    # port is meant to be published on the host's loopback only.
    app = BearerToken(
        server.streamable_http_app(host=HOST, transport_security=transport_security(port)),
        token,
    )
    print(
        f"memoryos mcp: serving on http://{host}:{port}/mcp (send the header "
        "'Authorization: Bearer <token>')",
        file=sys.stderr,
    )
    uvicorn.Server(uvicorn.Config(app, host=host, port=port, log_level="warning")).run()
