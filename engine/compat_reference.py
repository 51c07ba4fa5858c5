"""The reference MemoryOS's memory of a user, found for Memoryos to import (compat.py)."""

from __future__ import annotations

import json
import shlex
from pathlib import Path
from typing import Any

from engine.compat_models import notice
from engine.errors import InvalidInputError
from engine.shared_knowledge import SharedKnowledge, link_key


def reference_of(data_storage_path: str, user_id: str, assistant_id: str) -> Any:
    """The reference's memory of `user_id` in its data folder, read and checked (an
    engine.reference_files.ReferenceData), with the knowledge of `assistant_id`: from its JSON
    files, else from its chromadb variant's store (chroma_storage/); None when the reference
    left nothing of this user."""
    from engine import reference_chroma, reference_files

    folder = Path(data_storage_path)
    if _has_json_files(folder, user_id):
        assistant = folder / "assistants" / assistant_id / "long_term_assistant.json"
        return reference_files.read_reference(
            folder, user_id, [assistant_id] if assistant.is_file() else []
        )
    return reference_chroma.read_user(folder, user_id, assistant_id)


def _has_json_files(folder: Path, user_id: str) -> bool:
    from engine.reference_files import USER_FILES

    return any((folder / "users" / user_id / name).is_file() for name in USER_FILES)


def _reference_place(data_storage_path: str, user_id: str) -> Path | None:
    """Where the reference left memory of `user_id` (the data folder, or its chroma_storage/),
    found without reading it; None when nowhere."""
    from engine import reference_chroma

    folder = Path(data_storage_path)
    if _has_json_files(folder, user_id):
        return folder
    store = reference_chroma.store_folder(folder)
    if store is None:
        return None
    try:
        return store if user_id in reference_chroma.find_chroma_users(store) else None
    except InvalidInputError:
        return store  # unreadable: the import, when asked for, will say why


def _holds_memories(memory: Any, assistant_id: str) -> bool:
    """Has this vault any memory of its own: a page, a profile entry or a fact? Copies of the
    assistant's shared knowledge (engine.shared_knowledge) are the assistant's, not the user's."""
    vault = memory.vault
    if vault.count_pages() or vault.slots(True):
        return True
    state = json.loads(vault.get_meta(link_key(assistant_id)) or "{}")
    copies = {int(local) for _, local in state.get("links", [])}
    return any(fact.id not in copies for fact in vault.facts(None, True))


def reference_for(memory: Any, data_storage_path: str, user_id: str, assistant_id: str) -> Any:
    """The reference data to import into an existing vault: only into one without memories
    (say, made by an earlier run before the reference's data was there), and never twice (an
    import leaves its record in the vault, engine.reference_import); None otherwise. Into a
    vault that already holds memories nothing is imported unasked: a notice says how."""
    from engine.memory.vocabulary import IMPORTED_PREFIX

    if memory.vault.get_meta(f"{IMPORTED_PREFIX}{user_id}") is not None:
        return None  # imported before: what was forgotten since stays forgotten
    if not _holds_memories(memory, assistant_id):
        return reference_of(data_storage_path, user_id, assistant_id)
    place = _reference_place(data_storage_path, user_id)
    if place is not None:
        notice(
            f"the vault of user {user_id!r} already holds memories, so the reference MemoryOS "
            f"memory in {place} was not imported into it; to add it, run: memoryos "
            f"import-reference {shlex.quote(str(place))} --user {user_id} "
            f"--data-folder {shlex.quote(data_storage_path)}"
        )
    return None


def run_import(memory: Any, data: Any, shared: dict[str, SharedKnowledge]) -> Any:
    """Import read reference data into a new vault; returns what was added
    (engine.reference_import.Added)."""
    from engine.reference_import import import_steps

    steps = import_steps(memory, data, shared)
    while True:
        try:
            next(steps)
        except StopIteration as finished:
            return finished.value
