"""What a new person's walkthrough of the model step found: the keyboard leaving the focus on
a row it did not select, a server that needs an API key taken for no server at all, a GGUF
file chosen there missing from "Models you added", a promise that nothing leaves this
computer next to "Add a server address…", and a copy of the demo preselected over the model
in use."""

from __future__ import annotations

import dataclasses
from pathlib import Path

import pytest
from PySide6.QtCore import Qt
from PySide6.QtWidgets import QLabel

from tests.local_servers import ChatServer

pytestmark = pytest.mark.gui

KEY = "sk-walkthrough-key"


def _cut_gguf(home):
    """A GGUF file cut short (header whole, weights missing): listed, but unusable."""
    from models.catalogue import bundled_gguf_path

    folder = home / ".lmstudio/models/zz-someone/Zz-Cut-GGUF"
    folder.mkdir(parents=True)
    with open(bundled_gguf_path(), "rb") as whole:
        (folder / "Zz-Cut-Q4_1.gguf").write_bytes(whole.read(3_000_000))


def _step(qtbot, current=None, probe=True):
    from app.model_step import ModelStepDialog
    from app.workers import WorkerPool

    pool = WorkerPool()
    dialog = ModelStepDialog(pool, probe=probe, current=current)
    qtbot.addWidget(dialog)
    dialog.show()
    qtbot.waitExposed(dialog)
    qtbot.waitUntil(lambda: dialog.picker.overview is not None, timeout=20_000)
    return dialog, pool


def _usable(item) -> bool:
    wanted = Qt.ItemFlag.ItemIsSelectable | Qt.ItemFlag.ItemIsEnabled
    return item is not None and item.flags() & wanted == wanted


def test_keys_over_headings_and_a_broken_row_select_the_row_they_land_on(qtbot, person):
    """Up, Down, Home, End, PageUp, PageDown past "Servers (OpenAI-compatible)" and a broken
    GGUF: the row with the focus is the row selected, and Enter uses it."""
    from app.model_picker import FILES, SERVERS

    _cut_gguf(person["home"])
    dialog, pool = _step(qtbot)
    picker = dialog.picker
    table = picker.table
    files = picker.rows(FILES)
    usable = [row for row in files if not row.isDisabled()]
    assert len(usable) == 2 and len(files) == 3  # the demo, the LM Studio file, the cut file
    server_row = picker.rows(SERVERS)[0]
    table.setFocus()

    def press(key):
        qtbot.keyClick(table, key)
        current = table.currentItem()
        assert _usable(current), current.text(0)
        assert table.selectedItems() == [current], current.text(0)
        return current

    table.setCurrentItem(usable[-1])  # the "Servers" heading below, the cut file maybe too
    assert press(Qt.Key.Key_Down) is server_row
    assert picker.use_button.isEnabled()
    assert press(Qt.Key.Key_Up) is usable[-1]
    assert press(Qt.Key.Key_Home) is files[0]  # the first row is a heading
    assert press(Qt.Key.Key_Up) is files[0]  # nothing above but the heading: it stays
    assert press(Qt.Key.Key_Down) is usable[1]  # over the cut file where it is between
    press(Qt.Key.Key_End)
    for key in [Qt.Key.Key_PageUp] * 4 + [Qt.Key.Key_PageDown] * 4 + [Qt.Key.Key_Up] * 12:
        press(key)
    table.setCurrentItem(usable[-1])
    assert press(Qt.Key.Key_Down) is server_row
    with qtbot.waitSignal(dialog.chosen, timeout=5_000) as chosen:
        qtbot.keyClick(table, Qt.Key.Key_Return)
    assert chosen.args[0].values["server_url"] == person["server"].url
    pool.wait(5000)


def test_a_click_on_a_heading_keeps_the_row_selected(qtbot, person):
    from app.model_picker import SERVERS

    dialog, pool = _step(qtbot)
    picker, table = dialog.picker, dialog.picker.table
    row = picker.rows(SERVERS)[0]
    table.setCurrentItem(row)
    heading = table.topLevelItem(1)
    qtbot.mouseClick(table.viewport(), Qt.MouseButton.LeftButton,
                     pos=table.visualItemRect(heading).center())
    assert table.selectedItems() == [row] and table.currentItem() is row
    assert picker.use_button.isEnabled()
    pool.wait(5000)


