"""Tried as a new user would: tell the assistant about Tom, quit, ask in a new process."""

from __future__ import annotations

import json
import os
import subprocess
import sys
from pathlib import Path

import pytest

pytestmark = pytest.mark.real_models

# One run of the program: open the vault with the real bundled models, ask, print, quit.
CHILD = """
import json, sys
from engine.api import MemoryOS
from engine.backends.build import make_chat
from engine.model_config import ModelConfig

path, question, create = sys.argv[1], sys.argv[2], sys.argv[3] == "create"
memory = MemoryOS.open(path, create=create, passphrase="tom-test-passphrase",
                       chat=make_chat(ModelConfig(n_ctx=2048)), background=False)
try:
    response = memory.get_response(question, max_tokens=48)
    answer = response.collect()
    print(json.dumps({"answer": answer, "context": response.retrieval.context_text(),
                      "stored": response.page is not None}))
finally:
    memory.close()
"""


def run_program(path: Path, question: str, create: bool, home: Path) -> dict:
    env = dict(os.environ, MEMORYOS_HOME=str(home), HF_HUB_OFFLINE="1")
    env["PYTHONPATH"] = os.pathsep.join([str(Path(__file__).resolve().parent.parent)])
    result = subprocess.run(
        [sys.executable, "-c", CHILD, str(path), question, "create" if create else "open"],
        capture_output=True,
        text=True,
        env=env,
        timeout=600,
    )
    assert result.returncode == 0, result.stderr[-3000:]
    return json.loads(result.stdout.strip().splitlines()[-1])


@pytest.mark.slow  # two processes, each loading both bundled models
def test_tom_is_remembered_across_processes(tmp_path, home):
    vault = tmp_path / "tom.memoryos"
    first = run_program(vault, "I'm Tom, I work as a data scientist in San Francisco", True, home)
    assert first["stored"] and first["answer"].strip()

    second = run_program(vault, "What do you remember about my job?", False, home)
    print("\nQ: What do you remember about my job?\nA:", second["answer"])
    assert "data scientist" in second["context"]
    assert "San Francisco" in second["context"]
    assert second["answer"].strip()
