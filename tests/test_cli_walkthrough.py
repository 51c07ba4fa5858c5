"""What a terminal walkthrough of `memoryos` found, run as a person would (child processes): bad
numbers refused with exit 2 and a sentence, not a traceback; `facts delete` without a terminal
asks for --yes as `forget` does; the variable rekey lacks is named; a model file that is not
there refused before the chat starts; colours only on a terminal; a new passphrase asked again;
ids written f12 / p3 everywhere; --version; a subcommand's own usage; eval names its suites
and conversations; `models --folder` and `reembed` say when there is nothing to do."""

from __future__ import annotations

import json
import os
import re
import select
import subprocess
import sys
import time
from importlib.util import find_spec

import pytest

from tests.helpers import ROOT, run_cli
from tests.local_servers import ChatServer

FAKE = ("--embedder", "fake")
PASSPHRASE = "correct horse battery"
EVAL_EXTRA = find_spec("nltk") is not None and find_spec("matplotlib") is not None
needs_eval_extra = pytest.mark.skipif(not EVAL_EXTRA, reason="the [eval] extra is not installed")


def _refused(out, *words: str) -> str:
    """Exit 2, no traceback, and each of `words` in what was said; returns stderr."""
    said = out.stderr.decode()
    assert out.returncode == 2, said
    assert "Traceback" not in said
    for word in words:
        assert word in said, (word, said)
    return said


def _transcript(tmp_path):
    data = [
        {"role": "user", "content": "Hi, I'm Maya and I work as a nurse in Toronto."},
        {"role": "assistant", "content": "Nice to meet you, Maya!"},
        {"role": "user", "content": "I adopted a greyhound called Biscuit last week."},
        {"role": "assistant", "content": "Biscuit is a great name."},
    ]
    path = tmp_path / "chat.json"
    path.write_text(json.dumps(data), encoding="utf-8")
    return path


def _import(tmp_path, home) -> None:
    out = run_cli("import", str(_transcript(tmp_path)), "--create", *FAKE, home=home)
    assert out.returncode == 0, out.stderr.decode()


class Terminal:
    """A child `memoryos` with a pseudo-terminal on the streams named in `on` ("stdin",
    "stdout", "stderr"; the others are pipes), as in a terminal window. A session of its own, so
    getpass uses this terminal and never the one that runs the tests."""

    def __init__(self, home, *args: str, on=("stdin", "stdout", "stderr"), env=None) -> None:
        import pty

        self.main, tty = pty.openpty()
        self.text, self.position = "", 0
        environment = {k: v for k, v in os.environ.items() if k != "MEMORYOS_PASSPHRASE"}
        environment.update(MEMORYOS_HOME=str(home), **(env or {}),
                           PYTHON_KEYRING_BACKEND="keyring.backends.fail.Keyring")  # fmt: skip
        names = ("stdin", "stdout", "stderr")
        streams = {name: tty if name in on else subprocess.PIPE for name in names}
        self.child = subprocess.Popen([sys.executable, "-m", "engine.cli", *args], env=environment,
                                      cwd=ROOT, start_new_session=True, **streams)  # fmt: skip
        os.close(tty)

    def _read(self, timeout: float) -> bool:
        ready, _, _ = select.select([self.main], [], [], timeout)
        if not ready:
            return True
        try:
            data = os.read(self.main, 4096)
        except OSError:  # EIO: the child closed the terminal
            data = b""
        self.text += data.decode("utf-8", "replace")
        return bool(data)

    def expect(self, wanted: str, timeout: float = 60) -> None:
        """Wait until `wanted` is written after what was expected before."""
        deadline = time.monotonic() + timeout
        while (found := self.text.find(wanted, self.position)) < 0:
            left = deadline - time.monotonic()
            assert left > 0 and self._read(left), f"no {wanted!r} in {self.text!r}"
        self.position = found + len(wanted)

    def type(self, line: str) -> None:
        os.write(self.main, line.encode() + b"\n")

    def finish(self, timeout: float = 120) -> int:
        """Wait for the exit, keeping what it writes; returns the exit code."""
        deadline = time.monotonic() + timeout
        while self._read(0.2) or self.child.poll() is None:
            assert time.monotonic() < deadline, self.text
        for pipe in (self.child.stdin, self.child.stdout, self.child.stderr):
            if pipe:  # what went to a pipe is small: it fits the pipe until the exit
                pipe.close()
        os.close(self.main)
        return self.child.wait(timeout)