def test_a_server_that_needs_an_api_key_is_told_and_listed_with_the_key(
    qtbot, memory_keyring
):
    """A llama.cpp server started with --api-key answers /v1/models with 401: the step says it
    needs a key, takes one, lists the models with it and keeps it in the keyring."""
    from app.model_picker import SERVERS
    from engine.api_keys import get_api_key

    with ChatServer(["secret-model"], ["Hi"], api_key=KEY) as server:
        dialog, pool = _step(qtbot, probe=False)
        address = dialog.address
        address.open_button.click()
        address.address.setText(server.url)
        with qtbot.waitSignal(address.answered, timeout=10_000):
            address.ask()
        message = address.message.text()
        assert "OpenAI-compatible" not in message and "API key" in message
        assert address.key.isVisible() and address.key.hasFocus()  # shown only now
        assert dialog.picker.rows(SERVERS)[0].data(0, Qt.ItemDataRole.UserRole) is None
        address.key.setText("sk-wrong")
        with qtbot.waitSignal(address.answered, timeout=10_000):
            qtbot.keyClick(address.key, Qt.Key.Key_Return)
        assert "refused" in address.message.text()
        assert get_api_key(server.url) is None  # a wrong key is not kept
        address.key.setText(KEY)
        with qtbot.waitSignal(address.answered, timeout=10_000):
            qtbot.keyClick(address.key, Qt.Key.Key_Return)
        assert [row.text(0) for row in dialog.picker.rows(SERVERS)] == ["secret-model"]
        assert get_api_key(server.url) == KEY  # where a model load finds it
        assert KEY not in address.message.text()
        with qtbot.waitSignal(dialog.chosen, timeout=5_000) as chosen:
            dialog.picker.use_button.click()
        assert chosen.args[0].values["server_url"] == server.url
        pool.wait(5000)


def test_a_pasted_chat_completions_endpoint_is_cut_back_to_its_base(qtbot):
    from app.model_picker import SERVERS

    with ChatServer(["pasted-model"], ["Hi"]) as server:
        dialog, pool = _step(qtbot, probe=False)
        address = dialog.address
        address.open_button.click()
        address.address.setText(f"{server.url}/chat/completions")
        with qtbot.waitSignal(address.answered, timeout=10_000):
            address.ask()
        rows = dialog.picker.rows(SERVERS)
        assert [row.text(0) for row in rows] == ["pasted-model"]
        assert rows[0].data(0, Qt.ItemDataRole.UserRole)[1][0].url == server.url
        assert address.message.objectName() == "hint"
        pool.wait(5000)


def test_a_gguf_file_chosen_in_the_step_is_in_models_you_added(qtbot, person):
    from app.model_picker import FILES
    from app.settings_added_models import AddedModels, added_models
    from app.settings_store import AppSettings

    dialog, pool = _step(qtbot, probe=False)
    picker = dialog.picker
    with qtbot.waitSignal(picker.fitted, timeout=10_000):
        picker.table.setCurrentItem(picker.rows(FILES)[1])
    with qtbot.waitSignal(dialog.chosen, timeout=5_000):
        picker.use_button.click()
    qtbot.waitUntil(lambda: len(added_models()) == 1, timeout=10_000)
    row = AddedModels(AppSettings())
    qtbot.addWidget(row)
    row.show_added(added_models())
    assert row.recent.count() == 2  # "Choose…" and the file
    tip = row.recent.itemData(1, Qt.ItemDataRole.ToolTipRole)
    assert Path(tip) == Path(person["gguf"]).resolve()
    pool.wait(5000)


def test_the_step_promises_nothing_leaves_only_where_that_is_true(qtbot, person):
    """With "Add a server address…" on screen the step cannot say nothing leaves this computer;
    with a server on another computer in use it names where messages go."""
    from app.settings_store import AppSettings
    from engine.network import destination

    def said(dialog) -> str:
        return " ".join(label.text() for label in dialog.findChildren(QLabel))

    promise = "nothing you say leaves this computer"
    dialog, pool = _step(qtbot, probe=False)
    assert dialog.address.open_button.isVisible()
    assert promise not in said(dialog)
    pool.wait(5000)
    remote = dataclasses.replace(AppSettings(), model_source="openai",
                                 server_url="https://models.example.com/v1", server_model="m")
    dialog, pool = _step(qtbot, current=remote, probe=False)
    assert destination(remote.server_url) in said(dialog)
    assert promise not in said(dialog)
    pool.wait(5000)


def test_the_step_preselects_the_bundled_model_in_use_over_a_copy_of_it(qtbot, person):
    """A copy of the demo GGUF (the LM Studio file here is the bundled file) with the bundled
    model in use: the bundled row is the one selected."""
    from app.settings_store import AppSettings

    dialog, pool = _step(qtbot, current=AppSettings(), probe=False)
    assert dialog.picker.selected() == ("bundled", None)
    assert dialog.picker.use_button.isEnabled()
    pool.wait(5000)


def test_the_step_still_offers_another_model_over_the_demo_in_use(qtbot, person):
    """The step is there to offer something better than the demo: with the demo in use, a
    GGUF file that is not a copy of it (a different size here) is the row selected."""
    from app.model_picker import FILES
    from app.settings_store import AppSettings
    from models.catalogue import bundled_gguf_path

    folder = person["home"] / ".lmstudio/models/someone/Other-Model-GGUF"
    folder.mkdir(parents=True)
    other = folder / "Other-Model-Q4_1.gguf"
    other.write_bytes(bundled_gguf_path().read_bytes() + bytes(4096))
    dialog, pool = _step(qtbot, current=AppSettings(), probe=False)
    picked = dialog.picker.selected()
    assert picked is not None and picked[0] == "file", picked
    assert Path(picked[1].path).name == other.name
    assert len(dialog.picker.rows(FILES)) >= 3  # the demo and its copy are listed, not chosen
    pool.wait(5000)
