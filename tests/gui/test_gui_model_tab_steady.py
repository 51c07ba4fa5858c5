"""Settings → Model: the source's radio buttons stay where they are whether "Models you added"
lists something or not: once the list is read, when a GGUF file was added, when an entry is
taken off it and when it is empty again. The one a person is about to click does not move
under the pointer."""

from __future__ import annotations

import shutil

import pytest
from PySide6.QtCore import QPoint, QRect, Qt
from PySide6.QtWidgets import QApplication

pytestmark = pytest.mark.gui


def _places(dialog) -> list[QRect]:
    """Where the three choices are in the dialog."""
    return [QRect(button.mapTo(dialog, QPoint(0, 0)), button.size())
            for button in (dialog.bundled, dialog.gguf, dialog.server)]


def _settled_places(dialog) -> list[QRect]:
    """The places once the layouts have done what was asked of them (each pass may ask for
    the next: a row shown grows its group, which grows the page)."""
    places = None
    for _ in range(20):
        QApplication.sendPostedEvents(None, 0)  # 0: every kind of posted event
        QApplication.processEvents()
        if _places(dialog) == places:
            return places
        places = _places(dialog)
    raise AssertionError("the layout did not settle")


def _read_again(qtbot, dialog, count: int) -> None:
    """The list read as the dialog reads it when it opens (in a worker), `count` rows with
    its first ("Choose…" or "None yet")."""
    dialog.model_tab.look_up()
    qtbot.waitUntil(lambda: dialog.recent.count() == count and not dialog.pool.active,
                    timeout=10_000)


def test_the_model_choices_stay_put_as_models_you_added_changes(qtbot, tmp_path):
    from app.settings_dialog import SettingsDialog
    from app.settings_store import AppSettings
    from models.catalogue import add_gguf, bundled_gguf_path, list_models, remove

    dialog = SettingsDialog(AppSettings())
    qtbot.addWidget(dialog)
    dialog.show()
    qtbot.waitExposed(dialog)
    qtbot.waitUntil(lambda: not dialog.pool.active, timeout=10_000)  # the list was read
    assert dialog.recent.currentText() == "None yet" and not dialog.recent.isEnabled()
    assert not dialog.remove_recent.isEnabled()
    empty = _settled_places(dialog)

    # a GGUF file added (as Save records it), and the list read again
    model = tmp_path / "my-model.gguf"
    shutil.copyfile(bundled_gguf_path(), model)
    add_gguf(model)
    _read_again(qtbot, dialog, 2)
    assert dialog.recent.isEnabled() and "my-model.gguf" in dialog.recent.itemText(1)
    assert _settled_places(dialog) == empty

    # taken off the list: what Save will do is said, below the choices
    dialog.recent.setCurrentIndex(1)
    qtbot.mouseClick(dialog.remove_recent, Qt.MouseButton.LeftButton)
    qtbot.waitUntil(lambda: dialog.removed_note.isVisible())
    assert "my-model.gguf" in dialog.removed_note.text()
    assert _settled_places(dialog) == empty

    # a dialog opened with the entry there: the same places
    again = SettingsDialog(AppSettings())
    qtbot.addWidget(again)
    again.resize(dialog.size())
    again.show()
    qtbot.waitExposed(again)
    qtbot.waitUntil(lambda: again.recent.count() == 2 and not again.pool.active, timeout=10_000)
    assert _settled_places(again) == empty
    again.reject()

    # the list empty again (its last entry forgotten elsewhere)
    for entry in list_models():
        if entry.source != "bundled":
            remove(entry.id)
    _read_again(qtbot, dialog, 1)
    assert dialog.recent.currentText() == "None yet"
    assert _settled_places(dialog) == empty
    dialog.reject()
