"""Segments are topics, not the whole conversation: what every exchange shares (the same two
people, the same greetings) does not pull two interleaved topics into one segment."""

from __future__ import annotations

import json

from engine.settings import MemorySettings

# The chit-chat every exchange carries, as in a long conversation between two friends.
GREETING = "Hey Melanie, thanks for asking, this week I was busy"
REPLY = "Wow Caroline, so proud of you!"
POTTERY = [
    "with my pottery class, glazing clay bowls and cups for the pottery fair",
    "throwing clay mugs on the pottery wheel, my clay mugs came out lopsided",
    "firing glazed clay vases in the pottery kiln, the clay cracked twice",
    "sculpting a clay teapot in the pottery studio, pottery takes patience",
]
RUNNING = [
    "training for the marathon, running long miles before work every day",
    "running hill sprints for my marathon plan, my legs ache from running",
    "buying new running sneakers for the marathon, running shoes wear out",
    "marathon pacing runs along the river, the marathon is in October",
]


def test_interleaved_topics_under_shared_chit_chat_get_their_own_segments(memory):
    # the eight exchanges leave the queue together (as in an import): enough pages for
    # placement to know what they all share
    memory.update_settings(MemorySettings(stm_capacity=1, stm_evict_batch=8, heat_threshold=50))
    topic = {}
    for pottery, running in zip(POTTERY, RUNNING, strict=True):  # pottery, running, ...
        for name, text in (("pottery", pottery), ("running", running)):
            page = memory.add_memory(f"{GREETING} {text}.", REPLY)
            topic[page.id] = name
    memory.add_memory(f"{GREETING} with nothing much.", REPLY)  # stays in the short-term queue
    memory.run_consolidation()

    segments = memory.segments()
    assert len(segments) >= 2
    held = {s.id: {topic[p.id] for p in memory.segment_pages(s.id)} for s in segments}
    assert all(len(names) == 1 for names in held.values())  # no segment mixes the topics
    assert {name for names in held.values() for name in names} == {"pottery", "running"}
    assert sum(s.page_count for s in segments) == 8  # every page placed, none lost


def test_a_threshold_saved_on_the_plain_scale_opens_on_ours(tmp_path, memory_keyring):
    """Settings saved by a version that compared segments by plain cos carry no scale: their
    0.6 (the paper's, then the default) is our 0.4; what this version saves stays as saved."""
    from engine.api import MemoryOS
    from engine.backends.fake import HashEmbedder

    path = tmp_path / "older.memoryos"
    mem = MemoryOS.open(path, create=True, embedder=HashEmbedder(), background=False)
    older = {
        k: v for k, v in MemorySettings(stm_capacity=4).to_dict().items() if k != "segment_scale"
    }
    with mem.vault.transaction():
        mem.vault.set_meta("settings", json.dumps({**older, "segment_threshold": 0.6}))
    mem.close()
    mem = MemoryOS.open(path, embedder=HashEmbedder(), background=False)
    try:
        assert (mem.settings.segment_threshold, mem.settings.stm_capacity) == (0.4, 4)
        mem.update_settings(MemorySettings(segment_threshold=0.55))
    finally:
        mem.close()
    mem = MemoryOS.open(path, embedder=HashEmbedder(), background=False)
    try:
        assert mem.settings.segment_threshold == 0.55  # saved on our scale: kept as it is
    finally:
        mem.close()
