"""The pages' full-text index held in RAM: FTS5's bm25() ranking without SQLite scoring every
matching row (on a small vocabulary an OR query matches most pages: 60% of a question's time
at 100k pages went there).

Terms are FTS5's own (its porter/unicode61 tokenizer, called through apsw), scores are FTS5's
bm25() formula evaluated in the same order of operations, ties go to the lower rowid as in
`ORDER BY rank`: the vault's keyword_search returns the same pages and scores either way
(tests/test_keyword_index.py). Only MATCH expressions made of quoted phrases joined by OR (all
that retrieval writes) are answered here; anything else, a search inside a transaction (its
writes may roll back) or one before a large index is built, goes to FTS5.
"""

from __future__ import annotations

import logging
import math
import re
import threading
import time
from collections import Counter

import apsw
import numpy as np

from engine.vault.schema import FTS_TOKENIZER

log = logging.getLogger(__name__)

# FTS5's bm25() constants (fts5_aux.c), kept so the index ranks as FTS5 does. Checked on the
# LoCoMo dev set like the BM25 baseline's (recall_turns@10, categories 1-4, the full
# retrieval): k1 0.6-2.0 x b 0.3-0.9 all give 0.853-0.861 (these 0.859; b 0.5 0.861 lifts
# conv-30 0.827 -> 0.839 and lowers conv-26 0.876 -> 0.873): BM25 only orders the pages whose
# turns are then weighed by the question's terms, so its constants hardly matter here.
K1 = 1.2
B = 0.75
# Up to this many pages the index is built in the caller on first use (~15 ms per 1k pages);
# above, in a background thread while FTS5 answers, so the first question after opening a
# large vault does not wait for it.
SYNC_PAGES = 5_000
READ_CHUNK = 5_000  # rows read per hold of the vault's lock while building in the background
# Pages added after a build sit in a small dict beside the packed postings; past this many
# (or an eighth of the vault) the postings are packed again.
TAIL_PAGES = 4_096

_OR_OF_PHRASES = re.compile(r'"[^"]*"(?: OR "[^"]*")*')
_PHRASE = re.compile(r'"([^"]*)"')


def _grown(array: np.ndarray, size: int) -> np.ndarray:
    if len(array) >= size:
        return array
    out = np.zeros(max(size, 2 * len(array), 1024), dtype=array.dtype)
    out[: len(array)] = array
    return out


