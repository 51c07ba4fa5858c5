"""Split a reasoning model's stream into its thinking (<think>...</think>) and its answer."""

from __future__ import annotations

from collections.abc import Iterable, Iterator

OPEN, CLOSE = "<think>", "</think>"
THINKING, ANSWER = "thinking", "answer"


class ThinkingSplitter:
    """Feed chunks as they stream; get back (THINKING | ANSWER, text) parts.

    A tag may arrive cut across chunks ("<thi" + "nk>"), so a possible tag start is held
    back until the next chunk decides. Some templates open the thinking in the prompt and the
    model only writes the closing tag: `open_at_start=True` handles those (DeepSeek-R1).
    """

    def __init__(self, open_at_start: bool = False) -> None:
        self.inside = open_at_start
        self._held = ""
        self.thinking = ""
        self.answer = ""

    def feed(self, chunk: str) -> list[tuple[str, str]]:
        text = self._held + chunk
        self._held = ""
        parts: list[tuple[str, str]] = []
        while text:
            tag = CLOSE if self.inside else OPEN
            index = text.find(tag)
            if index >= 0:
                self._emit(parts, text[:index])
                text = text[index + len(tag) :]
                self.inside = not self.inside
                continue
            keep = _partial_tag_length(text, tag)
            self._emit(parts, text[: len(text) - keep])
            self._held = text[len(text) - keep :]
            break
        return parts

    def finish(self) -> list[tuple[str, str]]:
        """The end of the stream: whatever was held back is plain text after all."""
        parts: list[tuple[str, str]] = []
        self._emit(parts, self._held)
        self._held = ""
        return parts

    def _emit(self, parts: list[tuple[str, str]], text: str) -> None:
        if not text:
            return
        kind = THINKING if self.inside else ANSWER
        if kind == THINKING:
            self.thinking += text
        else:
            self.answer += text
        if parts and parts[-1][0] == kind:
            parts[-1] = (kind, parts[-1][1] + text)
        else:
            parts.append((kind, text))


def split_stream(chunks: Iterable[str]) -> Iterator[tuple[str, str]]:
    """(kind, text) for each piece of a streamed answer."""
    splitter = ThinkingSplitter()
    for chunk in chunks:
        yield from splitter.feed(chunk)
    yield from splitter.finish()


def strip_thinking(text: str) -> str:
    """The answer alone: what is stored, consolidated and scored."""
    splitter = ThinkingSplitter()
    splitter.feed(text)
    splitter.finish()
    return splitter.answer


def _partial_tag_length(text: str, tag: str) -> int:
    """How many characters at the end of `text` could be the start of `tag`."""
    for size in range(min(len(tag) - 1, len(text)), 0, -1):
        if text.endswith(tag[:size]):
            return size
    return 0
