"""What leaves the machine: the one loopback check, the plain-http rule, and a log of transfers.

Every part of the program that asks "is this backend on this computer?" calls `is_loopback`.
`MEMORYOS_TREAT_AS_REMOTE` (hosts, or host:port, separated by commas) makes it answer "no"
for a loopback address too: tests use it to stand a recording server on 127.0.0.1 in for a
remote one, and an administrator can use it to mark a local proxy as remote.
"""

from __future__ import annotations

import ipaddress
import os
import re
import threading
import time
from collections import deque
from dataclasses import dataclass
from urllib.parse import urlsplit

from engine.errors import InvalidInputError, PolicyError, ServerError

TREAT_AS_REMOTE_ENV = "MEMORYOS_TREAT_AS_REMOTE"
LOCAL = "this computer"


def _host_port(url: str) -> tuple[str, int | None]:
    parts = urlsplit(url if "://" in url else "http://" + url)
    try:
        port = parts.port
    except ValueError:
        port = None
    return (parts.hostname or "").lower().strip("[]"), port


def _declared_remote(host: str, port: int | None) -> bool:
    for entry in os.environ.get(TREAT_AS_REMOTE_ENV, "").split(","):
        entry = entry.strip().lower()
        if not entry:
            continue
        name, _, wanted = entry.rpartition(":") if entry.count(":") == 1 else (entry, "", "")
        if wanted and name == host and str(port) == wanted:
            return True
        if not wanted and entry == host:
            return True
    return False


def is_loopback(url: str) -> bool:
    """True if `url` points at this computer (localhost, 127.0.0.0/8, ::1) and is not
    declared remote. Any other name, even one on the local network, counts as remote."""
    host, port = _host_port(url)
    if not host or _declared_remote(host, port):
        return False
    if host == "localhost" or host.endswith(".localhost"):
        return True
    try:
        return ipaddress.ip_address(host).is_loopback
    except ValueError:
        return False


def destination(url: str) -> str:
    """How a destination is named to the person: host[:port]."""
    host, port = _host_port(url)
    return f"{host}:{port}" if port else host


class PlainHttpRefusedError(InvalidInputError, ServerError):
    """Plain http:// to another computer, not allowed. To the app a server that cannot be used;
    to a terminal command a refusal of how it was called, which exits 2 as a bad option does."""


class AddressError(InvalidInputError, ServerError):
    """Not a server address (`url_problem` says why). To the app a server that cannot be used;
    to a terminal command a bad option, which exits 2 as argparse's own errors do."""


def check_address(url: str, given_as: str) -> None:
    """For a terminal command: AddressError when `url`, typed as `given_as` (the option and its
    value, as "--url 'htp:/x'"), is not a server address, saying what one looks like."""
    problem = url_problem(url)
    if problem:
        example = "" if EXAMPLE_URL in problem else f"; an address looks like {EXAMPLE_URL}"
        raise AddressError(f"{given_as}: {problem}{example}")  # "Not a valid address:" kept


# How a refused plain http:// address is allowed, in the app's words; the terminal passes its own.
IN_SETTINGS = "allow plain http for remote servers in Settings"


def check_url(
    url: str, *, allow_plain_http: bool = False, how_to_allow: str = IN_SETTINGS
) -> None:
    """Refuse plain http:// to a host that is not this computer, unless explicitly allowed:
    memories would cross the network readable by anyone on the way. Refuse any host that is
    not this computer when the administrator's policy turns remote models off. `how_to_allow`
    ends the plain-http refusal: where the caller's person allows it (the app: Settings)."""
    from engine import policy

    problem = url_problem(url)
    if problem:  # said first: a mistyped address is neither "remote" nor "plain http"
        raise AddressError(problem)
    rules = policy.current()
    if rules.remote_forbidden and not is_loopback(url):
        raise PolicyError(
            f"models that are not on this computer are turned off by your administrator "
            f"({rules.source}): {destination(url)} cannot be used"
        )
    if plain_http_refused(url, allow_plain_http=allow_plain_http):
        raise PlainHttpRefusedError(
            f"refusing plain http:// to {destination(url)}: it is not this computer, and your "
            f"memories would cross the network unencrypted. Use https://, or {how_to_allow}"
        )


def plain_http_refused(url: str, *, allow_plain_http: bool = False) -> bool:
    """True for plain http:// to a host that is not this computer, when not allowed."""
    scheme = urlsplit(url if "://" in url else "http://" + url).scheme
    return scheme == "http" and not is_loopback(url) and not allow_plain_http