# 1 ------------------------------------------------------------------------------------------


@pytest.mark.parametrize("port", ["99999", "-1", "0", "65536", "http"])
def test_mcp_refuses_a_port_that_cannot_be_one(home, port):
    """`memoryos mcp --transport http --port 99999` ended in OverflowError's traceback."""
    out = run_cli("mcp", "--transport", "http", "--port", port, *FAKE, home=home,
                  env={"MEMORYOS_MCP_TOKEN": "a-long-enough-bearer-token"}, timeout=60)  # fmt: skip
    _refused(out, "--port", port, "usage: memoryos mcp")


# 2 ------------------------------------------------------------------------------------------


@needs_eval_extra
@pytest.mark.parametrize(
    "args, named",
    [
        (["--sizes", "0"], "--sizes"),
        (["--sizes", "-5"], "--sizes"),
        (["--sizes", "1000,0"], "--sizes"),
        (["--sizes", ","], "--sizes"),
        (["--sizes", "ten"], "--sizes"),
        (["--sizes", "10", "--queries", "0"], "--queries"),
        (["--sizes", "10", "--adds", "0"], "--adds"),
        (["--sizes", "10", "--consolidation-pages", "-1"], "--consolidation-pages"),
    ],
)
def test_bench_refuses_sizes_and_counts_below_one(home, args, named):
    """`bench --sizes 0` raised ValueError, `--queries 0 --adds 0` IndexError, after seconds of
    work: refused at once, naming the option."""
    _refused(run_cli("bench", *args, "--embedder", "fake", "--chat", "none", home=home), named)


def _undocumented(parser) -> list[str]:
    """The options and commands of `parser` (and of its subcommands) that --help shows without a
    sentence about them."""
    import argparse

    missing = []
    for action in parser._actions:
        if isinstance(action, argparse._SubParsersAction):
            helps = {choice.dest: choice.help for choice in action._choices_actions}
            for name, sub in action.choices.items():
                if not helps.get(name):
                    missing.append(f"{parser.prog} {name}")
                if sub.add_help:  # the passthrough commands' own parsers are checked below
                    missing += _undocumented(sub)
        elif action.help is None:
            missing.append(f"{parser.prog} {'/'.join(action.option_strings) or action.dest}")
    return missing


def test_every_option_in_help_says_what_it_does():
    """--max-tokens, --consolidation-pages, --max-answer-tokens... were listed bare."""
    from engine.cli_parser import build_parser
    from engine.eval.cli import _bench_parser, _eval_parser

    for parser in (build_parser(), _bench_parser(), _eval_parser()):
        assert _undocumented(parser) == []


def test_chat_help_explains_max_tokens(home):
    text = run_cli("chat", "--help", home=home).stdout.decode()
    line = next(line for line in text.splitlines() if line.strip().startswith("--max-tokens"))
    assert "tokens" in line.split("--max-tokens", 1)[1]  # a sentence, not only the option


# 3 ------------------------------------------------------------------------------------------


def test_facts_delete_without_a_terminal_needs_yes_as_forget_does(tmp_path, home):
    """`facts delete f10 </dev/null` deleted without asking while `forget page 11` refused."""
    _import(tmp_path, home)
    data = json.loads(run_cli("facts", "list", "--json", *FAKE, home=home).stdout)
    fact = next(f for f in data["facts"] if "Biscuit" in f["text"])
    before = run_cli("facts", "list", *FAKE, home=home).stdout
    refused = run_cli("facts", "delete", fact["ref"], *FAKE, home=home, stdin=b"")
    forget = run_cli("forget", "page", "1", *FAKE, home=home, stdin=b"")
    assert _refused(refused, "--yes") == _refused(forget, "--yes")  # the same sentence
    assert run_cli("facts", "list", *FAKE, home=home).stdout == before  # nothing went
    done = run_cli("facts", "delete", fact["ref"], "--yes", *FAKE, home=home, stdin=b"")
    assert done.returncode == 0 and "Deleted 1 fact." in done.stdout.decode()
    assert "Biscuit" not in run_cli("facts", "list", *FAKE, home=home).stdout.decode()


# 4 ------------------------------------------------------------------------------------------


def test_rekey_names_the_variable_it_lacks(home):
    from tests.helpers import open_fast

    open_fast(home / "data" / "vaults" / "default.memoryos", True, PASSPHRASE).close()
    out = run_cli("rekey", *FAKE, home=home, passphrase=PASSPHRASE)
    said = out.stderr.decode()
    assert out.returncode != 0 and "Traceback" not in said
    assert "$MEMORYOS_NEW_PASSPHRASE" in said and "$MEMORYOS_PASSPHRASE" not in said


