"""Crash safety: SIGKILL during import + consolidation loses no returned add_memory, corrupts nothing."""

from __future__ import annotations

import os
import random
import signal
import subprocess
import sys
import time

import pytest

from engine.api import MemoryOS
from engine.backends.fake import HashEmbedder
from tests.helpers import ROOT

pytestmark = pytest.mark.slow


def test_sigkill_at_random_points_loses_nothing(tmp_path):
    path = tmp_path / "crash.memoryos"
    rng = random.Random(20261122)
    confirmed: set[str] = set()
    next_marker = 0
    kills = 0
    env = dict(os.environ, PYTHONPATH=str(ROOT))
    for _round in range(22):
        child = subprocess.Popen([sys.executable, str(ROOT / "tests" / "crash_child.py"), str(path), str(next_marker)],
                                 stdout=subprocess.PIPE, stderr=subprocess.DEVNULL, text=True, env=env, cwd=ROOT)
        wanted = rng.randint(1, 30)
        lines = []
        deadline = time.monotonic() + 60
        while len(lines) < wanted and time.monotonic() < deadline:
            line = child.stdout.readline()
            if not line:
                break
            lines.append(line)
        time.sleep(rng.random() * 0.05)  # land the kill anywhere: mid-write, mid-consolidation
        child.send_signal(signal.SIGKILL)
        child.wait()
        # whatever was printed before the kill had returned from add_memory
        rest = child.stdout.read()
        child.stdout.close()
        lines += rest.splitlines(keepends=True)
        for line in lines:
            if line.startswith("added "):
                confirmed.add(line.split()[2])
        kills += 1
        next_marker += 400

        memory = MemoryOS.open(path, passphrase="crash-test", embedder=HashEmbedder(), background=False)
        try:
            assert memory.vault.integrity_check() == "ok"
            stored = {ext for p in memory.pages(limit=100_000) for ext in p.external_ids}
            missing = confirmed - stored
            assert not missing, f"lost after kill {kills}: {sorted(missing)[:5]}"
            memory.run_consolidation()
            status = memory.consolidation_status()
            assert status.pending_jobs == 0 and status.failed_jobs == 0, status
            assert status.short_term_pages <= memory.settings.stm_capacity
        finally:
            memory.close()
    assert kills >= 20 and len(confirmed) > 20
