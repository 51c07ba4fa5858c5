"""The memory inspector follows consolidation live, from the engine's own background thread."""

from __future__ import annotations

import pytest

pytestmark = pytest.mark.gui


@pytest.fixture
def live_window(qtbot, tmp_path, memory_keyring, embedder, chat):
    """A window on a vault whose consolidation runs in the engine's background thread."""
    from app.main_window import MainWindow
    from engine.api import MemoryOS
    from engine.settings import MemorySettings

    mem = MemoryOS.open(tmp_path / "live.memoryos", create=True, embedder=embedder, chat=chat,
                        settings=MemorySettings(stm_capacity=2, stm_evict_batch=2),
                        background=True)
    window = MainWindow.for_memory(mem, chat)
    qtbot.addWidget(window)
    window.show()
    yield window
    window.close()
    mem.close()


def test_inspector_shows_the_tiers_and_updates_as_consolidation_runs(qtbot, live_window):
    mem = live_window.session.mem
    inspector = live_window.open_inspector()
    qtbot.waitSignal(inspector.refreshed).wait()
    assert inspector.short_box.currentWidget() is inspector.short_box.placeholder
    assert inspector.segment_box.currentWidget() is inspector.segment_box.placeholder

    said = [
        "I'm Tom and I work as a data scientist in San Francisco.",
        "I love hiking in Marin on weekends.",
        "My sister Anna is getting married in Lisbon.",
        "I am learning Portuguese for the wedding.",
        "I'm allergic to peanuts.",
    ]
    for text in said:
        mem.add_memory(text, "Noted.")  # no refresh call: the panel must follow the events

    qtbot.waitUntil(lambda: inspector.segment_tree.topLevelItemCount() >= 1, timeout=10_000)
    qtbot.waitUntil(lambda: inspector.fact_tree.topLevelItemCount() >= 3, timeout=10_000)
    assert mem.wait_idle(10)
    qtbot.waitUntil(lambda: inspector.short_tree.topLevelItemCount() == len(mem.short_term()))
    assert inspector.tabs.tabText(0).startswith("Short-term (")

    inspector.tabs.setCurrentIndex(1)
    first = inspector.segment_tree.topLevelItem(0)
    first.setSelected(True)
    qtbot.waitUntil(lambda: "Heat" in inspector.segment_detail.toPlainText())
    detail = inspector.segment_detail.toPlainText()
    assert "visits" in detail and "recency" in detail
    segment_pages = mem.segment_pages(first.data(0, 256))
    assert segment_pages and segment_pages[0].user_input in detail
    # Heat order: hottest first, as the engine ranks them.
    heats = [float(inspector.segment_tree.topLevelItem(i).text(0))
             for i in range(inspector.segment_tree.topLevelItemCount())]
    assert heats == sorted(heats, reverse=True)


def test_the_status_line_reports_memory_activity(qtbot, live_window):
    mem = live_window.session.mem
    mem.add_memory("I'm Tom.", "Hi Tom.")
    assert mem.wait_idle(10)
    qtbot.waitUntil(lambda: "1 recent" in live_window.status.memory.text()
                    and "up to date" in live_window.status.memory.text(), timeout=5000)


def test_quitting_while_consolidation_runs_is_clean(qtbot, live_window):
    from engine.api import MemoryOS
    from engine.backends.fake import HashEmbedder

    mem = live_window.session.mem
    for index in range(12):
        mem.add_memory(f"I like topic number {index}.", "Noted.")
    live_window.close()  # consolidation is most likely still running

    assert live_window.session is None
    with MemoryOS.open(mem.path, embedder=HashEmbedder(), background=False) as again:
        assert len(again.pages(limit=100)) == 12  # nothing lost
        again.run_consolidation()  # whatever was left resumes
        assert again.consolidation_status().pending_jobs == 0


def test_a_facts_status_reads_in_words_and_is_explained(qtbot, window, memory):
    """The Status column showed "candidate" and "active", with nothing saying what they meant."""
    memory.add_memory("I work as a data scientist in San Francisco.", "Nice field.")
    memory.run_consolidation()
    memory.add_fact("I am allergic to peanuts")
    inspector = window.open_inspector()
    qtbot.waitUntil(lambda: inspector.fact_tree.topLevelItemCount() == 2)

    rows = [inspector.fact_tree.topLevelItem(i) for i in range(2)]
    status = {row.text(1): row.text(2) for row in rows}
    assert status == {"I work as a data scientist in San Francisco.": "As you said it",
                      "I am allergic to peanuts": "Written by you"}
    said = next(row for row in rows if row.text(2) == "As you said it")
    assert "word for word" in said.toolTip(2) and "model" in said.toolTip(2)
    legend = inspector.status_legend.text()
    assert "“As you said it”" in legend and "replaces it" in legend
    assert "word for word" in inspector.fact_tree.headerItem().toolTip(2)


def test_the_profile_table_shows_an_entrys_name_and_value_apart(qtbot, window, memory):
    """Entries filed under their whole line ("cat: Miso") showed it in both columns."""
    memory.add_memory("My cat Miso died last week. I speak Dutch.", "I'm so sorry about Miso.")
    memory.add_memory("I live in Ghent.", "Lovely city.")
    memory.run_consolidation()
    inspector = window.open_inspector()
    qtbot.waitUntil(lambda: inspector.profile_tree.topLevelItemCount() >= 3)
    rows = {
        (row.text(0), row.text(1), row.text(2))
        for row in (inspector.profile_tree.topLevelItem(i)
                    for i in range(inspector.profile_tree.topLevelItemCount()))
    }
    assert {("pets", "cat", "Miso (died)"), ("identity", "speaks", "Dutch"),
            ("identity", "location", "Ghent")} <= rows
