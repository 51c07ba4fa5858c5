"""Steps the GUI tests share: dialogs answered, windows and panels shown, keys pressed, a full
disk simulated under a send (tests/helpers.py holds those that need no window)."""

from __future__ import annotations

from tests.helpers import fill_disk, learn_exchanges, open_fast

_looking: list = []


def keep_looking(look, every: int = 20, tries: int | None = None) -> None:
    """Call `look()` every `every` ms until it returns True (it found its dialog or menu and
    answered it) or `tries` looks have found nothing. A modal dialog's exec() runs an event
    loop of its own, so this is how a test answers one. The looking stops when the test ends,
    found or not (tests/gui/conftest.py calls stop_looking): a look still running after a test
    that expected no box clicked a box of the next test."""
    from PySide6.QtCore import QTimer

    timer = QTimer()
    left = [tries]

    def once() -> None:
        try:
            done = look()
        except BaseException:
            timer.stop()  # the test fails once, not at every look
            raise
        if done:
            timer.stop()
        elif left[0] is not None:
            left[0] -= 1
            if left[0] <= 0:
                timer.stop()

    timer.timeout.connect(once)
    timer.start(every)
    _looking.append(timer)


def stop_looking() -> None:
    """Stop every keep_looking of the test that ends."""
    while _looking:
        _looking.pop().stop()


def shown_dialog(qtbot, opener, start):
    """The dialog a VaultOpener shows when `start()` runs (unlock, first run, other memory)."""
    with qtbot.waitSignal(opener.dialog_shown, timeout=10_000) as shown:
        start()
    return shown.args[0]


def unlock(qtbot, window, dialog, passphrase: str) -> None:
    """Type `passphrase` into an unlock dialog and press Enter; wait for the vault to open in
    `window` (deriving the key takes seconds on a busy machine: pytest-qt's 5 s was missed)."""
    from PySide6.QtCore import Qt

    dialog.passphrase.clear()
    with qtbot.waitSignal(window.session_attached, timeout=30_000):
        qtbot.keyClicks(dialog.passphrase, passphrase)
        qtbot.keyClick(dialog.passphrase, Qt.Key.Key_Return)


def window_with_settings(qtbot, memory, chat):
    """The main window on `memory` and `chat` with the settings file as saved, as the app
    starts, shown and exposed."""
    from app.main_window import MainWindow
    from app.settings_store import load_settings

    window = MainWindow.for_memory(memory, chat, settings=load_settings())
    qtbot.addWidget(window)
    window.show()
    qtbot.waitExposed(window)
    return window


def restarted_window(qtbot, memory, chat):
    """A new window on the same vault and settings file, as after quitting and starting again
    (closing the first window closed the vault)."""
    from engine.api import MemoryOS
    from engine.backends.fake import HashEmbedder

    mem = MemoryOS.open(memory.path, embedder=HashEmbedder(), background=False)
    return window_with_settings(qtbot, mem, chat)


def shown_settings(qtbot, settings):
    """The Settings dialog on `settings`, shown and exposed."""
    from app.settings_dialog import SettingsDialog

    dialog = SettingsDialog(settings)
    qtbot.addWidget(dialog)
    dialog.show()
    qtbot.waitExposed(dialog)
    return dialog


def privacy_row(panel, needle: str):
    """The privacy panel's row whose "What it knows" holds `needle` (None when none does), as
    read from the vault: a row whose text was typed over and not yet drawn again does not count
    (its text and the item it holds disagree until the list is read back)."""
    from app.privacy import ROLE

    for index in range(panel.tree.topLevelItemCount()):
        row = panel.tree.topLevelItem(index)
        if needle in row.text(1) and row.text(1) == row.data(0, ROLE).shown:
            return row
    return None


def delete_in_privacy(qtbot, panel, needle: str) -> dict:
    """Select the privacy panel's row holding `needle` alone, click Delete and answer the
    question with Delete; the question's texts and buttons (as answer_box keeps them)."""
    from PySide6.QtCore import Qt

    panel.tree.clearSelection()
    privacy_row(panel, needle).setSelected(True)
    seen: dict = {}
    answer_box(panel, "Delete", "Delete", seen)
    with qtbot.waitSignal(panel.changed, timeout=10_000):
        qtbot.mouseClick(panel.delete_button, Qt.MouseButton.LeftButton)
    assert seen["texts"], "the delete was not asked"
    return seen


def privacy_with_two_exchanges(qtbot, window, memory, job: str, food: str):
    """The privacy panel over two exchanges of one conversation (`job`, then `food`), each with
    what was learned from it."""
    memory.add_memory(job, "Nice, data science is a great field.")
    memory.add_memory(food, "Noted!")
    memory.run_consolidation()
    privacy = window.open_privacy()
    qtbot.waitUntil(lambda: privacy_row(privacy, "data scientist") is not None)
    return privacy


