"""Download a model file over plain HTTP: resume, progress, pause, cancel, disk check, SHA-256."""

from __future__ import annotations

import errno
import hashlib
import http.client
import json
import os
import re
import socket
import threading
import time
import urllib.error
import urllib.parse
import urllib.request
from collections import deque
from collections.abc import Callable
from dataclasses import dataclass
from pathlib import Path

from engine import paths
from engine.errors import MemoryOSError
from models.machine import free_disk

HUB = "https://huggingface.co"
CHUNK = 1 << 20
SPARE_DISK = 64 * 1024**2  # never fill a disk to the last byte
USER_AGENT = "MemoryOS-Desktop"
_SHA256 = re.compile(r"^[0-9a-f]{64}$")


class DownloadError(MemoryOSError):
    """A download failed; the message says what to do. Partial data is kept to resume."""


class OfflineError(DownloadError):
    """The server cannot be reached (no network, name not resolved, refused)."""


class NotEnoughSpaceError(DownloadError):
    """The disk has too little free space for the rest of the file."""


class ChecksumError(DownloadError):
    """The finished file's SHA-256 is not the published one; it was deleted."""


class DownloadStopped(DownloadError):
    """The person paused (partial file kept) or cancelled (partial file deleted)."""

    def __init__(self, message: str, cancelled: bool) -> None:
        super().__init__(message)
        self.cancelled = cancelled


@dataclass(frozen=True)
class Progress:
    """Where a download is: bytes done of total, speed (bytes/s), seconds left (None: unknown)."""

    done: int
    total: int
    speed: float
    eta: float | None
    stage: str  # "downloading" or "verifying"


@dataclass(frozen=True)
class Downloaded:
    path: Path
    sha256: str
    verified: bool  # False when nobody published a hash to compare with


def downloads_dir() -> Path:
    """Where downloaded models go (created by the download, not here)."""
    return paths.data_dir() / "models"


def hub_url(repo: str, file: str, endpoint: str = HUB, revision: str = "main") -> str:
    """The plain-HTTP address of a file in a Hugging Face repository."""
    quoted = urllib.parse.quote(file)
    return f"{endpoint.rstrip('/')}/{repo}/resolve/{revision}/{quoted}"


def plain_url(url: str) -> str:
    """hf://org/repo/file and huggingface.co/.../blob/... pages become resolve/ download URLs."""
    url = url.strip()
    if url.startswith("hf://"):
        org, repo, file = url[5:].split("/", 2)
        return hub_url(f"{org}/{repo}", file)
    match = re.match(r"^(https?://(?:www\.)?huggingface\.co/[^/]+/[^/]+)/blob/([^/]+)/(.+)$", url)
    if match:
        return f"{match.group(1)}/resolve/{match.group(2)}/{match.group(3)}"
    if not re.match(r"^https?://", url):
        # Only the recommended list's addresses reach here from the app: no wording that
        # asks the person for a link (there is no field to give one).
        raise DownloadError(f"{url!r} is not a web address (http:// or https://).")
    return url


