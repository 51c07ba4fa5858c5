"""The real bundled SmolLM2 model, loaded and answering through the desktop window."""

from __future__ import annotations

import pytest

pytestmark = [pytest.mark.gui, pytest.mark.real_models]


def test_the_bundled_model_answers_through_the_window(qtbot, memory, send):
    from app.main_window import MainWindow
    from app.session import LOADING, READY

    memory.set_chat(None)  # no fake: the window loads the bundled model the way the app does
    window = MainWindow.for_memory(memory)
    qtbot.addWidget(window)
    window.show()
    window.settings.max_tokens = 48
    window.session.load_model()
    assert window.session.state == LOADING
    assert not window.composer.send_button.isEnabled()  # nothing to answer with yet
    qtbot.waitUntil(lambda: window.session.state == READY, timeout=120_000)
    assert "SmolLM2" in window.status.model.text()

    answer = send(window, "Hello! My name is Tom and I like spicy ramen.", timeout=180_000)

    assert not isinstance(answer, Exception), answer
    assert answer.text.strip()
    (page,) = memory.pages()
    assert page.user_input == "Hello! My name is Tom and I like spicy ramen."
    assert page.agent_response == answer.text.strip()
    assert memory.chat.usage.generate_calls == 1
    window.close()


@pytest.mark.slow  # a child process imports torch and loads MiniLM
def test_the_embedder_helper_process_gives_the_bundled_vectors():
    import numpy as np

    from app.embedder_process import ProcessEmbedder
    from engine.backends.embedder import SentenceTransformerEmbedder

    helper = ProcessEmbedder()
    reference = SentenceTransformerEmbedder()
    assert (helper.model_id, helper.dimension) == (reference.model_id, reference.dimension)
    texts = ["I work as a data scientist in San Francisco.", "spicy ramen"]
    try:
        vectors = helper.embed(texts, kind="query")
        assert helper.loaded
        assert vectors.shape == (2, reference.dimension) and vectors.dtype == np.float32
        assert np.allclose(vectors, reference.embed(texts, kind="query"), atol=1e-5)
    finally:
        helper.close()
    assert not helper.loaded


def test_the_whole_app_from_first_run_to_an_answer(qtbot, fail_keyring, send):
    """The app as `memoryos` starts it: passphrase vault, embedder helper process, bundled model."""
    from PySide6.QtCore import Qt

    from app.desktop import build
    from app.session import READY

    window, opener = build()
    qtbot.addWidget(window)
    window.settings.max_tokens = 32
    window.show()
    with qtbot.waitSignal(opener.dialog_shown, timeout=30_000) as shown:
        opener.start()
    dialog = shown.args[0]
    qtbot.keyClicks(dialog.passphrase, "a long passphrase")
    qtbot.keyClicks(dialog.confirm, "a long passphrase")
    with qtbot.waitSignal(window.session_attached, timeout=60_000):
        qtbot.mouseClick(dialog.create_button, Qt.MouseButton.LeftButton)
    qtbot.waitUntil(lambda: window.session.state == READY, timeout=120_000)
    assert "passphrase" in window.status.vault.text()

    answer = send(window, "I'm Tom, I work as a data scientist in San Francisco.", timeout=300_000)

    assert not isinstance(answer, Exception), answer
    mem = window.session.mem
    assert mem.embedder.loaded  # the helper process embedded the exchange
    assert mem.pages()[0].user_input.startswith("I'm Tom")
    retrieval = mem.retrieve("What is my job?")
    assert any("data scientist" in page.text() for page in retrieval.ranked_pages())
    window.close()
    assert not mem.embedder.loaded  # quitting stopped the helper process
