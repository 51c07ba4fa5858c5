"""An answer cut at the length limit is stored as such: the exchange keeps why it ends
mid-sentence, so a conversation opened again can say so under it."""

from __future__ import annotations

import pytest

from engine import errors


def _answer(path, reply, finish_reason, context_window=8192, create=False):
    """One answer from a local OpenAI-compatible server, in the encrypted vault at `path`
    (opened with its passphrase, closed after); the stored exchange's id."""
    from engine.api import MemoryOS
    from engine.backends.fake import HashEmbedder
    from engine.backends.openai_compat import OpenAIChat
    from tests.local_servers import ChatServer

    with ChatServer(models=["m"], reply=reply, finish_reason=finish_reason) as server:
        chat = OpenAIChat(server.url, "m", retries=0, context_window=context_window)
        with MemoryOS.open(path, create=create, passphrase="correct horse battery",
                           embedder=HashEmbedder(), chat=chat, background=False) as mem:
            stream = mem.get_response("Tell me a long story", max_tokens=64)
            stream.collect()
            assert stream.cut_short is (finish_reason == "length")
            return stream.page.id


def test_an_answer_cut_short_is_still_marked_so_after_the_vault_is_closed_and_opened(
    tmp_path, fail_keyring
):
    from engine.api import MemoryOS
    from engine.backends.fake import HashEmbedder

    path = tmp_path / "cut.memoryos"
    cut = _answer(path, ["Once upon a time, ", "in a"], "length", create=True)
    whole = _answer(path, ["The end."], "stop")
    # A prompt and an answer that fill the model's whole context: the reason is kept too.
    full = _answer(path, ["word "] * 20, "length", context_window=40)

    with pytest.raises(errors.WrongKeyError):  # the file is encrypted: no key, no pages
        MemoryOS.open(path, passphrase="wrong one", embedder=HashEmbedder(), background=False)
    with MemoryOS.open(path, passphrase="correct horse battery", embedder=HashEmbedder(),
                       background=False) as mem:
        assert mem.page(cut).agent_response == "Once upon a time, in a"
        assert mem.page(cut).meta.get("cut_short") == "limit"
        assert "cut_short" not in mem.page(whole).meta
        assert mem.page(full).meta.get("cut_short") == "context"


def test_a_client_cannot_mark_an_exchange_cut_short(memory):
    """As "stopped": only the engine says an answer was cut (an MCP client may not)."""
    with pytest.raises(errors.InvalidInputError, match="'cut_short' is reserved"):
        memory.add_memory("Hi", "Hello", meta={"cut_short": "limit"})
