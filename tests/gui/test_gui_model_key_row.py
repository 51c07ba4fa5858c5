"""A local server that wants an API key (llama.cpp's server started with --api-key) has a row
in the model table that says so; choosing it asks for the key, and the key it takes lists its
models in place of the row, in the model step and on Settings → Models."""

from __future__ import annotations

import pytest
from PySide6.QtCore import Qt

from tests.local_servers import ChatServer

pytestmark = pytest.mark.gui

KEY = "sk-local-key"


@pytest.fixture
def key_server(tmp_path, monkeypatch):
    """An empty home; the probe scans one port, where a server wants KEY."""
    from engine.api_keys import API_KEY_ENV

    monkeypatch.setenv("HOME", str(tmp_path / "empty-home"))
    for name in ("XDG_DATA_HOME", "HF_HOME", "HF_HUB_CACHE", "OLLAMA_MODELS", API_KEY_ENV):
        monkeypatch.delenv(name, raising=False)
    with ChatServer(["secret-model"], ["Hi"], api_key=KEY) as server:
        monkeypatch.setattr("models.probe.DEFAULT_PORTS", {server.port: "llama.cpp server"})
        yield server


def _kind(row):
    return row.data(0, Qt.ItemDataRole.UserRole)[0]


def test_choosing_the_row_of_a_server_that_wants_a_key_asks_for_it(
    qtbot, memory_keyring, key_server
):
    from app.model_picker import KEY_NEEDED, SERVERS
    from app.model_step import ModelStepDialog
    from app.workers import WorkerPool
    from engine.api_keys import get_api_key

    pool = WorkerPool()
    dialog = ModelStepDialog(pool, probe=True)
    qtbot.addWidget(dialog)
    dialog.show()
    qtbot.waitExposed(dialog)
    picker, address = dialog.picker, dialog.address
    qtbot.waitUntil(lambda: picker.overview is not None, timeout=20_000)
    [row] = picker.rows(SERVERS)
    assert _kind(row) == KEY_NEEDED and "API key" in " ".join(row.text(c) for c in range(4))
    assert key_server.url in row.text(2)
    assert picker.selected()[0] != KEY_NEEDED  # not preselected: it cannot answer yet
    picker.table.setCurrentItem(row)
    assert picker.use_button.isEnabled() and "API key" in picker.why.text()
    with qtbot.assertNotEmitted(dialog.chosen, wait=100):
        picker.use_button.click()  # nothing chosen: the key is asked for
    assert address.isVisible() and address.address.text() == key_server.url
    assert address.key.isVisible() and address.key.hasFocus()
    assert "API key" in address.message.text()
    address.key.setText(KEY)
    with qtbot.waitSignal(address.answered, timeout=10_000):
        qtbot.keyClick(address.key, Qt.Key.Key_Return)
    rows = picker.rows(SERVERS)
    assert [(row.text(0), _kind(row)) for row in rows] == [("secret-model", "server")]
    assert picker.selected() == rows[0].data(0, Qt.ItemDataRole.UserRole)
    assert get_api_key(key_server.url) == KEY
    # looked at again: the key kept for the address lists the models, no key row
    with qtbot.waitSignal(picker.listed, timeout=20_000):
        picker.refresh()
    assert [(row.text(0), _kind(row)) for row in picker.rows(SERVERS)] == [
        ("secret-model", "server")
    ]
    pool.wait(5000)


def test_settings_models_page_asks_for_the_key_on_a_double_click(qtbot, key_server):
    from app.model_picker import KEY_NEEDED, SERVERS
    from app.models_page import ModelsPage
    from app.workers import WorkerPool

    pool = WorkerPool()
    page = ModelsPage(pool, probe=True)
    qtbot.addWidget(page)
    page.resize(1000, 700)
    page.show()
    qtbot.waitExposed(page)
    picker = page.picker
    qtbot.waitUntil(lambda: picker.overview is not None, timeout=20_000)
    [row] = picker.rows(SERVERS)
    assert _kind(row) == KEY_NEEDED
    picker.table.scrollToItem(row)
    with qtbot.assertNotEmitted(picker.chosen, wait=100):
        point = picker.table.visualItemRect(row).center()
        # a real double-click starts with a click that selects the row
        qtbot.mouseClick(picker.table.viewport(), Qt.MouseButton.LeftButton, pos=point)
        qtbot.mouseDClick(picker.table.viewport(), Qt.MouseButton.LeftButton, pos=point)
    assert page.address.isVisible() and page.address.address.text() == key_server.url
    assert page.address.key.isVisible()
    pool.wait(5000)
