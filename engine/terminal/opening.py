"""Opening a vault from the terminal, and the chat and embedding models it is opened with."""

from __future__ import annotations

import json

from engine import errors, paths
from engine.backends.build import make_embedder
from engine.unlock import DEFAULT_VAULT, choose_vault, open_memory

VAULT_SUFFIX = ".memoryos"


def _open(
    args,
    *,
    create: bool = False,
    first_run: bool = False,
    chat=None,
    background: bool = True,
    make_new: str = "memoryos chat",
):
    path = vault_to_open(args, create=create, first_run=first_run, make_new=make_new)
    return open_memory(
        path,
        create=create or not _exists(path),  # only where vault_to_open allowed a new one
        embedder=make_embedder(embedder_name(args)),
        chat=chat,
        background=background,
    )


def _exists(path) -> bool:
    return path.is_file() and path.stat().st_size > 0


def vault_names() -> list[str]:
    """The vaults in the vault folder, by name."""
    folder = paths.vaults_dir()
    found = folder.glob(f"*{VAULT_SUFFIX}") if folder.is_dir() else []
    return sorted((p.name[: -len(VAULT_SUFFIX)] for p in found if _exists(p)), key=str.lower)


def vault_to_open(
    args, *, create: bool = False, first_run: bool = False, make_new: str = "memoryos chat"
):
    """The vault file a command opens. One that does not exist is refused, with the vaults that
    do (a typo never starts an empty memory), unless `create` (--create) or, with `first_run`,
    it is the default vault on a computer that has no vault yet: `memoryos chat` just works on
    the first run. `make_new`: the command that makes a new vault, for the message."""
    import shlex

    name, given_path = getattr(args, "vault", None), getattr(args, "vault_path", None)
    path = choose_vault(name, given_path)
    if create or _exists(path):
        return path
    named = not given_path and path.parent == paths.vaults_dir()
    existing = vault_names()
    default = name is None or name == DEFAULT_VAULT  # no --vault: $MEMORYOS_VAULT or `default`
    if first_run and named and not existing and default:
        return path
    if not named:
        raise errors.InvalidInputError(
            f"No vault at {path}. To make a new one: {make_new} --vault-path "
            f"{shlex.quote(str(path))} --create"
        )
    vault = path.name[: -len(VAULT_SUFFIX)]
    if existing:
        here = f"Vaults here: {', '.join(existing)}. To make a new one:"
    else:
        here = "There is no vault here yet. To make one:"
    if not existing and default and make_new == "memoryos chat":
        how = make_new  # the first `memoryos chat` makes the default vault
    elif not existing and default:
        how = f"{make_new} --create"
    else:
        how = f"{make_new} --vault {shlex.quote(vault)} --create"
    raise errors.InvalidInputError(f"No memory named {vault!r}. {here} {how}")


def _app_settings() -> dict:
    """The desktop app's settings file as a dict ({} when there is none or it is damaged)."""
    try:
        data = json.loads(paths.settings_file().read_text(encoding="utf-8"))
    except (OSError, ValueError):
        return {}
    return data if isinstance(data, dict) else {}


def saved_model_config():
    """The model picked in the desktop app's settings (bundled when there is none)."""
    from engine.model_config import ModelConfig

    return ModelConfig.from_settings(_app_settings())


def embedder_name(args) -> str:
    """--embedder, else the embedding model chosen in the app's settings, else the bundled one:
    the terminal opens the vault with the model its vectors came from."""
    given = getattr(args, "embedder", None)
    return given if given is not None else str(_app_settings().get("embedder") or "default")


# The terminal's end of the plain-http refusal (the app's says "in Settings").
ALLOW_PLAIN_HTTP = "add --allow-plain-http to the command"


def make_chat(model: str | None, url_model: str = "", *, allow_plain_http: bool = False):
    """A chat backend from a `--model` spec (bundled | gguf:PATH | url:BASE_URL), or the app's
    saved choice when None (not loaded yet). Plain http:// to another computer needs
    `allow_plain_http` (--allow-plain-http), or for the app's saved server its own setting."""
    from engine.backends.build import make_chat as build
    from engine.model_config import GGUF, URL, ModelConfig
    from engine.network import check_address, check_url, url_problem

    if model is None:
        config = saved_model_config()
        allow_plain_http = allow_plain_http or _app_settings().get("allow_plain_http") is True
        problem = url_problem(config.url) if config.source == URL else ""
        if problem:  # not how the command was typed: exits 1, pointing at where it was chosen
            raise errors.ServerError(
                f"the server address chosen in the app's Settings: {problem}. Change it there, "
                "or give the model with --model"
            )
    else:
        config = ModelConfig.parse(model, url_model)
        if config.source == URL:  # a bad option: exits 2, with what an address looks like
            check_address(config.url, f"--model {model!r}")
            check_bare_host(config.url, f"--model {model!r}")
            # Where it points before the model name: one try shows what blocks the address.
            check_url(config.url, allow_plain_http=allow_plain_http, how_to_allow=ALLOW_PLAIN_HTTP)
        if config.source == URL and config.url and not config.url_model:
            raise errors.InvalidInputError(
                "give the name of the model on that server with --url-model NAME (`memoryos "
                "models` lists the models that local servers offer)"
            )
        if config.source == GGUF and config.gguf_path:
            _check_model_file(config.gguf_path)  # refused now, not at every message
    if config.source == URL:  # checked here so that the refusal names the terminal's way
        config.validate()
        check_url(config.url, allow_plain_http=allow_plain_http, how_to_allow=ALLOW_PLAIN_HTTP)
    return build(config, allow_plain_http=allow_plain_http)


def check_bare_host(url: str, given_as: str) -> None:
    """An address typed as one word ("notaurl") is refused as not an address, with one that
    is: taken for http://notaurl, it was refused as plain http to another computer, naming
    --allow-plain-http. A host:port ("localhost:11434"), a dotted name and localhost pass."""
    from engine.network import EXAMPLE_URL

    text = url.strip()
    if "://" in text or ":" in text or "." in text or text.split("/")[0].lower() == "localhost":
        return
    raise errors.InvalidInputError(
        f"{given_as}: Not a valid address: it must start with http:// or https:// (for example "
        f"{EXAMPLE_URL}, or http://{text.split('/')[0]}:8080/v1 for a server on that computer)"
    )


def _check_model_file(path: str) -> None:
    """--model gguf:PATH names an existing, complete GGUF file; InvalidInputError otherwise."""
    from pathlib import Path

    from engine.gguf import check_gguf_file

    file = Path(path).expanduser()
    if not file.exists():
        raise errors.InvalidInputError(
            f"no model file at {file}: give --model gguf:PATH with the path of a .gguf file "
            "(`memoryos models` lists those on this computer)"
        )
    try:
        check_gguf_file(file)
    except errors.ModelLoadError as exc:
        raise errors.InvalidInputError(f"--model gguf:{path}: {exc}") from None
