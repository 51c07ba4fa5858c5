"""Small things a walkthrough saw: focus in the dark, red text on dark grey, a tiny GGUF file
without its banner, the model step with nothing selected, gaps in the server's fields, and the
colour choice as wide as the page."""

from __future__ import annotations

import dataclasses
import re
import shutil
from collections import Counter

import pytest
from PySide6.QtCore import QRect, Qt
from PySide6.QtGui import QColor, QPalette
from PySide6.QtWidgets import QApplication, QWidget

from tests.gui_steps import contrast_ratio, shown_model_step

pytestmark = pytest.mark.gui


def _difference(before, after, rect: QRect) -> float:
    """The largest contrast ratio (WCAG) between two grabs of one widget, pixel by pixel,
    inside `rect`: 1 where nothing changed."""
    return max(
        contrast_ratio(before.pixelColor(x, y), after.pixelColor(x, y))
        for x in range(rect.left(), rect.right() + 1)
        for y in range(rect.top(), rect.bottom() + 1)
    )


def _edges(widget: QWidget, depth: int = 10) -> list[QRect]:
    """The bands `depth` pixels deep along each side of the widget: where a focus mark is
    (the focus box is drawn a few pixels inside the border)."""
    width, height = widget.width(), widget.height()
    return [
        QRect(0, 0, width, depth),
        QRect(0, height - depth, width, depth),
        QRect(0, 0, depth, height),
        QRect(width - depth, 0, depth, height),
    ]


def _marked(before, after, widget: QWidget) -> float:
    return max(_difference(before, after, band) for band in _edges(widget))


def _grab(widget: QWidget):
    QApplication.processEvents()
    return widget.grab().toImage().scaled(widget.size())  # one pixel per widget pixel


def test_keyboard_focus_shows_on_buttons_and_lists_in_the_dark(qtbot, qapp, look_back):
    """Tabbing from the message box landed on "Choose a model…" and on the conversation list
    with no visible sign in the dark scheme: now a ring at 3:1 at least against what was
    there (WCAG's focus appearance), on a solid accent button too. A click leaves no mark."""
    from PySide6.QtWidgets import QLineEdit, QListWidget, QPushButton, QVBoxLayout

    from app import theme

    theme.apply_look(qapp, "dark", theme.BASE_SIZE)
    panel = QWidget()
    layout = QVBoxLayout(panel)
    field = QLineEdit("Hello")
    choose = QPushButton("Choose a model…")
    solid = QPushButton("Use this model", objectName="primary")  # on the accent colour
    listing = QListWidget()
    listing.addItems(["Hi! My name is Marta", "What is my name and job?"])
    listing.setCurrentRow(0)
    for widget in (field, choose, solid, listing):
        layout.addWidget(widget)
    qtbot.addWidget(panel)
    panel.resize(360, 260)
    panel.show()
    panel.activateWindow()
    qtbot.waitExposed(panel)
    field.setFocus()
    qtbot.waitUntil(field.hasFocus)
    plain = {widget: _grab(widget) for widget in (choose, solid, listing)}
    row = listing.visualItemRect(listing.item(0)).translated(listing.viewport().pos())
    # a click gives focus without the mark (Qt draws it once Tab was used in the window)
    qtbot.mouseClick(choose, Qt.MouseButton.LeftButton)
    assert choose.hasFocus()
    assert _marked(plain[choose], _grab(choose), choose) < 1.5
    field.setFocus()
    for widget in (choose, solid, listing):
        qtbot.keyClick(qapp.focusWidget(), Qt.Key.Key_Tab)
        assert widget.hasFocus()
        focused = _grab(widget)
        if widget is listing:  # the current row is marked
            assert _difference(plain[widget], focused, row.adjusted(0, 0, -1, -1)) >= 3
        else:
            assert _marked(plain[widget], focused, widget) >= 3, widget.text()


