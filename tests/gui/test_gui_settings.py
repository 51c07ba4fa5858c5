"""The settings dialog: values persist across a restart, paper defaults, validation."""

from __future__ import annotations

import pytest

pytestmark = pytest.mark.gui


@pytest.fixture
def loads():
    """A chat factory that records what it was asked to load and returns a FakeChat."""
    from engine.backends.fake import FakeChat

    asked: list = []

    def factory(settings, progress=None):
        asked.append(settings)
        if progress:
            progress(1.0, "ready")
        return FakeChat(model_id=f"fake/ctx-{settings.context_size}")

    factory.asked = asked
    return factory


def test_settings_survive_a_restart(qtbot, memory, chat, loads):
    from app.main_window import MainWindow
    from app.session import READY
    from app.settings_dialog import SettingsDialog
    from app.settings_store import load_settings
    from engine.api import MemoryOS
    from engine.backends.fake import HashEmbedder

    window = MainWindow.for_memory(memory, chat, chat_factory=loads)
    qtbot.addWidget(window)
    dialog = window.open_settings()
    dialog.context_size.setValue(8192)
    dialog.threads.setValue(2)
    dialog.max_tokens.setValue(256)
    dialog.memory_form.inputs["stm_capacity"].setValue(5)
    dialog.memory_form.inputs["heat_threshold"].setValue(3.5)
    dialog.save()

    qtbot.waitUntil(lambda: memory.settings.stm_capacity == 5)
    qtbot.waitUntil(lambda: window.session.state == READY and bool(loads.asked))
    assert loads.asked[-1].context_size == 8192  # the model was reloaded with the new context
    assert memory.chat.model_id == "fake/ctx-8192"
    window.close()

    settings = load_settings()  # a new start reads the file again
    assert (settings.context_size, settings.threads, settings.max_tokens) == (8192, 2, 256)
    with MemoryOS.open(memory.path, embedder=HashEmbedder(), background=False) as again:
        assert again.settings.stm_capacity == 5
        assert again.settings.heat_threshold == 3.5
        fresh = MainWindow.for_memory(again, chat, settings=settings, chat_factory=loads)
        qtbot.addWidget(fresh)
        shown = SettingsDialog(settings, fresh.session, fresh)
        assert shown.context_size.value() == 8192
        assert shown.memory_form.inputs["stm_capacity"].value() == 5
        shown.reject()
        fresh.close()


def test_reset_restores_the_paper_defaults(qtbot, window):
    dialog = window.open_settings()
    form = dialog.memory_form
    form.inputs["mtm_capacity"].setValue(17)
    form.inputs["heat_alpha"].setValue(4.0)
    form.reset()
    settings = form.settings()
    assert settings.mtm_capacity == 200 and settings.heat_alpha == 1.0
    # 0.4: the paper's 0.6 is on plain cos; ours drops what all pages share (settings.py)
    assert settings.heat_mu_seconds == 1e7 and settings.segment_threshold == 0.4
    dialog.reject()


def test_every_memory_setting_has_an_input(qtbot, window):
    from dataclasses import fields

    from engine.settings import MemorySettings

    dialog = window.open_settings()
    assert set(dialog.memory_form.inputs) == {f.name for f in fields(MemorySettings)}
    assert dialog.memory_form.settings() == window.session.mem.settings
    dialog.reject()


def test_a_gguf_source_without_a_file_is_refused(qtbot, window):
    dialog = window.open_settings()
    applied: list = []
    dialog.applied.connect(lambda *args: applied.append(args))
    dialog.gguf.setChecked(True)
    assert dialog.gguf_box.isVisible() and not dialog.server_box.isVisible()
    dialog.save()
    assert dialog.isVisible() and applied == []
    assert "GGUF file" in dialog.error.text()
    dialog.reject()


def test_settings_file_is_written_atomically_and_survives_damage(tmp_path):
    from app.settings_store import AppSettings, load_settings, save_settings

    path = tmp_path / "settings.json"
    save_settings(AppSettings(context_size=1024, model_source="gguf"), path)
    assert load_settings(path).context_size == 1024
    assert [p.name for p in tmp_path.iterdir()] == ["settings.json"]  # no temp file left
    path.write_text("{not json", encoding="utf-8")
    assert load_settings(path) == AppSettings()
    path.write_text('{"context_size": "lots", "model_source": "nonsense", "x": 1}', encoding="utf-8")
    assert load_settings(path) == AppSettings()


def test_a_chosen_gguf_file_shows_its_metadata(qtbot, window):
    from models.catalogue import bundled_gguf_path

    dialog = window.open_settings()
    dialog.gguf.setChecked(True)
    dialog.gguf_path.setText(str(bundled_gguf_path()))
    qtbot.waitUntil(lambda: "Q4_1" in dialog.gguf_info.text(), timeout=5000)
    assert "llama" in dialog.gguf_info.text().lower()
    assert "context" in dialog.gguf_info.text()
    dialog.gguf_path.setText(str(window.session.mem.path))  # not a GGUF file
    qtbot.waitUntil(lambda: "not a GGUF" in dialog.gguf_info.text(), timeout=5000)
    dialog.reject()


