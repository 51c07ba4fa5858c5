"""Every control a person reaches with the keyboard has a name a screen reader says (Orca and
Narrator read Qt's QAccessible tree): in the main window and in each window the app opens."""

from __future__ import annotations

import json

import pytest
from PySide6.QtCore import Qt
from PySide6.QtGui import QAccessible
from PySide6.QtWidgets import (
    QLineEdit,
    QMessageBox,
    QProgressDialog,
    QTabWidget,
    QWidget,
)

from tests.gui_steps import keep_looking, privacy_row
from tests.helpers import open_fast
from tests.local_servers import ChatServer

pytestmark = pytest.mark.gui

PASSPHRASE = "correct horse battery"
NURSE = "I work as a nurse in Krakow."


def unnamed(root: QWidget) -> list[str]:
    """The controls of `root`'s window that Tab reaches (tab focus, shown, enabled; a control
    whose focus goes to another is left to that one) and that have no accessible name, each
    as class, objectName and tooltip: what a screen reader reads as a bare "button"."""
    found = []
    for widget in [root, *root.findChildren(QWidget)]:
        if widget.window() is not root.window() or widget.focusProxy() is not None:
            continue
        reachable = widget.focusPolicy() & Qt.FocusPolicy.TabFocus
        if not reachable or not widget.isVisible() or not widget.isEnabled():
            continue
        face = QAccessible.queryAccessibleInterface(widget)
        if face is None or not face.text(QAccessible.Text.Name).strip():
            found.append(f"{type(widget).__name__} objectName={widget.objectName()!r} "
                         f"tooltip={widget.toolTip()!r}{_inside(widget)}")
    return found


def _inside(widget: QWidget) -> str:
    """Where an unnamed control is: its nearest container with a name or an objectName."""
    parent = widget.parentWidget()
    while parent is not None:
        # Qt's own parts (a list's viewport: qt_scrollarea_viewport) say nothing of where
        own = parent.objectName() if not parent.objectName().startswith("qt_") else ""
        if parent.accessibleName() or own:
            return f" in {type(parent).__name__} {parent.accessibleName() or own!r}"
        parent = parent.parentWidget()
    return ""


def each_tab(qtbot, root: QWidget, tabs: QTabWidget) -> dict[str, list[str]]:
    """unnamed(root) with each of its tabs shown in turn, by the tab's text."""
    found = {}
    for index in range(tabs.count()):
        tabs.setCurrentIndex(index)
        qtbot.waitUntil(lambda: tabs.currentWidget().isVisible())  # noqa: B023
        found[tabs.tabText(index)] = unnamed(root)
    return {tab: gaps for tab, gaps in found.items() if gaps}


def _shown(qtbot, dialog: QWidget) -> QWidget:
    dialog.show()
    qtbot.waitExposed(dialog)
    return dialog


def _when_open(kind, parent: QWidget, seen: dict) -> None:
    """Once a dialog of `kind` opens in a modal loop (exec()), record what it lacks, close it."""

    def look() -> bool:
        dialogs = [d for d in parent.findChildren(kind) if d.isVisible()]
        if not dialogs:
            return False
        try:
            seen["unnamed"] = unnamed(dialogs[-1])
        finally:
            dialogs[-1].reject()
        return True

    keep_looking(look)


def test_the_main_window_with_an_answer_the_forget_panel_and_search_results(
    qtbot, window, send
):
    send(window, "I like green tea.")
    assert unnamed(window) == []
    window.chat_actions.find_and_ask("tea")  # the /forget panel
    qtbot.waitUntil(window.forget_panel.isVisible)
    assert unnamed(window) == []
    window.sidebar.search.setText("tea")
    qtbot.waitUntil(window.sidebar.results.isVisible)
    assert unnamed(window) == []


