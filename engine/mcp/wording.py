"""Engine messages as an MCP client reads them: the desktop app's directions ("check the key in
the model settings") replaced by what the operator of `memoryos mcp` does instead."""

from __future__ import annotations

import re
from collections.abc import Callable
from dataclasses import dataclass

from engine.api_keys import API_KEY_ENV


@dataclass(frozen=True)
class Advice:
    """What to do for `memoryos mcp`, each a clause that ends a sentence (no full stop)."""

    key: str  # the model's server needs an API key, or refused the one sent
    context: str  # the model's server refused a prompt as longer than its context


GENERAL = Advice(
    key=f"give memoryos mcp the server's key in {API_KEY_ENV} (from an MCP client: in the "
    '"env" of its entry in the client\'s configuration) and restart it',
    context="start the server with a larger context",
)

# The app's directions in the chat backends' messages (engine/backends/openai_http.py, the
# fixes of ServerError), as the message reads where they appear. An MCP client reads them in
# memory_status (consolidation's last_error) and in tool errors.
_KEY = re.compile(r"(?:set it|check the key) in the model settings\.")
_CONTEXT = re.compile(
    r"[Ss]et the context size in the model settings to (?:the server's|[\d,]+), or start the "
    r"server with a larger context\."
)


def for_agents(message: str | None, advice: Callable[[], Advice] = lambda: GENERAL) -> str | None:
    """`message` with each of the app's directions replaced by what `advice()` says (asked only
    when there is one: it may read the keyring); None stays None."""
    if not message:
        return message

    def context(found: re.Match[str]) -> str:
        said = advice().context
        first = said[:1].upper() if found.group(0)[0].isupper() else said[:1].lower()
        return f"{first}{said[1:]}."

    message = _KEY.sub(lambda _: f"{advice().key}.", message)
    return _CONTEXT.sub(context, message)
