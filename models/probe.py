"""Find OpenAI-compatible servers running on this computer by asking each default port for /v1/models."""

from __future__ import annotations

import http.client
import json
from concurrent.futures import ThreadPoolExecutor
from dataclasses import dataclass, field

# Default ports of the local servers people run; 8080 is both llama.cpp's server and LocalAI.
DEFAULT_PORTS: dict[int, str] = {
    11434: "Ollama",
    1234: "LM Studio",
    8080: "llama.cpp server / LocalAI",
    8000: "vLLM",
    1337: "Jan",
    5001: "KoboldCpp",
    4891: "GPT4All",
}
TIMEOUT = 0.25  # seconds to connect; a closed port refuses in about a millisecond
READ_TIMEOUT = 1.5  # seconds for a connected server to answer (a busy one can be slow)


@dataclass
class FoundServer:
    """An OpenAI-compatible server that answered GET /v1/models with a model list."""

    url: str  # base URL, e.g. http://127.0.0.1:11434/v1
    port: int
    kind: str  # the app that usually listens on this port (a guess: ports are shared)
    models: list[str] = field(default_factory=list)

    def to_dict(self) -> dict:
        return dict(self.__dict__)


def probe_port(
    port: int, host: str = "127.0.0.1", timeout: float = TIMEOUT, read_timeout: float = READ_TIMEOUT
) -> FoundServer | None:
    """The server on `port` when it answers /v1/models in OpenAI's shape; None otherwise."""
    connection = http.client.HTTPConnection(host, port, timeout=timeout)
    try:
        connection.connect()
        connection.sock.settimeout(read_timeout)
        connection.request("GET", "/v1/models", headers={"Accept": "application/json"})
        response = connection.getresponse()
        if response.status != 200:
            return None
        data = json.loads(response.read(1 << 20))
    except (OSError, http.client.HTTPException, ValueError):
        return None
    finally:
        connection.close()
    items = data.get("data") if isinstance(data, dict) else None
    if not isinstance(items, list):
        return None  # something else listens here (a web app, another API)
    models = [str(item["id"]) for item in items if isinstance(item, dict) and item.get("id")]
    kind = DEFAULT_PORTS.get(port, "OpenAI-compatible server")
    return FoundServer(url=f"http://{host}:{port}/v1", port=port, kind=kind, models=models)


def probe_servers(
    ports: dict[int, str] | list[int] | None = None,
    host: str = "127.0.0.1",
    timeout: float = TIMEOUT,
    read_timeout: float = READ_TIMEOUT,
) -> list[FoundServer]:
    """All ports probed at once; returns the servers that answered, in port-list order."""
    ports = list(DEFAULT_PORTS if ports is None else ports)
    if not ports:
        return []
    with ThreadPoolExecutor(max_workers=len(ports), thread_name_prefix="probe") as pool:
        answers = list(pool.map(lambda port: probe_port(port, host, timeout, read_timeout), ports))
    return [server for server in answers if server is not None]
