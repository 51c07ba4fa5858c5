"""The administrator's policy as a clinic's IT administrator met it: the system file wins over
the variable, 0 is refused, and `mcp`, `doctor`, `status`, `import` and `export` all heed it."""

from __future__ import annotations

import json
import time

import pytest

from engine import errors, forgetting, policy
from engine.policy import POLICY_ENV, load_policy
from tests.helpers import run_cli

DAY = 86400.0
FAKE = ("--embedder", "fake")
INITIALIZE = json.dumps({
    "jsonrpc": "2.0", "id": 1, "method": "initialize",
    "params": {"protocolVersion": "2024-11-05", "capabilities": {},
               "clientInfo": {"name": "test", "version": "1"}},
}) + "\n"  # fmt: skip


@pytest.fixture
def system_file(tmp_path, monkeypatch):
    """The platform's policy file, moved into a temporary folder for the test (not written)."""
    path = tmp_path / "etc" / "policy.json"
    path.parent.mkdir()
    monkeypatch.setattr(policy, "system_policy_path", lambda: path)
    return path


def _write(path, **keys):
    path.write_text(json.dumps(keys), encoding="utf-8")
    return path


def test_on_windows_the_system_file_is_not_where_programdata_points(tmp_path, monkeypatch):
    """%PROGRAMDATA% is a variable any person can set for their own programs: the policy was
    read from wherever it pointed (a folder of theirs with no policy, or a lenient one). The
    folder is asked of Windows instead (here, off Windows, its usual place)."""
    (tmp_path / "MemoryOS").mkdir()
    planted = _write(tmp_path / "MemoryOS" / "policy.json", export=True)
    monkeypatch.setenv("PROGRAMDATA", str(tmp_path))
    monkeypatch.setattr(policy.sys, "platform", "win32")
    path = policy.system_policy_path()
    assert path != planted and tmp_path not in path.parents
    assert path.parts[-2:] == ("MemoryOS", "policy.json")


def test_the_system_file_wins_over_the_variable(system_file, tmp_path, monkeypatch, memory):
    memory.add_memory("I like chess", "ok")
    _write(system_file, export=False)
    monkeypatch.setenv(POLICY_ENV, str(tmp_path / "nonexistent.json"))
    with pytest.raises(errors.PolicyError, match="turned off by your administrator"):
        memory.export_json(tmp_path / "out.json")
    assert not (tmp_path / "out.json").exists()
    # a file of the person's own, with export on, does not replace it either
    monkeypatch.setenv(POLICY_ENV, str(_write(tmp_path / "mine.json", export=True)))
    assert policy.policy_path() == system_file and policy.current().export_forbidden


def test_the_variable_is_honoured_where_there_is_no_system_file(system_file, tmp_path,
                                                                monkeypatch):
    elsewhere = _write(tmp_path / "elsewhere.json", retention_days=5)
    monkeypatch.setenv(POLICY_ENV, str(elsewhere))
    assert policy.policy_path() == elsewhere and policy.current().retention_days == 5
    monkeypatch.delenv(POLICY_ENV)
    assert policy.policy_path() == system_file and policy.current().retention_days is None


@pytest.mark.parametrize("key", ["retention_days", "auto_lock_minutes"])
def test_zero_is_refused_with_what_to_do(tmp_path, key):
    path = _write(tmp_path / "policy.json", **{key: 0})
    with pytest.raises(errors.InvalidInputError, match=f"{key} must be a whole number of 1 or "
                       r"more \(leave the key out for no rule\)"):  # fmt: skip
        load_policy(path)
    assert load_policy(_write(path, **{key: 1})).locked(key)


@pytest.mark.parametrize("compat", [(), ("--compat", "reference")])
def test_mcp_refuses_to_start_with_a_broken_policy(home, tmp_path, compat):
    broken = tmp_path / "policy.json"
    broken.write_text("{not json", encoding="utf-8")
    done = run_cli("mcp", "--create", *compat, *FAKE, home=home, stdin=INITIALIZE, timeout=60,
                   env={POLICY_ENV: str(broken)})  # fmt: skip
    error = done.stderr.decode()
    assert done.returncode == 2, error
    assert f"the administrator's policy {broken} cannot be read" in error
    assert done.stdout == b""  # no answer to initialize: nothing was served
    assert "Traceback" not in error and not (home / "vaults").exists()


def _vault_with_an_exchange(home, tmp_path):
    talk = tmp_path / "talk.json"
    talk.write_text('[{"user": "I like tea", "assistant": "Nice"}]', encoding="utf-8")
    assert run_cli("import", str(talk), "--create", *FAKE, home=home).returncode == 0


def test_doctor_calls_a_broken_policy_a_problem(home, tmp_path):
    broken = tmp_path / "policy.json"
    broken.write_text("{not json", encoding="utf-8")
    done = run_cli("doctor", *FAKE, home=home, timeout=90, env={POLICY_ENV: str(broken)})
    out = done.stdout.decode()
    [line] = [line for line in out.splitlines() if "] policy" in line]
    assert done.returncode == 1 and "All good." not in out
    assert line.startswith("[ FAIL  ]") and "cannot be read" in line and str(broken) in line


