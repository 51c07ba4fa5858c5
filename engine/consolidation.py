"""Background consolidation: STM overflow into segments, persona learning, hot-segment analysis.

Work is driven by the durable `jobs` table: `add_memory` enqueues a job in the same transaction
as the page, so a crash or quit loses nothing and the next open resumes. LLM calls (capable
models only) happen outside any transaction; every write is one transaction with the job's
completion.
"""

from __future__ import annotations

import contextlib
import json
import logging
import threading
import time
from collections.abc import Callable

import numpy as np

from engine.memory import chains, keywords, long_term, mid_term, short_term
from engine.memory.heat import heat
from engine.records import ACTIVE, ASSISTANT_KNOWLEDGE, CANDIDATE, USER_FACT, Page
from engine.vault.store import page_from_row

log = logging.getLogger(__name__)

PAGE_ADDED = "page_added"
STM_OVERFLOW = "stm_overflow"
ANALYSE_SEGMENT = "analyse_segment"
EMBED_TURNS = "embed_turns"
MAX_ATTEMPTS = 3
CHUNK = 32  # pages moved from STM to MTM per transaction
FULL_REFRESH = 32  # segments up to this size are recomputed from all their pages

BATCH_SCHEMA = {
    "type": "object",
    "properties": {
        "pages": {
            "type": "array",
            "items": {
                "type": "object",
                "properties": {
                    "id": {"type": "integer"},
                    "keywords": {"type": "array", "items": {"type": "string"}},
                },
                "required": ["id", "keywords"],
            },
        },
        "segments": {
            "type": "array",
            "items": {
                "type": "object",
                "properties": {
                    "id": {"type": "integer"},
                    "summary": {"type": "string"},
                    "keywords": {"type": "array", "items": {"type": "string"}},
                },
                "required": ["id", "summary", "keywords"],
            },
        },
    },
    "required": ["pages", "segments"],
}


