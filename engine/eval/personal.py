"""The everyday case: one person tells the assistant things over days, then asks about one; is
the memory that answers it shown to the model, in the small-model prompt and the normal one?

    python -m engine.eval.personal [--out results.json] [--only NAME ...]

Each scenario (engine/eval/personal_scenarios.json) is a fresh vault: conversations on earlier
days with unrelated chatter between, the current conversation, then a question asked at a fixed
moment (Friday 16 May 2025, 17:00 UTC). Exchanges are stored through MemoryOS.add_memory and
consolidated without an LLM, as the app does with the bundled model. The question is asked twice
(temporary: nothing is stored), and what each answer's prompt holds is checked:

- small: the bundled SmolLM2-135M through llama.cpp, which gets the compact prompt (a few
  profile entries and facts, three earlier exchanges, the last 1-3 exchanges as turns) cut to
  its measured time budget (engine.prompt_memories.fit_memory);
- normal: FakeChat, a model of normal size to the prompt code that measures no speed, so its
  prompt is what a model served by a local server is given (no time budget). Only what the
  model is shown is measured, never what it answers.

"Shown" means the scenario's text is in the prompt's messages and in the memories the answer
lists (ResponseStream.memories), case-insensitively. A scenario may also name text that must not
be shown (a deleted fact, a forgotten exchange) and stale text whose presence is only reported
(the city the person moved away from).
"""

from __future__ import annotations

import argparse
import json
import re
import secrets
import sys
import tempfile
import time
from collections.abc import Iterable
from dataclasses import asdict, dataclass, field
from datetime import datetime, timezone
from pathlib import Path
from typing import Any

import numpy as np

from engine.backends.base import ChatBackend, Embedder
from engine.prompt import OUT_OF_DATE

SCENARIOS = Path(__file__).with_name("personal_scenarios.json")
# When every question is asked: a Friday, so "next Tuesday" and "this Saturday" said earlier in
# the week point at days still to come.
NOW = datetime(2025, 5, 16, 17, 0, tzinfo=timezone.utc).timestamp()
DAY = 86400.0
EXCHANGE_GAP = 240.0  # seconds between two exchanges of one conversation
MAX_TOKENS = 8  # only the prompt is measured: the answer is cut short
SIZES = ("small", "normal")
CHATTER_STEP = 11  # each scenario starts this much further into the chatter pool


@dataclass(frozen=True)
class Scenario:
    name: str
    covers: str  # what everyday case it stands for
    conversations: tuple[tuple[float, tuple[Any, ...]], ...]  # (days ago, exchanges or chatter)
    current: tuple[Any, ...]  # the conversation the question is asked in
    question: str
    shown: str | None  # text that must be shown to answer it
    hidden: str | None = None  # text that must not be shown
    # "fact": not as a fact or profile entry (a deleted fact's exchange stays, and the app says
    # so: engine.forgetting.sources_stay); "anything": nowhere in the prompt or the list
    hidden_as: str = "anything"
    forget: dict[str, str] = field(default_factory=dict)  # {"facts"|"exchanges": text}
    stale: str | None = None  # outdated text: reported when shown, not a failure
    history: bool = True  # starts with the weeks of everyday use every scenario shares
    index: int = 0  # its place in the file: where in the chatter pool it starts

    @property
    def offset(self) -> int:
        return self.index * CHATTER_STEP


@dataclass
class Seen:
    """What one prompt size was shown for one scenario."""

    size: str
    passed: bool
    shown: bool | None  # None where the scenario names nothing to show
    in_prompt: bool | None
    in_memories: bool | None
    hidden_kept_out: bool | None  # None where the scenario names nothing to hide
    stale_shown: bool | None
    memories: list[str]  # "kind: text", in the order the answer lists them
    memory_block: str  # the last user message: this turn's memories and the question
    turns: int  # earlier messages in the prompt (conversation turns)


@dataclass
class Outcome:
    name: str
    covers: str
    question: str
    expected: str | None
    seen: dict[str, Seen]
    seconds: float