def test_renaming_a_conversation_in_the_list(qtbot, window, memory):
    """F2 on a conversation opens a box over its row: Qt's box has no name of its own."""
    memory.add_memory("Plan a hike in Marin", "The Dipsea trail.")
    memory.new_conversation()
    window.sidebar.refresh()
    qtbot.waitUntil(lambda: len(window.sidebar.rows()) == 1)
    tree = window.sidebar.tree
    tree.setFocus()
    tree.setCurrentItem(window.sidebar.rows()[0])
    qtbot.keyClick(tree, Qt.Key.Key_F2)
    qtbot.waitUntil(lambda: tree.findChild(QLineEdit) is not None)
    assert unnamed(window) == []
    qtbot.keyClick(tree.findChild(QLineEdit), Qt.Key.Key_Escape)


def test_settings_and_each_of_its_tabs(qtbot, window, person):
    dialog = window.open_settings()
    qtbot.waitExposed(dialog)
    picker = dialog.models_page.picker
    qtbot.waitUntil(lambda: picker.overview is not None)
    dialog.models_page.address.open()  # "Add a server address…": its field shows
    assert each_tab(qtbot, dialog, dialog.tabs) == {}
    dialog.reject()


@pytest.fixture
def privacy(qtbot, window, memory):
    """The Privacy panel on an exchange consolidated into a fact."""
    memory.add_memory(NURSE, "That sounds demanding.")
    memory.run_consolidation()
    panel = window.open_privacy()
    qtbot.waitExposed(panel)
    qtbot.waitUntil(lambda: privacy_row(panel, NURSE) is not None)
    return panel


def test_privacy_and_both_of_its_tabs(qtbot, privacy):
    assert each_tab(qtbot, privacy, privacy.tabs) == {}


def test_editing_an_item_in_privacy(qtbot, privacy):
    privacy.tree.setCurrentItem(privacy_row(privacy, NURSE))
    privacy.edit_selected()
    qtbot.waitUntil(lambda: privacy.tree.findChild(QLineEdit) is not None)
    assert unnamed(privacy) == []


def test_the_model_step_and_a_server_address_that_wants_a_key(qtbot, window, person):
    dialog = window.open_model_step()
    qtbot.waitExposed(dialog)
    qtbot.waitUntil(lambda: dialog.picker.overview is not None)
    assert unnamed(dialog) == []
    with ChatServer(["secret-model"], ["Hi"], api_key="sk-audit") as server:
        address = dialog.address
        address.open_button.click()
        address.address.setText(server.url)
        with qtbot.waitSignal(address.answered):
            address.ask()
        assert address.key.isVisible()  # the key field shows once the server asks for one
        assert unnamed(dialog) == []
    dialog.reject()


def test_the_inspector_each_tab_and_a_row_in_full(qtbot, window, send):
    send(window, "I like green tea.")
    inspector = window.open_inspector()
    qtbot.waitExposed(inspector)
    qtbot.waitUntil(lambda: inspector.short_tree.topLevelItemCount() > 0)
    assert each_tab(qtbot, inspector, inspector.tabs) == {}
    inspector.tabs.setCurrentIndex(0)
    full = inspector.show_full(inspector.short_tree.topLevelItem(0))
    qtbot.waitExposed(full)
    assert unnamed(full) == []
    full.reject()


def test_the_shortcut_list_and_about(qtbot, window):
    shortcuts = window.show_shortcuts()
    qtbot.waitExposed(shortcuts)
    assert unnamed(shortcuts) == []
    shortcuts.reject()
    seen: dict = {}
    _when_open(QMessageBox, window, seen)
    window.about()
    assert seen == {"unnamed": []}


def test_a_new_vault_with_a_passphrase_and_the_unlock(qtbot, window, home, fail_keyring):
    """No keyring: the first run asks for a passphrase twice; the next start asks for it."""
    from app.vault_opener import VaultOpener

    path = home / "vaults" / "alex.memoryos"
    opener = VaultOpener(path, lambda *args: open_fast(*args, chat=False), window.pool, window)
    with qtbot.waitSignal(opener.dialog_shown) as shown:
        opener.start()
    first = shown.args[0]
    qtbot.waitExposed(first)
    assert first.passphrase.isVisible()
    assert unnamed(first) == []
    first.reject()
    open_fast(path, True, PASSPHRASE, chat=False).close()  # the real encrypted vault
    with qtbot.waitSignal(opener.dialog_shown) as shown:
        opener.start()
    unlock = shown.args[0]
    qtbot.waitExposed(unlock)
    assert unlock.passphrase.isVisible()
    assert unnamed(unlock) == []
    unlock.reject()


