"""Settings → Memory, from a walkthrough: a shorter retention asks before it forgets, Reset keeps
the retention choice and never becomes the Enter button, the wheel scrolls the page instead of
changing the field under the pointer, and settings that contradict each other are not saved."""

from __future__ import annotations

import time

import pytest
from PySide6.QtCore import QPoint, QPointF, Qt
from PySide6.QtWidgets import QApplication, QDialogButtonBox, QMessageBox

pytestmark = pytest.mark.gui

DAY = 86400.0


@pytest.fixture
def settings_of(qtbot, window):
    """The Settings dialog of `window`, on its Memory tab."""

    def opened():
        dialog = window.open_settings()
        qtbot.waitExposed(dialog)
        dialog.activateWindow()  # the keyboard goes to it, as on a desktop
        qtbot.waitUntil(dialog.isActiveWindow, timeout=3000)
        dialog.tabs.setCurrentWidget(dialog.memory_scroll)
        return dialog

    return opened


def _old_exchanges(memory, days: float, texts: list[str]) -> None:
    for text in texts:
        memory.add_memory(text, "Noted.", timestamp=time.time() - days * DAY)


def test_a_shorter_retention_asks_first_and_cancel_keeps_everything(qtbot, memory, settings_of):
    _old_exchanges(memory, 10, ["I keep bees on the roof.", "My sister lives in Lyon."])
    memory.add_memory("What time is it?", "Noon.")  # today's: not concerned
    dialog = settings_of()
    retention = dialog.memory_form.inputs["retention_days"]
    retention.setValue(1)
    dialog.save()
    qtbot.waitUntil(lambda: dialog.retention_box is not None and dialog.retention_box.isVisible(),
                    timeout=5000)
    box = dialog.retention_box
    assert "2 exchanges" in box.text() and "older than 1 day" in box.text()
    assert box.defaultButton() is box.button(QMessageBox.StandardButton.Cancel)
    box.button(QMessageBox.StandardButton.Cancel).click()
    assert dialog.isVisible() and retention.text() == "Never"  # the old value is back
    assert "Not saved" in dialog.error.text() and dialog.error.isVisible()
    assert memory.settings.retention_days == 0 and memory.info().pages == 3
    # asked again, and this time the person agrees: saved
    retention.setValue(5)
    dialog.save()
    qtbot.waitUntil(lambda: dialog.retention_box is not box and dialog.retention_box.isVisible(),
                    timeout=5000)
    assert "older than 5 days" in dialog.retention_box.text()
    forget = next(b for b in dialog.retention_box.buttons() if b.text().startswith("Forget"))
    forget.click()
    qtbot.waitUntil(lambda: memory.settings.retention_days == 5, timeout=5000)
    assert not dialog.isVisible()


def test_the_question_counts_what_is_learned_only_from_them_when_that_goes_too(
    qtbot, memory, settings_of
):
    _old_exchanges(memory, 40, ["I work as a data scientist in San Francisco."])
    memory.run_consolidation()
    learned = [fact.text for fact in memory.facts()]
    assert any("data scientist" in text for text in learned)
    dialog = settings_of()
    dialog.memory_form.inputs["retention_days"].setValue(30)
    dialog.memory_form.inputs["retention_keeps_facts"].setChecked(False)
    dialog.save()
    qtbot.waitUntil(lambda: dialog.retention_box is not None and dialog.retention_box.isVisible(),
                    timeout=5000)
    text = dialog.retention_box.text()
    assert text.startswith("1 exchange (and ") and "learned only from it" in text
    assert "older than 30 days" in text
    dialog.retention_box.button(QMessageBox.StandardButton.Cancel).click()
    assert dialog.memory_form.inputs["retention_keeps_facts"].isChecked()  # back as it was
    dialog.reject()


def test_a_retention_that_forgets_nothing_now_is_saved_without_a_question(
    qtbot, memory, settings_of
):
    _old_exchanges(memory, 3, ["I like tea."])
    dialog = settings_of()
    dialog.memory_form.inputs["retention_days"].setValue(30)
    with qtbot.waitSignal(dialog.accepted, timeout=5000):
        dialog.save()
    qtbot.waitUntil(lambda: memory.settings.retention_days == 30, timeout=5000)
    assert dialog.retention_box is None


def test_reset_keeps_the_retention_choice_and_says_so(qtbot, memory, settings_of):
    from engine.settings import MemorySettings

    memory.update_settings(MemorySettings(retention_days=30, retention_keeps_facts=False,
                                          mtm_capacity=17))
    dialog = settings_of()
    form = dialog.memory_form
    qtbot.mouseClick(dialog.reset_button, Qt.MouseButton.LeftButton)
    settings = form.settings()
    assert settings.mtm_capacity == 200  # the paper's
    assert (settings.retention_days, settings.retention_keeps_facts) == (30, False)  # theirs
    assert dialog.reset_note.isVisible() and "30 days" in dialog.reset_note.text()
    dialog.reject()


