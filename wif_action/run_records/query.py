"""Read-only access to run records: the `wif runs` queries and user-supplied SELECTs.

Why no statement filter of our own: SQLite enforces it. The connection cannot
write (`mode=ro` URI, `PRAGMA query_only`), an authorizer allows only reading
(no PRAGMA, no ATTACH), and `execute` runs one statement at a time; whatever is
refused comes back as SQLite's own message.
"""

from __future__ import annotations

import sqlite3
from pathlib import Path
from typing import Any

from wif_action.run_records.schema import open_runs_readonly

MAX_STEPS = 2_000_000_000  # SQLite VM steps one statement may take (tens of seconds): a runaway CTE stops
MAX_ROWS = 100_000  # rows one statement may return (a table printed past this is no answer anyway)
_STEPS_PER_CHECK = 100_000
_ALLOWED_ACTIONS = {sqlite3.SQLITE_SELECT, sqlite3.SQLITE_READ, sqlite3.SQLITE_FUNCTION, sqlite3.SQLITE_RECURSIVE}


class QueryError(Exception):
    """A statement that `wif runs query` refuses or SQLite rejected; safe to print."""


def _read_only_authorizer(action: int, *args: Any) -> int:
    return sqlite3.SQLITE_OK if action in _ALLOWED_ACTIONS else sqlite3.SQLITE_DENY


def connect(path: str | Path) -> sqlite3.Connection:
    """A read-only connection to a checked run-records file (CacheError if it is not one)."""
    conn = open_runs_readonly(path)
    conn.set_authorizer(_read_only_authorizer)
    return conn


def select(conn: sqlite3.Connection, sql: str, params: list | tuple = (), *, max_steps: int = MAX_STEPS,
           max_rows: int = MAX_ROWS) -> tuple[list[str], list[tuple]]:
    """(column names, rows) of one read-only statement (QueryError for anything else).

    Bounded in work (SQLite's own step count, the same on any machine) and in rows: a recursive CTE without an end
    ran until interrupted, or filled the memory with rows."""
    if not sql.strip(" \t\r\n;"):
        raise QueryError("no statement given")
    checks = 0

    def over_budget() -> bool:
        nonlocal checks
        checks += 1
        return checks * _STEPS_PER_CHECK > max_steps

    conn.set_progress_handler(over_budget, _STEPS_PER_CHECK)
    try:
        cursor = conn.execute(sql, params)
        rows = cursor.fetchmany(max_rows + 1)
    except (sqlite3.Error, sqlite3.Warning) as error:  # Warning: more than one statement (Python < 3.12)
        if checks * _STEPS_PER_CHECK > max_steps:
            raise QueryError(f"the statement took more than {max_steps:,} SQLite steps and was stopped: narrow it "
                             "(a WHERE, a LIMIT, an end to a recursive CTE)") from error
        raise QueryError(f"SQLite: {error}") from error
    finally:
        conn.set_progress_handler(None, 0)
    if len(rows) > max_rows:
        raise QueryError(f"the statement returns more than {max_rows:,} rows: add a LIMIT")
    return [d[0] for d in cursor.description or []], rows


def as_dicts(headers: list[str], rows: list[tuple]) -> list[dict[str, Any]]:
    return [dict(zip(headers, row, strict=True)) for row in rows]
