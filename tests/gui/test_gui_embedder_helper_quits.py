"""A recheck walkthrough (Ctrl+Q while memory was being built): the embedding helper ends
quietly once the app has gone."""

from __future__ import annotations

import pickle
import subprocess

import pytest

from tests.helpers import ROOT

pytestmark = pytest.mark.gui


@pytest.mark.real_models
@pytest.mark.slow  # the helper imports torch and loads MiniLM
def test_the_embedding_helper_ends_quietly_when_the_app_has_gone():
    """Ctrl+Q while memory was built: its reply met a closed pipe and printed two
    BrokenPipeError tracebacks on the terminal."""
    from app.embedder_process import helper_command

    helper = subprocess.Popen(helper_command(), stdin=subprocess.PIPE, stdout=subprocess.PIPE,
                              stderr=subprocess.PIPE, cwd=ROOT)  # fmt: skip
    try:
        assert pickle.load(helper.stdout)[0] == "ready"
        helper.stdout.close()  # the app quits: nobody reads the replies now
        pickle.dump(("embed", ["The keeper lit the lamp."] * 64, "document"), helper.stdin)
        helper.stdin.flush()
        helper.stdin.close()
        said = helper.stderr.read()  # until the helper ends
        helper.wait(60)
    finally:
        if helper.poll() is None:
            helper.kill()
            helper.wait(60)
        helper.stderr.close()
    assert helper.returncode == 0
    assert b"Traceback" not in said and b"BrokenPipeError" not in said, said.decode()