def test_after_reset_enter_saves_and_reset_keeps_its_look_and_label(qtbot, memory, settings_of):
    dialog = settings_of()
    reset = dialog.reset_button
    save = dialog.findChild(QDialogButtonBox).button(QDialogButtonBox.StandardButton.Save)
    dialog.memory_form.inputs["mtm_capacity"].setValue(17)
    qtbot.mouseClick(reset, Qt.MouseButton.LeftButton)
    assert not reset.isDefault() and save.isDefault()
    assert reset.width() >= reset.sizeHint().width()  # "Reset to the paper's defaults" in full
    dialog.memory_form.inputs["mtm_capacity"].setValue(42)
    focus = QApplication.focusWidget() or reset
    assert focus is reset
    with qtbot.waitSignal(dialog.accepted, timeout=5000):
        qtbot.keyClick(focus, Qt.Key.Key_Return)
    qtbot.waitUntil(lambda: memory.settings.mtm_capacity == 42, timeout=5000)  # not reset


def _wheel(dialog, widget, steps: int = -3) -> None:
    """Turn the mouse wheel over `widget` (negative: towards the person, scrolling down), as
    the system does: the event goes to the window, and on to the widget under the pointer."""
    from PySide6.QtTest import QTest

    where = widget.mapTo(dialog, widget.rect().center())
    QTest.wheelEvent(dialog.windowHandle(), QPointF(where), QPoint(0, 120 * steps))
    QApplication.processEvents()


def test_the_wheel_scrolls_the_page_not_the_field_under_the_pointer(qtbot, settings_of):
    dialog = settings_of()
    capacity = dialog.memory_form.inputs["stm_capacity"]
    choice = dialog.memory_form.inputs["llm_consolidation"]
    bar = dialog.memory_scroll.verticalScrollBar()
    qtbot.waitUntil(lambda: bar.maximum() > 0, timeout=3000)
    before = capacity.value()
    _wheel(dialog, capacity)
    assert capacity.value() == before
    assert bar.value() > 0  # the page scrolled instead
    _wheel(dialog, choice)
    assert choice.currentText() == "auto"
    # a field the person is typing in takes the wheel, as usual
    bar.setValue(0)
    capacity.setFocus()
    qtbot.waitUntil(capacity.hasFocus, timeout=2000)
    _wheel(dialog, capacity, steps=-1)
    assert capacity.value() == before - 1
    dialog.reject()


def test_a_batch_larger_than_the_capacity_is_refused_beside_the_field(qtbot, memory, settings_of):
    dialog = settings_of()
    form = dialog.memory_form
    form.inputs["stm_capacity"].setValue(3)
    form.inputs["stm_evict_batch"].setValue(50)
    form.inputs["heat_alpha"].setValue(2.5)
    dialog.save()
    assert dialog.isVisible() and "Not saved" in dialog.error.text()
    problem = form.problems["stm_evict_batch"]
    assert problem.isVisible() and "capacity (3)" in problem.text()
    assert not form.problems["stm_capacity"].isVisible()
    assert dialog.focusWidget() is form.inputs["stm_evict_batch"]
    # nothing typed is lost, nothing saved
    assert (form.inputs["stm_capacity"].value(), form.inputs["stm_evict_batch"].value()) == (3, 50)
    assert form.inputs["heat_alpha"].value() == 2.5
    assert memory.settings.stm_evict_batch == 5
    form.inputs["stm_evict_batch"].setValue(2)
    with qtbot.waitSignal(dialog.accepted, timeout=5000):
        dialog.save()
    qtbot.waitUntil(lambda: memory.settings.stm_evict_batch == 2, timeout=5000)
    assert memory.settings.heat_alpha == 2.5


def test_heat_weights_that_can_never_reach_the_threshold_are_refused(qtbot, settings_of):
    dialog = settings_of()
    form = dialog.memory_form
    for name in ("heat_alpha", "heat_beta", "heat_gamma"):
        form.inputs[name].setValue(0)
    dialog.save()
    assert dialog.isVisible() and form.problems["heat_threshold"].isVisible()
    form.inputs["heat_threshold"].setValue(0)
    with qtbot.waitSignal(dialog.accepted, timeout=5000):
        dialog.save()


def test_units_read_one_day_not_one_days(qtbot, settings_of):
    from app.policy_lock import policy_note
    from engine.policy import Policy

    dialog = settings_of()
    retention = dialog.memory_form.inputs["retention_days"]
    retention.setValue(1)
    assert retention.text() == "1 day"
    retention.setValue(2)
    assert retention.text() == "2 days"
    note = policy_note(Policy(retention_days=1, auto_lock_minutes=1, source="test"))
    assert "older than 1 day " in note.text() and "after 1 idle minute " in note.text()
    dialog.reject()