def load(path: Path = SCENARIOS) -> tuple[list[Scenario], list[tuple[str, str]]]:
    """The scenarios and the pool of chatter exchanges they draw from."""
    data = json.loads(Path(path).read_text(encoding="utf-8"))
    chatter = [(user, assistant) for user, assistant in data["chatter"]]
    history = [(float(c["days_ago"]), tuple(c["exchanges"])) for c in data.get("history", [])]
    scenarios = []
    for index, item in enumerate(data["scenarios"]):
        said = [(float(c["days_ago"]), tuple(c["exchanges"])) for c in item["conversations"]]
        if item.get("history", True):
            said = history + said
        scenario = Scenario(
            name=item["name"],
            covers=item["covers"],
            conversations=tuple(said),
            current=tuple(item["current"]),
            question=item["question"],
            shown=item.get("shown"),
            hidden=item.get("hidden"),
            hidden_as=item.get("hidden_as", "anything"),
            forget=dict(item.get("forget") or {}),
            stale=item.get("stale"),
            history=bool(item.get("history", True)),
            index=index,
        )
        for text in (scenario.shown, scenario.hidden, scenario.stale):
            if text and text.lower() in scenario.question.lower():
                raise ValueError(f"{scenario.name}: {text!r} is in the question itself")
        scenarios.append(scenario)
    return scenarios, chatter


def conversations(
    scenario: Scenario, chatter: list[tuple[str, str]]
) -> list[list[tuple[float, str, str]]]:
    """The scenario's conversations, oldest first, the current one last, as (timestamp, user,
    assistant); {"chatter": n} takes the next n exchanges of the pool, from the scenario's own
    place in it on."""
    position = scenario.offset

    def expand(items: Iterable[Any]) -> list[tuple[str, str]]:
        nonlocal position
        out: list[tuple[str, str]] = []
        for item in items:
            if isinstance(item, dict):
                for _ in range(int(item["chatter"])):
                    out.append(chatter[position % len(chatter)])
                    position += 1
            else:
                out.append((item[0], item[1]))
        return out

    days = [(NOW - days_ago * DAY + 3600.0, expand(items)) for days_ago, items in
            scenario.conversations]  # fmt: skip
    current = expand(scenario.current)
    days.append((NOW - (len(current) + 1) * EXCHANGE_GAP, current))
    return [
        [(start + i * EXCHANGE_GAP, user, assistant) for i, (user, assistant) in enumerate(said)]
        for start, said in days
    ]


class CachedEmbedder(Embedder):
    """The real embedder, each text embedded once per kind: the chatter recurs in every
    scenario's vault, and the probe's time is mostly embedding. The vectors are the model's."""

    def __init__(self, embedder: Embedder) -> None:
        self.inner = embedder
        self.model_id = embedder.model_id
        self.dimension = embedder.dimension
        self._rows: dict[tuple[str, str], np.ndarray] = {}

    def load(self, progress=None) -> None:
        self.inner.load(progress)

    def embed(self, texts: list[str], *, kind: str = "document") -> np.ndarray:
        missing = list(dict.fromkeys(t for t in texts if (kind, t) not in self._rows))
        if missing:
            for text, row in zip(missing, self.inner.embed(missing, kind=kind), strict=True):
                self._rows[(kind, text)] = row
        self.dimension = self.inner.dimension
        if not texts:
            return np.zeros((0, self.dimension), dtype=np.float32)
        return np.stack([self._rows[(kind, t)] for t in texts]).astype(np.float32, copy=False)

    def warm(self, texts: Iterable[str]) -> None:
        """Embed these texts now, in large batches: one call per text (as a page's facts are
        embedded) costs far more than its share of a batch on a CPU."""
        self.embed(list(dict.fromkeys(texts)))


def bundled_chats() -> dict[str, ChatBackend]:
    """The two models the probe asks with (see the module's docstring), loaded: the small
    model's tokens are then counted by its own tokenizer from the first question on."""
    from engine.backends.fake import FakeChat
    from engine.backends.llama import LlamaChat
    from models.catalogue import bundled_gguf_path

    small = LlamaChat(bundled_gguf_path(), n_ctx=2048)
    small.load()
    return {"small": small, "normal": FakeChat()}


# What a local model's memory budget is computed from (engine.prompt_memories.memory_budget): its prompt
# speed and time to a first token, measured by each answer. Each question is asked with the
# values the model started with, as the first question after the app loads it: the budget then
# depends on the prompt alone, not on how busy this computer was during the last scenario.
TIMING = ("prompt_tokens_per_second", "first_token_seconds")


def timing(chat: ChatBackend) -> dict[str, Any]:
    """The values of TIMING `chat` has now (none for a model that measures no speed)."""
    return {name: getattr(chat, name) for name in TIMING if hasattr(chat, name)}


