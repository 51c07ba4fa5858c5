"""The LoCoMo file format (locomo10.json): its conversations, turns and questions as records.

Shared by `memoryos import` (engine/transcripts.py) and the evaluation (engine/eval/locomo.py),
so importing a transcript never loads the evaluation.
"""

from __future__ import annotations

import re
from dataclasses import dataclass
from datetime import datetime, timezone
from typing import Any

CATEGORY_NAMES = {
    1: "multi-hop",
    2: "temporal",
    3: "open-domain",
    4: "single-hop",
    5: "adversarial",
}
TURN_OFFSET_SECONDS = 10.0  # spacing of turns inside a session, so their order is kept

_SESSION = re.compile(r"session_(\d+)")
_DIA_ID = re.compile(r"D\s*:?\s*(\d+)\s*:\s*(\d+)", re.IGNORECASE)
_TIME_FORMATS = (
    "%I:%M %p on %d %B, %Y",
    "%I:%M %p on %d %B %Y",
    "%I:%M %p on %d %b, %Y",
    "%I:%M %p on %d %b %Y",
    "%H:%M on %d %B, %Y",
)


@dataclass(frozen=True)
class Turn:
    """One utterance of one speaker."""

    dia_id: str
    speaker: str
    text: str  # the utterance, with a shared photo's caption appended as text
    session: int
    timestamp: float


@dataclass(frozen=True)
class Session:
    number: int
    date_text: str
    timestamp: float
    turns: tuple[Turn, ...]


@dataclass(frozen=True)
class Question:
    index: int
    question: str
    answer: str  # the gold answer ("" for category 5, whose gold is 'not mentioned')
    category: int
    evidence: tuple[str, ...]
    adversarial_answer: str = ""

    @property
    def category_name(self) -> str:
        return CATEGORY_NAMES.get(self.category, f"category {self.category}")


@dataclass(frozen=True)
class Conversation:
    sample_id: str
    speaker_a: str
    speaker_b: str
    sessions: tuple[Session, ...]
    questions: tuple[Question, ...]

    @property
    def turns(self) -> list[Turn]:
        return [turn for session in self.sessions for turn in session.turns]


@dataclass(frozen=True)
class Exchange:
    """What becomes one page: a turn and the other speaker's reply that follows it (if any)."""

    first: Turn
    second: Turn | None
    session: int

    @property
    def turns(self) -> tuple[Turn, ...]:
        return (self.first,) if self.second is None else (self.first, self.second)

    def meta(self) -> dict[str, Any]:
        return {
            "external_ids": [t.dia_id for t in self.turns],
            "user_speaker": self.first.speaker,
            "agent_speaker": self.second.speaker if self.second else "",
            "session": self.session,
        }


def parse_session_time(text: str) -> float:
    """'1:56 pm on 8 May, 2023' -> epoch seconds (UTC; the data gives no time zone)."""
    cleaned = " ".join(str(text).replace("\u202f", " ").split())
    for fmt in _TIME_FORMATS:
        try:
            moment = datetime.strptime(cleaned, fmt)
        except ValueError:
            continue
        return moment.replace(tzinfo=timezone.utc).timestamp()
    raise ValueError(f"unrecognised session date-time: {text!r}")


def normalise_dia_id(raw: str) -> str:
    """'D8:6' stays 'D8:6'; stray spacing or colons ('D:8:6', 'd8 : 6') are repaired."""
    found = _dia_ids(str(raw))
    return found[0] if found else str(raw).strip()


def _dia_ids(text: str) -> list[str]:
    """Every turn id written in a text, repaired as normalise_dia_id repairs one."""
    return [f"D{int(session)}:{int(turn)}" for session, turn in _DIA_ID.findall(text)]


def split_evidence(items: list[Any] | None) -> tuple[str, ...]:
    """Evidence ids, one per turn; entries like 'D8:6; D9:17' or 'D8:6 D9:17' hold several
    (every id written in an entry counts; an entry naming none is kept as written)."""
    out: list[str] = []
    for item in items or []:
        for part in re.split(r"[;,]", str(item)):
            found = _dia_ids(part) or [part.strip()]
            for dia_id in found:
                if dia_id and dia_id not in out:
                    out.append(dia_id)
    return tuple(out)


def turn_text(raw: dict[str, Any]) -> str:
    """The utterance with a shared photo kept as text."""
    text = str(raw.get("text") or "").strip()
    caption = str(raw.get("blip_caption") or "").strip()
    if caption:
        text = f"{text} [shares a photo: {caption}]".strip()
    return text


