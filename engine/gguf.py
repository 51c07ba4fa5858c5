"""Read a GGUF file's header (metadata and tensor shapes) without loading its weights, and
check that the file is long enough to hold the weights the header lists.

The `gguf` package (maintained with llama.cpp) supplies the tables that change as llama.cpp
grows: the file-type (quantisation) names. The header itself is still parsed here, for a
measured reason: `gguf.GGUFReader` builds a numpy view for every vocabulary entry, so on the
bundled SmolLM2-135M file (49k tokens) it took 3.1-4.0 s per file against 0.06-0.08 s for
this reader (gguf 0.19.0, two sets of 3 runs, same machine; /work/wt/notes/i13/gguf-measure.txt), and
discovery reads every GGUF on the disk. tests/test_models_discovery.py checks that both
readers agree on the bundled file.
"""

from __future__ import annotations

import functools
import re
import struct
from dataclasses import dataclass
from pathlib import Path
from typing import Any, BinaryIO

from engine.errors import ModelLoadError
from engine.terminal import wording

GGUF_MAGIC = b"GGUF"

_GUESSED = 1024  # llama.cpp ORs this into general.file_type when the type was guessed
_ALIGNMENT = 32  # GGUF's default data alignment, when general.alignment is not set


@functools.cache
def file_type_names() -> dict[int, str]:
    """llama.cpp's LLAMA_FTYPE enum (general.file_type) as short names, from the gguf package."""
    import gguf  # lazy: 0.1 s of imports that the app's start does not need

    names = {}
    for member in gguf.LlamaFileType:
        if member.value != _GUESSED:
            names[member.value] = member.name.removeprefix("MOSTLY_").removeprefix("ALL_")
    return names


def quantisation_name(file_type: int) -> str:
    """The short name of a general.file_type value, e.g. 15 -> "Q4_K_M"."""
    value = int(file_type) & ~_GUESSED
    return file_type_names().get(value, f"type {value}")


# GGUF value types: (struct format, size) for the fixed-size ones.
_SCALARS = {
    0: ("<B", 1), 1: ("<b", 1), 2: ("<H", 2), 3: ("<h", 2), 4: ("<I", 4), 5: ("<i", 4),
    6: ("<f", 4), 7: ("<?", 1), 10: ("<Q", 8), 11: ("<q", 8), 12: ("<d", 8),
}  # fmt: skip
_STRING, _ARRAY = 8, 9
_MAX_KEPT_ARRAY = 64  # long arrays (the vocabulary) are skipped, only their length is kept


@dataclass(frozen=True)
class GGUFInfo:
    """What the settings dialog shows about a GGUF file, read from its header."""

    path: str
    size_bytes: int
    architecture: str
    name: str
    quantisation: str
    context_length: int | None
    chat_template: str | None
    parameters: int  # counted from the tensor shapes

    def to_dict(self) -> dict:
        return dict(self.__dict__)


def check_gguf_file(path: str | Path) -> Path:
    """Raise ModelLoadError unless `path` is an existing, readable and complete GGUF file.

    Complete: the weights its header lists all fit in the file (a download cut short has a
    whole header and too few bytes after it). Only the header and the tensor list are read,
    never the weights, and the answer is kept while the file is unchanged: the Settings
    dialog asks again on Save, on the GUI thread, after a worker read the same file.
    """
    file = _check_magic(path)
    _header(file)
    return file


def _check_magic(path: str | Path) -> Path:
    """The file, if it exists, can be read and starts with GGUF's magic bytes."""
    file = Path(path).expanduser()
    if not file.exists():
        raise ModelLoadError(f"Model file not found: {file}. Pick the .gguf file again.")
    if not file.is_file():
        raise ModelLoadError(f"{file} is a folder, not a model file: pick a .gguf file.")
    try:
        with open(file, "rb") as handle:
            magic = handle.read(4)
    except OSError as exc:
        raise ModelLoadError(f"Cannot read the model file {file}: {exc.strerror}.") from exc
    if magic != GGUF_MAGIC and file.suffix.lower() == ".gguf":
        raise ModelLoadError(  # named as one: a broken or half-downloaded copy
            f"{file.name} is not a valid GGUF model file (its header is not GGUF's): download "
            "it again, or pick another file."
        )
    if magic != GGUF_MAGIC:
        raise ModelLoadError(
            f"{file.name} is not a GGUF model file (llama.cpp needs .gguf files; convert or "
            "download the GGUF version of the model)."
        )
    return file