def last_answer(window):
    """The last answer in the window's conversation (its message on screen)."""
    return [m for m in window.view.messages if m.role == "assistant"][-1]


def used_list(window) -> str:
    """The conversation's text with the last answer's list ("Used N memories") open."""
    message = last_answer(window)
    if not message.expanded:
        window.view.toggle_remembered(message)
    return window.view.plain_text()


def click_text(qtbot, view, text: str, after: str = "") -> None:
    """Click the first occurrence of `text` in the conversation (a link), after `after`."""
    from PySide6.QtCore import Qt

    document = view.browser.document()
    cursor = document.find(text, document.find(after)) if after else document.find(text)
    assert not cursor.isNull(), text
    cursor.setPosition(cursor.selectionStart() + 1)
    point = view.browser.cursorRect(cursor).center()
    qtbot.mouseClick(view.browser.viewport(), Qt.MouseButton.LeftButton, pos=point)


def answer_box(parent, title: str, choice: str, seen: dict) -> None:
    """When the modal message box with this title (or object name) opens under `parent`, keep
    its text and buttons in `seen` and press the button labelled `choice` (Cancel if there is
    none, so the test fails, not hangs)."""
    from PySide6.QtWidgets import QMessageBox

    def look() -> bool:
        boxes = [b for b in parent.findChildren(QMessageBox)
                 if title in (b.windowTitle(), b.objectName()) and b.isVisible()]  # fmt: skip
        if not boxes:
            return False
        box = boxes[-1]
        seen.setdefault("texts", []).append(box.text())
        seen.setdefault("buttons", []).append([b.text() for b in box.buttons()])
        button = next((b for b in box.buttons() if b.text() == choice), None)
        if button is None:
            box.reject()
        else:
            button.click()
        return True

    keep_looking(look)


def create_vault(qtbot, window, dialog, passphrase: str | None) -> None:
    """Fill the welcome (create) dialog, with `passphrase` or for the keyring, and create."""
    from PySide6.QtCore import Qt

    if passphrase:
        qtbot.keyClicks(dialog.passphrase, passphrase)
        qtbot.keyClicks(dialog.confirm, passphrase)
    with qtbot.waitSignal(window.session_attached, timeout=30_000):
        qtbot.mouseClick(dialog.create_button, Qt.MouseButton.LeftButton)


def choose_in_menu(qtbot, button, entry: str, seen: dict | None = None) -> None:
    """Click `button` and, in the menu it opens, choose the entry labelled `entry` with the
    keyboard (the menu closes if there is none or it is greyed out, so the test fails, not
    hangs). The entries shown, each with whether it was enabled, go in `seen["entries"]`."""
    from PySide6.QtCore import Qt

    def look() -> bool:
        menu = button.menu()
        if not menu.isVisible():
            return False
        actions = [action for action in menu.actions() if action.isVisible()]
        if seen is not None:
            seen["entries"] = [(action.text(), action.isEnabled()) for action in actions]
        chosen = next((a for a in actions if a.text() == entry and a.isEnabled()), None)
        if chosen is None:
            menu.close()
            return True
        menu.setActiveAction(chosen)
        qtbot.keyClick(menu, Qt.Key.Key_Return)
        return True

    keep_looking(look)
    qtbot.mouseClick(button, Qt.MouseButton.LeftButton)


def press_key(qtbot, key, modifier=None) -> None:
    """A key pressed on the keyboard: it goes to the widget that has the keyboard."""
    from PySide6.QtCore import Qt
    from PySide6.QtWidgets import QApplication

    target = QApplication.focusWidget() or QApplication.activeWindow()
    assert target is not None, "no window has the keyboard"
    qtbot.keyClick(target, key, Qt.KeyboardModifier.NoModifier if modifier is None else modifier)


def switch_dialog(qtbot, window):
    """File → Switch memory: its dialog, once it is the modal one."""
    from PySide6.QtWidgets import QApplication

    from app.vault_switch import SwitchVaultDialog

    window.switch_action.trigger()
    qtbot.waitUntil(lambda: isinstance(QApplication.activeModalWidget(), SwitchVaultDialog))
    return QApplication.activeModalWidget()


def switch_open_button(dialog):
    """The Switch memory dialog's Open button."""
    from PySide6.QtWidgets import QDialogButtonBox

    return dialog.buttons.button(QDialogButtonBox.StandardButton.Open)


