"""One wording for counts and file sizes (engine/terminal/wording.py), used by the terminal
commands and the app alike: `memoryos status` said the vault's size in MB and `memoryos backup`
the copy's in MiB, and six helpers counted things in words, each its own way."""

from __future__ import annotations

import re

from engine.embedder_switch import EmbedderSwitch
from engine.terminal import wording
from tests.helpers import run_cli

FAKE = ("--embedder", "fake")


def test_a_count_takes_an_irregular_plural_and_can_group_thousands():
    assert wording.count(1, "profile entry", "profile entries") == "1 profile entry"
    assert wording.count(0, "profile entry", "profile entries") == "0 profile entries"
    assert wording.count(2, "fact") == "2 facts"
    assert wording.count(12_345, "exchange") == "12345 exchanges"
    assert wording.count(12_345, "exchange", grouped=True) == "12,345 exchanges"


def test_the_embedder_switch_still_groups_thousands():
    switch = EmbedderSwitch("old", 384, "new", 768, pages=12_345, facts=1)
    assert "12,345 exchanges and 1 fact are embedded again" in switch.question()


def test_file_sizes_are_in_decimal_units():
    assert [wording.size(n) for n in (400, 300_000, 3_000_000, 98_000_000, 4_400_000_000)] == [
        "1 KB", "300 KB", "3.0 MB", "98 MB", "4.4 GB"
    ]  # fmt: skip
    assert wording.size(2**20) == "1.0 MB"  # a MiB is not called a MB


def _said_size(text: str) -> float:
    """The size a command printed, in bytes ("300 KB", "1.2 MB")."""
    found = re.search(r"(\d+(?:\.\d+)?) (KB|MB|GB|MiB|KiB|GiB)\b", text)
    assert found, text
    number, unit = float(found.group(1)), found.group(2)
    return number * {"KB": 1e3, "MB": 1e6, "GB": 1e9, "KiB": 2**10, "MiB": 2**20,
                     "GiB": 2**30}[unit]  # fmt: skip


def test_status_and_backup_say_a_size_in_the_same_unit(home, tmp_path):
    talk = tmp_path / "talk.json"
    talk.write_text('[{"user": "I like tea", "assistant": "Nice"}]', encoding="utf-8")
    assert run_cli("import", str(talk), "--create", *FAKE, home=home).returncode == 0
    status = run_cli("status", *FAKE, home=home)
    copy = tmp_path / "copy.memoryos"
    backup = run_cli("backup", str(copy), *FAKE, home=home)
    assert status.returncode == 0 and backup.returncode == 0, backup.stderr
    [size_line] = [line for line in status.stdout.decode().splitlines() if line.startswith("size")]
    backed_up = backup.stderr.decode().splitlines()[0]
    units = [re.search(r"\d (\w+)\b", text).group(1) for text in (size_line, backed_up)]
    assert units[0] == units[1] and "MiB" not in size_line + backed_up, (size_line, backed_up)
    # each says the size of its file as it is on disk, to the precision printed
    made = copy.stat().st_size
    assert abs(_said_size(backed_up) - made) <= 0.51e3, (backed_up, made)


def test_the_model_lists_say_a_size_as_the_file_lists_do():
    """The model fit and lists had their own formatter ("0.1 GB" for the 98 MB bundled model,
    where the vault switcher and `memoryos status` say MB): one wording for both."""
    from models.catalogue import bundled_gguf_path
    from models.fit import fit_model, shape_of
    from models.machine import Machine

    path = bundled_gguf_path()
    gpu = Machine(total_ram=32 * 2**30, free_ram=16 * 2**30, free_vram=8 * 2**30,
                  gpu_name="RTX Test", physical_cores=8, logical_cores=16, memory_bandwidth=0)
    reason = fit_model(shape_of(path), gpu, gpu_offload=True).reasons["gpu_layers"]
    said = wording.size(path.stat().st_size)
    assert said.endswith(" MB") and f"the {said} model fits" in reason, reason
    assert abs(_said_size(reason) - path.stat().st_size) <= 0.51e6