def read_header(path: str | Path) -> tuple[dict[str, Any], int]:
    """Return (metadata key -> value, parameter count). Arrays longer than 64 become lengths.
    Raises ModelLoadError for a file that is missing, not GGUF, damaged or incomplete."""
    metadata, parameters = _header(_check_magic(path))
    return dict(metadata), parameters


def _header(file: Path) -> tuple[dict[str, Any], int]:
    """(metadata, parameters) of a complete file; ModelLoadError names what it lacks."""
    try:
        stat = file.stat()
    except OSError as exc:
        raise ModelLoadError(f"Cannot read the model file {file}: {exc.strerror}.") from exc
    metadata, parameters, needed = _parsed(str(file.resolve()), stat.st_size, stat.st_mtime_ns)
    if needed > stat.st_size:
        raise ModelLoadError(
            f"{file.name} is incomplete: it ends at {wording.size(stat.st_size)} of the "
            f"{wording.size(needed)} its header describes. Download it again."
        )
    return metadata, parameters


@functools.lru_cache(maxsize=32)
def _parsed(path: str, size: int, mtime_ns: int) -> tuple[dict[str, Any], int, int]:
    """(metadata, parameters, bytes the file needs), kept per (path, size, modification time):
    a file that changes is read again. Failures are not kept."""
    try:
        with open(path, "rb", buffering=1 << 20) as handle:
            return _parse(handle)
    except OSError as exc:
        raise ModelLoadError(f"Cannot read the model file {path}: {exc.strerror}.") from exc
    except (struct.error, UnicodeDecodeError, ValueError, MemoryError) as exc:
        name = Path(path).name
        raise ModelLoadError(f"{name} is a damaged or truncated GGUF file ({exc}).") from exc


def gguf_info(path: str | Path) -> GGUFInfo:
    """Size, architecture, quantisation, context length and chat template of a GGUF file."""
    metadata, parameters = read_header(path)
    return info_from_header(path, metadata, parameters)


def info_from_header(path: str | Path, metadata: dict[str, Any], parameters: int) -> GGUFInfo:
    file = Path(path).expanduser()
    arch = str(metadata.get("general.architecture", "unknown"))
    file_type = metadata.get("general.file_type")
    quantisation = quantisation_name(file_type) if isinstance(file_type, int) else ""
    context = metadata.get(f"{arch}.context_length")
    template = metadata.get("tokenizer.chat_template")
    return GGUFInfo(
        path=str(file.resolve()),
        size_bytes=file.stat().st_size,
        architecture=arch,
        name=str(metadata.get("general.name") or file.stem),
        quantisation=quantisation or _quantisation_from_name(file.name),
        context_length=int(context) if isinstance(context, int) else None,
        chat_template=template if isinstance(template, str) else None,
        parameters=parameters or size_label_parameters(str(metadata.get("general.size_label", ""))),
    )


def size_label_parameters(label: str) -> int:
    """Parameters from a size label such as "135M", "1.5B" or "8x7B" (0 when unreadable)."""
    match = re.fullmatch(r"\s*(?:(\d+)x)?([\d.]+)\s*([KMBT])\s*", label, re.I)
    if not match:
        return 0
    experts = int(match.group(1) or 1)
    scale = {"K": 1e3, "M": 1e6, "B": 1e9, "T": 1e12}[match.group(3).upper()]
    return int(experts * float(match.group(2)) * scale)


def kv_cache_bytes(metadata: dict[str, Any], n_ctx: int) -> int:
    """Approximate f16 KV cache size for `n_ctx` tokens (0 when the header lacks the sizes)."""
    arch = metadata.get("general.architecture", "")
    layers = metadata.get(f"{arch}.block_count")
    width = metadata.get(f"{arch}.embedding_length")
    heads = metadata.get(f"{arch}.attention.head_count")
    kv_heads = metadata.get(f"{arch}.attention.head_count_kv", heads)
    if not all(isinstance(value, int) and value > 0 for value in (layers, width, heads, kv_heads)):
        return 0
    head_dim = metadata.get(f"{arch}.attention.key_length") or width // heads
    return 2 * 2 * layers * n_ctx * kv_heads * int(head_dim)