def test_doctor_warns_when_the_named_policy_file_is_missing(home, tmp_path):
    """A policy deployed through the variable, its path mistyped: doctor said "ok ... no
    administrator's policy" and "All good."."""
    missing = tmp_path / "polcy.json"
    done = run_cli("doctor", *FAKE, home=home, timeout=90, env={POLICY_ENV: str(missing)})
    said = done.stdout.decode()
    line = next(line for line in said.splitlines() if "policy" in line)
    assert "warning" in line and str(missing) in line and "does not exist" in line, said


def test_status_and_doctor_say_which_policy_is_in_force(home, tmp_path):
    _vault_with_an_exchange(home, tmp_path)
    rules = _write(tmp_path / "policy.json", remote_models=False, export=False, retention_days=5,
                   retention_keeps_facts=False, auto_lock_minutes=1)  # fmt: skip
    said = ("remote models off", "export off", "exchanges forgotten after 5 days (facts too)",
            "locks after 1 idle minute")  # fmt: skip
    status = run_cli("status", *FAKE, home=home, env={POLICY_ENV: str(rules)})
    doctor = run_cli("doctor", *FAKE, home=home, timeout=90, env={POLICY_ENV: str(rules)})
    for done in (status, doctor):
        out = done.stdout.decode()
        [line] = [line for line in out.splitlines() if "policy" in line]
        assert str(rules) in line and all(rule in line for rule in said), out
    assert status.returncode == 0
    assert "[  ok   ] policy" in doctor.stdout.decode()
    absent = run_cli("status", *FAKE, home=home, env={POLICY_ENV: str(tmp_path / "none.json")})
    assert absent.returncode == 0
    assert "no administrator's policy" in absent.stdout.decode()


def test_the_import_warning_names_the_policy_not_a_setting(home, tmp_path):
    old = tmp_path / "old.json"
    when = time.time() - 40 * DAY
    old.write_text(json.dumps([{"user": "I lived in Porto", "assistant": "Nice", "timestamp":
                                when}]), encoding="utf-8")  # fmt: skip
    rules = _write(tmp_path / "policy.json", retention_days=5)
    done = run_cli("import", str(old), "--create", "--no-consolidate", *FAKE, home=home,
                   env={POLICY_ENV: str(rules)})  # fmt: skip
    error = done.stderr.decode()
    assert done.returncode == 0, error
    assert f"the administrator's policy ({rules}) keeps" in error and "5 days" in error
    assert "Settings" not in error and "Turn that off" not in error


def test_the_import_warning_still_names_the_setting_without_a_policy(monkeypatch, tmp_path):
    monkeypatch.setenv(POLICY_ENV, str(tmp_path / "none.json"))
    note = forgetting.retention_note(5, [time.time() - 40 * DAY], time.time())
    assert "Settings → Memory → Forget exchanges after" in note and "Turn that off" in note


def test_refused_export_says_what_can_be_done(home, tmp_path):
    _vault_with_an_exchange(home, tmp_path)
    rules = _write(tmp_path / "policy.json", export=False)
    done = run_cli("export", str(tmp_path / "out.json"), *FAKE, home=home,
                   env={POLICY_ENV: str(rules)})  # fmt: skip
    error = done.stderr.decode()
    assert done.returncode == 2 and not (tmp_path / "out.json").exists()
    assert "Ask them" in error and "memoryos backup" in error
    copy = run_cli("backup", str(tmp_path / "copy.memoryos"), *FAKE, home=home,
                   env={POLICY_ENV: str(rules)})  # fmt: skip
    assert copy.returncode == 0 and (tmp_path / "copy.memoryos").exists()


def test_a_policy_broken_while_consolidating_is_said_once_not_every_turn(
    tmp_path, memory_keyring, embedder, chat, monkeypatch, caplog
):
    """A policy file broken while an MCP server ran: retention failed every ~3 s with a
    traceback on stderr. The worker says it once, and memory_status's last error names it."""
    import logging

    from engine.api import MemoryOS

    path = tmp_path / "policy.json"
    monkeypatch.setenv("MEMORYOS_POLICY_FILE", str(path))
    mem = MemoryOS.open(tmp_path / "v.memoryos", create=True, embedder=embedder, chat=chat,
                        background=True)
    try:
        mem.add_memory("I live in Oslo.", "Noted.")
        assert mem.wait_idle(60)
        path.write_text("{not json", encoding="utf-8")
        with caplog.at_level(logging.ERROR, logger="engine.consolidation"):
            for n in range(3):  # three turns of the worker's loop, each failing; jobs between
                mem.add_memory(f"Note {n}: the fax machine is in room {n}.", "Noted.")
                mem.consolidator.wake()
                deadline = time.monotonic() + 30
                while mem.consolidator.last_error is None and time.monotonic() < deadline:
                    time.sleep(0.05)
                mem.wait_idle(10)
        failed = [r for r in caplog.records if r.getMessage() == "consolidation failed"]
        assert len(failed) == 1
        assert str(path) in mem.consolidation_status().last_error
        path.unlink()  # fixed (no policy): the error is not said any more
        deadline = time.monotonic() + 30
        while mem.consolidator.last_error is not None and time.monotonic() < deadline:
            mem.consolidator.wake()
            time.sleep(0.1)
        assert mem.consolidator.last_error is None
    finally:
        path.unlink(missing_ok=True)
        mem.close()