def test_a_model_that_does_not_fit_reads_on_the_dark_scheme(
    qtbot, qapp, person, monkeypatch, look_back
):
    """"no: not enough memory" was dark red on dark grey in the model table."""
    from app import theme
    from app.model_picker import DOWNLOADS, ModelPicker
    from app.workers import WorkerPool
    from models.machine import Machine

    GiB = 1024**3
    small = Machine(4 * GiB, 3 * GiB, 0, "", 2, 4, memory_bandwidth=10 * 10**9)
    monkeypatch.setattr("models.overview.this_machine", lambda: small)
    monkeypatch.setattr("models.overview.gpu_offload", lambda: False)
    theme.apply_look(qapp, "dark", theme.BASE_SIZE)
    pool = WorkerPool()
    picker = ModelPicker(pool, probe=False)
    qtbot.addWidget(picker)
    picker.show()
    qtbot.waitUntil(lambda: picker.overview is not None, timeout=20_000)
    refused = [row for row in picker.rows(DOWNLOADS) if row.text(3).startswith("no")]
    assert refused, [row.text(3) for row in picker.rows(DOWNLOADS)]
    palette = picker.table.palette()
    for row in refused:
        text = row.foreground(3).color()
        for role in (QPalette.ColorRole.Base, QPalette.ColorRole.AlternateBase):
            assert contrast_ratio(text, palette.color(role)) >= 4.5, (text.name(), role)
    pool.wait(5000)


def _colour_of(label: QWidget, words: str) -> QColor:
    """The colour the label's rich text gives the span holding `words`."""
    spans = re.findall(r"<span style='color:(#[0-9A-Fa-f]{6})'>(.*?)</span>", label.text())
    found = [colour for colour, text in spans if words in text]
    assert found, label.text()
    return QColor(found[0])


def _background(widget: QWidget) -> QColor:
    """What the widget is drawn on: its most common pixel."""
    image = _grab(widget)
    pixels = Counter(image.pixel(x, y) for x in range(image.width()) for y in range(image.height()))
    return QColor.fromRgb(pixels.most_common(1)[0][0])


def test_errors_under_the_models_fields_read_on_the_dark_scheme(
    qtbot, qapp, tmp_path, look_back
):
    """Settings → Model said a bad address, plain http:// refused and a file that is no GGUF
    model in a fixed dark red: about 2.6:1 on the dark scheme's grey."""
    from app import theme
    from app.settings_dialog import SettingsDialog
    from app.settings_store import AppSettings

    theme.apply_look(qapp, "dark", theme.BASE_SIZE)
    dialog = SettingsDialog(AppSettings())
    qtbot.addWidget(dialog)
    dialog.show()
    qtbot.waitExposed(dialog)
    not_a_model = tmp_path / "notes.gguf"
    not_a_model.write_text("my shopping list\n" * 40)

    def reads(label: QWidget, words: str) -> None:
        qtbot.waitUntil(lambda: label.isVisible() and words in label.text(), timeout=5000)
        text, background = _colour_of(label, words), _background(label)
        assert contrast_ratio(text, background) >= 4.5, (words, text.name(), background.name())

    dialog.gguf.setChecked(True)
    dialog.gguf_path.setText(str(not_a_model))
    reads(dialog.gguf_info, "not a GGUF model")
    dialog.server.setChecked(True)
    dialog.server_url.setText("http://my server:8080")
    reads(dialog.url_note, "a space")
    dialog.server_url.setText("http://192.168.1.20:8080/v1")
    reads(dialog.url_note, "Plain http://")
    dialog.pool.wait(5000)


