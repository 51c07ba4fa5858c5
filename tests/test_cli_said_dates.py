"""The terminal dates a fact when it was said, as the app does: `facts list` and `chat
--show-memory` gave the day it was learned ("2026-11-27 04:29" for a dose said on 3 November
and imported today). The day it was learned is beside it only when that is another day."""

from __future__ import annotations

import re
import time
from datetime import datetime

from tests.helpers import import_into_a_new_vault, run_cli
from tests.local_servers import ChatServer

FAKE = ("--embedder", "fake")
SAID = "2025-11-03T09:30:00Z"
DOSE = "I take levothyroxine 50 micrograms every morning."


def _local(stamp: str, pattern: str) -> str:
    seconds = datetime.fromisoformat(stamp.replace("Z", "+00:00")).timestamp()
    return time.strftime(pattern, time.localtime(seconds))


def _import(tmp_path, home) -> None:
    data = [
        {"role": "user", "content": DOSE, "timestamp": SAID},
        {"role": "assistant", "content": "Noted."},
    ]
    out = import_into_a_new_vault(tmp_path, home, data)
    assert out.returncode == 0, out.stderr.decode()


def test_facts_list_dates_a_fact_when_it_was_said(tmp_path, home):
    _import(tmp_path, home)
    today = time.strftime("%Y-%m-%d")
    typed = run_cli("facts", "add", "I am vegan", *FAKE, home=home)
    assert typed.returncode == 0, typed.stderr.decode()

    listing = run_cli("facts", "list", *FAKE, home=home).stdout.decode()
    (dose,) = [line for line in listing.splitlines() if "levothyroxine" in line]
    assert f"({_local(SAID, '%Y-%m-%d %H:%M')}, learned {today}, from exchange" in dose
    (vegan,) = [line for line in listing.splitlines() if "I am vegan" in line]
    assert f"({today} " in vegan and "learned" not in vegan  # learned the day it was said


def test_show_memory_dates_a_fact_when_it_was_said(tmp_path, home):
    _import(tmp_path, home)
    today = time.strftime("%Y-%m-%d")
    with ChatServer(["m"], ["50 micrograms."]) as server:
        out = run_cli("chat", "--url", server.url, "--url-model", "m", "--show-memory", *FAKE,
                      home=home, stdin="How much levothyroxine do I take?\n/quit\n")  # fmt: skip
    said = out.stderr.decode()
    assert out.returncode == 0, said
    (line,) = [line for line in said.splitlines() if re.search(r"\[fact f\d+ ·", line)]
    assert f" · {_local(SAID, '%Y-%m-%d')}, learned {today}" in line and "levothyroxine" in line
