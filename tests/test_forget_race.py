"""A forget that lands while consolidation works on the same pages: the job read and embedded
them before its write transaction, and nothing it learned from a page forgotten in between may
be written after the forget (a fact, a profile entry, a word, a topic, a turn vector)."""

from __future__ import annotations

from collections.abc import Callable
from dataclasses import dataclass

import pytest
from helpers import run_cli

from engine.api import MemoryOS
from engine.backends.fake import FakeChat, HashEmbedder
from engine.memory import keywords, mid_term, short_term
from engine.settings import MemorySettings
from engine.vault.jobs import EMBED_TURNS, LEARN_WORDS

SECRET = "My bike lock combination is 8120."
RARE = "quetzalcoatlus"


class ForgetMidway:
    """Runs a forget once, at the point a consolidation job is busy outside its transaction
    (embedding, or waiting for the model): what a person's /forget does while it works."""

    def __init__(self) -> None:
        self.action: Callable[[], object] | None = None
        self.during = ""

    def arm(self, action: Callable[[], object], during: str = "embedding") -> None:
        """`during`: "embedding" (the embedder's next call) or "model" (the chat model's)."""
        self.action, self.during = action, during

    def fire(self, during: str) -> None:
        if self.during == during and self.action is not None:
            action, self.action = self.action, None
            action()


class SlowEmbedder(HashEmbedder):
    """The hashed-words embedder; the forget lands during its next embedding call."""

    def __init__(self, midway: ForgetMidway) -> None:
        super().__init__()
        self.midway = midway

    def embed(self, texts, *, kind="document"):
        self.midway.fire("embedding")
        return super().embed(texts, kind=kind)


@dataclass
class SlowChat(FakeChat):
    """The fake chat model; the forget lands while its next structured call is answered."""

    midway: ForgetMidway | None = None

    def _complete_json(self, messages, schema, *, max_tokens):
        if self.midway is not None:
            self.midway.fire("model")
        return super()._complete_json(messages, schema, max_tokens=max_tokens)


@pytest.fixture
def midway():
    return ForgetMidway()


@pytest.fixture
def racing(tmp_path, memory_keyring, midway):
    chat = SlowChat(midway=midway)
    mem = MemoryOS.open(tmp_path / "race.memoryos", create=True, embedder=SlowEmbedder(midway),
                        chat=chat, background=False)  # fmt: skip
    yield mem, chat
    mem.close()


def _known_words(mem, *words: str) -> set[str]:
    ids = mem.vault.word_ids([keywords.fts_term(w) for w in words])
    return {w for w in words if keywords.fts_term(w) in ids}


def _learned_anything(mem) -> list[str]:
    """Every fact and profile entry the vault holds, current or replaced, as text."""
    facts = [f.text for f in mem.vault.facts(None, True)]
    slots = [s.text for s in mem.vault.slots(include_superseded=True)]
    return facts + slots


def test_a_forget_while_a_new_exchange_is_learned_leaves_nothing_of_it(racing, midway):
    mem, _ = racing
    page = mem.add_memory(f"{SECRET} I live in {RARE.title()}ville.", "Noted.")
    midway.arm(lambda: mem.forget_pages([page.id]))
    mem.run_consolidation()
    assert midway.action is None  # the forget ran, between the read and the write
    assert mem.vault.count_pages() == 0
    assert _learned_anything(mem) == []
    assert mem.vault.count_rows("words") == 0 == len(mem.word_mirror)
    assert len(mem.fact_mirror) == 0
    assert mem.consolidation_status().pending_jobs == 0  # the job is done, not retried
    assert not any("8120" in str(item) for item in mem.export_json().values())


def test_a_word_another_page_still_says_is_learned_when_one_page_goes(racing, midway):
    mem, _ = racing
    gone = mem.add_memory(f"I saw a {RARE} skeleton and a pterosaur", "Huge!")
    kept = mem.add_memory("The pterosaur wing was enormous", "Indeed.")
    midway.arm(lambda: mem.forget_pages([gone.id]))
    mem.run_consolidation()
    assert _known_words(mem, RARE, "skeleton", "pterosaur", "wing") == {"pterosaur", "wing"}
    assert mem.page(kept.id).id == kept.id
    assert all(set(f.source_page_ids) == {kept.id} for f in mem.vault.facts(None, True))


def test_forgetting_the_last_page_that_says_a_word_takes_it_out(racing):
    mem, _ = racing
    page = mem.add_memory(f"My {RARE} model is finished", "Well done.")
    mem.run_consolidation()
    assert _known_words(mem, RARE) == {RARE}
    mem.forget_pages([page.id])
    assert mem.vault.count_pages() == 0
    assert mem.vault.count_rows("words") == 0 == len(mem.word_mirror)


def test_a_forget_while_the_vocabulary_backlog_is_embedded(racing, midway):
    mem, _ = racing
    gone = mem.add_memory(f"My {RARE} is called Zed", "Nice.")
    kept = mem.add_memory("My garden shed is green", "Lovely.")
    mem.run_consolidation()
    with mem.vault.transaction():  # as after a change of embedder: learned again in the back
        mem.vault.clear_words()
        mem.vault.enqueue(LEARN_WORDS, {"upto": kept.id}, 0.0)
    midway.arm(lambda: mem.forget_pages([gone.id]))
    mem.run_consolidation()
    assert midway.action is None
    assert _known_words(mem, RARE, "called", "garden", "shed") == {"garden", "shed"}


