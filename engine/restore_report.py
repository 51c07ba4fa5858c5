"""What a restore (engine/restore.py) did, in counts, and the lines of its report."""

from __future__ import annotations

from dataclasses import dataclass, field

from engine.terminal.wording import count

NOT_RESTORED = (
    "topic summaries, visit counts and chain summaries (topics are rebuilt by consolidation)"
)


@dataclass
class Restored:
    """What a restore did (counts), for the command's report."""

    conversations: int = 0
    exchanges: int = 0
    skipped_exchanges: int = 0
    facts: int = 0
    linked_facts: int = 0
    profile: int = 0
    linked_profile: int = 0
    # of those, how many are replaced by a newer one (the app lists them only on request)
    replaced_facts: int = 0
    linked_replaced_facts: int = 0
    replaced_profile: int = 0
    linked_replaced_profile: int = 0
    settings: bool = False
    forgotten_exchanges: int = 0  # forgotten in this vault after the export was made
    forgotten_facts: int = 0
    forgotten_profile: int = 0
    forgotten_included: bool = False  # restored anyway (include_forgotten)
    # held by this vault, forgotten in the memory the export came from: forgotten here too
    forgot_exchanges: int = 0
    forgot_facts: int = 0
    forgot_profile: int = 0
    notes: list[str] = field(default_factory=list)

    @property
    def forgotten(self) -> int:
        """How many items of the export were forgotten in this vault after it was made."""
        return self.forgotten_exchanges + self.forgotten_facts + self.forgotten_profile

    @property
    def added(self) -> bool:
        """Did the restore add anything (exchanges, facts, profile entries, settings)?"""
        return bool(self.exchanges or self.facts or self.profile or self.settings)

    def lines(self) -> list[str]:
        conversations = "conversation" if self.conversations == 1 else "conversations"
        if self.added:
            out = [
                f"Restored {count(self.exchanges, 'exchange')} in {self.conversations} "
                f"{conversations}, {count(self.facts, 'fact')} and knowledge"
                f"{_replaced(self.replaced_facts)}, "
                f"{count(self.profile, 'profile entry', 'profile entries')}"
                f"{_replaced(self.replaced_profile)}"
                + (", and the memory settings" if self.settings else "")
                + "."
            ]
        elif self.forgotten and not self.forgotten_included:
            out = ["Nothing new to restore: this vault already holds the rest of the export."]
        else:
            out = ["Nothing new to restore: this vault already holds everything in the export."]
        already = []
        if self.skipped_exchanges:
            already.append(count(self.skipped_exchanges, "exchange"))
        if self.linked_facts:
            already.append(
                count(self.linked_facts, "fact") + _replaced(self.linked_replaced_facts)
            )
        if self.linked_profile:
            already.append(
                count(self.linked_profile, "profile entry", "profile entries")
                + _replaced(self.linked_replaced_profile)
            )
        if already:
            out.append(f"Already in the vault, not added again: {', '.join(already)}.")
        if self.forgot_exchanges or self.forgot_facts or self.forgot_profile:
            items = _items(self.forgot_exchanges, self.forgot_facts, self.forgot_profile)
            out.append(f"Forgot {items} that were forgotten in the memory this export came from.")
        if self.forgotten:
            items = _items(self.forgotten_exchanges, self.forgotten_facts, self.forgotten_profile)
            if self.forgotten_included:
                out.append(
                    f"Brought back, as asked: {items} forgotten since the export was made."
                )
            else:
                # the forget may have been made in the memory a moved export came from: not "here"
                out.append(f"Left out {items} forgotten since the export was made.")
        if self.added:
            out.append(f"Not restored: {NOT_RESTORED}.")
        return out + self.notes


def _items(exchanges: int, facts: int, profile: int) -> str:
    return _joined(
        [
            count(n, one, many)
            for n, one, many in (
                (exchanges, "exchange", ""),
                (facts, "fact", ""),
                (profile, "profile entry", "profile entries"),
            )
            if n
        ]
    )


def _replaced(n: int) -> str:
    return f" ({n} of them replaced by a newer one)" if n else ""


def _joined(parts: list[str]) -> str:
    return parts[0] if len(parts) == 1 else f"{', '.join(parts[:-1])} and {parts[-1]}"
