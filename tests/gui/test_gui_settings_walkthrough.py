"""Settings, from a new person's walkthrough: a file that is no model is refused once, under its
field, in words that fit where the file came from, and the refusal goes once the choice changes;
the Models table reads whole at the dialog's default size and at the largest text."""

from __future__ import annotations

import pytest
from PySide6.QtWidgets import QLabel

from tests.gui_steps import settings_on_models_page

pytestmark = pytest.mark.gui

NOT_GGUF = "not a GGUF model: its contents do not start as a GGUF file does (it may be damaged"


@pytest.fixture
def dialog(qtbot):
    """The settings dialog on the bundled model, without a vault, on screen; what it applied is
    kept in `applied_args`."""
    from app.settings_dialog import SettingsDialog
    from app.settings_store import AppSettings

    shown = SettingsDialog(AppSettings())
    qtbot.addWidget(shown)
    shown.applied_args = []
    shown.applied.connect(lambda *args: shown.applied_args.append(args))
    shown.show()
    qtbot.waitExposed(shown)
    yield shown
    shown.pool.wait(5000)


def refusals(dialog, words: str) -> list[QLabel]:
    """The labels on screen that say `words`: what a person sees of a refusal."""
    return [label for label in dialog.findChildren(QLabel)
            if label.isVisible() and words in label.text()]


def test_a_file_that_is_no_model_is_refused_once_and_the_refusal_goes_with_the_choice(
    qtbot, dialog, tmp_path
):
    from models.catalogue import bundled_gguf_path

    notes = tmp_path / "notes.gguf"
    notes.write_text("Shopping list: eggs, milk\n" * 20, encoding="utf-8")
    dialog.gguf.setChecked(True)
    dialog.gguf_path.setText(str(notes))
    qtbot.waitUntil(lambda: bool(refusals(dialog, NOT_GGUF)), timeout=5000)
    assert refusals(dialog, NOT_GGUF) == [dialog.gguf_info]
    assert "download" not in dialog.gguf_info.text().lower()  # the person never downloaded it
    dialog.tabs.setCurrentIndex(2)  # Save pressed from another tab
    dialog.save()
    assert dialog.isVisible() and dialog.applied_args == []
    # one refusal, under the field, which has the focus; nothing said again at the bottom
    assert refusals(dialog, NOT_GGUF) == [dialog.gguf_info]
    assert not dialog.error.isVisible()
    assert dialog.tabs.currentIndex() == 0 and dialog.focusWidget() is dialog.gguf_path
    # another choice: the refusal is gone from every tab, and Save works
    dialog.bundled.setChecked(True)
    for tab in range(dialog.tabs.count()):
        dialog.tabs.setCurrentIndex(tab)
        assert not refusals(dialog, "GGUF model") and not dialog.error.isVisible()
    # back to the file: still refused; edited, the refusal goes at once, before it is read
    dialog.tabs.setCurrentIndex(0)
    dialog.gguf.setChecked(True)
    assert refusals(dialog, NOT_GGUF) == [dialog.gguf_info]
    dialog.gguf_path.setText(str(bundled_gguf_path()))
    assert not refusals(dialog, NOT_GGUF)
    qtbot.waitUntil(lambda: "Q4_1" in dialog.gguf_info.text(), timeout=5000)
    dialog.bundled.setChecked(True)
    dialog.save()
    assert dialog.applied_args and not dialog.isVisible()