def test_a_forget_while_turn_vectors_are_backfilled(racing, midway):
    mem, _ = racing
    gone = mem.add_memory(f"My {RARE} is called Zed", "Nice.")
    kept = mem.add_memory("My garden shed is green", "Lovely.")
    mem.run_consolidation()
    with mem.vault.transaction():  # pages stored before turn vectors existed
        mem.vault.conn.execute("DELETE FROM turns_vec")
        mem.vault.set_meta("turns_embedded_upto", "0")
        mem.vault.enqueue(EMBED_TURNS, {"upto": kept.id}, 0.0)
    midway.arm(lambda: mem.forget_pages([gone.id]))
    mem.run_consolidation()
    assert midway.action is None
    rows = {row[0] for row in mem.vault.conn.execute("SELECT rowid FROM turns_vec")}
    assert rows and all(row // 2 == kept.id for row in rows)


def test_a_forget_while_pages_move_to_topics(racing):
    mem, _ = racing
    mem.update_settings(MemorySettings(stm_capacity=1, stm_evict_batch=2))
    gone = mem.add_memory(f"My {RARE} kite is red", "Nice kite.")
    kept = mem.add_memory("My garden shed is green", "Lovely.")
    mem.add_memory("What is for dinner?", "Soup.")
    # what the STM_OVERFLOW job read before its transaction; then the forget
    pages = short_term.oldest(mem.vault, 2)
    assert {p.id for p in pages} == {gone.id, kept.id}
    mem.forget_pages([gone.id])
    mid_term.place(mem.ctx, pages, None)
    assert mem.page(kept.id).segment_id is not None
    texts = " ".join(s.summary + " " + " ".join(s.keywords) for s in mem.segments(True))
    assert RARE not in texts.lower() and "kite" not in texts.lower()
    assert "kite" not in mem.page(kept.id).chain_summary.lower()


def test_a_forget_while_the_model_summarises_new_topics(racing, midway):
    mem, chat = racing
    mem.update_settings(MemorySettings(stm_capacity=1, stm_evict_batch=2, heat_threshold=100))
    gone = mem.add_memory(f"My {RARE} kite is red", "Nice kite.")
    mem.add_memory("My garden shed is green", "Lovely.")
    mem.add_memory("What is for dinner?", "Soup.")
    chat.queue_json({"pages": [], "segments": [
        {"id": s, "summary": f"A red {RARE} kite.", "keywords": [RARE]} for s in range(1, 4)
    ]})  # fmt: skip
    midway.arm(lambda: mem.forget_pages([gone.id]), during="model")
    mem.run_consolidation()
    assert midway.action is None
    texts = " ".join(s.summary + " " + " ".join(s.keywords) for s in mem.segments(True))
    assert mem.segments(True) and RARE not in texts.lower()


def test_a_forget_while_the_model_analyses_a_hot_topic(racing, midway):
    mem, chat = racing
    # placed in a topic and learned without the model, the topic not hot yet
    mem.update_settings(MemorySettings(stm_capacity=1, stm_evict_batch=2, heat_threshold=100,
                                       llm_consolidation="never"))  # fmt: skip
    gone = mem.add_memory(f"My {RARE} kite is red", "Nice kite.")
    kept = mem.add_memory("My kite string is green", "Lovely.")
    mem.add_memory("What is for dinner?", "Soup.")
    mem.run_consolidation()
    segment = mem.page(gone.id).segment_id
    assert segment is not None and mem.page(kept.id).segment_id == segment
    mem.update_settings(MemorySettings(stm_capacity=1, stm_evict_batch=2, heat_threshold=100,
                                       llm_consolidation="always"))  # fmt: skip
    chat.queue_json(
        {"profile": [{"category": "preference", "name": "kite", "value": f"{RARE} kite",
                      "evidence": [kept.id]}],
         "user_facts": [{"text": f"The user has a red {RARE} kite.", "evidence": [kept.id]}],
         "assistant_knowledge": [{"text": f"I praised the {RARE} kite.", "evidence": []}]},
        {"profile": [], "user_facts": [{"text": "The user has a green kite string.",
                                        "evidence": [kept.id]}], "assistant_knowledge": []},
    )  # fmt: skip
    with mem.vault.transaction():
        mem.vault.enqueue("analyse_segment", {"segment_id": segment}, 0.0)
    midway.arm(lambda: mem.forget_pages([gone.id]), during="model")
    mem.run_consolidation()
    assert midway.action is None
    learned = _learned_anything(mem)
    assert not any(RARE in text.lower() for text in learned)
    # the kept page is analysed again, on its own
    assert "The user has a green kite string." in learned
    assert mem.consolidation_status().pending_jobs == 0


@pytest.mark.real_models
@pytest.mark.slow
def test_memoryos_chat_forget_right_after_leaves_no_fact(tmp_path):
    """The walkthrough's steps: the real command, its bundled models, a fresh vault."""
    home = tmp_path / "cli-home"
    chat = run_cli("chat", home=home, stdin=f"{SECRET}\n/forget bike lock\ny\n", timeout=300)
    assert chat.returncode == 0, chat.stderr.decode()
    assert "Forgot 1 item" in chat.stdout.decode() + chat.stderr.decode()
    facts = run_cli("facts", "list", home=home, timeout=300)
    assert facts.returncode == 0, facts.stderr.decode()
    assert "8120" not in facts.stdout.decode()
