"""Keys and passphrases: pinned cipher and KDF, minimum length everywhere, rekey, no leaks."""

from __future__ import annotations

import os

import apsw
import pytest
from helpers import run_cli

from engine import errors
from engine.api import MemoryOS
from engine.unlock import PASSPHRASE_ENV, open_memory
from engine.vault import cipher

GOOD = "correct horse battery"


def _raw_open(path, passphrase: str, kdf_iter: int) -> bool:
    """Does the file open with this passphrase and these KDF settings (straight through apsw)?"""
    conn = apsw.Connection(str(path))
    try:
        cipher.pin(conn, kdf_iter)
        conn.execute(f"PRAGMA hexkey='{cipher.as_hex(passphrase)}'")
        conn.execute("SELECT count(*) FROM sqlite_master").fetchall()
        return True
    except apsw.NotADBError:
        return False
    finally:
        conn.close()


def test_a_new_passphrase_vault_uses_the_pinned_cipher_and_strong_kdf(
    tmp_path, fail_keyring, embedder
):
    path = tmp_path / "vaults" / "v.memoryos"  # a folder made for it: private
    with MemoryOS.open(
        path, create=True, passphrase=GOOD, embedder=embedder, background=False
    ) as mem:
        mem.add_memory("hello", "hi")
        assert mem.vault.kdf_iter == cipher.PASSPHRASE_KDF_ITER
        assert mem.info().key_location == "passphrase"
    assert _raw_open(path, GOOD, cipher.PASSPHRASE_KDF_ITER)
    assert not _raw_open(path, GOOD, cipher.LEGACY_KDF_ITER)  # the setting is really in use
    assert path.stat().st_mode & 0o777 == 0o600 and path.parent.stat().st_mode & 0o777 == 0o700


@pytest.mark.parametrize("short", ["", "123456789", "short"])
def test_passphrases_under_ten_characters_are_refused_for_a_new_vault(
    tmp_path, fail_keyring, embedder, short
):
    path = tmp_path / "v.memoryos"
    with pytest.raises(errors.InvalidInputError):
        MemoryOS.open(path, create=True, passphrase=short, embedder=embedder, background=False)
    assert not path.exists()


def test_the_env_passphrase_has_the_same_minimum(tmp_path):
    home = tmp_path / "home"
    transcript = tmp_path / "talk.json"
    transcript.write_text('[{"user": "I like tea", "assistant": "Nice"}]', encoding="utf-8")
    done = run_cli(
        "import",
        str(transcript),
        "--create",
        "--embedder",
        "fake",
        home=home,
        passphrase="tooshort",
    )
    assert done.returncode == 2
    assert (
        "at least 10 characters" in done.stderr.decode() and "tooshort" not in done.stderr.decode()
    )
    assert not list(home.rglob("*.memoryos"))


def test_the_env_passphrase_is_removed_once_read(tmp_path, fail_keyring, embedder, monkeypatch):
    monkeypatch.setenv(PASSPHRASE_ENV, GOOD)
    memory = open_memory(tmp_path / "v.memoryos", create=True, embedder=embedder, background=False)
    try:
        assert PASSPHRASE_ENV not in os.environ  # a child process cannot inherit it now
        assert memory.info().key_location == "passphrase"
    finally:
        memory.close()


def test_quotes_and_nul_bytes_work_and_never_show_in_errors(tmp_path, fail_keyring, embedder):
    path = tmp_path / "v.memoryos"
    odd = "it's a\x00secret pass"
    with MemoryOS.open(
        path, create=True, passphrase=odd, embedder=embedder, background=False
    ) as mem:
        mem.add_memory("odd key", "fine")
    with MemoryOS.open(path, passphrase=odd, embedder=embedder, background=False) as mem:
        assert mem.pages()[0].user_input == "odd key"
    wrong = "it's a\x00different pass"
    with pytest.raises(errors.WrongKeyError) as caught:
        MemoryOS.open(path, passphrase=wrong, embedder=embedder, background=False)
    text = str(caught.value) + repr(caught.value.__cause__) + repr(caught.value.__context__)
    assert "it's" not in text and "secret" not in text and "different" not in text


def test_rekey_moves_an_old_vault_to_the_strong_kdf(tmp_path, fail_keyring, embedder):
    """A vault made before the pinned settings (SQLite3MC's defaults, `PRAGMA key`)."""
    path = tmp_path / "old.memoryos"
    with MemoryOS.open(
        path, create=True, passphrase=GOOD, embedder=embedder, background=False
    ) as mem:
        page = mem.add_memory("I grow chillies", "Hot")
        mem.vault.rekey(GOOD)  # now strong; turn it back into an old-style vault below
        mem.vault.conn.execute("PRAGMA journal_mode=DELETE").fetchall()
        cipher.pin(mem.vault.conn, cipher.LEGACY_KDF_ITER)
        mem.vault.conn.execute("PRAGMA rekey='short-old'")  # old vaults had no minimum length
        mem.vault.conn.execute("PRAGMA journal_mode=WAL").fetchall()
    assert _raw_open(path, "short-old", cipher.LEGACY_KDF_ITER)
    with MemoryOS.open(path, passphrase="short-old", embedder=embedder, background=False) as mem:
        assert "memoryos rekey" in mem.info().key_location  # it still opens, and says what to do
    home = tmp_path / "home"
    done = run_cli(
        "rekey",
        "--vault-path",
        str(path),
        home=home,
        passphrase="short-old",
        env={"MEMORYOS_NEW_PASSPHRASE": "a much longer passphrase"},
    )
    assert done.returncode == 0, done.stderr.decode()
    assert "500,000 iterations" in done.stderr.decode()
    assert not _raw_open(path, "short-old", cipher.LEGACY_KDF_ITER)
    assert _raw_open(path, "a much longer passphrase", cipher.PASSPHRASE_KDF_ITER)
    with MemoryOS.open(
        path, passphrase="a much longer passphrase", embedder=embedder, background=False
    ) as mem:
        assert mem.page(page.id).user_input == "I grow chillies"
        assert mem.info().key_location == "passphrase"


def test_the_default_vault_folder_is_private_and_a_chosen_one_is_left_alone(
    tmp_path, fail_keyring, embedder
):
    from engine import paths

    mine = tmp_path / "Documents"
    mine.mkdir(mode=0o755)
    mine.chmod(0o755)
    for path in (paths.vault_path("tom"), mine / "v.memoryos"):
        MemoryOS.open(
            path, create=True, passphrase=GOOD, embedder=embedder, background=False
        ).close()
        assert path.stat().st_mode & 0o777 == 0o600
    assert paths.vaults_dir().stat().st_mode & 0o777 == 0o700
    assert mine.stat().st_mode & 0o777 == 0o755
