"""An old answer's "Used N memories" list marks a fact replaced since by a newer one (a new dose
said later): it showed the old dose with no mark, as if it were still true."""

from __future__ import annotations

import pytest

from tests.gui_steps import last_answer as _answer
from tests.gui_steps import used_list as _listed
from tests.helpers import user_fact

pytestmark = pytest.mark.gui

OLD = "My levothyroxine is now 88 micrograms, since the last blood test."
NEW = "I take 100 micrograms now instead of 88."


def test_a_fact_replaced_after_the_answer_is_marked_replaced(qtbot, window, chat, memory, send):
    memory.add_memory(OLD, "Noted.", "2025-11-12 09:00", source="import",
                      conversation_id="earlier")  # fmt: skip
    memory.run_consolidation()
    old = user_fact(memory, OLD)
    chat.queue("88 micrograms.")
    send(window, "How much levothyroxine do I take?")
    assert OLD in _listed(window) and "replaced since" not in _listed(window)

    # Said later, in another conversation: the newer dose replaces the one the answer used
    memory.add_memory(NEW, "Noted.", "2025-11-20 09:00", source="import",
                      conversation_id="earlier")  # fmt: skip
    memory.run_consolidation()
    assert user_fact(memory, OLD).superseded_by == user_fact(memory, NEW).id

    with qtbot.waitSignal(window.conversation_shown):
        window.reload_conversation()
    listed = _listed(window)
    assert "1 replaced since" in listed
    assert f"replaced since this answer by “{NEW}”" in listed
    (item,) = [i for i in _answer(window).memories if i.key == ("fact", old.id)]
    assert item.replaced and not item.edited and not item.forgotten
    assert item.text == OLD and item.replaced_by == NEW  # the words the answer used, kept