# 5 ------------------------------------------------------------------------------------------


def test_chat_refuses_a_model_file_that_is_not_there_or_not_a_model(home, tmp_path):
    """`chat --model gguf:/nonexistent.gguf` started, then said "Model file not found" at every
    message and exited 0."""
    text = tmp_path / "notes.txt"
    text.write_text("root:x:0:0:root:/root:/bin/bash\n", encoding="utf-8")
    for spec, words in (
        (f"gguf:{tmp_path / 'nonexistent.gguf'}", ("no model file at", "nonexistent.gguf")),
        (f"gguf:{text}", ("is not a GGUF model file",)),
        (f"gguf:{tmp_path}", ("is a folder",)),
    ):
        out = run_cli("chat", "--model", spec, *FAKE, home=home, stdin="hello\n", timeout=60)
        _refused(out, *words)
        assert b"assistant>" not in out.stdout
    assert not (home / "data" / "vaults").exists() or not any((home / "data" / "vaults").iterdir())


def test_chat_names_url_model_when_the_model_name_is_missing(home):
    out = run_cli("chat", "--model", "url:http://127.0.0.1:9/v1", *FAKE, home=home, timeout=60)
    _refused(out, "--url-model")
    out = run_cli("chat", "--url", "http://127.0.0.1:9/v1", *FAKE, home=home, timeout=60)
    _refused(out, "--url-model")


# 6 ------------------------------------------------------------------------------------------


@pytest.mark.parametrize("value", ["-1", "0"])
def test_chat_refuses_max_tokens_below_one(home, value):
    _refused(run_cli("chat", "--max-tokens", value, *FAKE, home=home), "--max-tokens", value)


@pytest.fixture
def thinking_server():
    """A model that thinks aloud and is cut at the length limit: both are written dimmed."""
    with ChatServer(["m"], ["<think>pondering the ", "question</think>", "An answer"],
                    finish_reason="length") as server:  # fmt: skip
        yield server


def _chat_with(server, *more: str) -> tuple[str, ...]:
    return ("chat", "--url", server.url, "--url-model", "m", "--create", *FAKE, *more)


def test_no_colour_codes_in_a_pipe(home, thinking_server):
    out = run_cli(*_chat_with(thinking_server), home=home, stdin="hello\n/quit\n")
    said, answer = out.stderr.decode(), out.stdout.decode()
    assert out.returncode == 0, said
    assert "pondering the question" in said and "length limit" in said and "An answer" in answer
    assert "\x1b" not in said and "\x1b" not in answer


def test_colour_on_a_terminal_unless_no_color(home, thinking_server):
    run_cli(*_chat_with(thinking_server), home=home, stdin="/quit\n")  # the vault, made
    for env, dimmed in (({}, True), ({"NO_COLOR": "1"}, False)):
        chat = Terminal(home, *_chat_with(thinking_server), on=("stderr",),
                        env={"MEMORYOS_PASSPHRASE": PASSPHRASE, **env})  # fmt: skip
        chat.child.stdin.write(b"hello\n/quit\n")
        chat.child.stdin.flush()
        assert chat.finish() == 0, chat.text
        plain = re.sub(r"\x1b\[\d*m", "", chat.text)
        assert "pondering the question" in plain and "length limit" in plain
        assert ("\x1b[2m" in chat.text) is dimmed, (env, chat.text)


# 7 ------------------------------------------------------------------------------------------


def test_a_new_passphrase_is_asked_again_saying_why(home):
    """A short passphrase or a repeat that differs ended the first run with exit 2."""
    chat = Terminal(home, "chat", *FAKE)
    chat.expect("New passphrase: ")
    chat.type("short")
    chat.expect("at least")
    chat.expect("New passphrase: ")
    chat.type("a long enough one")
    chat.expect("Repeat passphrase: ")
    chat.type("another long one")
    chat.expect("differ")
    chat.expect("New passphrase: ")
    chat.type(PASSPHRASE)
    chat.expect("Repeat passphrase: ")
    chat.type(PASSPHRASE)
    chat.expect("you> ")
    chat.type("/quit")
    assert chat.finish() == 0, chat.text
    opened = run_cli("status", *FAKE, home=home, passphrase=PASSPHRASE)  # with the third one
    assert opened.returncode == 0 and "passphrase" in opened.stdout.decode()