def test_an_embedding_folder_that_is_no_model_reads_on_the_dark_scheme(
    qtbot, qapp, tmp_path, look_back
):
    """Settings → Memory said why a folder is no embedding model in the same fixed dark red."""
    from app import theme
    from app.embedder_choice import EmbedderBox, app_embedder
    from app.workers import WorkerPool

    theme.apply_look(qapp, "dark", theme.BASE_SIZE)
    pool = WorkerPool()
    box = EmbedderBox(pool, app_embedder)
    qtbot.addWidget(box)
    box.show()
    box.folder.setChecked(True)
    with qtbot.waitSignal(box.described, timeout=10_000):
        box.path.setText(str(tmp_path / "no-such-model"))
    qtbot.waitUntil(lambda: box.info.isVisible())
    text, background = _colour_of(box.info, ""), _background(box.info)
    assert contrast_ratio(text, background) >= 4.5, (box.info.text(), background.name())
    pool.wait(5000)


@pytest.mark.real_models
def test_a_tiny_gguf_file_gets_the_tiny_model_banner(qtbot, memory, chat, tmp_path):
    """A copy of the bundled SmolLM2 chosen as a GGUF file got no banner, though the same model
    served by a server did: once it has loaded, its header's 135M parameters say it is tiny."""
    from app.main_window import MainWindow
    from app.session import READY
    from models.catalogue import bundled_gguf_path

    copy = tmp_path / "smol-copy.gguf"
    shutil.copyfile(bundled_gguf_path(), copy)
    window = MainWindow.for_memory(memory, chat)  # the app's own loader: llama.cpp
    qtbot.addWidget(window)
    window.show()
    banner = window.demo_banner
    window._settings_applied(
        dataclasses.replace(window.settings, model_source="gguf", gguf_path=str(copy)), True
    )
    qtbot.waitUntil(
        lambda: window.session.state == READY
        and str(getattr(window.session.mem.chat, "model_path", "")) == str(copy),
        timeout=60_000,
    )
    assert banner.isVisible()
    text = banner.text.text() + banner.text.toolTip()
    assert "smol-copy" in text and "135M parameters" in text and "demo model" not in text
    # closed for this file: it stays closed for it
    banner.close_button.click()
    assert not banner.isVisible()
    window.demo_banner.show_for(window.settings)
    assert not banner.isVisible()
    window.close()


def test_the_model_step_opens_with_a_usable_row_selected(qtbot, person):
    """The step opened with no row selected: "Use this model" stayed disabled until Down was
    pressed. A model on this computer is selected at once, and Enter uses it. (The LM Studio
    file is made to differ from the demo's: a copy of the demo is not offered as better.)"""
    from pathlib import Path

    from app.model_picker import FILES
    from app.workers import WorkerPool

    lm_studio = Path(person["gguf"])  # a link to the demo's file: replaced by a changed copy
    data = lm_studio.read_bytes()
    lm_studio.unlink()
    lm_studio.write_bytes(data + bytes(4096))
    pool = WorkerPool()
    dialog = shown_model_step(qtbot, pool, probe=False)
    picker = dialog.picker
    assert picker.table.currentItem() is not None
    assert picker.table.currentItem().text(0) == "SmolLM2-135M-Instruct-Q4_1"
    assert picker.table.currentItem() in picker.rows(FILES)
    qtbot.waitUntil(picker.use_button.isEnabled, timeout=10_000)
    picker.table.setFocus()
    with qtbot.waitSignal(dialog.chosen) as chosen:
        qtbot.keyClick(picker.table, Qt.Key.Key_Return)
    assert chosen.args[0].values["model_source"] == "gguf"
    assert chosen.args[0].values["gguf_path"] == person["gguf"]
    pool.wait(5000)


def test_the_model_step_with_only_the_demo_selects_it(qtbot, tmp_path, monkeypatch):
    """Nothing on this computer but the bundled demo: its row is selected, Use works."""
    from app.model_step import ModelStepDialog
    from app.workers import WorkerPool

    monkeypatch.setenv("HOME", str(tmp_path / "empty-home"))
    for name in ("XDG_DATA_HOME", "HF_HOME", "HF_HUB_CACHE", "OLLAMA_MODELS"):
        monkeypatch.delenv(name, raising=False)
    pool = WorkerPool()
    dialog = ModelStepDialog(pool, probe=False)
    qtbot.addWidget(dialog)
    dialog.show()
    picker = dialog.picker
    qtbot.waitUntil(lambda: picker.overview is not None, timeout=20_000)
    assert picker.selected() == ("bundled", None)
    assert picker.use_button.isEnabled()
    pool.wait(5000)


