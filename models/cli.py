"""`memoryos models`: what the model step lists, in a terminal (`--json` for scripts)."""

from __future__ import annotations

import argparse
import json
import sys

from engine.terminal import wording
from models.overview import Overview, overview
from models.recommended import suggested, suggestion_reason


def _folder(text: str) -> str:
    """An argparse type: a folder that exists (a mistyped one was searched and found nothing,
    without a word)."""
    from pathlib import Path

    folder = Path(text).expanduser()
    if not folder.exists():
        raise argparse.ArgumentTypeError(f"no folder at {folder}")
    if not folder.is_dir():
        raise argparse.ArgumentTypeError(f"{folder} is a file, not a folder")
    return text


def build_parser() -> argparse.ArgumentParser:
    parser = argparse.ArgumentParser(
        allow_abbrev=False,  # a prefix of an option is not that option
        prog="memoryos models",
        description="List GGUF models on this computer, local OpenAI-compatible servers, and "
        "recommended downloads with whether each fits this machine.",
    )
    parser.add_argument("--json", action="store_true", help="one JSON document on stdout")
    parser.add_argument(
        "--folder", action="append", type=_folder, default=None, metavar="PATH",
        help="also search this folder (repeatable; default: the folders added in the app)",
    )  # fmt: skip
    parser.add_argument("--no-probe", action="store_true", help="do not look for local servers")
    return parser


def main(argv: list[str] | None = None) -> int:
    args = build_parser().parse_args(argv)
    from models.probe import chosen_server_url, ports_to_probe

    ports = ports_to_probe(chosen_server_url()) if not args.no_probe else None
    result = overview(folders=args.folder, probe=not args.no_probe, ports=ports)
    if args.json:
        json.dump(result.to_dict(), sys.stdout, indent=2)
        sys.stdout.write("\n")
    else:
        sys.stdout.write(render(result))
    return 0


def render(result: Overview) -> str:
    lines = [
        f"This computer: {', '.join(result.machine.described(result.gpu_offload))}.",
        "",
        f"On this computer ({len(result.files)} GGUF file{'' if len(result.files) == 1 else 's'})",
        # as in the app's table: the demo model is always here, so the list is never empty
        f"  {'Built in':<22} SmolLM2-135M Instruct (bundled demo: for trying the app; "
        "--model bundled)",
    ]
    for model in result.files:
        info = model.info
        if info is None:
            lines.append(f"  {model.tool:<22} {model.name}  (unreadable: {model.error})")
        else:
            fit = result.file_fits.get(model.path)
            runs = ""
            if fit is not None:
                runs = (
                    f" · fits: {fit.n_ctx:,} tokens on {fit.where}{_speed(fit)}"
                    if fit.fits
                    else " · too big here"
                )
            lines.append(
                f"  {model.tool:<22} {model.name}\n"
                f"  {'':<22} {info.architecture} · {_parameters(info.parameters)} · "
                f"{info.quantisation} · {wording.size(info.size_bytes)} · context "
                f"{info.context_length or '?'} · chat template "
                f"{'yes' if info.chat_template else 'no'}{runs}\n"
                f"  {'':<22} {model.path}"
            )
    lines += ["", f"Local servers ({len(result.servers)} answering /v1/models on 127.0.0.1)"]
    for server in result.servers:
        if server.needs_key:  # its models are listed once its key is kept (the app asks for it)
            lines.append(f"  {server.kind:<26} {server.url}  {server.key_text}")
            continue
        lines.append(f"  {server.kind:<26} {server.url}  models: {', '.join(server.models) or '-'}")
    lines += [
        "",
        "Recommended downloads (Hugging Face; SHA-256 checked against the hub's LFS hash)",
    ]
    pick = suggested(result.recommended)
    for model, fit in result.recommended:
        mark = (
            f"fits, {fit.n_ctx:,} tokens on {fit.where}{_speed(fit)}"
            if fit.fits
            else "too big here"
        )
        star = "*" if pick is not None and model is pick[0] else " "
        lines.append(
            f" {star}{model.tier_gb:>2} GB  {model.name:<28} {wording.size(model.size_bytes):>8}  "
            f"{model.licence:<28} {mark}\n"
            f"  {'':<6} {model.url}"
        )
    if pick is not None:
        lines.append(f"  * suggested for this computer: {_suggestion(*pick)}")
    for paused in result.paused:
        done, size = wording.size(paused["done"]), wording.size(paused["size"])
        lines.append(f"  paused: {paused['dest']} ({done} of {size})")
    return "\n".join(lines) + "\n"


def _suggestion(model, fit) -> str:
    return f"{model.name}, {suggestion_reason(fit)}"


def _speed(fit) -> str:
    speed = fit.speed()
    return f", {speed}" if speed else ""


def _parameters(count: int) -> str:
    return f"{count / 1e9:.1f}B parameters" if count >= 1e9 else f"{count / 1e6:.0f}M parameters"


if __name__ == "__main__":
    sys.exit(main())