def test_gpu_offload_support_is_stated(qtbot, window):
    from models.machine import gpu_offload_supported

    dialog = window.open_settings()
    qtbot.waitUntil(lambda: "Checking" not in dialog.gpu_note.text(), timeout=10_000)
    if gpu_offload_supported():
        assert "can offload" in dialog.gpu_note.text()
    else:
        assert "no GPU support" in dialog.gpu_note.text()
        assert not dialog.gpu_layers.isEnabled()
    dialog.reject()


def test_save_and_cancel_carry_no_desktop_icons(qtbot):
    """Where the desktop's style puts icons on dialog buttons (a floppy disk on Save, a red
    cross on Cancel), the app's buttons stay text only, like every other button in it."""
    from PySide6.QtWidgets import QDialogButtonBox, QProxyStyle, QStyle

    from app.settings_dialog import SettingsDialog
    from app.settings_store import AppSettings

    hint = QStyle.StyleHint.SH_DialogButtonBox_ButtonsHaveIcons

    class IconsOnButtons(QProxyStyle):  # what a GNOME/KDE platform theme answers
        def styleHint(self, asked, option=None, widget=None, data=None):  # noqa: N802
            return 1 if asked == hint else super().styleHint(asked, option, widget, data)

    desktop = IconsOnButtons("Fusion")  # kept alive here: the widgets do not own it
    dialog = SettingsDialog(AppSettings())
    qtbot.addWidget(dialog)
    box = dialog.findChild(QDialogButtonBox)
    box.setStyle(desktop)  # under the app's style sheet, as the desktop's style would be
    assert desktop.styleHint(hint) == 1
    assert box.style().styleHint(hint, None, box) == 0
    save = box.button(QDialogButtonBox.StandardButton.Save)
    assert save.text() == "Save" and save.icon().isNull()
    box.setStyle(None)


def test_lock_when_idle_has_its_own_group_not_the_local_model_one(qtbot):
    from PySide6.QtWidgets import QGroupBox

    from app.settings_dialog import SettingsDialog
    from app.settings_store import AppSettings

    dialog = SettingsDialog(AppSettings(auto_lock_minutes=15))
    qtbot.addWidget(dialog)
    group = dialog.auto_lock.parentWidget()
    while not isinstance(group, QGroupBox):
        group = group.parentWidget()
    assert group.title() == "When you step away"
    running = next(g for g in dialog.findChildren(QGroupBox) if g.title() == "Running a local model")
    assert not running.isAncestorOf(dialog.auto_lock)
    assert dialog.auto_lock.value() == 15


def test_model_rows_never_overlap_whatever_the_source(qtbot):
    """With a server's fields shown, the Model tab scrolls instead of squeezing the GPU note
    into the GPU layers field."""
    from app.settings_dialog import SettingsDialog
    from app.settings_store import AppSettings

    dialog = SettingsDialog(AppSettings())
    qtbot.addWidget(dialog)
    dialog.show()
    qtbot.waitExposed(dialog)
    qtbot.waitUntil(lambda: "Checking" not in dialog.gpu_note.text(), timeout=10_000)
    note = dialog.gpu_note

    def laid_out_apart() -> bool:
        return (
            note.geometry().top() >= dialog.gpu_layers.geometry().bottom()
            and note.height() >= note.heightForWidth(note.width())
        )

    for source in (dialog.gguf, dialog.server):
        source.setChecked(True)
        qtbot.waitUntil(laid_out_apart, timeout=3000)  # the layout runs on the next events


def test_durations_show_in_hours_and_days_and_save_exactly(qtbot, window):
    dialog = window.open_settings()
    form = dialog.memory_form
    form.set_settings(window.session.mem.settings)
    pause, mu = form.inputs["chain_max_gap_seconds"], form.inputs["heat_mu_seconds"]
    assert (pause.value(), pause.suffix()) == (6.0, " h")
    assert (round(mu.value(), 1), mu.suffix()) == (115.7, " days")
    assert form.settings().heat_mu_seconds == 1e7  # shown rounded, saved as it was
    pause.setValue(1.5)
    mu.setValue(30)
    changed = form.settings()
    assert changed.chain_max_gap_seconds == 5400 and changed.heat_mu_seconds == 30 * 86400
    dialog.reject()


def test_memory_form_reads_plainly_for_a_newcomer(qtbot, window):
    """0 days reads "Never", not "forget at once"; hovering a label explains it as its input
    does (α, β, γ, μ mean nothing without)."""
    from PySide6.QtWidgets import QLabel

    dialog = window.open_settings()
    form = dialog.memory_form
    form.set_settings(window.session.mem.settings)
    retention = form.inputs["retention_days"]
    assert retention.value() == 0 and retention.text() == "Never"
    assert form.inputs["retention_keeps_facts"].text() == "Yes"
    labels = {label.text(): label for label in form.findChildren(QLabel)}
    assert "how often a topic is recalled" in labels["α (visits)"].toolTip()
    assert labels["α (visits)"].toolTip() == form.inputs["heat_alpha"].toolTip()
    dialog.reject()
