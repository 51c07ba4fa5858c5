"""Child process for the crash test: imports exchanges with consolidation running, reports each add."""

from __future__ import annotations

import sys

from engine.api import MemoryOS
from engine.backends.fake import HashEmbedder
from engine.settings import MemorySettings

TOPICS = ["hiking trails and mountain lakes", "sourdough baking with rye", "jazz guitar chords",
          "learning Portuguese verbs", "restoring old motorcycles", "growing tomatoes on a balcony"]


def main() -> None:
    path, start = sys.argv[1], int(sys.argv[2])
    memory = MemoryOS.open(path, create=True, passphrase="crash-test", embedder=HashEmbedder(),
                           background=True)
    if memory.vault.get_meta("settings") is None:
        memory.update_settings(MemorySettings(stm_capacity=4, stm_evict_batch=2, heat_threshold=3))
    for i in range(start, start + 400):
        topic = TOPICS[i % len(TOPICS)]
        page = memory.add_memory(f"I talked about {topic}, note {i}. I really enjoy {topic}.", f"reply {i}",
                                 meta={"external_id": f"marker-{i}"})
        print(f"added {page.id} marker-{i}", flush=True)
    memory.close()


if __name__ == "__main__":
    main()
