"""Streamable HTTP on 127.0.0.1 only, behind a bearer token, so other local users cannot read it."""

from __future__ import annotations

import errno
import hmac
import ipaddress
import socket
import sys
from typing import Any

from mcp.server.mcpserver import MCPServer
from mcp.server.transport_security import TransportSecuritySettings

from engine.errors import MemoryOSError

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


class PortError(MemoryOSError):
    """--host/--port cannot be listened on: one line naming the address, why, and what to do
    (`memoryos mcp` exits 2: how it was asked, not a fault of the vault)."""


def address(host: str, port: int) -> str:
    """host:port as a URL writes it: an IPv6 address in brackets ([::1]:8765)."""
    return f"[{host}]:{port}" if ":" in host else f"{host}:{port}"


def is_loopback(host: str) -> bool:
    """Is `host` reachable from this computer only (127.0.0.0/8, ::1, localhost)?"""
    if host.lower() in ("localhost", "localhost."):
        return True
    try:
        return ipaddress.ip_address(host).is_loopback
    except ValueError:  # a name: it may resolve to any interface
        return False


def exposed_warning(host: str, port: int) -> str:
    """What listening on a --host other computers can reach means, and what to do instead."""
    return (
        f"memoryos mcp: warning: {host} is not a loopback address: other computers on the "
        "network can connect, and this is plain HTTP, so the memory and the bearer token "
        "cross the network unencrypted. Leave out --host (it listens on 127.0.0.1), or reach "
        "it through an SSH tunnel (ssh -L) or a TLS proxy; 0.0.0.0 is meant only inside a "
        f"container whose port {port} is published on the host's 127.0.0.1"
    )


def _port_error(host: str, port: int, exc: OSError) -> PortError:
    where = address(host, port)
    if exc.errno == errno.EADDRINUSE:
        return PortError(
            f"cannot listen on {where}: the port is in use (another memoryos mcp?): give "
            "another with --port N, or stop what holds it"
        )
    if exc.errno == errno.EADDRNOTAVAIL:
        return PortError(
            f"cannot listen on {where}: {host} is not an address of this computer: leave out "
            f"--host (it listens on {HOST}), or give one of this computer's addresses"
        )
    if isinstance(exc, socket.gaierror):  # a name, not an address, and none it resolves to
        return PortError(
            f"cannot listen on {where}: {host!r} is not an address this computer knows: leave "
            f"out --host (it listens on {HOST})"
        )
    if exc.errno == errno.EACCES:
        return PortError(
            f"cannot listen on {where}: not permitted (ports below 1024 need administrator "
            "rights): give --port 1024 or higher"
        )
    why = exc.strerror or str(exc)
    return PortError(
        f"cannot listen on {where}: {why}: give another --port, or leave out --host (it "
        f"listens on {HOST})"
    )


def reserve_port(host: str, port: int) -> socket.socket:
    """A socket bound to host:port, taken before the vault is unlocked and before anything
    says "serving on"; a PortError saying what to do when it cannot be had. It listens
    only once serve_http starts, so until then a client is refused, not left waiting."""
    family = socket.AF_INET6 if ":" in host else socket.AF_INET
    sock = socket.socket(family, socket.SOCK_STREAM)
    try:
        # as uvicorn does: a restart need not wait out TIME_WAIT (a listening port still fails)
        sock.setsockopt(socket.SOL_SOCKET, socket.SO_REUSEADDR, 1)
        sock.bind((host, port))
    except OSError as exc:
        sock.close()
        raise _port_error(host, port, exc) from None
    return sock


def serve_http(
    server: MCPServer,
    *,
    port: int,
    token: str,
    host: str = HOST,
    sock: socket.socket | None = None,
) -> None:
    """Serve until interrupted at http://<host>:<port>/mcp (127.0.0.1 unless told otherwise),
    on `sock` when given (see `reserve_port`), else on a socket taken here."""
    import uvicorn

    sock = sock or reserve_port(host, port)
    try:
        sock.listen(2048)
    except OSError as exc:
        sock.close()
        raise _port_error(host, port, exc) from None
    port = sock.getsockname()[1]  # the one the system picked for --port 0
    # The app checks Host headers as for 127.0.0.1 even when a container binds 0.0.0.0: its
    # port is meant to be published on the host's loopback only.
    app = BearerToken(
        server.streamable_http_app(host=HOST, transport_security=transport_security(port)),
        token,
    )
    print(
        f"memoryos mcp: serving on http://{address(host, port)}/mcp (send the header "
        "'Authorization: Bearer <token>')",
        file=sys.stderr,
    )
    if not is_loopback(host):
        print(exposed_warning(host, port), file=sys.stderr, flush=True)
    try:
        config = uvicorn.Config(app, host=host, port=port, log_level="warning")
        uvicorn.Server(config).run(sockets=[sock])
    finally:
        sock.close()
