"""Without a system keyring (headless Linux), a server that needs an API key is still usable
from Settings: the key is kept for this session only, in memory, never written to disk."""

from __future__ import annotations

from pathlib import Path

import pytest

from tests.local_servers import ChatServer

pytestmark = pytest.mark.gui

KEY = "sk-session-only-5f3a9c"


def test_a_key_typed_without_a_keyring_is_used_for_this_session_and_never_stored(
    qtbot, window, send, home, fail_keyring
):
    from app.session import READY
    from engine.api_keys import ApiKeyError, set_api_key

    with ChatServer(models=["cloud-model"], reply=["Hello ", "from the cloud."],
                    api_key=KEY) as server:
        dialog = window.open_settings()
        qtbot.waitUntil(lambda: dialog.keyring_usable is False, timeout=5000)
        # the field stays open, and says what becomes of the key; the variable is named
        assert dialog.api_key.isEnabled()
        assert "this session only" in dialog.key_note.text()
        assert "next time MemoryOS starts" in dialog.key_note.text()
        assert "MEMORYOS_API_KEY" in dialog.api_key.toolTip()
        dialog.server.setChecked(True)
        dialog.server_url.setText(server.url)
        dialog.server_model.setText("cloud-model")
        dialog.api_key.setText(KEY)
        with qtbot.waitSignal(dialog.applied, timeout=5000):
            dialog.save()
        assert not dialog.error.isVisible()
        qtbot.waitUntil(lambda: window.session.state == READY
                        and getattr(window.session.mem.chat, "model", None) == "cloud-model",
                        timeout=10_000)
        refused = server.refused
        answer = send(window, "Hello?")
        assert answer.text == "Hello from the cloud."  # the server took the key
        assert server.refused == refused and server.requests
    try:
        stored = [path for path in Path(home).rglob("*")
                  if path.is_file() and KEY.encode() in path.read_bytes()]
        assert stored == []  # not in the settings, the catalogue or anywhere else
    finally:
        with pytest.raises(ApiKeyError):  # no keyring; the key kept for the session goes
            set_api_key(server.url, "")
