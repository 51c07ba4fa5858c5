"""The three MemoryOS tiers (short-term queue, mid-term segments, long-term persona) and their helpers.

context.py       MemoryContext: what every tier, consolidation and retrieval receive
short_term.py    the queue: writing a page, when it overflows, the turn-vector backfill
mid_term.py      segments: placing pages, refreshing a segment's summary and centroid
heat.py          segment heat, eviction of the coldest, which segments are hot
segment_index.py the active segments in RAM (placement and retrieval share it)
chains.py        dialogue chains between consecutive pages
long_term.py     the persona: adding a fact or profile entry, and what it replaces
persona_learning.py  what pages and hot segments teach, written through the persona
persona_edits.py     the person's own edits: facts added by hand, edits, deletes, undo
persona_patterns.py  profile slots, tastes and habits read by patterns, without an LLM
persona_statements.py  facts kept without an LLM: statements, what the assistant did or promised
persona_analysis.py  what a hot segment teaches: the one structured call's prompt and schema
persona_compare.py   which pages an item came from; is it the same taste, habit or place
model.py         the chat model as consolidation may use it
vectors.py       in-RAM vector mirrors;  keywords.py, when.py: words and dates
sentences.py     text cut into sentences;  clauses.py: where a profile value's clause ends
"""