def test_up_and_down_in_the_model_step_step_over_the_headings(qtbot, person):
    """Down from the last file row stopped on the "Servers (OpenAI-compatible)" heading, with
    nothing selected and "Use this model" greyed; the keys now go from model row to model row."""
    from app.workers import WorkerPool

    pool = WorkerPool()
    dialog = shown_model_step(qtbot, pool, probe=False)
    picker = dialog.picker
    table = picker.table
    table.setFocus()
    selectable = Qt.ItemFlag.ItemIsSelectable
    visited = []
    for key in [Qt.Key.Key_Down] * 8 + [Qt.Key.Key_Up] * 8:
        qtbot.keyClick(table, key)
        current = table.currentItem()
        assert current is not None and current.flags() & selectable, current.text(0)
        visited.append(current.text(0))
    assert len(set(visited)) > 1  # it did move between model rows
    pool.wait(5000)


def test_the_servers_fields_sit_together(qtbot):
    """Settings → Model with a server: large gaps under the address's note and under the API
    key. Each note is as tall as its text; the rows follow each other."""
    from app.settings_dialog import SettingsDialog
    from app.settings_store import AppSettings

    dialog = SettingsDialog(AppSettings(model_source="openai", server_url="http://127.0.0.1:9/v1"))
    qtbot.addWidget(dialog)
    dialog.resize(960, 680)
    dialog.show()
    qtbot.waitExposed(dialog)
    tab = dialog.model_tab
    line = tab.url_note.fontMetrics().lineSpacing()
    fields = [tab.server_url, tab.url_note, tab.allow_plain_http, tab.server_model_box,
              tab.api_key, tab.key_note]  # fmt: skip

    def together() -> bool:
        shown = [field for field in fields if field.isVisible()]
        pairs = zip(shown, shown[1:], strict=False)
        gaps = [below.y() - above.geometry().bottom() for above, below in pairs]
        notes = (tab.url_note, tab.key_note)
        fitted = all(note.height() <= note.heightForWidth(note.width()) + 2 for note in notes)
        return fitted and max(gaps) <= line

    qtbot.waitUntil(together, timeout=5_000)
    assert tab.url_note.height() < 2 * line  # one line: "On this computer: nothing leaves it."
    # from the address to the API key: the rows between and their spacing, nothing more
    between = sum(field.height() for field in fields[1:4])
    assert tab.api_key.y() - tab.server_url.geometry().bottom() <= between + 4 * line
    dialog.reject()
    dialog.pool.wait(5000)


def test_the_colour_choice_is_as_wide_as_its_entries(qtbot):
    """Settings → Conversation: the Colours box stretched the whole width of the page."""
    from app.settings_dialog import SettingsDialog
    from app.settings_store import AppSettings

    dialog = SettingsDialog(AppSettings())
    qtbot.addWidget(dialog)
    dialog.resize(960, 680)
    dialog.show()
    page = next(
        dialog.tabs.widget(i) for i in range(dialog.tabs.count())
        if dialog.tabs.tabText(i) == "Conversation"
    )  # fmt: skip
    dialog.tabs.setCurrentWidget(page)
    qtbot.waitUntil(lambda: page.scheme.width() > 0)
    combo = page.scheme
    widest = max(
        combo.fontMetrics().horizontalAdvance(combo.itemText(i)) for i in range(combo.count())
    )
    assert widest < combo.width() <= combo.sizeHint().width()
    assert combo.width() < page.width() / 2
    dialog.reject()
    dialog.pool.wait(5000)