def said_texts(scenarios: list[Scenario], chatter: list[tuple[str, str]]) -> list[str]:
    """What the scenarios' exchanges make the vault embed (the exchange, each side, each
    sentence): embedded first in batches (CachedEmbedder.warm)."""
    texts = []
    for scenario in scenarios:
        for said in conversations(scenario, chatter):
            for _, user, assistant in said:
                texts += [f"User: {user}\nAssistant: {assistant}", user, assistant]
                texts += [s for s in re.split(r"(?<=[.!?])\s+", f"{user} {assistant}") if s]
    return texts


def run_scenario(
    scenario: Scenario,
    chatter: list[tuple[str, str]],
    embedder: Embedder,
    chats: dict[str, ChatBackend],
    folder: Path,
    start: dict[str, dict[str, Any]] | None = None,
) -> Outcome:
    """Tell the scenario to a fresh vault in `folder`, ask its question with each chat model."""
    from engine.api import MemoryOS

    started = time.perf_counter()
    path = folder / f"{scenario.name}.memoryos"
    memory = MemoryOS.open(
        path, create=True, passphrase=secrets.token_urlsafe(24), embedder=embedder,
        chat=None, background=False,
    )  # fmt: skip
    try:
        for said in conversations(scenario, chatter):
            memory.new_conversation()
            for timestamp, user, assistant in said:
                memory.add_memory(user, assistant, timestamp=timestamp)
            memory.run_consolidation()  # as the app's worker does between conversations
        _forget(memory, scenario.forget)
        seen = {}
        for size in SIZES:
            for name, value in (start or {}).get(size, {}).items():
                setattr(chats[size], name, value)
            memory.set_chat(chats[size])
            stream = memory.get_response(
                scenario.question, max_tokens=MAX_TOKENS, temporary=True, now=NOW
            )
            for _ in stream:
                pass
            seen[size] = _judge(scenario, size, stream)
        memory.set_chat(None)
    finally:
        memory.close()  # the file goes with `folder` (its key is the throwaway passphrase)
    return Outcome(
        scenario.name, scenario.covers, scenario.question, scenario.shown, seen,
        round(time.perf_counter() - started, 2),
    )  # fmt: skip


def _forget(memory: Any, forget: dict[str, str]) -> None:
    """What the person deleted before asking: facts and profile entries holding a text (the
    privacy panel's Delete), or the exchanges holding it and all learned from them (Forget).
    A scenario whose text matches nothing would pass without testing anything: refused."""
    needle = forget.get("facts", "").lower()
    if needle:
        facts = [f.id for f in memory.facts() if needle in f.text.lower()]
        slots = [s.id for s in memory.profile() if needle in s.text.lower()]
        if not facts and not slots:
            raise ValueError(f"no fact or profile entry holds {needle!r}")
        if facts:
            memory.delete_facts(facts)
        for slot_id in slots:
            memory.delete_profile_slot(slot_id)
    needle = forget.get("exchanges", "").lower()
    if needle:
        pages = [p.id for p in memory.pages(limit=10_000) if needle in p.text().lower()]
        if not pages:
            raise ValueError(f"no exchange holds {needle!r}")
        memory.forget_pages(pages)


def _judge(scenario: Scenario, size: str, stream: Any) -> Seen:
    from engine.remembered import FACT, PROFILE

    prompt = "\n".join(m["content"] for m in stream.messages).lower()
    listed = [(m.kind, m.text) for m in stream.memories]
    in_prompt = in_memories = shown = None
    if scenario.shown:
        needle = scenario.shown.lower()
        in_prompt = needle in prompt
        in_memories = any(needle in text.lower() for _, text in listed)
        shown = in_prompt and in_memories
    kept_out = None
    if scenario.hidden:
        needle = scenario.hidden.lower()
        if scenario.hidden_as == "fact":
            kept_out = not any(
                needle in text.lower() for kind, text in listed if kind in (FACT, PROFILE)
            )
        else:
            kept_out = needle not in prompt and not any(needle in t.lower() for _, t in listed)
    stale = _unmarked(prompt, scenario.stale.lower()) if scenario.stale else None
    return Seen(
        size=size,
        passed=shown is not False and kept_out is not False,
        shown=shown,
        in_prompt=in_prompt,
        in_memories=in_memories,
        hidden_kept_out=kept_out,
        stale_shown=stale,
        memories=[f"{kind}: {text}" for kind, text in listed],
        memory_block=stream.messages[-1]["content"],
        turns=len(stream.messages) - 2,
    )


