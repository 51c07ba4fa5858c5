"""A damaged vault file: finding the damage, saying what to do, and reading past it.

Each page of the file is encrypted with its own check (ChaCha20-Poly1305): a page changed on
disk no longer decrypts, and SQLite reports it only when that page is read. Opening the vault
and counting its exchanges read a few pages, so a damaged vault looked healthy until something
touched the damaged page. `PRAGMA quick_check` reads every page (about 0.1 s for a vault of
10,000 exchanges, 18 MB), so `memoryos status` and the app, after a vault opens, run it.
"""

from __future__ import annotations

import os
import shlex
from collections.abc import Iterator
from dataclasses import dataclass
from pathlib import Path

from engine import paths

DAMAGED = "the vault file is damaged (part of it cannot be read)"
SUFFIX = ".memoryos"


def vault_option(path: Path | None) -> str:
    """What a command needs to act on the vault at `path`: ' --vault NAME' for one in the
    vaults folder, ' --vault-path FILE' for one elsewhere, '' for the default vault where no
    $MEMORYOS_VAULT names another."""
    from engine.unlock import DEFAULT_VAULT, VAULT_ENV

    path = Path(path)
    if path.parent != paths.vaults_dir() or not path.name.endswith(SUFFIX):
        return f" --vault-path {shlex.quote(str(path))}"
    name = path.name[: -len(SUFFIX)]
    if name == DEFAULT_VAULT and (os.environ.get(VAULT_ENV) or DEFAULT_VAULT) == DEFAULT_VAULT:
        return ""
    return f" --vault {shlex.quote(name)}"


def advice(path: Path | None = None) -> str:
    """What to do about a damaged vault, with the real commands and menus. With the vault's
    `path` the commands name it; without it they say to give the same vault option: typed
    as shown after `memoryos status --vault work`, they would act on the default vault."""
    option = vault_option(path) if path is not None else ""
    same = (
        "" if path is not None else
        " (in a terminal, give each command the same --vault NAME or --vault-path FILE as the "
        "command that found the damage)"
    )  # fmt: skip
    return (
        f"First keep a copy of it as it is: `memoryos backup FILE{option}` (File → Back up "
        "memory…). Then open a backup made before the damage: put it in "
        f"{paths.vaults_dir()} under a new name ending in .memoryos and open it with File → "
        "Switch memory… (a command opens it with `--vault-path FILE`); or save what can still "
        f"be read: `memoryos export memory.json{option}` (File → Export memory…), then "
        "`memoryos import memory.json --create --vault NEW-NAME` makes a new memory of it"
        f"{same}"
    )


def damaged_message(capital: bool = False, path: Path | None = None) -> str:
    """The whole message of a damaged vault: what is wrong, then what to do; `capital`: as
    a sentence of its own; `path`: the vault's file, for commands that name it."""
    text = f"{DAMAGED}. {advice(path)}."
    return text[0].upper() + text[1:] if capital else text


def naming_vault(exc: Exception, path: Path) -> Exception:
    """`exc` with its advice naming the vault at `path`, where it is the damaged-vault message
    that translate() gave without knowing the vault; any other error as it is."""
    from engine import errors

    if isinstance(exc, errors.VaultCorruptError) and str(exc) == damaged_message():
        return errors.VaultCorruptError(damaged_message(path=path))
    return exc


@dataclass(frozen=True)
class Health:
    """What SQLite's check of every page of the vault found: nothing, or its problems."""

    problems: tuple[str, ...] = ()

    @property
    def damaged(self) -> bool:
        return bool(self.problems)

    def summary(self) -> str:
        """'ok', or how many problems the check found and the first of them."""
        if not self.problems:
            return "ok"
        first = self.problems[0].replace("*** in database main ***", "").strip()
        first = first.splitlines()[0] if first else "the check could not read the file"
        many = f"{len(self.problems)} problems" if len(self.problems) > 1 else "a problem"
        return f"the check of every page found {many} (the first: {first})"


def check(conn) -> Health:
    """Read every page of the open vault (`PRAGMA quick_check`); never raises for damage."""
    import apsw

    try:
        rows = conn.execute("PRAGMA quick_check").fetchall()
    except apsw.CorruptError:  # a damaged page the check itself cannot step over
        return Health(("a page could not be decrypted or read",))
    found: list[str] = []
    for (text,) in rows:
        if text != "ok":
            found.extend(line for line in str(text).splitlines() if line.strip())
    problems = [line for line in found if line.strip() != "*** in database main ***"]
    return Health(tuple(problems or found))