class _Postings:
    """One build's data: token sequences per page (for phrases), packed postings, a tail."""

    def __init__(self) -> None:
        self.vocab: dict[str, int] = {}
        self.tokens = np.zeros(0, dtype=np.int32)  # every page's term ids, page after page
        self.used = 0  # of `tokens`
        self.start = np.zeros(0, dtype=np.int64)  # by page id: where its tokens begin
        self.length = np.zeros(0, dtype=np.int32)  # by page id: its size in tokens
        self.alive = np.zeros(0, dtype=bool)  # by page id
        self.order: list[int] = []  # page ids in the order their tokens were stored
        self.rows = 0  # alive pages (FTS5's row count)
        self.total = 0  # their tokens (FTS5's total column size)
        self.last_id = 0  # the highest page id read
        # packed postings: term t's pages are docs[offsets[t]:offsets[t+1]] (ascending)
        self.offsets = np.zeros(1, dtype=np.int64)
        self.docs = np.zeros(0, dtype=np.int32)
        self.tf = np.zeros(0, dtype=np.int32)
        self.tail: dict[int, list[tuple[int, int]]] = {}  # term -> [(page, tf)] since packing
        self.tail_pages = 0
        self.packed = False

    def add(self, rows: list[tuple[int, str]], tokenize) -> None:
        """Pages in increasing id order, each with its FTS body."""
        if not rows:
            return
        vocab = self.vocab
        ids: list[int] = []
        spans = []
        for page_id, body in rows:
            terms = [vocab.setdefault(t, len(vocab)) for t in tokenize(body)]
            spans.append((page_id, self.used + len(ids), len(terms), terms))
            ids += terms
        self.tokens = _grown(self.tokens, self.used + len(ids))
        self.tokens[self.used : self.used + len(ids)] = ids
        self.used += len(ids)
        top = rows[-1][0] + 1
        self.start, self.length = _grown(self.start, top), _grown(self.length, top)
        self.alive = _grown(self.alive, top)
        for page_id, start, length, terms in spans:
            self.start[page_id], self.length[page_id] = start, length
            self.alive[page_id] = True
            self.order.append(page_id)
            self.rows += 1
            self.total += length
            if self.packed:  # pages added since the last packing wait in the tail
                for term, count in Counter(terms).items():
                    self.tail.setdefault(term, []).append((page_id, count))
                self.tail_pages += 1
        self.last_id = max(self.last_id, rows[-1][0])

    def pack(self) -> None:
        """Rebuild the packed postings from the token sequences of the alive pages. The
        tokens are stored page after page in `order` (ascending ids), so a stable sort by term
        leaves each term's pages ascending; int32 throughout keeps the transient memory to
        ~25 bytes a token (it was ~60 with int64 keys: 530 MB peak at 100k pages)."""
        order = np.asarray(self.order, dtype=np.int32)
        tokens = self.tokens[: self.used]
        owner = np.repeat(order, self.length[order])
        alive = self.alive[owner]
        if not alive.all():  # removed pages keep their tokens stored; not their postings
            tokens, owner = tokens[alive], owner[alive]
        del alive
        by_term = np.argsort(tokens, kind="stable")
        terms, owner = tokens[by_term], owner[by_term]
        del by_term
        first = np.ones(len(terms), dtype=bool)  # where a (term, page) run starts
        np.not_equal(terms[1:], terms[:-1], out=first[1:])
        first[1:] |= owner[1:] != owner[:-1]
        starts = np.flatnonzero(first)
        del first
        self.docs = owner[starts]
        self.tf = np.diff(np.append(starts, len(terms))).astype(np.int32)
        self.offsets = np.searchsorted(terms[starts], np.arange(len(self.vocab) + 1)).astype(
            np.int64
        )
        self.tail, self.tail_pages = {}, 0
        self.packed = True

    def remove(self, page_ids) -> None:
        for page_id in page_ids:
            if 0 <= page_id < len(self.alive) and self.alive[page_id]:
                self.alive[page_id] = False
                self.rows -= 1
                self.total -= int(self.length[page_id])

    def term_hits(self, term: int) -> tuple[np.ndarray, np.ndarray]:
        """(pages, term frequency) of the alive pages holding `term`, pages ascending."""
        if term + 1 < len(self.offsets):
            lo, hi = self.offsets[term], self.offsets[term + 1]
            docs, tf = self.docs[lo:hi], self.tf[lo:hi]
        else:
            docs, tf = self.docs[:0], self.tf[:0]
        extra = self.tail.get(term)
        if extra:
            docs = np.concatenate([docs, np.asarray([d for d, _ in extra], dtype=np.int32)])
            tf = np.concatenate([tf, np.asarray([c for _, c in extra], dtype=np.int32)])
        keep = self.alive[docs]
        return docs[keep], tf[keep]

    def phrase_hits(
        self, terms: list[int], masks: dict[int, np.ndarray]
    ) -> tuple[np.ndarray, np.ndarray]:
        """(pages, occurrences) of a phrase: its terms at consecutive positions. `masks`
        holds, by term, which pages have it, shared by the phrases of one search (the date
        phrases of a period repeat the month and the year)."""
        if len(terms) == 1:
            return self.term_hits(terms[0])
        held = None
        for term in set(terms):
            if term not in masks:
                mask = np.zeros(len(self.alive), dtype=bool)
                mask[self.term_hits(term)[0]] = True
                masks[term] = mask
            held = (
                masks[term].copy() if held is None else np.logical_and(held, masks[term], out=held)
            )
        pages = np.flatnonzero(held)
        n = len(terms)
        windows = np.maximum(self.length[pages].astype(np.int64) - n + 1, 0)
        which = np.repeat(np.arange(len(pages)), windows)
        first = np.cumsum(windows) - windows
        position = self.start[pages][which] + np.arange(int(windows.sum())) - first[which]
        found = np.ones(len(position), dtype=bool)
        for offset, term in enumerate(terms):
            found &= self.tokens[position + offset] == term
        counts = np.bincount(which[found], minlength=len(pages))
        keep = counts > 0
        return pages[keep].astype(np.int32), counts[keep].astype(np.int32)