def focus_by_tab(qtbot, widget) -> None:
    """`widget` gets the keyboard as Tab gives it, its window in front (as on a desktop)."""
    from PySide6.QtCore import Qt
    from PySide6.QtWidgets import QApplication

    widget.window().activateWindow()
    qtbot.waitUntil(lambda: QApplication.activeWindow() is widget.window())
    widget.setFocus(Qt.FocusReason.TabFocusReason)
    qtbot.waitUntil(widget.hasFocus)


def settle() -> None:
    """The layouts' pending requests handled (each may post the next)."""
    from PySide6.QtWidgets import QApplication

    for _ in range(6):
        QApplication.sendPostedEvents(None, 0)  # 0: every kind of posted event
        QApplication.processEvents()


def cut_rows(tree) -> list[str]:
    """The rows of `tree` a person sees only in part: cut by the list's own edge, or by the
    edge of the scrolled page it is on."""
    seen = tree.viewport().visibleRegion()
    cut = []
    for index in range(tree.topLevelItemCount()):
        rect = tree.visualItemRect(tree.topLevelItem(index))
        shown = seen.intersected(rect).boundingRect()
        if not shown.isEmpty() and shown.height() < rect.height():
            cut.append(f"row {index}: {shown.height()} px of {rect.height()}")
    return cut


def start_unlocked(qtbot, window, opener, passphrase: str, prepare=None) -> None:
    """A vault made with `passphrase` at the opener's path (`prepare`d first), then unlocked."""
    made = open_fast(opener.path, True, passphrase)
    if prepare is not None:
        prepare(made)
    made.close()
    unlock(qtbot, window, shown_dialog(qtbot, opener, opener.start), passphrase)


def send_on_a_full_disk(qtbot, window, memory, chat, question: str, answer: str,
                        spare: int) -> object:
    """`question` sent while the vault has room for `spare` pages: what answer_finished gave."""
    chat.queue(answer)
    fill_disk(memory, spare)  # 2: the question's record fits, its exchange not; 0: neither
    with qtbot.waitSignal(window.answer_finished, timeout=20_000) as done:
        window.send(question)
    return done.args[0]


def regenerate_on_a_full_disk(qtbot, window, memory, chat, question: str, answer: str) -> None:
    """`question` answered and stored, then regenerated as `answer` with no room to store it."""
    chat.queue("A short telling.")
    with qtbot.waitSignal(window.answer_finished, timeout=10_000):
        window.send(question)
    chat.queue(answer)
    fill_disk(memory, spare=2)  # too little for the new exchange
    with qtbot.waitSignal(window.conversation_shown, timeout=20_000):
        window.regenerate()


def privacy_after_learning(qtbot, window, memory, exchanges, needle: str):
    """`exchanges` learned, and the Privacy panel on them once it lists `needle`."""
    learn_exchanges(memory, exchanges)
    panel = window.open_privacy()
    qtbot.waitUntil(lambda: privacy_row(panel, needle) is not None)
    return panel


def privacy_by_ctrl_p(qtbot, window):
    """The Privacy panel opened with Ctrl+P from the message box, in front with the keyboard."""
    from PySide6.QtCore import Qt
    from PySide6.QtWidgets import QApplication

    window.activateWindow()
    qtbot.waitUntil(lambda: QApplication.activeWindow() is window)
    window.composer.input.setFocus()
    press_key(qtbot, Qt.Key.Key_P, Qt.KeyboardModifier.ControlModifier)
    panel = window.panels["privacy"]
    qtbot.waitUntil(lambda: QApplication.activeWindow() is panel)
    return panel


def privacy_by_keyboard(qtbot, window, memory, exchanges, needle: str):
    """`exchanges` learned, and the Privacy panel (by Ctrl+P) once it lists `needle`."""
    learn_exchanges(memory, exchanges)
    panel = privacy_by_ctrl_p(qtbot, window)
    qtbot.waitUntil(lambda: privacy_row(panel, needle) is not None)
    return panel


def privacy_in_front(qtbot, panel) -> None:
    """The Privacy panel is the window in front and its list has the keyboard (as on a desktop)."""
    from PySide6.QtWidgets import QApplication

    panel.activateWindow()
    qtbot.waitUntil(lambda: QApplication.activeWindow() is panel)
    panel.tree.setFocus()


def relative_luminance(color) -> float:
    """WCAG's relative luminance of a QColor (0 for black to 1 for white)."""

    def channel(value: float) -> float:
        return value / 12.92 if value <= 0.03928 else ((value + 0.055) / 1.055) ** 2.4

    red, green, blue = (channel(c) for c in (color.redF(), color.greenF(), color.blueF()))
    return 0.2126 * red + 0.7152 * green + 0.0722 * blue


