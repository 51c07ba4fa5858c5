"""Two threads importing vault modules at once (the app's workers: the unlock, and Settings'
Models tab) must both get whole modules. Before engine/vault/__init__.py loaded its names
lazily, a fresh interpreter failed this nearly every time ("cannot import name 'MIGRATIONS'
from partially initialized module", "deadlock detected"), which the app showed as "A part of
MemoryOS is missing from this installation (engine.vault.schema)"."""

from __future__ import annotations

import subprocess
import sys

from tests.helpers import ROOT

RACE = """
import importlib, threading
errors = []
barrier = threading.Barrier(3)
def load(name):
    barrier.wait()
    try:
        importlib.import_module(name)
    except Exception as error:
        errors.append(f"{name}: {type(error).__name__}: {error}")
threads = [threading.Thread(target=load, args=(name,))
           for name in ("engine.vault.schema", "engine.vault", "engine.vault.store")]
for thread in threads:
    thread.start()
for thread in threads:
    thread.join()
from engine.vault import Vault, keyring_status
assert Vault.__name__ == "Vault" and callable(keyring_status)
print(errors)
"""


def test_threads_importing_the_vault_at_once_each_get_whole_modules():
    for _ in range(8):  # a fresh interpreter each time: nothing imported yet
        run = subprocess.run([sys.executable, "-c", RACE], cwd=ROOT, capture_output=True,
                             text=True, timeout=120)
        assert run.returncode == 0, run.stderr
        assert run.stdout.strip() == "[]", run.stdout
