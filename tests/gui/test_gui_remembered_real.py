"""The Remembered list and a Learned notice with the real bundled SmolLM2 answering."""

from __future__ import annotations

import pytest

from engine import answer as answer_module

pytestmark = [pytest.mark.gui, pytest.mark.real_models, pytest.mark.slow]


def test_with_the_bundled_model_the_list_is_the_prompt_and_learning_is_announced(
    qtbot, memory, send, monkeypatch
):
    from app.main_window import MainWindow
    from app.session import READY

    received = []
    original = answer_module.build_messages
    monkeypatch.setattr(
        answer_module, "build_messages", lambda r, q, *a, **k: received.append(r) or original(r, q, *a, **k)
    )
    fact = memory.add_fact("I am allergic to peanuts")
    memory.set_chat(None)
    window = MainWindow.for_memory(memory)
    qtbot.addWidget(window)
    window.show()
    window.settings.max_tokens = 32
    window.session.load_model()
    qtbot.waitUntil(lambda: window.session.state == READY, timeout=120_000)

    answer = send(window, "I live in Porto. What am I allergic to?", timeout=180_000)

    assert not isinstance(answer, Exception), answer
    (retrieval,) = received
    expected = [("fact", f.fact.id) for f in retrieval.facts]
    assert [i.key for i in answer.memories] == expected == [("fact", fact.id)]
    assert "Used 1 memory: 1 fact" in window.view.plain_text()

    with qtbot.waitSignal(window.learned_notices.checked, timeout=10_000):
        memory.run_consolidation()
    learned = [i.text for i in window.view.learned_items()]
    assert "I live in Porto." in learned
    assert "Learned: I live in Porto." in window.view.plain_text()
    window.close()