@dataclass
class TableRead:
    """The rows of one table that could be read, and how many could not (None: unknown)."""

    rows: list[dict]
    skipped: int | None = 0


def read_table(conn, table: str) -> TableRead:
    """Every row of `table` that can be read, in key order. Where a page of the table is
    damaged, the rows on it are skipped and reading goes on after it, for tables with a
    whole-number key (the rowid, or the first key column; elsewhere reading stops there).
    The count skipped comes from `count(*)`, which an index answers where the table's own
    pages are damaged."""
    import apsw

    key, whole = _key_column(conn, table)
    order = ", ".join(_order_columns(conn, table))
    rows: list[dict] = []
    start = None
    damaged = False
    while True:
        where = "" if start is None else f"WHERE {key} >= ?"
        last = None
        try:  # apsw reads the first row in execute(): a damaged page can stop it there
            cursor = conn.execute(
                f"SELECT {key}, * FROM {table} {where} ORDER BY {order}",
                () if start is None else (start,),
            )
            names = [d[0] for d in cursor.getdescription()][1:]
            for row in cursor:
                last = row[0]
                rows.append(dict(zip(names, row[1:], strict=True)))
            break
        except apsw.ExecutionCompleteError:  # no rows at all: nothing to describe
            break
        except apsw.CorruptError:
            damaged = True
            if not whole:  # no step can be taken over a text key: the rest is skipped
                break
            failed_at = last if last is not None else start
            start = _next_readable(conn, table, key, failed_at)
            if start is None:
                break
    if not damaged:
        return TableRead(rows, 0)
    try:
        total = conn.execute(f"SELECT count(*) FROM {table}").fetchall()[0][0]
    except apsw.CorruptError:
        return TableRead(rows, None)
    return TableRead(rows, max(0, total - len(rows)))


def _key_column(conn, table: str) -> tuple[str, bool]:
    """The column rows are read in order of, and whether it holds whole numbers."""
    first = _order_columns(conn, table)[0]
    if first == "rowid":
        return first, True
    info = conn.execute(f"PRAGMA table_info({table})").fetchall()
    kind = next(row[2] for row in info if row[1] == first)
    return first, "INT" in str(kind).upper()


def _order_columns(conn, table: str) -> list[str]:
    """The table's key columns in key order (the rowid for an ordinary table)."""
    sql = conn.execute("SELECT sql FROM sqlite_master WHERE name=?", (table,)).fetchall()[0][0]
    if "WITHOUT ROWID" not in sql.upper():
        return ["rowid"]
    info = conn.execute(f"PRAGMA table_info({table})").fetchall()
    return [row[1] for row in sorted((r for r in info if r[5]), key=lambda r: r[5])]


def _next_readable(conn, table: str, key: str, failed_at: int | None) -> int | None:
    """The smallest key above `failed_at` (the last key read, or where reading began) from
    which `table` reads again, found by steps of growing size and then halving; None where
    there is none. Always above `failed_at`: the same damaged row is never read twice."""
    failed_at = 0 if failed_at is None else int(failed_at)
    step = 1
    while not _seek_works(conn, table, key, failed_at + step):
        step *= 2
        if step > 2**62:
            return None
    low, high = failed_at + step // 2, failed_at + step  # low fails (or is failed_at), high works
    if step == 1:
        return high
    while high - low > 1:
        middle = (low + high) // 2
        if _seek_works(conn, table, key, middle):
            high = middle
        else:
            low = middle
    return high


def _seek_works(conn, table: str, key: str, start: int) -> bool:
    import apsw

    try:
        conn.execute(
            f"SELECT {key} FROM {table} WHERE {key} >= ? ORDER BY {key} LIMIT 1", (start,)
        ).fetchall()
        return True
    except apsw.CorruptError:
        return False


def skipped_text(skipped: dict[str, int | None], names: dict[str, str]) -> Iterator[str]:
    """'26 exchanges', 'some facts' for each table with rows that could not be read."""
    for table, count in skipped.items():
        name = names.get(table, f"rows of {table}")
        if count is None:
            yield f"an unknown number of {name}"
        elif count:
            yield f"{count} {name}"