class Download:
    """One file: `run()` blocks (call it in a worker); `pause()`/`cancel()` from any thread."""

    def __init__(
        self,
        url: str,
        dest: str | os.PathLike,
        sha256: str = "",
        size: int = 0,
        free_space: Callable[[Path], int] = free_disk,
        timeout: float = 30.0,
        retries: int = 3,
    ) -> None:
        self.url = plain_url(url)
        self.dest = Path(dest)
        self.part = self.dest.with_name(self.dest.name + ".part")
        self.sidecar = self.dest.with_name(self.dest.name + ".part.json")
        self.sha256 = sha256.lower()
        self.size = size
        self.free_space = free_space
        self.timeout = timeout
        self.retries = retries
        self._stop = threading.Event()
        self._cancel = False
        self.requests: list[int] = []  # the offset each GET started at (shown in logs and tests)

    def pause(self) -> None:
        self._stop.set()

    def cancel(self) -> None:
        self._cancel = True
        self._stop.set()

    def run(self, progress: Callable[[Progress], None] | None = None) -> Downloaded:
        """Download (or resume), verify, then move the file into place."""
        report = progress or (lambda _p: None)
        size, published = self._head()
        self.size = size or self.size  # the server knows better than a catalogue estimate
        self.sha256 = self.sha256 or published
        self._adopt_partial()
        have = self.part.stat().st_size if self.part.exists() else 0
        self._check_space(have)
        self.dest.parent.mkdir(parents=True, exist_ok=True)
        self.sidecar.write_text(
            json.dumps({"url": self.url, "size": self.size, "sha256": self.sha256}),
            encoding="utf-8",
        )
        attempts = 0
        while True:
            try:
                if self._fetch(report):
                    break
            except (OSError, http.client.HTTPException) as exc:
                if isinstance(exc, OSError) and exc.errno == errno.ENOSPC:
                    raise self._no_space() from None
                if isinstance(exc, DownloadError):
                    raise
                attempts += 1
                if attempts > self.retries:
                    done = self.part.stat().st_size if self.part.exists() else 0
                    raise DownloadError(
                        f"The connection was lost at {_size(done)} of {_size(self.size)} "
                        f"({exc}). The part already downloaded is kept: press Resume."
                    ) from None
                time.sleep(min(0.2 * attempts, 2.0))
        return self._finish(report)

    # -- steps -------------------------------------------------------------------------------
    def _head(self) -> tuple[int, str]:
        """(size, sha256) from a HEAD request; the hub's LFS headers sit on its redirect."""
        request = urllib.request.Request(self.url, method="HEAD", headers=_headers())
        opener = urllib.request.build_opener(_NoRedirect)
        try:
            response = opener.open(request, timeout=self.timeout)
            headers = response.headers
            response.close()
        except urllib.error.HTTPError as exc:
            exc.close()  # only its headers are wanted
            if exc.code in (301, 302, 303, 307, 308):
                headers = exc.headers
            elif exc.code in (401, 403, 404):
                raise DownloadError(_http_text(exc.code, self.url)) from None
            else:
                return 0, ""  # a server without HEAD: the GET tells the size
        except (urllib.error.URLError, OSError) as exc:
            raise _offline(self.url, exc) from None
        etag = (headers.get("X-Linked-Etag") or "").strip('"W/ ').lower()
        size = headers.get("X-Linked-Size") or headers.get("Content-Length") or 0
        try:
            size = int(size)
        except ValueError:
            size = 0
        return size, etag if _SHA256.match(etag) else ""

    def _adopt_partial(self) -> None:
        """Keep a .part from an earlier run only when it was for this same file."""
        if not self.part.exists():
            return
        try:
            before = json.loads(self.sidecar.read_text(encoding="utf-8"))
        except (OSError, ValueError):
            before = {}
        same = before.get("url") == self.url and (
            not self.sha256 or not before.get("sha256") or before["sha256"] == self.sha256
        )
        if not same or (self.size and self.part.stat().st_size > self.size):
            self.part.unlink()

    def _check_space(self, have: int) -> None:
        if not self.size:
            return
        need = self.size - have + SPARE_DISK
        if self.free_space(self.dest.parent) < need:
            raise self._no_space(need)

    def _no_space(self, need: int = 0) -> NotEnoughSpaceError:
        free = self.free_space(self.dest.parent)
        need = need or (self.size - (self.part.stat().st_size if self.part.exists() else 0))
        return NotEnoughSpaceError(
            f"Not enough disk space for {self.dest.name}: it needs {_size(need)} more and "
            f"{self.dest.parent} has {_size(free)} free. Free some space, then press Resume."
        )

    def _fetch(self, report: Callable[[Progress], None]) -> bool:
        """One GET from the end of the .part file; True when the whole file is there."""
        have = self.part.stat().st_size if self.part.exists() else 0
        if self.size and have == self.size:
            return True
        headers = _headers()
        if have:
            headers["Range"] = f"bytes={have}-"
        self.requests.append(have)
        request = urllib.request.Request(self.url, headers=headers)
        try:
            response = urllib.request.urlopen(request, timeout=self.timeout)
        except urllib.error.HTTPError as exc:
            exc.close()
            if exc.code == 416 and have:  # asked past the end: start again from zero
                self.part.unlink()
                return False
            raise DownloadError(_http_text(exc.code, self.url)) from None
        except urllib.error.URLError as exc:
            raise _offline(self.url, exc) from None
        with response:
            if have and response.status != 206:
                have = 0  # the server ignored Range: take the whole file again
            length = int(response.headers.get("Content-Length") or 0)
            if not self.size and length:
                self.size = have + length
                self._check_space(have)
            meter = _Meter(have, self.size)
            with open(self.part, "ab" if have else "wb") as out:
                while True:
                    if self._stop.is_set():
                        raise self._stopped()
                    chunk = response.read(CHUNK)
                    if not chunk:
                        break
                    out.write(chunk)
                    if meter.add(len(chunk)):
                        report(meter.progress())
            done = self.part.stat().st_size
            report(meter.progress())
            if self.size and done < self.size:
                raise http.client.IncompleteRead(b"", self.size - done)
            return True

    def _stopped(self) -> DownloadStopped:
        if self._cancel:
            self.part.unlink(missing_ok=True)
            self.sidecar.unlink(missing_ok=True)
            return DownloadStopped(f"Download of {self.dest.name} cancelled.", cancelled=True)
        return DownloadStopped(
            f"Download of {self.dest.name} paused; it resumes where it stopped.", cancelled=False
        )

    def _finish(self, report: Callable[[Progress], None]) -> Downloaded:
        total = self.part.stat().st_size
        digest = hashlib.sha256()
        meter = _Meter(0, total)
        with open(self.part, "rb") as handle:
            while block := handle.read(CHUNK * 4):
                if self._stop.is_set():
                    raise self._stopped()
                digest.update(block)
                if meter.add(len(block)):
                    report(meter.progress("verifying"))
        actual = digest.hexdigest()
        if self.sha256 and actual != self.sha256:
            self.part.unlink()
            self.sidecar.unlink(missing_ok=True)
            raise ChecksumError(
                f"{self.dest.name} arrived damaged (SHA-256 {actual[:12]}… instead of the "
                f"published {self.sha256[:12]}…) and was deleted. Try the download again."
            )
        with open(self.part, "rb") as handle:
            if self.dest.suffix.lower() == ".gguf" and handle.read(4) != b"GGUF":
                self.part.unlink()
                self.sidecar.unlink(missing_ok=True)
                raise DownloadError(f"{self.url} is not a GGUF model file; it was deleted.")
        os.replace(self.part, self.dest)
        self.sidecar.unlink(missing_ok=True)
        return Downloaded(self.dest, actual, verified=bool(self.sha256))


