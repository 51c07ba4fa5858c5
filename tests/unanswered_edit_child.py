"""Child process for the edited-question tests: a conversation of two exchanges, then the last
question edited, its new answer streaming slowly; it prints "streaming CONVERSATION PAGE" once
the answer has begun (PAGE: the exchange being replaced) and is killed (SIGKILL) by the test
before the answer ends."""

from __future__ import annotations

import sys

from engine.api import MemoryOS
from engine.backends.fake import FakeChat, HashEmbedder


def main() -> None:
    path, passphrase, question, edited = sys.argv[1:5]
    chat = FakeChat()
    memory = MemoryOS.open(path, create=True, passphrase=passphrase, embedder=HashEmbedder(384),
                           chat=chat, background=False)
    chat.queue("Enjoy the hike.", "Noted: the dentist on Thursday at 9.")
    memory.get_response("I am going hiking on Saturday.").collect()
    last = memory.get_response(question)
    last.collect()
    chat.chunk_delay = 0.5  # slow enough to be killed mid-answer
    chat.queue("Noted: the dentist on Friday at 9. I will keep it in mind for you.")
    for _chunk in memory.replace_response(last.page.id, edited):
        print(f"streaming {memory.conversation_id} {last.page.id}", flush=True)


if __name__ == "__main__":
    main()
