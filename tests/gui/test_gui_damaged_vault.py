"""The app checks every page of a vault it opens, in the background, and a damaged one gets a
banner that says what is wrong and what to do."""

from __future__ import annotations

from PySide6.QtCore import Qt
from PySide6.QtWidgets import QMessageBox

from engine import paths
from tests.damaged_vault import PASSPHRASE, damage, leaf_page, make_vault


def _opened(qtbot, path, chat):
    """A window that opens the vault at `path` as the app does (attach), once the background
    check of its pages has finished: (window, whether the check found damage)."""
    from app.main_window import MainWindow
    from app.session import Session
    from tests.test_backup import open_fast

    window = MainWindow()
    qtbot.addWidget(window)
    window.show()
    qtbot.waitExposed(window)
    mem = open_fast(path, False, PASSPHRASE)
    with qtbot.waitSignal(window.damage_banner.checked, timeout=10_000) as checked:
        window.attach(Session(mem, window.pool, window.settings, chat=chat, parent=window))
    return window, checked.args[0]


def test_a_damaged_vault_gets_a_banner_saying_what_to_do(qtbot, home, chat):
    path = paths.vault_path("damaged")
    make_vault(path)
    damage(path, leaf_page(path, "pages"))
    window, damaged = _opened(qtbot, path, chat)
    try:
        banner = window.damage_banner
        assert damaged and banner.isVisible()
        assert "damaged" in banner.text.text()
        text = banner.text.toolTip()  # the steps: two lines of banner, the rest on pointing
        for step in ("File → Back up memory…", "File → Switch memory…", str(paths.vaults_dir()),
                     "File → Export memory…"):  # fmt: skip
            assert step in text, step
        assert banner.backup_button.isVisible()
        assert "…." not in banner.text.text()  # "Back up memory…." read as a typo
        # A few lines on a laptop's window, not seven (the conversation was pushed down)
        window.resize(1366, 740)
        qtbot.waitUntil(lambda: banner.text.width() > 600)
        lines = banner.text.height() / banner.text.fontMetrics().lineSpacing()
        assert lines < 3.5, lines
        # The steps from the keyboard too: What to do… shows them
        banner.steps_button.setFocus()
        qtbot.keyClick(banner.steps_button, Qt.Key.Key_Space)
        qtbot.waitUntil(lambda: banner.findChild(QMessageBox, "damageSteps") is not None)
        box = banner.findChild(QMessageBox, "damageSteps")
        assert "File → Export memory…" in box.text()
        box.close()
        window.detach()  # locked or switched: the banner goes with the vault
        qtbot.waitUntil(lambda: not banner.isVisible(), timeout=10_000)
    finally:
        window.close()


def test_a_whole_vault_gets_no_banner(qtbot, home, chat):
    path = paths.vault_path("whole")
    make_vault(path)
    window, damaged = _opened(qtbot, path, chat)
    try:
        assert not damaged and not window.damage_banner.isVisible()
    finally:
        window.close()


def test_the_apps_export_of_a_damaged_vault_says_what_it_could_not_read(home, tmp_path):
    import json

    from app.export import write_export
    from tests.damaged_vault import EXCHANGES
    from tests.test_backup import open_fast

    path = paths.vault_path("damaged")
    make_vault(path)
    damage(path, leaf_page(path, "pages"))
    mem = open_fast(path, False, PASSPHRASE)
    try:
        written, damaged = write_export(mem, str(tmp_path / "memory.json"))
    finally:
        mem.close()
    kept = len(json.loads((tmp_path / "memory.json").read_text(encoding="utf-8"))["pages"])
    assert written == str(tmp_path / "memory.json") and 0 < kept < EXCHANGES
    assert f"{EXCHANGES - kept} exchanges could not be read" in damaged


def test_a_banner_deleted_before_its_vault_closes_raises_nothing(qtbot, window):
    """At quit the window's widgets may be deleted before the vault's session: the session's
    end then reached a deleted banner ("Internal C++ object (DamageBanner) already deleted")."""
    from PySide6.QtCore import QCoreApplication, QEvent

    from app.damage_banner import DamageBanner

    banner = DamageBanner()
    with qtbot.waitSignal(banner.checked, timeout=10_000):
        banner.watch(window.session)
    banner.deleteLater()
    QCoreApplication.sendPostedEvents(None, QEvent.Type.DeferredDelete.value)
    window.session.destroyed.emit()  # as the session's deletion after the banner's emits it
    assert not window.damage_banner.isVisible()