class Consolidator:
    """Runs consolidation jobs, in the caller's thread (`run_pending`) or a worker thread."""

    def __init__(self, memory, notify: Callable[[str], None]) -> None:
        self.memory = memory  # the MemoryOS facade: vault, embedder, chat, settings, mirrors
        self.notify = notify
        self.last_error: str | None = None
        self.structured_stats = None
        self._thread: threading.Thread | None = None
        self._stop = threading.Event()
        self._wake = threading.Event()
        self._idle = threading.Event()
        self._idle.set()
        self._run_lock = threading.Lock()

    # ---- the worker ----------------------------------------------------------------------

    def start(self) -> None:
        if self._thread is None:
            self._thread = threading.Thread(
                target=self._loop, name="memoryos-consolidation", daemon=True
            )
            self._thread.start()
            self.wake()

    def stop(self, timeout: float = 10.0) -> None:
        self._stop.set()
        self._wake.set()
        if self._thread is not None:
            self._thread.join(timeout)
            self._thread = None

    def wake(self) -> None:
        self._idle.clear()
        self._wake.set()

    @property
    def running(self) -> bool:
        return self._thread is not None and not self._idle.is_set()

    def wait_idle(self, timeout: float | None = None) -> bool:
        if self._thread is None:
            return self.memory.vault.job_counts().get("pending", 0) == 0
        deadline = None if timeout is None else time.monotonic() + timeout
        while True:
            self.wake()
            remaining = None if deadline is None else max(0.0, deadline - time.monotonic())
            time.sleep(0.01)
            if self._idle.wait(remaining) and self.memory.vault.job_counts().get("pending", 0) == 0:
                return True
            if deadline is not None and time.monotonic() >= deadline:
                return False

    def _loop(self) -> None:
        while not self._stop.is_set():
            self._wake.wait(timeout=2.0)
            self._wake.clear()
            if self._stop.is_set():
                break
            self._idle.clear()
            try:
                self.memory.flush_visits()
                self.run_pending(stop=self._stop)
            except Exception as exc:  # the worker must survive anything, and say what happened
                self.last_error = f"{type(exc).__name__}: {exc}"
                log.exception("consolidation failed")
                self._stop.wait(1.0)
            finally:
                if not self._wake.is_set():
                    self._idle.set()

    # ---- running jobs --------------------------------------------------------------------

    def run_pending(self, max_jobs: int | None = None, stop: threading.Event | None = None) -> int:
        """Run pending jobs until none is left (or max_jobs ran). Returns how many ran."""
        done = 0
        with self._run_lock:
            while max_jobs is None or done < max_jobs:
                if stop is not None and stop.is_set():
                    break
                jobs = self.memory.vault.pending_jobs(limit=64)
                if not jobs:
                    break
                kind = jobs[0][1]
                if kind == PAGE_ADDED:
                    batch = [job for job in jobs if job[1] == PAGE_ADDED]
                    batch = batch[: max_jobs - done] if max_jobs is not None else batch
                    self._guard(batch, self._pages_added)
                    done += len(batch)
                else:
                    self._guard([jobs[0]], self._one_job)
                    done += 1
            self._retention()  # after the jobs: what old pages teach is learned first
        return done

    def _retention(self) -> None:
        """Forget what the retention policy says is too old (settings, or the admin policy)."""
        from engine.forgetting import apply_retention

        days, keep_facts = self.memory.retention()
        if days > 0 and apply_retention(self.memory, days, keep_facts, time.time()):
            for event in ("pages", "segments", "facts"):
                self.notify(event)

    def _guard(self, jobs: list[tuple], action: Callable[[list[tuple]], None]) -> None:
        claimed = set(self.memory.vault.claim_jobs([job[0] for job in jobs], time.time()))
        jobs = [job for job in jobs if job[0] in claimed]
        if not jobs:
            return  # another process took them
        try:
            action(jobs)
            self.last_error = None
        except Exception as exc:
            from engine import errors

            now = time.time()
            if isinstance(exc, (errors.VaultLockedError, errors.DiskFullError)):
                # the environment, not the job: hand it back untouched and retry later
                with contextlib.suppress(Exception), self.memory.vault.transaction():
                    for job in jobs:
                        self.memory.vault.release_job(job[0], str(exc), now)
                raise
            message = f"{jobs[0][1]} failed: {type(exc).__name__}: {exc}"
            self.last_error = message
            log.exception("consolidation job failed")
            with self.memory.vault.transaction():
                for job_id, _kind, _payload, attempts in jobs:
                    self.memory.vault.fail_job(job_id, message, attempts + 1 >= MAX_ATTEMPTS, now)

    def _one_job(self, jobs: list[tuple]) -> None:
        job_id, kind, payload, _ = jobs[0]
        if kind == STM_OVERFLOW:
            self._stm_overflow(job_id)
        elif kind == ANALYSE_SEGMENT:
            self._analyse_segment(job_id, int(payload["segment_id"]))
        elif kind == EMBED_TURNS:
            self._embed_turns(job_id, int(payload["upto"]))
        else:
            with self.memory.vault.transaction():
                self.memory.vault.fail_job(job_id, f"unknown job kind {kind}", True, time.time())

    def _llm(self):
        """The chat model, if consolidation may use it (capable, or forced by the settings)."""
        chat = self.memory.chat
        mode = self.memory.settings.llm_consolidation
        if chat is None or mode == "never":
            return None
        if mode == "auto" and not chat.extraction_capable:
            return None
        if getattr(chat, "remote", False) and not self.memory.remote_consolidation_allowed():
            return None  # memories leave the machine in the background only if allowed
        return chat

    def _structured(self, messages: list[dict], schema: dict) -> dict | None:
        chat = self._llm()
        if chat is None:
            return None
        try:
            from engine.backends.structured import StructuredStats, structured_call
        except ImportError:
            return None
        if self.structured_stats is None:
            self.structured_stats = StructuredStats()
        self.memory.wait_for_foreground()
        calls = chat.usage.structured_calls
        result = None
        try:
            result = structured_call(chat, messages, schema, stats=self.structured_stats)
            return result
        except Exception as exc:  # a failing model degrades to the non-LLM path
            self.last_error = f"structured call failed: {type(exc).__name__}: {exc}"
            return None
        finally:
            tries = max(1, chat.usage.structured_calls - calls)  # a retry sends it again
            self.memory.transfers.record(
                chat, "consolidation", messages * tries, len(json.dumps(result)) if result else 0
            )

    # ---- page added: persona candidates (no LLM), then STM overflow check ---------------

    def _pages_added(self, jobs: list[tuple]) -> None:
        vault, memory = self.memory.vault, self.memory
        ids = [int(job[2]["page_id"]) for job in jobs]
        pages = {p.id: p for p in map(page_from_row, vault.page_rows(ids))}
        prepared = [memory.persona.prepare(page) for page in pages.values()]
        now = time.time()
        touched_facts = False
        with vault.transaction():
            for learned in prepared:
                touched_facts = memory.persona.learn(learned, now) > 0 or touched_facts
            for job in jobs:
                vault.finish_job(job[0])
            queue = vault.count_pages("short")
            if short_term.overflow_count(queue, memory.settings) and not vault.has_pending(
                STM_OVERFLOW, {}
            ):
                vault.enqueue(STM_OVERFLOW, {}, now)
        if touched_facts:
            self.notify("facts")
        self.notify("jobs")

    # ---- STM overflow: pages leave the queue in a batch and join segments ----------------

    def _stm_overflow(self, job_id: int) -> None:
        """Move the oldest STM pages into segments, a chunk per transaction (an import of
        thousands of pages never holds the write lock for long); the job ends with the last."""
        vault, settings = self.memory.vault, self.memory.settings
        while True:
            count = short_term.overflow_count(vault.count_pages("short"), settings)
            pages = [page_from_row(r) for r in short_term.oldest_rows(vault, min(count, CHUNK))]
            last = count <= CHUNK
            touched = self._move_to_segments(pages, job_id if last else None)
            self.notify("pages")
            self.notify("segments")
            if touched:
                self._llm_refresh(pages, list(touched))
            if last or not pages:
                return

    def _move_to_segments(self, pages: list[Page], finish_job: int | None) -> dict[int, int]:
        vault, settings = self.memory.vault, self.memory.settings
        vectors = vault.page_vectors([p.id for p in pages])
        page_keywords = {
            p.id: keywords.extract(f"{p.user_input}\n{p.agent_response}", 8) for p in pages
        }
        now = time.time()
        touched: dict[int, int] = {}
        with vault.transaction():
            table = mid_term.SegmentTable.load(vault)
            for page in pages:
                vector = vectors[page.id]
                words = page_keywords[page.id]
                prev_row = vault.previous_page_row(page.conversation_id, page.timestamp, page.id)
                prev = page_from_row(prev_row) if prev_row else None
                prev_vector = None
                if prev is not None:
                    prev_vector = vectors.get(prev.id)
                    if prev_vector is None:
                        prev_vector = vault.page_vectors([prev.id]).get(prev.id)
                linked = chains.continues(prev, prev_vector, page, vector, settings)
                summary = chains.running_summary(prev, linked, words)
                seg_id, _ = table.best(vector, words, settings.segment_threshold)
                if seg_id is None:
                    self._make_room(now, table)  # evict before the new segment takes its place
                    seg_id = vault.insert_segment("", words, vector, now)
                    table.add(seg_id, vector, words)
                vault.move_page_to_segment(
                    page.id, seg_id, prev.id if linked else None, summary, words
                )
                touched[seg_id] = touched.get(seg_id, 0) + 1
                self._refresh_segment(seg_id, 1, now, table, vector, words)
            self._enqueue_hot(now)
            if finish_job is not None:
                vault.finish_job(finish_job)
        return touched

    def _refresh_segment(
        self,
        seg_id: int,
        added: int,
        now: float,
        table,
        vector: np.ndarray,
        words: list[str],
    ) -> None:
        """Update a segment after a page joined: from all its pages while it is small, then
        incrementally (running centroid, merged keywords), with a full refresh every
        FULL_REFRESH pages, so a long import stays linear."""
        vault, settings = self.memory.vault, self.memory.settings
        row = vault.segment_rows(include_archived=True, ids=[seg_id])[0]
        count = row[8]  # pages in the segment, this one included
        if count <= FULL_REFRESH or count % FULL_REFRESH == 0:
            members = [page_from_row(r) for r in vault.segment_page_rows(seg_id)]
            vectors_by_id = vault.page_vectors([p.id for p in members])
            vectors = [vectors_by_id[p.id] for p in members]
            merged = mid_term.merged_keywords(members, settings.segment_keywords)
            centre = mid_term.centroid(vectors)
            summary = mid_term.extractive_summary(members, vectors, merged)
        else:
            old = table.vector(seg_id)
            centre = mid_term.centroid([old * (count - 1), vector])
            merged = mid_term.merge_keyword_lists(
                json.loads(row[2]), words, settings.segment_keywords
            )
            summary = row[1]
        table.update(seg_id, centre, merged)
        vault.update_segment(
            seg_id, summary=summary, keywords=merged, vector=centre, length_delta=added, now=now
        )

    def _make_room(self, now: float, table) -> None:
        """At MTM capacity, archive the lowest-heat segment(s) until one more fits."""
        vault, settings = self.memory.vault, self.memory.settings
        if len(table.ids) < settings.mtm_capacity:
            return
        # row: id, summary, keywords, created, last_access, visits, length, archived, pages
        heats = {
            row[0]: heat(row[5], row[6], row[4], now, settings).heat for row in vault.segment_rows()
        }
        for seg_id in sorted(heats, key=heats.get)[: len(heats) - settings.mtm_capacity + 1]:
            vault.archive_segment(seg_id)  # leaves MTM; its pages stay searchable
            table.remove(seg_id)

    def _enqueue_hot(self, now: float) -> None:
        vault, settings = self.memory.vault, self.memory.settings
        for row in vault.segment_rows():
            if heat(row[5], row[6], row[4], now, settings).heat < settings.heat_threshold:
                continue
            payload = {"segment_id": row[0]}
            if not vault.has_pending(ANALYSE_SEGMENT, payload) and vault.unanalysed_page_ids(
                row[0]
            ):
                vault.enqueue(ANALYSE_SEGMENT, payload, now)

    def _llm_refresh(self, pages: list[Page], segment_ids: list[int]) -> None:
        """One structured call per evicted batch: better keywords and segment summaries."""
        if self._llm() is None:
            return
        vault, settings = self.memory.vault, self.memory.settings
        now = time.time()
        segments = [
            mid_term.segment_from_row(r, now, settings) for r in vault.segment_rows(ids=segment_ids)
        ]
        text = "\n".join(f"[page {p.id}] {p.text()}" for p in pages)
        current = "\n".join(f"[segment {s.id}] {s.summary}" for s in segments)
        messages = [
            {
                "role": "system",
                "content": "You organise a conversation memory. For each page give 3-8 "
                "topic keywords. For each segment write a one or two sentence summary of everything in it "
                "(its current summary plus the new pages) and 3-10 keywords. Answer with JSON only.",
            },
            {"role": "user", "content": f"Segments:\n{current}\n\nNew pages:\n{text}"},
        ]
        result = self._structured(messages, BATCH_SCHEMA)
        if not result:
            return
        with vault.transaction():
            for seg in result.get("segments", []):
                summary = str(seg.get("summary", "")).strip()
                if seg.get("id") in segment_ids and summary:
                    words = [str(w) for w in seg.get("keywords", []) if str(w).strip()][
                        : settings.segment_keywords
                    ]
                    vault.set_segment_text(int(seg["id"]), summary[:1000], words)
        self.notify("segments")

    # ---- migration backfill: one vector per turn for pages stored before schema step 0002 ----

    def _embed_turns(self, job_id: int, upto: int) -> None:
        vault, embedder = self.memory.vault, self.memory.embedder
        while True:
            done = int(vault.get_meta("turns_embedded_upto") or 0)
            pages = [page_from_row(r) for r in vault.pages_after(done, upto, CHUNK)]
            items = [
                (p.id, side, text)
                for p in pages
                for side, text in ((0, p.user_input), (1, p.agent_response))
                if text.strip()
            ]
            vectors = embedder.embed([text for _, _, text in items]) if items else []
            with vault.transaction():
                for (page_id, side, _), vector in zip(items, vectors, strict=True):
                    vault.insert_turn_vectors(page_id, {side: vector})
                if pages:
                    vault.set_meta("turns_embedded_upto", str(pages[-1].id))
                else:
                    vault.finish_job(job_id)
                    return

    # ---- hot segment: persona analysis ---------------------------------------------------

    def _analyse_segment(self, job_id: int, segment_id: int) -> None:
        vault, memory = self.memory.vault, self.memory
        page_ids = vault.unanalysed_page_ids(segment_id)
        pages = [page_from_row(r) for r in vault.page_rows(page_ids)]
        result = None
        if pages and self._llm() is not None:
            known = memory.facts(kind=USER_FACT)[:40]
            messages = long_term.analysis_messages(pages, known, memory.profile())
            result = self._structured(messages, long_term.ANALYSIS_SCHEMA)
        now = time.time()
        origin = f"llm:{memory.chat.model_id}" if result else ""
        with vault.transaction():
            if result:
                self._apply_analysis(result, pages, origin, now)
            if page_ids:
                vault.mark_analysed(page_ids)
            vault.reset_segment_counters(segment_id)
            vault.finish_job(job_id)
        self.notify("segments")
        if result:
            self.notify("facts")

    def _apply_analysis(self, result: dict, pages: list[Page], origin: str, now: float) -> None:
        persona, vault = self.memory.persona, self.memory.vault
        page_ids = [p.id for p in pages]
        allowed = set(page_ids)
        vectors: dict[int, np.ndarray] = {}

        def evidence(item: dict, text: str) -> list[int]:
            # Exact provenance per item: the pages the model cited, else the pages that say
            # it; never the whole batch, or the item would outlive forgetting its true source.
            cited = [
                int(i) for i in item.get("evidence", []) if isinstance(i, int) and i in allowed
            ]
            if cited:
                return sorted(set(cited))
            if not vectors:
                vectors.update(vault.page_vectors(page_ids))
            return long_term.attribute(text, pages, vectors, self.memory.embedder)

        for slot in result.get("profile", []):
            name, value = str(slot.get("name", "")).strip(), str(slot.get("value", "")).strip()
            if name and value:
                persona.set_slot(
                    str(slot.get("category", "trait")),
                    name[:80],
                    value[:300],
                    origin=origin,
                    evidence=evidence(slot, f"{name} {value}"),
                    now=now,
                )
        new_facts = []
        for fact in result.get("user_facts", []):
            text = str(fact.get("text", "")).strip()
            if not text:
                continue
            fact_id = persona.remember_fact(
                USER_FACT,
                text[:500],
                status=ACTIVE,
                origin=origin,
                sources=evidence(fact, text),
                now=now,
            )
            new_facts.append(fact_id)
            for old in fact.get("supersedes", []) or []:
                if isinstance(old, int) and old != fact_id:
                    try:
                        vault.fact(old)
                    except Exception:
                        continue
                    vault.supersede_fact(old, fact_id, now)
        for item in result.get("assistant_knowledge", []):
            text = str(item.get("text", "")).strip()
            if text:
                persona.remember_fact(
                    ASSISTANT_KNOWLEDGE,
                    text[:500],
                    status=ACTIVE,
                    origin=origin,
                    sources=evidence(item, text),
                    now=now,
                )
        if new_facts:  # clean facts now stand for the verbatim candidates of these pages
            for fact_id in vault.candidate_facts_from_pages(list(page_ids), CANDIDATE):
                vault.supersede_fact(fact_id, None, now)