def test_three_wrong_tries_end_with_exit_2_and_no_vault(home):
    chat = Terminal(home, "chat", *FAKE)
    for _ in range(3):
        chat.expect("New passphrase: ")
        chat.type("short")
    assert chat.finish() == 2, chat.text
    assert "at least" in chat.text[chat.position :] and "Traceback" not in chat.text
    assert "you> " not in chat.text
    assert not list(home.rglob("*.memoryos"))


# 8 ------------------------------------------------------------------------------------------


def test_chat_writes_ids_as_facts_list_does(tmp_path, home):
    """`/remember` said "fact #11" and --show-memory "[fact #13 …]", "[profile #1 …]", where
    `facts list` and `facts delete` use f11 and p1."""
    _import(tmp_path, home)
    typed = "/remember I am vegan\nWhat is my job and my dog?\n/quit\n"
    with ChatServer(["m"], ["Noted."]) as server:
        out = run_cli("chat", "--url", server.url, "--url-model", "m", "--show-memory", *FAKE,
                      home=home, stdin=typed)  # fmt: skip
    said = out.stderr.decode()
    assert out.returncode == 0, said
    listed = run_cli("facts", "list", *FAKE, home=home).stdout.decode()
    remembered = re.search(r"Remembered \(fact (f\d+)\): I am vegan", said)
    assert remembered and re.search(rf"{remembered.group(1)}\s+I am vegan", listed)
    assert re.search(r"\[profile p\d+ · ", said) and re.search(r"\[fact f\d+ · ", said), said
    for ref in re.findall(r"\[(?:profile|fact) ([pf]\d+) · ", said):
        assert re.search(rf"\s{ref}\s", listed), (ref, listed)  # the same item, the same id
    assert "#" not in said


# 9 ------------------------------------------------------------------------------------------


def test_version(home):
    from importlib import metadata

    out = run_cli("--version", home=home)
    assert out.returncode == 0
    assert out.stdout.decode().strip() == f"memoryos {metadata.version('memoryos-desktop')}"


@pytest.mark.parametrize(
    "args, usage",
    [
        (["chat", "--no-such-option"], "usage: memoryos chat "),
        (["facts", "delete", "f1", "--no-such-option"], "usage: memoryos facts delete "),
        (["forget", "everything", "--no-such-option"], "usage: memoryos forget "),
    ],
)
def test_an_unknown_option_shows_the_usage_of_its_command(home, args, usage):
    said = _refused(run_cli(*args, home=home), "--no-such-option")
    assert said.startswith(usage), said


@needs_eval_extra
def test_eval_without_a_suite_names_the_suites(home):
    _refused(run_cli("eval", home=home), "locomo", "personal")


@needs_eval_extra
def test_eval_locomo_names_the_conversations_the_file_has(home, tmp_path):
    from tests.test_eval_locomo import sample

    data = tmp_path / "locomo_dev.json"
    data.write_text(json.dumps([sample(), {**sample(), "sample_id": "tiny-2"}]), encoding="utf-8")
    out = run_cli("eval", "locomo", "--data", str(data), "--out", str(tmp_path / "out"),
                  "--conversations", "1", "--embedder", "fake", "--no-progress",
                  home=home)  # fmt: skip
    said = _refused(out, "1")
    assert "tiny-1" in said and "tiny-2" in said


# 10 -----------------------------------------------------------------------------------------


def test_models_refuses_a_folder_that_does_not_exist(home, tmp_path):
    missing = tmp_path / "nonexistent"
    _refused(run_cli("models", "--folder", str(missing), "--no-probe", home=home), str(missing))


def test_reembed_to_the_model_the_vault_already_uses_does_nothing(home):
    """`memoryos reembed` (no --to: the bundled model) re-embedded a vault that already used the
    bundled model, for nothing."""
    from engine.api import MemoryOS
    from engine.backends.build import make_embedder

    path = home / "data" / "vaults" / "default.memoryos"
    path.parent.mkdir(parents=True)
    MemoryOS.open(path, create=True, passphrase=PASSPHRASE, embedder=make_embedder("default"),
                  background=False).close()  # fmt: skip
    out = run_cli("reembed", home=home)
    said = out.stderr.decode()
    assert out.returncode == 0, said
    assert "nothing to do" in said and "all-MiniLM-L6-v2" in said and "now uses" not in said
