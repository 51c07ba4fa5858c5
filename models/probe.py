"""Find OpenAI-compatible servers running on this computer by asking each default port for
/v1/models; ask one base URL for the models it lists."""

from __future__ import annotations

import http.client
import json
import ssl
from concurrent.futures import ThreadPoolExecutor
from dataclasses import dataclass, field
from urllib.parse import urlsplit

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
    """An OpenAI-compatible server that answered GET /v1/models with a model list, or with
    HTTP 401/403: it needs an API key (llama.cpp's server started with --api-key) and lists
    no models until it is given one."""

    url: str  # base URL, e.g. http://127.0.0.1:11434/v1
    port: int
    kind: str  # the app that usually listens on this port (a guess: ports are shared)
    models: list[str] = field(default_factory=list)
    needs_key: bool = False  # it refused the probe: not usable until a (right) key is given
    key_refused: bool = False  # the key kept for it was sent, and refused

    @property
    def key_text(self) -> str:
        """What the app's table and `memoryos models` say of a server that needs a key."""
        if not self.needs_key:
            return ""
        if self.key_refused:
            return "refused the API key kept for it: not usable until its key is given again"
        return "needs an API key: not usable until its key is given"

    def to_dict(self) -> dict:
        return dict(self.__dict__)


def probe_port(
    port: int, host: str = "127.0.0.1", timeout: float = TIMEOUT, read_timeout: float = READ_TIMEOUT
) -> FoundServer | None:
    """The server on `port` when it answers /v1/models in OpenAI's shape, or refuses it for
    want of an API key (asked again with the key kept for it, if any); None otherwise."""
    url = f"http://{host}:{port}/v1"
    key_sent = False
    try:
        listing = ask_models(url, "", timeout, read_timeout)
        # the keyring is read only for a server that wants a key: most servers want none, and
        # a locked keyring would be asked to open at each look around
        if listing.key_refused and (key := saved_key(url)):
            listing, key_sent = ask_models(url, key, timeout, read_timeout), True
    except OSError:
        return None  # nothing listens there
    kind = DEFAULT_PORTS.get(port, "OpenAI-compatible server")
    if listing.key_refused:
        return FoundServer(url=url, port=port, kind=kind, needs_key=True, key_refused=key_sent)
    if listing.models is None:
        return None  # something else listens here (a web app, another API)
    return FoundServer(url=url, port=port, kind=kind, models=listing.models)


def saved_key(url: str) -> str:
    """The API key a model load would use for the server at `url`: typed in this session, in
    the keyring, or $MEMORYOS_API_KEY; "" when there is none or no keyring can be read."""
    from engine.api_keys import ApiKeyError, get_api_key

    try:
        return get_api_key(url) or ""
    except ApiKeyError:
        return ""


LOCAL_HOSTS = ("127.0.0.1", "localhost", "::1")


def ports_to_probe(chosen_url: str = "") -> list[int]:
    """The usual ports, and the port of the server chosen in the settings when it runs on this
    computer: a llama.cpp server started on 8011 is listed too (the walkthrough chatted through
    one while the list said no local server answered)."""
    ports = list(DEFAULT_PORTS)
    try:
        parts = urlsplit(chosen_url)
        port = parts.port or (443 if parts.scheme == "https" else 80)
    except ValueError:
        return ports
    if parts.hostname in LOCAL_HOSTS and port not in ports:
        ports.append(port)
    return ports


def chosen_server_url() -> str:
    """The base URL of the server chosen in the app's settings, "" when the chosen model is not
    a server (or no settings are saved)."""
    from engine.terminal.opening import saved_model_config

    try:
        config = saved_model_config()
    except Exception:  # unreadable settings: the usual ports only
        return ""
    return config.url if config.source == "url" else ""


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


CONNECT_TIMEOUT = 3.0  # seconds to reach a server named by URL (it may be across the internet)


KEY_REFUSED = (401, 403)  # what a server started with an API key answers without the right one
# The endpoints people paste from a server's page or a client's settings: the base URL is what
# comes before them (…/v1/chat/completions is asked as …/v1).
ENDPOINTS = ("/chat/completions", "/completions", "/models", "/embeddings")


@dataclass
class Listing:
    """What a server named by URL answered to GET <url>/models."""

    models: list[str] | None  # None: it answered, but not with a model list
    status: int = 0  # the HTTP status; 0 when no HTTP answer came back (TLS, a broken reply)

    @property
    def key_refused(self) -> bool:
        """The server wants an API key, or another one: a model on it would not answer either."""
        return self.status in KEY_REFUSED


def base_url(typed: str) -> str:
    """The base URL in an address pasted whole: "…/v1/chat/completions" gives "…/v1" (the query
    and a trailing slash go too); any other address is returned as it was typed."""
    text = (typed or "").strip()
    address = text.split("?", 1)[0].split("#", 1)[0].rstrip("/")
    for endpoint in ENDPOINTS:
        if address.lower().endswith(endpoint) and len(address) > len(endpoint):
            return address[: -len(endpoint)]
    return text


def ask_models(
    url: str, api_key: str = "", timeout: float = CONNECT_TIMEOUT,
    read_timeout: float = READ_TIMEOUT,
) -> Listing:
    """Ask the server at base URL `url` for GET <url>/models: its model ids, or None with the
    HTTP status it answered (401 or 403: it needs an API key). Raises OSError when nothing
    answers there (refused, timed out, unknown host)."""
    from engine.network import normalise_url

    parts = urlsplit(normalise_url(url))
    kind = http.client.HTTPSConnection if parts.scheme == "https" else http.client.HTTPConnection
    connection = kind(parts.hostname, parts.port, timeout=timeout)
    headers = {"Accept": "application/json"}
    if api_key:
        headers["Authorization"] = f"Bearer {api_key}"
    try:
        try:
            connection.connect()  # OSError here: nothing answers
        except ssl.SSLError:
            return Listing(None)  # something answered, in TLS it did not like: the load says
        status = 0
        try:
            connection.sock.settimeout(read_timeout)
            connection.request("GET", f"{parts.path}/models", headers=headers)
            response = connection.getresponse()
            status = response.status
            if status != 200:
                return Listing(None, status)
            return Listing(_model_ids(json.loads(response.read(1 << 20))), status)
        except (OSError, http.client.HTTPException, ValueError):
            return Listing(None, status)  # it answered the connection: just not this API
    finally:
        connection.close()


def server_models(
    url: str, api_key: str = "", timeout: float = CONNECT_TIMEOUT,
    read_timeout: float = READ_TIMEOUT,
) -> list[str] | None:
    """The model ids the server at base URL `url` lists at GET <url>/models; None when
    something answered but not with a model list (an error status, another kind of page:
    ask_models tells a refused API key apart). Raises OSError when nothing answers there."""
    return ask_models(url, api_key, timeout, read_timeout).models


def _model_ids(data: object) -> list[str] | None:
    """The ids of an OpenAI-shaped model list ({"data": [{"id": ...}, ...]}), else None."""
    items = data.get("data") if isinstance(data, dict) else None
    if not isinstance(items, list):
        return None
    return [str(item["id"]) for item in items if isinstance(item, dict) and item.get("id")]
