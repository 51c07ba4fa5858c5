"""What Settings asks off the GUI thread: a GGUF file's metadata and context limits, a server's
models, GPU support, the keyring; and keeping an API key in it."""

from __future__ import annotations

from typing import Any

from engine.api_keys import (  # noqa: F401  (key_source's answers, for the Model tab)
    KEY_FOR_SESSION,
    KEY_FROM_ENVIRONMENT,
    KEY_FROM_KEYRING,
)
from engine.errors import ServerError


def gguf_summary(path: str) -> str:
    """The file's metadata as one HTML paragraph (runs in a worker)."""
    from models.catalogue import gguf_info

    return _summary(gguf_info(path))


def _summary(info: Any) -> str:
    size = info.size_bytes / 1e9
    params = f"{info.parameters / 1e9:.2f} B parameters" if info.parameters >= 1e8 else (
        f"{info.parameters / 1e6:.0f} M parameters")
    context = (f"{info.context_length:,} tokens context" if info.context_length
               else "context unknown")
    template = ("chat template included" if info.chat_template
                else "no chat template (a generic one is used)")
    return (f"<b>{info.name or info.architecture}</b><br>{info.architecture} · {params} · "
            f"{info.quantisation} · {size:.2f} GB<br>{context} · {template}")


def read_gguf(path: str) -> tuple[str, str, str, Any, int]:
    """(path, gguf_summary's HTML, "", context_limits, parameters), or (path, "", why the file
    cannot be used, None, 0) (a worker: the answer names its file, so a late one for a file no
    longer chosen is told apart)."""
    from models.catalogue import gguf_info

    try:
        info = gguf_info(path)
        html = _summary(info)
    except Exception as error:  # reported to the person, like the pool's errors
        return path, "", gguf_refusal(path, error), None, 0
    return path, html, "", context_limits(path), info.parameters or 0


def gguf_refusal(path: str, error: BaseException) -> str:
    """Why a file cannot be the model, in words that fit how it got here: "download it again"
    only for a file MemoryOS downloaded itself (into its downloads folder), which it knows how
    to fetch again; a file that is not a GGUF model is called that, whatever its name."""
    import re
    from pathlib import Path

    from app.errors import describe
    from engine.gguf import GGUF_MAGIC
    from models.download import downloads_dir

    file = Path(path).expanduser()
    try:
        ours = file.resolve().is_relative_to(downloads_dir().resolve())
        with open(file, "rb") as handle:
            start = handle.read(len(GGUF_MAGIC))
    except OSError:  # missing, a folder, unreadable: the error says which
        return describe(error)
    if start != GGUF_MAGIC:  # its name may well end in .gguf: what is wrong is inside it
        if ours:
            return ("This file is not a GGUF model: its contents do not start as a GGUF file "
                    "does, so its download went wrong. Download it again, or choose another "
                    "file.")
        return ("This file is not a GGUF model: its contents do not start as a GGUF file does "
                "(it may be damaged, or another kind of file renamed). Choose a GGUF model "
                "file.")
    text = describe(error)
    if not ours:  # cut short, but not by MemoryOS: it cannot download this file again
        text = re.sub(r"Download it again\.", "Choose a complete .gguf file.", text)
    return text


def context_limits(path: str) -> tuple[int, int, int]:
    """(the context the file was trained for, the context fitted to this computer, KV cache
    bytes per token of context), 0 where unknown (a worker: it reads the machine)."""
    from app.model_picker import fit_file
    from models.fit import shape_of

    try:
        shape = shape_of(path)
    except Exception:  # the summary said what is wrong with the file
        return 0, 0, 0
    try:
        fit = fit_file(path)
        fitted = fit.n_ctx if fit.fits else 0
    except Exception:  # the warning still says what the file was trained for
        fitted = 0
    return shape.trained_context, fitted, shape.kv_bytes_per_token


def bundled_limits() -> tuple[str, tuple[int, int, int]]:
    """(the bundled model's file, its context_limits)."""
    from models.catalogue import bundled_gguf_path

    path = str(bundled_gguf_path())
    return path, context_limits(path)


def keyring_check() -> Any:
    from engine.api import keyring_status

    return keyring_status()


class KeyRefused(ServerError):
    """The server answered 401 or 403 for its model list: the API key is missing or wrong, and
    a model on it would not answer either."""

    def __init__(self, url: str, status: int, key_given: bool) -> None:
        self.url, self.status, self.key_given = url, status, key_given
        if key_given:
            text = (f"The server at {url} refused the API key (HTTP {status}): check the key "
                    "it was started or issued with.")
        else:
            text = (f"The server at {url} needs an API key (HTTP {status}): type the key it "
                    "was started or issued with.")
        super().__init__(text)


def ask_server(url: str, api_key: str = "") -> tuple[str, list[str] | None, Exception | None]:
    """(url, the model ids the server there lists, None); ids None when it answered without a
    list; (url, None, KeyRefused) when it refused the key (`api_key`, else the one a model load
    would use: this session's, the keyring's, the environment's); (url, None, OSError) when
    nothing answers there. Runs in a worker."""
    from models.probe import ask_models

    key = api_key or _stored_key(url)
    try:
        listing = ask_models(url, key)
    except Exception as error:
        return url, None, error
    if listing.key_refused:
        return url, None, KeyRefused(url, listing.status, bool(key))
    return url, listing.models, None


def _stored_key(url: str) -> str:
    """The key a model load would use for `url` when none is typed ("" when there is none)."""
    from engine.api_keys import ApiKeyError, get_api_key

    try:
        return get_api_key(url) or ""
    except ApiKeyError:  # no keyring: the load goes without a key too
        return ""


def key_source(url: str) -> tuple[str, str]:
    """(url, where the key a model load would use for `url` comes from: KEY_FROM_KEYRING,
    KEY_FOR_SESSION or KEY_FROM_ENVIRONMENT; "" when there is none). Never the key itself.
    Runs in a worker (the keyring can take a while)."""
    from engine.api_keys import api_key_source
    from engine.errors import MemoryOSError

    try:
        return url, api_key_source(url)[1]
    except MemoryOSError:  # ApiKeyError (no keyring, no variable), or a malformed address
        return url, ""


def gpu_support() -> bool:
    from models.machine import gpu_offload_supported

    return bool(gpu_offload_supported())


def save_api_key(url: str, key: str) -> None:
    from engine.api_keys import ApiKeyError, keep_for_session, set_api_key

    try:
        set_api_key(url, key)
    except ApiKeyError:  # no keyring: for this session only, as the Model tab says
        keep_for_session(url, key)


def server_url_problem(url: str, allow_plain_http: bool) -> str:
    """Why Settings cannot save this server address ("" when it can), in words for the Model
    tab: a malformed address first, then the administrator's policy, then plain http:// to
    another computer, which points at the checkbox under the address on the same tab."""
    from engine.errors import MemoryOSError
    from engine.network import check_url, destination, plain_http_refused, url_problem

    problem = url_problem(url)
    if problem:
        return problem + "."
    try:
        check_url(url, allow_plain_http=True)  # the administrator's policy
    except MemoryOSError as error:
        return str(error)[:1].upper() + str(error)[1:] + "."
    if plain_http_refused(url, allow_plain_http=allow_plain_http):
        return (f"Refusing plain http:// to {destination(url)}: it is not this computer, and "
                "your memories would cross the network unencrypted. Use https://, or tick "
                "“Allow plain http:// to a server that is not this computer” under the "
                "Base URL.")
    return ""