def run(
    scenarios: list[Scenario],
    chatter: list[tuple[str, str]],
    embedder: Embedder | None = None,
    chats: dict[str, ChatBackend] | None = None,
    progress: Any = None,
) -> list[Outcome]:
    """Every scenario, each in its own vault (in a temporary folder removed after)."""
    from engine.backends.embedder import SentenceTransformerEmbedder

    embedder = CachedEmbedder(embedder or SentenceTransformerEmbedder())
    embedder.warm(said_texts(scenarios, chatter))
    own = chats is None
    chats = chats or bundled_chats()
    start = {size: timing(chat) for size, chat in chats.items()}
    outcomes = []
    try:
        with tempfile.TemporaryDirectory(prefix="memoryos-personal-") as folder:
            for scenario in scenarios:
                outcome = run_scenario(scenario, chatter, embedder, chats, Path(folder), start)
                outcomes.append(outcome)
                if progress is not None:
                    progress(outcome)
    finally:
        if own:
            for chat in chats.values():
                close = getattr(chat, "close", None)
                if close is not None:
                    close()
    return outcomes


def totals(outcomes: list[Outcome]) -> dict[str, int]:
    """Scenarios passed, per prompt size."""
    return {size: sum(o.seen[size].passed for o in outcomes) for size in SIZES}


def line(outcome: Outcome) -> str:
    """One scenario's result as printed: shown yes/no per prompt size, then the question."""
    marks = "  ".join(f"{size} {'yes' if outcome.seen[size].passed else 'NO '}" for size in SIZES)
    notes = []
    for size in SIZES:
        seen = outcome.seen[size]
        if seen.stale_shown:
            notes.append(f"stale text shown ({size})")
        if seen.shown and not (seen.in_prompt and seen.in_memories):
            notes.append(f"prompt and memories list disagree ({size})")
        if seen.hidden_kept_out is False:
            notes.append(f"deleted text shown ({size})")
    note = f"  [{'; '.join(notes)}]" if notes else ""
    return f"{outcome.name:<22} {marks}  {outcome.question}{note}"


def summary(outcomes: list[Outcome]) -> str:
    """The totals: "small prompt 19/25, normal prompt 24/25"."""
    counted = totals(outcomes)
    return ", ".join(f"{size} prompt {counted[size]}/{len(outcomes)}" for size in SIZES)


def report(outcomes: list[Outcome]) -> dict:
    """The results as JSON: totals, then per scenario what each prompt size was shown."""
    return {
        "now": NOW,
        "scenarios": len(outcomes),
        "totals": totals(outcomes),
        "outcomes": [asdict(o) for o in outcomes],
    }


def _unmarked(prompt: str, text: str) -> bool:
    """Whether `text` is in the (lower-cased) prompt outside an exchange marked out of date
    (engine/prompt.py OUT_OF_DATE, after its date; the reply on the next line is part of it)."""
    mark, marked = OUT_OF_DATE.lower(), False
    for line in prompt.splitlines():
        if not line.startswith("assistant:"):  # a reply continues the exchange above it
            marked = mark in line
        if text in line and not marked:
            return True
    return False


def main(argv: list[str] | None = None, prog: str = "python -m engine.eval.personal") -> int:
    parser = argparse.ArgumentParser(
        allow_abbrev=False,  # a prefix of an option is not that option
        prog=prog,
        description=__doc__,
        formatter_class=argparse.RawDescriptionHelpFormatter,
    )
    parser.add_argument("--out", type=Path, default=None, help="write the results as JSON")
    parser.add_argument("--only", nargs="*", default=None, help="scenario names to run")
    args = parser.parse_args(argv)
    scenarios, chatter = load()
    if args.only:
        unknown = set(args.only) - {s.name for s in scenarios}
        if unknown:
            parser.error(f"no scenario named {', '.join(sorted(unknown))}")
        scenarios = [s for s in scenarios if s.name in args.only]
    outcomes = run(scenarios, chatter, progress=lambda o: print(line(o), flush=True))
    print(summary(outcomes))
    if args.out is not None:
        text = json.dumps(report(outcomes), indent=1, ensure_ascii=False) + "\n"
        args.out.write_text(text, encoding="utf-8")
        print(f"results written to {args.out}")
    return 0


if __name__ == "__main__":
    sys.exit(main())
