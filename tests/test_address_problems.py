"""A server address that cannot be used is refused for what is actually wrong with it: a port
past 65535 is not told "it must start with http://" (it does), nor is a space or a missing
computer name. Settings, the model step and `memoryos chat --model url:...` all say
url_problem's words."""

from __future__ import annotations

import pytest

from tests.helpers import run_cli

# (address typed, a phrase the refusal says, a phrase it must not say)
BAD = [
    ("http://127.0.0.1:99999/v1", "port 99999 is not a port number (1-65535)", "http://"),
    ("127.0.0.1:70000", "port 70000 is not a port number", "must start with"),
    ("http://127.0.0.1:0/v1", "port 0 is not a port number", "must start with"),
    ("http://127.0.0.1:80a/v1", "port “80a” is not a number", "must start with"),
    ("http://[::1]:99999/v1", "port 99999 is not a port number", "must start with"),
    ("http://", "no computer name after http://", "must start with"),
    ("https:///v1", "no computer name after https://", "must start with"),
    ("http://:8080/v1", "no computer name before the port", "must start with"),
    ("http://exa mple.com/v1", "has no spaces", "must start with"),
    ("http ://127.0.0.1:8080", "has no spaces", "must start with"),
    ("localhost:", "no port number after the colon", "must start with"),
    ("http://ex!ample.com/v1", "computer name “ex!ample.com” has characters", "must start with"),
    ("http://[::1/v1", "computer name", "must start with"),
    ("ftp://127.0.0.1/v1", "must start with http:// or https://", "port"),
    ("htp:/bad url", "must start with http:// or https://", "spaces"),
    ("mailto:me@example.com", "must start with http:// or https://", "port"),
]


@pytest.mark.parametrize(("url", "says", "not_said"), BAD, ids=[row[0] for row in BAD])
def test_each_bad_address_is_refused_for_what_is_wrong_with_it(url, says, not_said):
    from engine.errors import ServerError
    from engine.network import check_url, normalise_url, url_problem

    problem = url_problem(url)
    assert problem.startswith("Not a valid address") and says in problem
    assert not_said not in problem.removeprefix("Not a valid address:").split("(for example")[0]
    for check in (normalise_url, check_url):  # what the CLI and the model step call
        with pytest.raises(ServerError) as refused:
            check(url)
        assert says in str(refused.value) and "plain http" not in str(refused.value)


def test_an_address_without_a_scheme_is_still_taken_as_http():
    """"localhost:8080" gets http:// added, rather than being refused for lacking it."""
    from engine.network import normalise_url, url_problem

    assert url_problem("localhost:8080") == ""
    assert normalise_url("localhost:8080") == "http://localhost:8080/v1"
    assert normalise_url("127.0.0.1:65535") == "http://127.0.0.1:65535/v1"


def test_settings_says_the_port_is_wrong_not_the_scheme():
    from app.settings_lookups import server_url_problem

    said = server_url_problem("http://127.0.0.1:99999/v1", allow_plain_http=False)
    assert "99999" in said and "1-65535" in said and "must start with" not in said


def test_the_cli_says_the_port_is_wrong(home):
    out = run_cli("chat", "--model", "url:http://127.0.0.1:99999/v1", "--url-model", "llama3",
                  "--create", "--embedder", "fake", home=home, stdin="")
    said = out.stderr.decode()
    assert out.returncode != 0 and "99999 is not a port number" in said
    assert "must start with" not in said and "Traceback" not in said
