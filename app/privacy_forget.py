"""The privacy panel's Forget… button: what the selected items came from, and the words for it."""

from __future__ import annotations

from PySide6.QtWidgets import QMenu, QPushButton, QWidget

from app.widgets import one_line

# How long the last delete or edit can be undone: the main window keeps it when the panel
# closes (a person who closed first and regretted afterwards had lost it), and drops it with
# the vault's decrypted contents
UNDO_LASTS = "until you lock MemoryOS, switch memory or quit"
NOTHING_STORED = ("No exchange of it is stored: it was added by hand, imported, or its exchange "
                  "was forgotten.")


def source_exchanges(chosen: list) -> list[int]:
    """The stored exchanges (page ids) the chosen items were learned from."""
    return sorted({page for item in chosen for page in item.exchanges})


def _the_exchanges(chosen: list) -> str:
    count = len(source_exchanges(chosen))
    return "the exchange" if count == 1 else f"the {count} exchanges"


def exchanges_words(chosen: list) -> str:
    """"the exchange it came from", "the 3 exchanges they came from"."""
    return f"{_the_exchanges(chosen)} {'it' if len(chosen) == 1 else 'they'} came from"


def delete_and_forget_action(chosen: list) -> str:
    """The delete question's button that also forgets the source exchanges ("" if none)."""
    return f"Delete and forget {_the_exchanges(chosen)}…" if source_exchanges(chosen) else ""


def _quoted(chosen: list) -> str:
    """Which items a delete removes, each on one line: "“I work as a nurse.”", "“A”, “B” and
    2 more." (the first two of several), so the question names what it deletes."""
    if len(chosen) == 1:
        return f"“{one_line(chosen[0].shown, 100)}”"
    quotes = [f"“{one_line(item.shown, 60)}”" for item in chosen[:2]]
    more = len(chosen) - len(quotes)
    return (f"{quotes[0]}, {quotes[1]} and {more} more." if more
            else f"{quotes[0]} and {quotes[1]}.")


def delete_question(chosen: list) -> str:
    """What deleting learned items does, and what it leaves: the exchanges they came from,
    which the dialog's other action forgets too (only those, not the whole conversation).
    It quotes the items (the first two of several): a person who chose them with the
    keyboard, or hears the question read out, confirms the right ones."""
    from engine.forgetting import delete_question as question

    text = question(len(chosen), _quoted(chosen))
    action = delete_and_forget_action(chosen)
    if action:
        one = len(source_exchanges(chosen)) == 1
        which = _the_exchanges(chosen).capitalize()
        learned = "it was" if len(chosen) == 1 else "they were"
        them = "it" if one else "them"
        text += (
            f" {which} {learned} learned from stay{'s' if one else ''} in your conversations, "
            f"where search and the model can still find {them}; to forget {them} too, choose "
            f"“{action.rstrip('…')}”."
        )
    alone = " alone" if action else ""  # forgetting exchanges cannot be taken back
    return f"{text} “Delete”{alone} can be undone in Privacy {UNDO_LASTS}."


class ForgetButton(QPushButton):
    """"Forget…": a menu of what the selected items were learned from (their exchanges, their
    conversation, their topic), each entry enabled when there is one to forget. One button, not
    three side by side: those made the panel wider than a laptop's screen at a large text size.
    Space or Enter on it opens the menu; the arrow keys and Enter choose."""

    def __init__(self, parent: QWidget | None = None) -> None:
        super().__init__("Forget…", parent)
        self.setAccessibleName("Forget")
        menu = QMenu(self)
        menu.setToolTipsVisible(True)  # why an entry is greyed out
        self.exchange = menu.addAction("Forget the exchange it came from…")
        self.conversation = menu.addAction("Forget its conversation…")
        self.segment = menu.addAction("Forget its topic…")
        self.setMenu(menu)
        self.show_for([])

    def show_for(self, chosen: list) -> None:
        """The entries as they apply to the selected items (PersonaItem)."""
        one = len(chosen) == 1
        exchanges = source_exchanges(chosen)
        self.exchange.setEnabled(bool(exchanges))
        self.exchange.setText(f"Forget {exchanges_words(chosen)}…" if exchanges
                              else "Forget the exchange it came from…")
        if exchanges:
            tip = ("Only those exchanges go, with what was learned only from them; the rest of "
                   "the conversation stays.")
        else:
            tip = NOTHING_STORED if chosen else ""
        self.exchange.setToolTip(tip)
        self.conversation.setEnabled(one and bool(chosen[0].conversation_id))
        self.segment.setEnabled(one and chosen[0].segment_id is not None)
        self.segment.setToolTip(
            "" if not one or chosen[0].segment_id is not None
            else "Its exchange is still in short-term memory, not yet in a topic."
        )
        # Open with something selected, even if every entry is greyed: the menu says why
        self.setEnabled(bool(chosen))
        offered = any(a.isEnabled() for a in (self.exchange, self.conversation, self.segment))
        self.setToolTip("Forget what the selected items were learned from: their exchanges, "
                        "their conversation or their topic." if offered or not chosen
                        else NOTHING_STORED)