def contrast_ratio(one, other) -> float:
    """WCAG's contrast ratio of two QColors (1 to 21)."""
    lighter, darker = sorted((relative_luminance(one), relative_luminance(other)), reverse=True)
    return (lighter + 0.05) / (darker + 0.05)


def listed_picker(qtbot, pool, **options):
    """The Models table (a ModelPicker on `pool`) once it has listed what it found."""
    from app.model_picker import ModelPicker

    picker = ModelPicker(pool, **options)
    qtbot.addWidget(picker)
    qtbot.waitUntil(lambda: picker.overview is not None, timeout=20_000)
    return picker


def shown_model_step(qtbot, pool, **options):
    """The model step (a ModelStepDialog on `pool`) shown, once its table lists what it found."""
    from app.model_step import ModelStepDialog

    dialog = ModelStepDialog(pool, **options)
    qtbot.addWidget(dialog)
    dialog.show()
    qtbot.waitExposed(dialog)
    qtbot.waitUntil(lambda: dialog.picker.overview is not None, timeout=20_000)
    return dialog


def settings_on_models_page(qtbot):
    """The Settings dialog shown at its Models page, once its table lists what it found."""
    from app.settings_dialog import SettingsDialog
    from app.settings_store import AppSettings

    dialog = SettingsDialog(AppSettings())
    qtbot.addWidget(dialog)
    dialog.tabs.setCurrentWidget(dialog.models_page)
    dialog.show()
    qtbot.waitExposed(dialog)
    qtbot.waitUntil(lambda: dialog.models_page.picker.overview is not None, timeout=20_000)
    return dialog


def window_on_server(qtbot, memory, server):
    """A shown window whose model is `server`'s "m": (window, its OpenAIChat, its settings)."""
    from app.main_window import MainWindow
    from app.settings_store import SERVER, AppSettings
    from engine.backends.openai_compat import OpenAIChat

    remote = OpenAIChat(server.url, "m", retries=0)
    settings = AppSettings(model_source=SERVER, server_url=server.url, server_model="m")
    window = MainWindow.for_memory(memory, remote, settings=settings)
    qtbot.addWidget(window)
    window.show()
    return window, remote, settings


def shown_window(qtbot, memory, chat):
    """The main window on `memory` and `chat` (default settings), shown and exposed."""
    from app.main_window import MainWindow

    window = MainWindow.for_memory(memory, chat)
    qtbot.addWidget(window)
    window.show()
    qtbot.waitExposed(window)
    return window


def window_giving_back(qtbot, memory, message: str):
    """A window on `memory` as the app starts, once its message box gives `message` back."""
    from app.main_window import MainWindow

    window = MainWindow.for_memory(memory, memory.chat)
    qtbot.addWidget(window)
    window.show()
    qtbot.waitUntil(lambda: window.composer.input.toPlainText() == message)
    return window


def answering_a_long_story(qtbot, window, chat, reply: str) -> None:
    """"Tell me a long story" sent, `reply` streamed slowly; back once its first words show."""
    from PySide6.QtCore import Qt

    chat.queue(reply)
    chat.chunk_delay = 0.02  # a piece every 20 ms: still answering when the test goes on
    window.composer.input.setPlainText("Tell me a long story")
    qtbot.keyClick(window.composer.input, Qt.Key.Key_Return)
    qtbot.waitUntil(lambda: len(window.view.answer_text()) > 0)


def forget_asked(qtbot, window, words: str):
    """The forget panel opened by "/forget `words`" sent from the message box."""
    from PySide6.QtCore import Qt

    window.composer.input.setPlainText(f"/forget {words}")
    with qtbot.waitSignal(window.chat_actions.done, timeout=5000) as done:
        qtbot.keyClick(window.composer.input, Qt.Key.Key_Return)
    assert done.args == ["asked"]
    return window.forget_panel


def download_stopped_by(qtbot, picker, button) -> object:
    """The first download in the Models table started, then `button` pressed: what it reported."""
    from app.model_picker import DOWNLOADS

    picker.table.setCurrentItem(picker.rows(DOWNLOADS)[0])
    with qtbot.waitSignal(picker.download_finished, timeout=30_000) as finished:
        picker.download_button.click()
        # a speed shown: bytes came, there is a part to pause or to throw away
        qtbot.waitUntil(lambda: "MB/s" in picker.progress_text.text(), timeout=10_000)
        button.click()
    return finished.args[0]


def server_address_typed(qtbot, dialog, url: str) -> None:
    """`url` typed as the server's address in Settings and left; back once its models are read."""
    dialog.server_url.setText(url)
    with qtbot.waitSignal(dialog.models_listed, timeout=5000):
        dialog.server_url.editingFinished.emit()
