"""A malformed server address is refused as such, before any judgement of where it points."""

from __future__ import annotations

import pytest

from tests.helpers import run_cli

BAD = ["htp:/bad url", "ftp://127.0.0.1/v1", "http://", "http://exa mple.com/v1", "localhost:"]


@pytest.mark.parametrize("url", BAD)
def test_a_malformed_address_is_refused_plainly(url):
    """`htp:/bad url` was read as the host "htp" and refused as plain http to a remote one."""
    from engine.errors import ServerError
    from engine.network import check_url, normalise_url

    for check in (normalise_url, check_url):
        with pytest.raises(ServerError) as refused:
            check(url)
        said = str(refused.value)
        assert said.startswith("Not a valid address")  # why: tests/test_address_problems.py
        assert "plain http" not in said and "htp is not" not in said


@pytest.mark.parametrize("url", ["http://127.0.0.1:8080/v1", "localhost:11434",
                                 "https://api.example.com/v1", "http://[::1]:8080"])
def test_good_addresses_still_pass(url):
    from engine.network import check_url, normalise_url

    check_url(normalise_url(url))


def test_the_cli_refuses_a_malformed_url_plainly(home):
    out = run_cli("chat", "--model", "url:htp:/bad url", "--url-model", "llama3", "--create",
                  "--embedder", "fake", home=home, stdin="")
    said = out.stderr.decode()
    assert out.returncode != 0 and "Not a valid address" in said
    assert "plain http" not in said and "Traceback" not in said
