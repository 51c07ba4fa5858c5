"""Vault SQL of the vocabulary: the words the pages use, each with its vector (int8 codes).

A derived index, like the full-text index: learned from the pages in the background, pruned
when the last page that says a word is forgotten, cleared by a wipe or a change of embedder.
engine/memory/vocabulary.py decides what goes in and searches it."""

from __future__ import annotations

from collections.abc import Iterable

import numpy as np

from engine.vault import quantized
from engine.vault.sql import locked as _locked
from engine.vault.sql import placeholders as _placeholders

CHUNK = 500  # ids or terms per IN (...) list


def _chunks(items: list, size: int = CHUNK) -> Iterable[list]:
    for start in range(0, len(items), size):
        yield items[start : start + size]


class WordsMixin:
    """Methods expect to run inside Vault (self.conn, self._lock)."""

    @_locked
    def word_ids(self, terms: list[str]) -> dict[str, int]:
        """term -> id of the terms the vocabulary holds."""
        out: dict[str, int] = {}
        for chunk in _chunks(sorted(set(terms))):
            out.update(
                (row[0], row[1])
                for row in self.conn.execute(
                    f"SELECT term, id FROM words WHERE term IN ({_placeholders(chunk)})", chunk
                )
            )
        return out

    @_locked
    def words_by_id(self, ids: list[int]) -> dict[int, tuple[str, str]]:
        """id -> (term, word as first written)."""
        out: dict[int, tuple[str, str]] = {}
        for chunk in _chunks(sorted(set(ids))):
            out.update(
                (row[0], (row[1], row[2]))
                for row in self.conn.execute(
                    f"SELECT id, term, word FROM words WHERE id IN ({_placeholders(chunk)})", chunk
                )
            )
        return out

    @_locked
    def insert_words(self, rows: list[tuple[str, str, np.ndarray]]) -> list[tuple[int, np.ndarray]]:
        """Add (term, word, vector) rows whose term is new; a term another process added
        meanwhile is skipped. Returns (id, vector) of the rows added."""
        added: list[tuple[int, np.ndarray]] = []
        for term, word, vector in rows:
            found = self.conn.execute(
                "INSERT INTO words(term, word) VALUES(?, ?) ON CONFLICT(term) DO NOTHING "
                "RETURNING id",
                (term, word),
            ).fetchall()
            if not found:
                continue
            word_id = found[0][0]
            self.conn.execute(
                "INSERT INTO words_vec(id, embedding) VALUES(?, ?)",
                (word_id, quantized.encode(vector)),
            )
            added.append((word_id, vector))
        return added

    @_locked
    def words_unsaid(self, terms: list[str], page_ids: list[int]) -> list[int]:
        """Ids of vocabulary entries among `terms` that no page outside `page_ids` says
        (`only_in`, the forget preview's check, on the entries' words)."""
        entries = self._words_of_terms(terms)
        gone = set(self.only_in([word for _, word in entries], page_ids))
        return [word_id for word_id, word in entries if word in gone]

    def _words_of_terms(self, terms: list[str]) -> list[tuple[int, str]]:
        out: list[tuple[int, str]] = []
        for chunk in _chunks(sorted(set(terms))):
            out += [
                (row[0], row[1])
                for row in self.conn.execute(
                    f"SELECT id, word FROM words WHERE term IN ({_placeholders(chunk)})", chunk
                )
            ]
        return out

    @_locked
    def delete_words(self, ids: list[int]) -> None:
        """Remove entries (plain tables: `secure_delete` zeroes the freed bytes)."""
        for chunk in _chunks(sorted(set(ids))):
            marks = _placeholders(chunk)
            self.conn.execute(f"DELETE FROM words_vec WHERE id IN ({marks})", chunk)
            self.conn.execute(f"DELETE FROM words WHERE id IN ({marks})", chunk)

    @_locked
    def newest_page_id(self) -> int:
        """The highest page id, 0 when there is none: where a LEARN_WORDS backlog ends."""
        return self.conn.execute("SELECT coalesce(max(id), 0) FROM pages").fetchall()[0][0]

    @_locked
    def clear_words(self) -> None:
        """Empty the vocabulary (a wipe; a new embedder, whose vectors differ)."""
        self.conn.execute("DELETE FROM words_vec")
        self.conn.execute("DELETE FROM words")
        self.conn.execute("DELETE FROM meta WHERE key='words_learned_upto'")
