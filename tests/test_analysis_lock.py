"""A capable model's analysis of a topic is embedded before the vault's write lock is taken:
embedding its facts one by one inside the transaction held the lock up to 1.6 s under load,
while another program's writes (an MCP server, the app) waited and could time out as busy."""

from __future__ import annotations

from engine.api import MemoryOS
from engine.backends.fake import FakeChat, HashEmbedder
from engine.settings import MemorySettings


class WatchedEmbedder(HashEmbedder):
    """Records, for every embedding call, whether the vault was inside a write transaction."""

    def __init__(self) -> None:
        super().__init__()
        self.vault = None
        self.inside: list[bool] = []

    def embed(self, texts, *, kind="document"):
        if self.vault is not None:
            self.inside.append(not self.vault.conn.getautocommit())
        return super().embed(texts, kind=kind)


def test_a_models_analysis_embeds_nothing_while_holding_the_write_lock(tmp_path, memory_keyring):
    embedder, chat = WatchedEmbedder(), FakeChat()
    memory = MemoryOS.open(tmp_path / "v.memoryos", create=True, embedder=embedder, chat=chat,
                           background=False)
    try:
        memory.update_settings(MemorySettings(stm_capacity=1, stm_evict_batch=1,
                                              heat_threshold=0.5, chain_similarity=0.1))
        first = memory.add_memory("I adopted a greyhound called Biscuit.", "Lovely.")
        second = memory.add_memory("Biscuit sleeps on the sofa all day.", "Ha!")
        memory.add_memory("What should I cook tonight?", "Try a risotto.")
        facts = [{"text": f"The user's dog Biscuit likes toy number {n}.", "evidence": []}
                 for n in range(6)]  # no evidence cited: attributed to its pages by meaning
        chat.queue_json(
            {"pages": [], "segments": [{"id": 1, "summary": "Biscuit the greyhound.",
                                        "keywords": ["greyhound"]}]},
            {"profile": [{"category": "identity", "name": "pet", "value": "a greyhound, Biscuit",
                          "evidence": [first.id]}],
             "assistant_knowledge": [{"text": "The assistant said greyhounds sleep a lot.",
                                      "evidence": []}],
             "user_facts": [{"text": "The user has a greyhound called Biscuit.",
                             "evidence": [first.id, second.id]}, *facts]},
        )  # fmt: skip
        embedder.vault = memory.vault
        memory.run_consolidation()

        texts = [f.text for f in memory.facts()]
        assert [s.value for s in memory.profile()] == ["a greyhound, Biscuit"]
        assert "The user has a greyhound called Biscuit." in texts  # the analysis was applied
        assert "The assistant said greyhounds sleep a lot." in texts
        assert embedder.inside and not any(embedder.inside)
    finally:
        memory.close()
