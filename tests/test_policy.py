"""Deployment controls: retention run by consolidation, and the administrator's policy file."""

from __future__ import annotations

import json
import time

import pytest
from helpers import run_cli

from engine import errors
from engine.backends.openai_compat import OpenAIChat
from engine.policy import POLICY_ENV, load_policy
from engine.settings import MemorySettings

DAY = 86400.0


@pytest.fixture
def policy_file(tmp_path, monkeypatch):
    """write(**keys): the administrator's policy for this test (through the env override)."""
    path = tmp_path / "policy.json"
    monkeypatch.setenv(POLICY_ENV, str(path))

    def write(**keys):
        path.write_text(json.dumps(keys), encoding="utf-8")
        return path

    return write


def _old_and_new(memory):
    now = time.time()
    old = memory.add_memory("I lived in Porto for a year.", "Nice city.", timestamp=now - 40 * DAY)
    new = memory.add_memory("I now live in Madrid.", "Great.", timestamp=now - 1 * DAY)
    return old, new


def test_retention_forgets_old_exchanges_and_keeps_what_was_learned(memory):
    memory.update_settings(MemorySettings(retention_days=30))
    old, new = _old_and_new(memory)
    memory.run_consolidation()
    assert [p.id for p in memory.pages()] == [new.id]
    porto = next(f for f in memory.facts() if "Porto" in f.text)
    assert porto.source_page_ids == ()  # kept, its source exchange is gone
    assert old.id not in memory.retrieve("Porto").page_ids()


def test_retention_can_forget_the_facts_too(memory):
    memory.update_settings(MemorySettings(retention_days=30, retention_keeps_facts=False))
    _old_and_new(memory)
    memory.run_consolidation()
    assert all("Porto" not in f.text for f in memory.facts(include_superseded=True))
    assert [p.user_input for p in memory.pages()] == ["I now live in Madrid."]


def test_no_retention_by_default(memory):
    _old_and_new(memory)
    memory.run_consolidation()
    assert len(memory.pages()) == 2


def test_the_policy_forces_retention_over_the_settings(memory, policy_file):
    policy_file(retention_days=7, retention_keeps_facts=False)
    assert memory.settings.retention_days == 0  # the person chose "keep for ever"
    _old_and_new(memory)
    memory.run_consolidation()
    assert [p.user_input for p in memory.pages()] == ["I now live in Madrid."]
    assert memory.retention() == (7, False)


def test_the_policy_can_disable_export(memory, policy_file, tmp_path):
    memory.add_memory("I like chess", "ok")
    policy_file(export=False)
    with pytest.raises(errors.PolicyError, match="export is turned off by your administrator"):
        memory.export_json(tmp_path / "out.json")
    assert not (tmp_path / "out.json").exists()


def test_with_export_off_a_backup_is_still_made_and_stays_encrypted(memory, policy_file, tmp_path):
    """Export off keeps the memory from leaving as text; a backup is the vault's encrypted
    copy (README's policy paragraph), so it is made, and says nothing readable."""
    memory.add_memory("I like chess", "ok")
    policy_file(export=False)
    done = memory.backup(tmp_path / "copy.memoryos")
    raw = done.path.read_bytes()
    assert raw and b"chess" not in raw and not raw.startswith(b"SQLite format 3")


def test_the_policy_export_switch_reaches_the_cli(tmp_path, policy_file):
    home = tmp_path / "home"
    transcript = tmp_path / "talk.json"
    transcript.write_text('[{"user": "I like tea", "assistant": "Nice"}]', encoding="utf-8")
    imported = run_cli("import", str(transcript), "--create", "--embedder", "fake", home=home)
    assert imported.returncode == 0
    path = policy_file(export=False)
    done = run_cli("export", str(tmp_path / "out.json"), "--embedder", "fake", home=home,
                   env={POLICY_ENV: str(path)})  # fmt: skip
    assert done.returncode == 2 and "turned off by your administrator" in done.stderr.decode()
    assert not (tmp_path / "out.json").exists()


def test_the_policy_can_turn_remote_models_off(memory, policy_file):
    policy_file(remote_models=False)
    with pytest.raises(errors.PolicyError, match="turned off by your administrator"):
        OpenAIChat("https://api.example.com/v1", "m")
    assert not OpenAIChat("http://127.0.0.1:8080/v1", "m").remote  # this computer is fine
    memory.update_settings(MemorySettings(remote_consolidation=True))
    assert memory.remote_consolidation_allowed() is False


@pytest.mark.parametrize(
    ("content", "message"),
    [
        ("{not json", "cannot be read"),
        ('{"export": "no"}', "export must be true or false"),
        ('{"retention_days": -1}', "retention_days must be a whole number"),
        ('{"exports": false}', "unknown key 'exports'"),
        ("[1, 2]", "is not a JSON object"),
    ],
)
def test_a_broken_policy_is_a_clear_error_not_no_policy(tmp_path, content, message):
    path = tmp_path / "policy.json"
    path.write_text(content, encoding="utf-8")
    with pytest.raises(errors.InvalidInputError, match=message):
        load_policy(path)


def test_no_file_means_no_policy(tmp_path):
    policy = load_policy(tmp_path / "absent.json")
    assert policy.retention_days is None and not policy.export_forbidden
    assert not policy.locked("remote_consolidation")