def discard_partial(dest: str | os.PathLike) -> None:
    """Delete a paused download's .part file and sidecar (cancel after a pause)."""
    dest = Path(dest)
    dest.with_name(dest.name + ".part").unlink(missing_ok=True)
    dest.with_name(dest.name + ".part.json").unlink(missing_ok=True)


def partial_downloads(folder: str | os.PathLike | None = None) -> list[dict]:
    """Paused downloads (a .part with its sidecar) that a new run can resume."""
    folder = Path(folder) if folder else downloads_dir()
    found = []
    for sidecar in sorted(folder.glob("*.part.json")) if folder.is_dir() else []:
        try:
            data = json.loads(sidecar.read_text(encoding="utf-8"))
        except (OSError, ValueError):
            continue
        part = sidecar.with_suffix("")
        dest = part.with_suffix("")
        done = part.stat().st_size if part.exists() else 0
        found.append({**data, "dest": str(dest), "done": done})
    return found


class _NoRedirect(urllib.request.HTTPRedirectHandler):
    def redirect_request(self, *args: object, **kwargs: object) -> None:
        return None


class _Meter:
    """Bytes, speed over the last few seconds, time left; says when to report (10 per s)."""

    def __init__(self, done: int, total: int) -> None:
        self.done, self.total = done, total
        self.samples: deque[tuple[float, int]] = deque([(time.monotonic(), done)], maxlen=50)
        self.last = 0.0

    def add(self, count: int) -> bool:
        self.done += count
        now = time.monotonic()
        self.samples.append((now, self.done))
        while len(self.samples) > 2 and now - self.samples[0][0] > 3.0:
            self.samples.popleft()
        if now - self.last >= 0.1:
            self.last = now
            return True
        return False

    def progress(self, stage: str = "downloading") -> Progress:
        (t0, b0), (t1, b1) = self.samples[0], self.samples[-1]
        speed = (b1 - b0) / (t1 - t0) if t1 > t0 else 0.0
        eta = (self.total - self.done) / speed if speed > 0 and self.total else None
        return Progress(self.done, self.total, speed, eta, stage)


def _headers() -> dict[str, str]:
    return {"User-Agent": USER_AGENT, "Accept-Encoding": "identity"}


def _offline(url: str, exc: Exception) -> OfflineError:
    host = urllib.parse.urlsplit(url).hostname or url
    reason = getattr(exc, "reason", exc)
    if isinstance(reason, socket.timeout | TimeoutError):
        why = "did not answer in time"
    elif isinstance(reason, socket.gaierror):
        why = "could not be found: this computer seems to be offline"
    else:
        why = f"cannot be reached ({reason})"
    return OfflineError(
        f"{host} {why}. Models already on this computer and local servers still work; "
        "try the download again when the connection is back."
    )


def _http_text(code: int, url: str) -> str:
    """What a refusal means, with what the app offers instead (there is no field for a link)."""
    host = urllib.parse.urlsplit(url).hostname or url
    if code in (401, 403):
        return (
            f"{host} refused the download ({code}): this model needs a login or an accepted "
            "licence there. Download it in your web browser, then use Add a folder… to "
            "choose the folder it is in."
        )
    if code == 404:
        return (
            f"The file is no longer at {host} (404): it was moved or removed. Choose another "
            "model, or look again later."
        )
    return f"{host} answered {code} for the download; try again later."


def _size(value: int) -> str:
    """Decimal units, as the hub and the model table show sizes."""
    if value >= 1e9:
        return f"{value / 1e9:.2f} GB"
    return f"{value / 1e6:.1f} MB"