def parse_conversation(sample: dict[str, Any], index: int = 0) -> Conversation:
    """One sample of the file (the `index`-th from 0; errors count from 1): sessions in order
    (date keys without a session are ignored). A shape that is not LoCoMo's is an
    InvalidInputError that says where and what is expected."""
    conv = _checked(sample, index)
    numbers = sorted(int(m.group(1)) for key in conv if (m := _SESSION.fullmatch(key)))
    sessions: list[Session] = []
    for number in numbers:
        date_text = str(conv.get(f"session_{number}_date_time") or "")
        start = _session_start(date_text, sessions)
        turns = []
        for index, raw in enumerate(conv.get(f"session_{number}") or []):
            turns.append(
                Turn(
                    dia_id=normalise_dia_id(raw.get("dia_id", f"D{number}:{index + 1}")),
                    speaker=str(raw.get("speaker") or ""),
                    text=turn_text(raw),
                    session=number,
                    timestamp=start + index * TURN_OFFSET_SECONDS,
                )
            )
        if turns:
            sessions.append(Session(number, date_text, start, tuple(turns)))
    questions = tuple(_question(i, qa) for i, qa in enumerate(sample.get("qa") or []))
    return Conversation(
        sample_id=str(sample.get("sample_id", "")),
        speaker_a=str(conv.get("speaker_a") or ""),
        speaker_b=str(conv.get("speaker_b") or ""),
        sessions=tuple(sessions),
        questions=questions,
    )


SAMPLE_SHAPE = (
    '{"sample_id": ..., "conversation": {"speaker_a": ..., "speaker_b": ..., "session_1": '
    '[{"speaker": ..., "text": ..., "dia_id"?}, ...], "session_1_date_time"?, ...}, "qa"?: [...]}'
)


def _checked(sample: Any, index: int) -> dict[str, Any]:
    """The sample's "conversation", its sessions lists of turns (objects) and "qa" a list of
    objects; otherwise an error naming the sample and the part."""
    from engine.errors import InvalidInputError

    def wrong(what: str) -> InvalidInputError:
        return InvalidInputError(
            f"item {index + 1} (a LoCoMo sample): {what}; expected {SAMPLE_SHAPE}"
        )

    if not isinstance(sample, dict):
        raise wrong("it is not a JSON object")
    if not isinstance(sample.get("conversation"), dict):
        kind = json_kind(sample.get("conversation"))
        raise wrong(f"its 'conversation' is {kind}, not an object holding the sessions")
    conv = sample["conversation"]
    if not any(_SESSION.fullmatch(key) for key in conv):
        raise wrong("its 'conversation' holds no sessions (session_1, session_2, ...)")
    for key, value in conv.items():
        if not _SESSION.fullmatch(key) or value is None:
            continue
        if not isinstance(value, list):
            raise wrong(f"'{key}' must be a list of turns")
        for number, turn in enumerate(value, start=1):
            if not isinstance(turn, dict):
                raise wrong(f"turn {number} of '{key}' is not a JSON object")
            # a number was stored as the words said, and a turn without text dropped
            if not isinstance(turn.get("text"), str):
                kind = json_kind(turn.get("text"))
                raise wrong(f"turn {number} of '{key}': its 'text' is {kind}, not the words said")
    questions = sample.get("qa")
    if questions is not None and (
        not isinstance(questions, list)
        or not all(isinstance(q, dict) and _whole(q.get("category")) for q in questions)
    ):
        raise wrong("'qa' must be a list of objects, each 'category' a whole number")
    return conv


def json_kind(value: Any) -> str:
    """What a JSON value is, in words: 'text', 'a number', 'a list'..."""
    if value is None:
        return "missing or null"
    if isinstance(value, bool):
        return "true or false"
    kinds = {str: "text", int: "a number", float: "a number", list: "a list"}
    return kinds.get(type(value), type(value).__name__)


def _whole(value: Any) -> bool:
    """A question's category as the file may give it: absent, a whole number, or its digits."""
    return value is None or (isinstance(value, int) and not isinstance(value, bool)) or (
        isinstance(value, str) and value.strip().isdigit()
    )


def _session_start(date_text: str, earlier: list[Session]) -> float:
    try:
        return parse_session_time(date_text)
    except ValueError:
        # A missing or odd date: one day after the previous session keeps the order.
        return earlier[-1].timestamp + 86400.0 if earlier else 0.0


def _question(index: int, qa: dict[str, Any]) -> Question:
    answer = qa.get("answer")
    return Question(
        index=index,
        question=str(qa.get("question") or ""),
        answer="" if answer is None else str(answer),
        category=int(qa.get("category") or 0),
        evidence=split_evidence(qa.get("evidence")),
        adversarial_answer=str(qa.get("adversarial_answer") or ""),
    )


def exchanges(conversation: Conversation) -> list[Exchange]:
    """Pair each turn with the other speaker's next turn; nothing is dropped or merged."""
    out: list[Exchange] = []
    for session in conversation.sessions:
        turns = list(session.turns)
        i = 0
        while i < len(turns):
            first = turns[i]
            nxt = turns[i + 1] if i + 1 < len(turns) else None
            if nxt is not None and nxt.speaker != first.speaker:
                out.append(Exchange(first, nxt, session.number))
                i += 2
            else:
                out.append(Exchange(first, None, session.number))
                i += 1
    return out
