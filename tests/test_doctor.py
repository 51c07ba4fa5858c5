"""`memoryos doctor` checks the chat model chosen in the app's settings, not only the bundled
one."""

from __future__ import annotations

import json
from pathlib import Path

import pytest

from engine.bundled import bundled_gguf_path
from tests.helpers import run_cli
from tests.local_servers import ChatServer


def doctor(home: Path, settings: dict) -> tuple[int, str]:
    file = home / "config" / "settings.json"
    file.parent.mkdir(parents=True, exist_ok=True)
    file.write_text(json.dumps(settings), encoding="utf-8")
    done = run_cli("doctor", "--embedder", "fake", home=home, timeout=60)
    return done.returncode, done.stdout.decode()


def chosen_line(out: str) -> str:
    [line] = [line for line in out.splitlines() if "chosen chat model" in line]
    return line


def url_settings(url: str, model: str = "tiny") -> dict:
    return {"model_source": "url", "server_url": url, "server_model": model}


def test_a_stopped_server_is_a_problem_with_what_to_do(home):
    with ChatServer(["tiny"], ["hi"]) as server:
        url = server.url
    code, out = doctor(home, url_settings(url))  # the server has stopped: nothing listens
    line = chosen_line(out)
    assert code == 1 and "All good." not in out
    assert line.startswith("[ FAIL  ]")
    assert f"Cannot reach the server at {url} (connection refused): is it running?" in line
    assert "pick another in the app (Settings → Model)" in line


def test_a_running_server_with_the_model_is_fine(home):
    with ChatServer(["tiny"], ["hi"]) as server:
        code, out = doctor(home, url_settings(server.url))
    assert code == 0 and out.rstrip().endswith("All good.")
    assert chosen_line(out).startswith("[  ok   ]")
    assert f"{server.url} answers; model tiny" in out


def test_a_server_without_the_chosen_model_is_a_problem(home):
    with ChatServer(["other-model"], ["hi"]) as server:
        code, out = doctor(home, url_settings(server.url, "tiny"))
    assert code == 1 and "All good." not in out
    assert "has no model 'tiny' (it offers: other-model)" in chosen_line(out)


@pytest.mark.parametrize("kind", ["missing", "not gguf"])
def test_a_missing_or_wrong_gguf_file_is_a_problem(home, tmp_path, kind):
    path = tmp_path / "model.gguf"
    if kind == "not gguf":
        path.write_text("<html>a download page, not a model</html>", encoding="utf-8")
    code, out = doctor(home, {"model_source": "gguf", "gguf_path": str(path)})
    line = chosen_line(out)
    assert code == 1 and "All good." not in out
    assert line.startswith("[ FAIL  ]") and "Settings → Model" in line
    expected = "Model file not found" if kind == "missing" else "model.gguf is not a"
    assert expected in line


def test_a_real_gguf_file_is_fine(home):
    path = bundled_gguf_path()
    code, out = doctor(home, {"model_source": "gguf", "gguf_path": str(path)})
    assert code == 0 and out.rstrip().endswith("All good.")
    assert chosen_line(out).startswith("[  ok   ]") and str(path) in chosen_line(out)


@pytest.mark.parametrize("allowed", [True, False])
def test_a_plain_http_server_on_another_computer_is_checked_as_the_app_allows_it(home, allowed):
    """The app's own "allow plain http" setting applies: a server it uses was reported refused."""
    from engine.network import TREAT_AS_REMOTE_ENV

    with ChatServer(["tiny"], ["hi"]) as server:
        file = home / "config" / "settings.json"
        file.parent.mkdir(parents=True, exist_ok=True)
        file.write_text(json.dumps({**url_settings(server.url), "allow_plain_http": allowed}),
                        encoding="utf-8")
        done = run_cli("doctor", "--embedder", "fake", home=home, timeout=60,
                       env={TREAT_AS_REMOTE_ENV: f"127.0.0.1:{server.port}"})
    line = chosen_line(done.stdout.decode())
    if allowed:
        assert line.startswith("[  ok   ]") and f"{server.url} answers" in line
    else:
        assert line.startswith("[ FAIL  ]") and "refusing plain http://" in line
        assert "in Settings" in line  # the app's setting is where it is allowed