def _quantisation_from_name(filename: str) -> str:
    upper = filename.upper()
    for name in sorted(file_type_names().values(), key=len, reverse=True):
        if name in upper:
            return name
    return "unknown"


def _parse(handle: BinaryIO) -> tuple[dict[str, Any], int, int]:
    """(metadata, parameter count, the file size the tensor list needs)."""
    handle.read(4)  # magic, checked by the caller
    (version,) = struct.unpack("<I", _read(handle, 4))
    if version == 1:
        raise ValueError("GGUF version 1 is obsolete; get a newer conversion of the model")
    if version > 3:
        raise ValueError(f"GGUF version {version} is newer than this reader")
    tensor_count, kv_count = struct.unpack("<QQ", _read(handle, 16))
    if tensor_count > 1_000_000 or kv_count > 1_000_000:
        raise ValueError("implausible tensor or key count")
    metadata: dict[str, Any] = {}
    for _ in range(kv_count):
        key = _read_string(handle)
        (kind,) = struct.unpack("<I", _read(handle, 4))
        metadata[key] = _read_value(handle, kind)
    parameters = 0
    data_end = 0  # where the last tensor's data ends, from the start of the data section
    for _ in range(tensor_count):
        _read_string(handle)  # tensor name
        (n_dims,) = struct.unpack("<I", _read(handle, 4))
        if n_dims > 8:
            raise ValueError("implausible tensor rank")
        dims = struct.unpack(f"<{n_dims}Q", _read(handle, 8 * n_dims))
        ggml_type, offset = struct.unpack("<IQ", _read(handle, 12))
        count = 1
        for dim in dims:
            count *= dim
        parameters += count
        data_end = max(data_end, offset + _tensor_bytes(ggml_type, dims))
    # The data section starts at the next multiple of the alignment after the tensor list.
    alignment = metadata.get("general.alignment", _ALIGNMENT)
    if not isinstance(alignment, int) or alignment <= 0 or alignment & (alignment - 1):
        raise ValueError(f"invalid alignment {alignment!r}")
    data_start = -(-handle.tell() // alignment) * alignment
    return metadata, parameters, data_start + data_end if tensor_count else handle.tell()


def _tensor_bytes(ggml_type: int, dims: tuple[int, ...]) -> int:
    """Bytes of one tensor's data: rows of blocks (0 for a type this gguf package predates,
    so the check then only counts the tensor's offset)."""
    sizes = _quant_sizes().get(ggml_type)
    if sizes is None or not dims:
        return 0
    block, type_size = sizes
    size = dims[0] // block * type_size
    for dim in dims[1:]:
        size *= dim
    return size


@functools.cache
def _quant_sizes() -> dict[int, tuple[int, int]]:
    """ggml type -> (values per block, bytes per block), from the gguf package."""
    import gguf  # lazy, as in file_type_names

    return {int(kind): sizes for kind, sizes in gguf.GGML_QUANT_SIZES.items()}


def _read(handle: BinaryIO, size: int) -> bytes:
    data = handle.read(size)
    if len(data) != size:
        raise ValueError("unexpected end of file")
    return data


def _read_string(handle: BinaryIO) -> str:
    (length,) = struct.unpack("<Q", _read(handle, 8))
    if length > 1 << 28:
        raise ValueError("implausible string length")
    return _read(handle, length).decode("utf-8", errors="replace")


def _read_value(handle: BinaryIO, kind: int) -> Any:
    if kind in _SCALARS:
        fmt, size = _SCALARS[kind]
        return struct.unpack(fmt, _read(handle, size))[0]
    if kind == _STRING:
        return _read_string(handle)
    if kind == _ARRAY:
        item_kind, count = struct.unpack("<IQ", _read(handle, 12))
        if count > _MAX_KEPT_ARRAY:
            _skip_array(handle, item_kind, count)
            return count
        return [_read_value(handle, item_kind) for _ in range(count)]
    raise ValueError(f"unknown GGUF value type {kind}")


def _skip_array(handle: BinaryIO, item_kind: int, count: int) -> None:
    if item_kind in _SCALARS:
        handle.seek(_SCALARS[item_kind][1] * count, 1)
        return
    for _ in range(count):
        _read_value(handle, item_kind)
