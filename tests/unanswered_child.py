"""Child process for the unanswered-question tests: two saved conversations, then a question in
the older one whose answer streams slowly; it prints "streaming" once the answer has begun and
is killed (SIGKILL) by the test before the answer ends."""

from __future__ import annotations

import sys

from engine.api import MemoryOS
from engine.backends.fake import FakeChat, HashEmbedder


def main() -> None:
    path, passphrase, question = sys.argv[1], sys.argv[2], sys.argv[3]
    chat = FakeChat()
    memory = MemoryOS.open(path, create=True, passphrase=passphrase, embedder=HashEmbedder(),
                           chat=chat, background=False)
    chat.queue("Enjoy the hike.", "Sounds tasty.")
    older = memory.new_conversation()
    memory.get_response("I am going hiking on Saturday.").collect()
    memory.new_conversation()
    memory.get_response("I baked rye bread today.").collect()  # the most recent conversation
    memory.continue_conversation(older)
    chat.chunk_delay = 0.5  # slow enough to be killed mid-answer
    chat.queue("Noted: the dentist on Friday at 9. I will keep it in mind for you.")
    for _chunk in memory.get_response(question):
        print(f"streaming {older}", flush=True)


if __name__ == "__main__":
    main()