def test_download_it_again_is_said_only_of_a_file_the_app_downloaded(qtbot, dialog, tmp_path):
    """A cut or wrong file the person brought is not one MemoryOS can fetch again; one in its
    own downloads folder is."""
    from app.theme import ERROR_RED, color
    from models.catalogue import bundled_gguf_path
    from models.download import downloads_dir

    def said(path) -> str:
        dialog.gguf_path.setText(str(path))
        qtbot.waitUntil(lambda: color(ERROR_RED) in dialog.gguf_info.text(), timeout=5000)
        return dialog.gguf_info.text()

    with open(bundled_gguf_path(), "rb") as whole:
        start = whole.read(3_000_000)  # a whole header, most weights missing
    downloads_dir().mkdir(parents=True)
    cut_here, cut_elsewhere = downloads_dir() / "Cut-Q4_1.gguf", tmp_path / "Cut-Q4_1.gguf"
    for cut in (cut_here, cut_elsewhere):
        cut.write_bytes(start)
    page = downloads_dir() / "Qwen2.5-1.5B-Instruct-Q4_K_M.gguf"
    page.write_bytes(b"<html>502 Bad Gateway</html>" * 40)  # what a proxy sent instead
    dialog.gguf.setChecked(True)
    text = said(cut_elsewhere)
    assert "incomplete" in text and "download" not in text.lower()
    text = said(cut_here)
    assert "incomplete" in text and "download it again" in text.lower()
    text = said(page)
    assert "not a GGUF model" in text and "download it again" in text.lower()
    dialog.tabs.setCurrentIndex(1)
    dialog.save()  # refused, said once, under the field
    assert dialog.applied_args == [] and not dialog.error.isVisible()
    assert refusals(dialog, "not a GGUF model") == [dialog.gguf_info]


def test_a_model_refusal_at_the_bottom_goes_when_the_choice_changes(dialog):
    dialog.server.setChecked(True)
    dialog.server_url.setText("http://127.0.0.1:9/v1")
    dialog.save()  # no model name
    assert dialog.error.isVisible() and dialog.applied_args == []
    dialog.server_model.setText("llama3.1:8b")
    assert not dialog.error.isVisible()
    dialog.server_model.setText("")
    dialog.save()
    assert dialog.error.isVisible()
    dialog.bundled.setChecked(True)
    assert not dialog.error.isVisible()


@pytest.fixture
def larger_text(qapp):
    """Ctrl+= four times; the normal size again after the test."""
    from app import theme

    theme.apply_look(qapp, "light", theme.BASE_SIZE + 4)
    yield
    theme.apply_look(qapp, "light", theme.BASE_SIZE)


def _models_table(qtbot):
    from app.model_picker import GROUP_TITLES

    dialog = settings_on_models_page(qtbot)
    picker = dialog.models_page.picker
    rows = [row for group in GROUP_TITLES for row in picker.rows(group)]
    return dialog, picker.table, rows


def _read_whole(qtbot, cell_cut, names_on_one_line: bool) -> None:
    dialog, table, rows = _models_table(qtbot)
    assert {row.text(1) for row in rows} >= {"Built in", "LM Studio", "Download"}
    assert any("port" in row.text(1) for row in rows)  # the server's row
    cut = [cell_cut(table, row, column) for row in rows for column in range(4)
           if column == 0 or not row.isFirstColumnSpanned()]
    assert not any(cut), [why for why in cut if why]
    if names_on_one_line:
        names = [cell_cut(table, row, 0, one_line=True) for row in rows]
        assert not any(names), [why for why in names if why]
    header = table.header()
    assert header.sectionViewportPosition(3) + header.sectionSize(3) <= table.viewport().width()
    assert not table.horizontalScrollBar().isVisible()
    dialog.reject()
    dialog.pool.wait(5000)


def test_the_models_table_reads_whole_at_the_dialogs_default_size(qtbot, person, cell_cut):
    """"SmolLM2-135M Instruct (b…", "llama · …", "1.1 GB ·…": every name whole on its line,
    the other columns whole (on more lines where they need them), the verdict on screen."""
    _read_whole(qtbot, cell_cut, names_on_one_line=True)


def test_the_models_table_reads_whole_at_the_largest_text(
    qtbot, person, larger_text, cell_cut, laptop_screen
):
    _read_whole(qtbot, cell_cut, names_on_one_line=False)
