"""`memoryos --vault NAME` and `memoryos --vault-path FILE` with no command open the desktop app
on that memory (File → Switch memory's names). They were refused: "argument COMMAND: invalid
choice: 'damaged'". A --vault-path that is missing, not a vault, or outside the app's vaults
folder, and a name the app cannot open, exit 2 with the reason, before any window."""

from __future__ import annotations

import pytest

from tests.helpers import open_fast, run_cli

# No display: an accepted choice ends at the app's "no display here" line, not in a window.
NO_DISPLAY = {"DISPLAY": "", "WAYLAND_DISPLAY": "", "QT_QPA_PLATFORM": ""}
PASSPHRASE = "correct horse battery"


def _vault(name: str):
    from engine.paths import vault_path

    open_fast(vault_path(name), True, PASSPHRASE).close()
    return vault_path(name)


def _run(*args: str, home):
    """`memoryos ARGS` with no display: (exit code, standard output, standard error)."""
    done = run_cli(*args, home=home, env=NO_DISPLAY)
    return done.returncode, done.stdout.decode(), done.stderr.decode()


def _files(home) -> list:
    return sorted(p for p in home.rglob("*") if p.is_file())


@pytest.mark.parametrize("args", [["--vault", "damaged"], ["--vault=new one"], ["--vault-path"]])
def test_a_vault_given_without_a_command_goes_to_the_desktop_app(home, args):
    path = _vault("damaged")
    if args == ["--vault-path"]:
        args = ["--vault-path", str(path)]
    code, _, said = _run(*args, home=home)
    assert code == 2, said
    assert "no display here" in said, said  # the window's branch was reached
    assert "invalid choice" not in said and "Traceback" not in said


@pytest.mark.parametrize(
    ("how", "said"),
    [
        ("missing", "No vault at"),
        ("not a vault", "is not a MemoryOS vault"),
        ("a folder", "is a folder, not a vault file"),
        ("outside the vaults folder", "the desktop app opens the memories in its vaults folder"),
    ],
)
def test_a_vault_path_the_app_cannot_open_is_refused_before_any_window(
    home, tmp_path, memory, how, said
):
    files = {
        "missing": tmp_path / "gone.memoryos",
        "not a vault": tmp_path / "notes.txt",
        "a folder": tmp_path,
        "outside the vaults folder": memory.path,  # a real vault, elsewhere
    }
    (tmp_path / "notes.txt").write_text("not a vault\n", encoding="utf-8")
    memory.close()
    before = _files(home)
    code, _, error = _run("--vault-path", str(files[how]), home=home)
    assert code == 2, error
    assert said in error, error
    assert "no display here" not in error and "Traceback" not in error
    assert _files(home) == before  # nothing made


@pytest.mark.parametrize(
    ("args", "said"),
    [
        (["--vault", "a", "--vault-path", "b.memoryos"], "not allowed with"),
        (["--vault", "bob", "chat"], "memoryos chat --vault NAME"),
        (["--vault", "../x"], "not a path"),
        (["--vault", "_x"], "starting with a letter or digit"),
        (["--vault", ""], "--vault is empty"),
    ],
)
def test_a_vault_name_the_app_cannot_open_is_refused(home, args, said):
    code, _, error = _run(*args, home=home)
    assert code == 2, error
    assert said in error, error
    assert "no display here" not in error and "Traceback" not in error
    assert not _files(home)


def test_help_lists_the_two_options_under_the_desktop_app_sentence(home):
    code, text, error = _run("--help", home=home)
    assert code == 0, error
    app = text.index("with no command to open the desktop app")
    assert app < text.index("memoryos --vault NAME") < text.index("memoryos --vault-path FILE")
    assert text.index("memoryos --vault-path FILE") < text.index("positional arguments")
