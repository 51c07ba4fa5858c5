"""Import progress never moves back: the bars of `memoryos import` and `import-reference`
(importing, then organising the memory) keep one total from start to end, their values never
decrease and end at it; the app's import steps report the same way."""

from __future__ import annotations

import json
import re

import pytest

from tests.helpers import reference_copy, run_cli

FAKE = ("--embedder", "fake")

BAR = re.compile(r"^(Importing|Organising memory): +\d+%\|.*?\| *(\d+)/(\d+) \[", re.MULTILINE)


def _transcript(tmp_path, count: int = 60):
    """More exchanges than the short-term queue holds: organising them moves the oldest on,
    a job queued again each time the queue fills (the total grew 60, 61, 62)."""
    path = tmp_path / "chat.json"
    items = [{"user": f"I like topic{i} and hobby{i % 3} a lot", "assistant": f"Noted {i}."}
             for i in range(count)]  # fmt: skip
    path.write_text(json.dumps(items), encoding="utf-8")
    return path


def _bars(stderr: bytes) -> dict[str, list[tuple[int, int]]]:
    """Each bar's (value, total) as tqdm drew them, in order."""
    drawn: dict[str, list[tuple[int, int]]] = {}
    for name, value, total in BAR.findall(stderr.decode().replace("\r", "\n")):
        drawn.setdefault(name, []).append((int(value), int(total)))
    return drawn


def _never_back_and_end_at_the_total(drawn: list[tuple[int, int]]) -> None:
    values = [value for value, _ in drawn]
    assert len({total for _, total in drawn}) == 1, drawn  # the total was never raised
    assert values == sorted(values), drawn
    assert values[-1] == drawn[-1][1], drawn



@pytest.mark.parametrize("what", ["transcript", "reference"])
def test_the_terminal_bars_never_move_back_and_end_at_their_total(home, tmp_path, what):
    if what == "transcript":
        args = ("import", str(_transcript(tmp_path)), "--vault", "bob", "--create")
    else:
        args = ("import-reference", str(reference_copy(tmp_path)), "--vault", "alex")
    done = run_cli(*args, *FAKE, home=home)
    assert done.returncode == 0, done.stderr.decode()
    drawn = _bars(done.stderr)
    assert set(drawn) == {"Importing", "Organising memory"}, done.stderr.decode()
    for bar in drawn.values():
        _never_back_and_end_at_the_total(bar)


def test_the_apps_import_steps_never_move_back_and_end_at_their_total(memory, tmp_path):
    from app.importer import import_exchanges, import_reference_steps

    for steps in (import_exchanges(memory, str(_transcript(tmp_path))),
                  import_reference_steps(memory, str(reference_copy(tmp_path)), None)):  # fmt: skip
        drawn = list(steps)
        assert drawn, "no progress was reported"
        values = [step[0] for step in drawn]  # (done, total), a transcript's with its conversations
        assert len({step[1] for step in drawn}) == 1 and values == sorted(values), drawn
        assert values[-1] <= drawn[-1][1]
