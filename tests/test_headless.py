"""The engine stays headless: it imports no Qt and nothing from app/, statically or at run time."""

from __future__ import annotations

import ast
import subprocess
import sys

from tests.helpers import ROOT


def test_engine_sources_import_no_qt_and_no_app():
    offenders = []
    for path in (ROOT / "engine").rglob("*.py"):
        tree = ast.parse(path.read_text(encoding="utf-8"))
        for node in ast.walk(tree):
            names = []
            if isinstance(node, ast.Import):
                names = [alias.name for alias in node.names]
            elif isinstance(node, ast.ImportFrom) and node.module and node.level == 0:
                names = [node.module]
            for name in names:
                if name.split(".")[0] in ("PySide6", "PyQt5", "PyQt6", "app", "shiboken6"):
                    offenders.append(f"{path.relative_to(ROOT)}: {name}")
    assert offenders == []


def test_importing_the_engine_loads_no_qt_and_no_heavy_models():
    code = (
        "import sys, engine.api, engine.cli, engine.retrieval, engine.consolidation\n"
        "import engine.terminal.chat, engine.terminal.conversations, engine.terminal.facts\n"
        "import engine.terminal.import_export, engine.terminal.maintenance\n"
        "bad = sorted(m for m in sys.modules if m.split('.')[0] in "
        "('PySide6', 'app', 'torch', 'sentence_transformers', 'llama_cpp'))\n"
        "print(bad)\n"
    )
    out = subprocess.run([sys.executable, "-c", code], capture_output=True, text=True, cwd=ROOT, check=True)
    assert out.stdout.strip() == "[]"