class KeywordIndex:
    """BM25 over the vault's pages_fts, in RAM; kept current as pages come and go."""

    def __init__(self, vault, sync_pages: int = SYNC_PAGES) -> None:
        self.vault = vault
        self.sync_pages = sync_pages
        self._lock = threading.Lock()
        self._data: _Postings | None = None
        self._building: threading.Thread | None = None
        self._removed_meanwhile: set[int] = set()
        self._epoch = 0  # a reset while a background build runs makes its result stale
        self._data_version = -1
        self._generation = -1
        self._tokenizer = None
        self.ready = threading.Event()
        self.built_at: float | None = None  # time.perf_counter() when the index became ready

    # ---- tokens ------------------------------------------------------------------------------

    def _tokenize_with(self, flags: int, tokenizer=None):
        if tokenizer is None:
            if self._tokenizer is None:
                self._tokenizer = self._new_tokenizer()
            tokenizer = self._tokenizer

        def tokenize(text: str) -> list[str]:
            return tokenizer(
                text.encode("utf-8"), flags, None, include_offsets=False, include_colocated=False
            )

        return tokenize

    def _new_tokenizer(self):
        name, *args = FTS_TOKENIZER.split()
        return self.vault.conn.fts5_tokenizer(name, args)

    # ---- building and keeping current --------------------------------------------------------

    def _read(self, after_id: int, limit: int = -1) -> list[tuple[int, str]]:
        return self.vault.conn.execute(
            "SELECT rowid, body FROM pages_fts WHERE rowid > ? ORDER BY rowid LIMIT ?",
            (after_id, limit),
        ).fetchall()

    def _build_now(self) -> _Postings:
        data = _Postings()
        data.add(self._read(0), self._tokenize_with(apsw.FTS5_TOKENIZE_DOCUMENT))
        data.pack()
        return data

    def _build_in_background(self, epoch: int) -> None:
        try:
            data = self._read_all(epoch)
        except Exception:  # the vault closed or failed under us: FTS5 keeps answering
            log.debug("keyword index build stopped", exc_info=True)
            data = None
        with self._lock:
            if epoch != self._epoch:
                return  # reset (closed, locked, wiped) or restarted meanwhile
            if data is None:
                self._building = None
                return
            data.remove(self._removed_meanwhile)
            self._removed_meanwhile = set()
            self._install(data)

    def _read_all(self, epoch: int) -> _Postings | None:
        data = _Postings()
        with self.vault._lock:
            tokenizer = self._new_tokenizer()  # its own: the caller's thread tokenizes too
        tokenize = self._tokenize_with(apsw.FTS5_TOKENIZE_DOCUMENT, tokenizer)
        while True:
            with self.vault._lock:  # between others' transactions, never inside one
                if epoch != self._epoch:
                    return None
                rows = self._read(data.last_id, READ_CHUNK)
            if not rows:
                break
            data.add(rows, tokenize)
        data.tokens = data.tokens[: data.used].copy()  # the doubling's spare room back
        data.pack()
        return data

    def _install(self, data: _Postings) -> None:
        self._data = data
        self._building = None
        self.built_at = time.perf_counter()
        self.ready.set()

    def _start(self, background: bool = True) -> None:
        """Build now (a small vault) or, if `background`, start building in a thread."""
        count = self.vault.count_rows("pages")
        if count > self.sync_pages and not background:
            return
        self._data_version = self.vault.data_version()
        self._generation = self.vault.vector_generation()
        if count <= self.sync_pages:
            self._install(self._build_now())
            return
        self._removed_meanwhile = set()
        self._building = threading.Thread(
            target=self._build_in_background, args=(self._epoch,), name="keyword-index", daemon=True
        )
        self._building.start()

    def start_building(self) -> None:
        """Start building a large vault's index in the background, if not done (the memory
        calls this after each question: the first one after opening is answered by FTS5
        without this thread competing with it for the cores)."""
        with self.vault._lock, self._lock:
            if self._data is None and self._building is None:
                self._start()

    def _current(self) -> _Postings | None:
        """The index brought up to date with the vault, or None while it is being built (or a
        large one has not been started). Runs under the vault's lock, outside any transaction."""
        if self._data is None:
            if self._building is None:
                self._start(background=False)
            return self._data
        version = self.vault.data_version()
        other_process = version != self._data_version
        if other_process:
            self._data_version = version
            if self.vault.vector_generation() != self._generation:
                self._restart()  # it forgot or deleted pages: start over
                return self._data
        data = self._data
        newest = self.vault.conn.execute("SELECT max(id) FROM pages").fetchall()[0][0] or 0
        if newest > data.last_id:
            data.add(self._read(data.last_id), self._tokenize_with(apsw.FTS5_TOKENIZE_DOCUMENT))
            if data.tail_pages > max(TAIL_PAGES, data.rows // 8):
                data.pack()
        if other_process:
            count = self.vault.count_rows("pages")
            if count != data.rows:  # a page below our newest arrived late: start over
                self._restart()
                return self._data
        return data

    def _restart(self) -> None:
        self._epoch += 1
        self._data, self._building = None, None
        self.ready.clear()
        self._start()

    def remove(self, page_ids: list[int]) -> None:
        """Pages deleted by this process (after its transaction committed)."""
        with self._lock:
            if self._data is not None:
                self._data.remove(page_ids)
            if self._building is not None:
                self._removed_meanwhile.update(page_ids)

    def reset(self) -> None:
        """Drop everything held (vault locked or wiped); rebuilt on the next search."""
        with self._lock:
            self._epoch += 1
            self._data, self._building = None, None
            self._removed_meanwhile = set()
            self.ready.clear()

    def wait_ready(self, timeout: float | None = None) -> bool:
        return self.ready.wait(timeout)

    def held_bytes(self) -> int:
        data = self._data
        if data is None:
            return 0
        arrays = (data.tokens, data.start, data.length, data.alive, data.offsets, data.docs)
        return sum(a.nbytes for a in arrays) + data.tf.nbytes

    # ---- searching ----------------------------------------------------------------------------

    def _phrases(self, match: str) -> list[list[int]] | None:
        """The term ids of each quoted phrase of `"a" OR "b c"`; None for other syntax."""
        if not _OR_OF_PHRASES.fullmatch(match):
            return None
        tokenize = self._tokenize_with(apsw.FTS5_TOKENIZE_QUERY)
        out = []
        for phrase in _PHRASE.findall(match):
            words = tokenize(phrase)
            if not words:
                return None  # FTS5's handling of an empty phrase is left to FTS5
            out.append([self._data.vocab.get(w, -1) for w in words])
        return out

    def search(self, match: str, limit: int) -> list[tuple[int, float]] | None:
        """bm25() top `limit` (page id, score; higher is better), or None where FTS5 must
        answer. Call with the vault's lock held and no transaction open."""
        with self._lock:
            data = self._current()
            if data is None:
                return None
            phrases = self._phrases(match)
            if phrases is None:
                return None
            if not data.rows or limit == 0:
                return []
            masks: dict[int, np.ndarray] = {}
            hits = [
                data.phrase_hits(p, masks) if min(p) >= 0 else (np.zeros(0, np.int32),) * 2
                for p in phrases
            ]
            # bm25() as fts5_aux.c computes it, operation for operation (same doubles)
            rows = data.rows
            average = float(data.total) / float(rows)
            score = np.zeros(len(data.alive), dtype=np.float64)
            for docs, freq in hits:
                idf = math.log((rows - len(docs) + 0.5) / (len(docs) + 0.5))
                if idf <= 0.0:
                    idf = 1e-6
                if not len(docs):
                    continue
                f = freq.astype(np.float64)
                size = data.length[docs].astype(np.float64)
                score[docs] += idf * ((f * (K1 + 1.0)) / (f + K1 * (1 - B + B * size / average)))
            matched = np.flatnonzero(score)  # every hit scores > 0 (idf >= 1e-6)
            if not len(matched):
                return []
            values = score[matched]
            if limit > 0 and len(matched) > limit:
                edge = np.partition(-values, limit - 1)[limit - 1]
                near = -values <= edge  # every tie at the edge goes on to the sort
                matched, values = matched[near], values[near]
            order = np.lexsort((matched, -values))
            if limit > 0:
                order = order[:limit]
            return [(int(matched[i]), float(values[i])) for i in order]

    def document_frequency(self, terms: list[str]) -> dict[str, int] | None:
        """How many pages hold each (stemmed) term; None while the index is being built."""
        with self._lock:
            data = self._current()
            if data is None:
                return None
            out = {}
            for term in terms:
                term_id = data.vocab.get(term)
                out[term] = 0 if term_id is None else len(data.term_hits(term_id)[0])
            return out