EXAMPLE_URL = "http://127.0.0.1:8080/v1"
NOT_AN_ADDRESS = (
    "Not a valid address: it must start with http:// or https:// "
    f"(for example {EXAMPLE_URL})"
)
# Each other way an address can be wrong, said as what is wrong with it (a port past 65535 is
# not "missing http://"); all start "Not a valid address:" for a reader who scans for that.
NO_SPACES = "Not a valid address: it has a space in it, and an address has no spaces"
NO_HOST = (
    f"Not a valid address: there is no computer name after {{scheme}}:// "
    f"(for example {EXAMPLE_URL})"
)
NO_HOST_BEFORE_PORT = (
    f"Not a valid address: there is no computer name before the port (for example {EXAMPLE_URL})"
)
NO_PORT = "Not a valid address: there is no port number after the colon (for example {host}:8080)"
PORT_NOT_A_NUMBER = "Not a valid address: the port “{port}” is not a number (for example 8080)"
PORT_OUT_OF_RANGE = "Not a valid address: the port {port} is not a port number (1-65535)"
BAD_HOST = (
    "Not a valid address: the computer name “{host}” has characters an address cannot have"
)
# "htp:/x", "ftp:x", "mailto:y": a scheme typed (or mistyped); "localhost:8080" is a host:port,
# and "localhost:" one whose port is missing
_SCHEME_LIKE = re.compile(r"[A-Za-z][A-Za-z0-9+.-]*:(?!\d|$)")
_HOST = re.compile(r"[\w.%:-]+")


def _port_text(netloc: str) -> str:
    """What was typed after the host's colon ("" for none): "99999" in "u@[::1]:99999"."""
    place = netloc.rpartition("@")[2]
    if place.startswith("["):
        return place.partition("]")[2].removeprefix(":")
    return place.rpartition(":")[2] if ":" in place else ""


def _clip(typed: str) -> str:
    """What was typed, cut short enough to quote in one line."""
    return typed if len(typed) <= 24 else typed[:23] + "…"


def url_problem(url: str) -> str:
    """Why `url` is not a server address ("" when it is), saying what is wrong with it: an
    http:// or https:// scheme (or none, as in "localhost:11434", which gets http://), a host, a
    port from 1 to 65535 if any, and no spaces. Checked before any judgement of where it
    points, which a malformed address cannot answer."""
    text = (url or "").strip()
    if not text:
        return f"No server address given (for example {EXAMPLE_URL})"
    has_scheme = "://" in text
    typed_scheme = text.split("://", 1)[0] if has_scheme else ""
    if has_scheme and not any(character.isspace() for character in typed_scheme):
        if typed_scheme.lower() not in ("http", "https"):
            return NOT_AN_ADDRESS
    elif not has_scheme and _SCHEME_LIKE.match(text):
        return NOT_AN_ADDRESS
    if any(character.isspace() for character in text):
        return NO_SPACES
    try:
        parts = urlsplit(text if has_scheme else "http://" + text)
    except ValueError:  # "http://[::1": a bracket not closed
        return BAD_HOST.format(host=_clip(text.split("://", 1)[-1].split("/", 1)[0]))
    host = parts.hostname or ""
    port_text = _port_text(parts.netloc)
    if not host:
        if port_text or parts.netloc.endswith(":"):
            return NO_HOST_BEFORE_PORT
        return NO_HOST.format(scheme=(typed_scheme or "http").lower())
    if not _HOST.fullmatch(host):
        return BAD_HOST.format(host=_clip(host))
    if parts.netloc.endswith(":"):
        return NO_PORT.format(host=_clip(host))
    if port_text and not (port_text.isascii() and port_text.isdigit()):
        return PORT_NOT_A_NUMBER.format(port=_clip(port_text))
    if port_text and (len(port_text.lstrip("0")) > 5 or not 1 <= int(port_text) <= 65535):
        return PORT_OUT_OF_RANGE.format(port=_clip(port_text))
    return ""


@dataclass(frozen=True)
class Transfer:
    """One request to a model: what was sent where, in characters."""

    when: float
    purpose: str  # "answer" | "consolidation"
    destination: str  # LOCAL or host[:port]
    remote: bool
    characters_sent: int
    characters_received: int


class TransferLog:
    """The most recent transfers, newest last (thread-safe: consolidation runs in a worker)."""

    def __init__(self, size: int = 500) -> None:
        self._items: deque[Transfer] = deque(maxlen=size)
        self._lock = threading.Lock()

    def record(self, chat, purpose: str, messages: list[dict], received: str | int) -> Transfer:
        sent = sum(len(str(m.get("content", ""))) for m in messages)
        got = received if isinstance(received, int) else len(received)
        item = Transfer(
            when=time.time(),
            purpose=purpose,
            destination=getattr(chat, "destination", LOCAL),
            remote=bool(getattr(chat, "remote", False)),
            characters_sent=sent,
            characters_received=got,
        )
        with self._lock:
            self._items.append(item)
        return item

    def items(self) -> list[Transfer]:
        with self._lock:
            return list(self._items)


def normalise_url(url: str) -> str:
    """ "localhost:11434" -> "http://localhost:11434/v1"; no trailing slash."""
    url = (url or "").strip()
    problem = url_problem(url)
    if problem:
        raise AddressError(problem)
    if "://" not in url:
        url = "http://" + url
    parts = urlsplit(url)
    path = parts.path.rstrip("/")
    return f"{parts.scheme}://{parts.netloc}{path or '/v1'}"
