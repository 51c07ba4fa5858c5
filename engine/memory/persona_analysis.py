"""The hot-segment analysis of the long-term tier: its one structured call's prompt and schema."""

from __future__ import annotations

from engine.records import Page

# JSON schema of the one structured call per hot-segment analysis (capable models only).
ANALYSIS_SCHEMA = {
    "type": "object",
    "properties": {
        "profile": {
            "type": "array",
            "items": {
                "type": "object",
                "properties": {
                    "category": {
                        "type": "string",
                        "enum": ["identity", "trait", "preference", "value"],
                    },
                    "name": {"type": "string"},
                    "value": {"type": "string"},
                    "evidence": {"type": "array", "items": {"type": "integer"}},
                },
                "required": ["category", "name", "value", "evidence"],
            },
        },
        "user_facts": {
            "type": "array",
            "items": {
                "type": "object",
                "properties": {
                    "text": {"type": "string"},
                    "evidence": {"type": "array", "items": {"type": "integer"}},
                    "supersedes": {"type": "array", "items": {"type": "integer"}},
                },
                "required": ["text", "evidence"],
            },
        },
        "assistant_knowledge": {
            "type": "array",
            "items": {
                "type": "object",
                "properties": {
                    "text": {"type": "string"},
                    "evidence": {"type": "array", "items": {"type": "integer"}},
                },
                "required": ["text", "evidence"],
            },
        },
    },
    "required": ["profile", "user_facts", "assistant_knowledge"],
}


def analysis_messages(pages: list[Page], known_facts: list, slots: list) -> list[dict]:
    """The prompt of the hot-segment analysis: pages with ids, what is already known."""
    lines = [f"[page {p.id}] {p.text()}" for p in pages]
    known = [f"[fact {f.id}] {f.text}" for f in known_facts]
    profile = [f"{s.category}/{s.name}: {s.value}" for s in slots]
    return [
        {
            "role": "system",
            "content": (
                "You maintain a long-term memory of a user. From the exchanges, extract: profile "
                "slots (identity, traits, preferences, values) with short values; user facts as short "
                "self-contained third-person sentences; assistant knowledge (what the assistant did or "
                "promised). Cite the page ids each item comes from in `evidence`. If a new fact "
                "contradicts a known fact, list the known fact's id in `supersedes`. Only state what "
                "the exchanges say. Answer with JSON only."
            ),
        },
        {
            "role": "user",
            "content": "Known facts:\n"
            + ("\n".join(known) or "(none)")
            + "\n\nProfile:\n"
            + ("\n".join(profile) or "(empty)")
            + "\n\nExchanges:\n"
            + "\n".join(lines),
        },
    ]


def analysis_texts(result: dict) -> list[str]:
    """Every text _apply_analysis embeds: each fact and piece of knowledge (as stored, and as
    attributed to its pages) and each profile entry's "name value"."""
    texts = []
    for key in ("user_facts", "assistant_knowledge"):
        for item in result.get(key, []) or []:
            text = str(item.get("text", "")).strip() if isinstance(item, dict) else ""
            texts += [text, text[:500]] if text else []
    for slot in result.get("profile", []) or []:
        if isinstance(slot, dict):
            name, value = str(slot.get("name", "")).strip(), str(slot.get("value", "")).strip()
            texts += [f"{name} {value}"] if name and value else []
    return list(dict.fromkeys(texts))
