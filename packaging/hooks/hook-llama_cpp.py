"""llama_cpp loads lib{llama,ggml}.so with ctypes from llama_cpp/lib: collect what it loads."""

import glob
import os
import sys

from PyInstaller.utils.hooks import get_package_paths

_, _root = get_package_paths("llama_cpp")
_lib = os.path.join(_root, "lib")
if sys.platform.startswith("linux"):
    # the wheel holds three copies of each library (.so, .so.0, .so.0.x.y); keep the names
    # ctypes opens (libllama.so, libggml.so) and their NEEDED sonames (RUNPATH $ORIGIN).
    # libmtmd (multimodal projectors) is never loaded by the app and is left out.
    _names = ["libllama.so", "libggml.so", "libggml.so.0", "libggml-base.so.0", "libggml-cpu.so.0"]
    _paths = [os.path.join(_lib, name) for name in _names]
else:  # macOS .dylib, Windows .dll: not tested here, take every library of the wheel
    _paths = glob.glob(os.path.join(_lib, "*.dylib")) + glob.glob(os.path.join(_lib, "*.dll"))
binaries = [(path, "llama_cpp/lib") for path in _paths]
# the OpenAI-compatible server (fastapi, uvicorn) is not part of the desktop app
excludedimports = ["llama_cpp.server"]