def test_the_first_run_with_a_keyring_and_switch_memory(qtbot, window, home, memory_keyring):
    from app.vault_dialogs import FirstRunDialog
    from app.vault_switch import SwitchVaultDialog, vault_files
    from engine.vault.keys import keyring_status

    folder = home / "vaults"
    folder.mkdir(parents=True)
    for name in ("alex", "work"):
        open_fast(folder / f"{name}.memoryos", True, None, chat=False).close()
    first = _shown(qtbot, FirstRunDialog(folder / "new.memoryos", keyring_status(), open_fast,
                                         window.pool, window))  # fmt: skip
    assert unnamed(first) == []
    first.reject()
    others = _shown(qtbot, FirstRunDialog(folder / "new.memoryos", keyring_status(), open_fast,
                                          window.pool, window, others=vault_files(folder)))
    assert unnamed(others) == []
    others.reject()
    switch = _shown(qtbot, SwitchVaultDialog("alex", window, folder=folder))
    assert unnamed(switch) == []
    switch.reject()


def test_export_and_erase(qtbot, window, tmp_path):
    from app.export import EraseDialog, export_memory

    export_memory(window, window.session, str(tmp_path / "everything.json"))
    progress = window.findChild(QProgressDialog)  # its timer shows it: shown here at once
    progress.show()
    assert unnamed(progress) == []
    qtbot.waitUntil(lambda: any(box.windowTitle() == "Export" and box.isVisible()
                                for box in window.findChildren(QMessageBox)))
    box = next(box for box in window.findChildren(QMessageBox) if box.windowTitle() == "Export")
    assert unnamed(box) == []
    box.close()
    erase = _shown(qtbot, EraseDialog("alex", window))
    assert unnamed(erase) == []
    erase.reject()


def test_a_backup_of_a_keyring_memory_asks_for_the_copy_s_passphrase(qtbot, window, tmp_path):
    from app.backup import backup_memory

    dialog = backup_memory(window, window.session, str(tmp_path / "copy.memoryos"))
    qtbot.waitExposed(dialog)
    assert unnamed(dialog) == []
    dialog.elsewhere.setChecked(True)  # its own passphrase, typed twice
    assert unnamed(dialog) == []
    dialog.reject()


def test_the_import_dialogs(qtbot, window, tmp_path):
    from app.importer import import_transcript, reference_folder_dialog, user_picker

    transcript = tmp_path / "chat.json"
    transcript.write_text(json.dumps([{"user": "I moved to Porto.", "assistant": "Nice."}]))
    import_transcript(window, window.session, str(transcript))
    progress = window.findChild(QProgressDialog)  # with Stop; its timer shows it
    progress.show()
    assert unnamed(progress) == []
    qtbot.waitUntil(lambda: any(box.windowTitle() == "Import" and box.isVisible()
                                for box in window.findChildren(QMessageBox)))
    box = next(box for box in window.findChildren(QMessageBox) if box.windowTitle() == "Import")
    assert unnamed(box) == []
    box.close()
    folder = _shown(qtbot, reference_folder_dialog(window))  # Qt's own, not the system's
    assert unnamed(folder) == []
    folder.reject()
    picker = _shown(qtbot, user_picker(window, str(tmp_path), ["alex", "sam"]))
    assert unnamed(picker) == []
    picker.reject()


def test_the_check_names_what_it_finds(qtbot):
    """The check itself: an unnamed field is reported, by class and objectName."""
    field = QLineEdit(objectName="lonely")
    qtbot.addWidget(field)
    _shown(qtbot, field)
    assert unnamed(field) == ["QLineEdit objectName='lonely' tooltip=''"]
    field.setAccessibleName("Lonely field")
    assert unnamed(field) == []
