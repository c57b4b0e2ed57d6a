"""Read-only access to run records: the `wif runs` queries and user-supplied SELECTs.

Why three layers for `wif runs query`: the statement check gives a clear message,
and the connection itself cannot write (`mode=ro`, `PRAGMA query_only`, and an
authorizer that allows only reading), so a clever statement gets nowhere either.
"""

from __future__ import annotations

import sqlite3
from pathlib import Path
from typing import Any

from wif_action.run_records.schema import open_runs_readonly

_ALLOWED_ACTIONS = {sqlite3.SQLITE_SELECT, sqlite3.SQLITE_READ, sqlite3.SQLITE_FUNCTION, sqlite3.SQLITE_RECURSIVE}
_QUOTES = {"'": "'", '"': '"', "`": "`", "[": "]"}


class QueryError(Exception):
    """A statement that `wif runs query` refuses or SQLite rejected; safe to print."""


def check_select(sql: str) -> str:
    """The statement without a trailing `;` if it is one SELECT/WITH statement, else QueryError."""
    code, rest = _split_first_statement(sql)
    if _strip_comments(rest).strip(" \t\r\n;"):
        raise QueryError("only a single statement is allowed")
    words = _strip_comments(code).split()
    if not words or words[0].lower() not in ("select", "with"):
        raise QueryError("only SELECT (or WITH … SELECT) statements are allowed")
    return code.strip()


def _split_first_statement(sql: str) -> tuple[str, str]:
    """(first statement, everything after its `;`), honouring quotes and comments."""
    i, n = 0, len(sql)
    while i < n:
        ch = sql[i]
        if ch in _QUOTES:
            end = sql.find(_QUOTES[ch], i + 1)
            i = n if end < 0 else end + 1
        elif sql.startswith("--", i):
            end = sql.find("\n", i)
            i = n if end < 0 else end + 1
        elif sql.startswith("/*", i):
            end = sql.find("*/", i + 2)
            i = n if end < 0 else end + 2
        elif ch == ";":
            return sql[:i], sql[i + 1:]
        else:
            i += 1
    return sql, ""


def _strip_comments(sql: str) -> str:
    out, i, n = [], 0, len(sql)
    while i < n:
        if sql.startswith("--", i):
            end = sql.find("\n", i)
            i = n if end < 0 else end
        elif sql.startswith("/*", i):
            end = sql.find("*/", i + 2)
            i = n if end < 0 else end + 2
            out.append(" ")
        else:
            out.append(sql[i])
            i += 1
    return "".join(out)


def _read_only_authorizer(action: int, *args: Any) -> int:
    return sqlite3.SQLITE_OK if action in _ALLOWED_ACTIONS else sqlite3.SQLITE_DENY


def connect(path: str | Path) -> sqlite3.Connection:
    """A read-only connection to a checked run-records file (CacheError if it is not one)."""
    conn = open_runs_readonly(path)
    conn.set_authorizer(_read_only_authorizer)
    return conn


def select(conn: sqlite3.Connection, sql: str, params: list | tuple = ()) -> tuple[list[str], list[tuple]]:
    """(column names, rows) of one checked SELECT."""
    try:
        cursor = conn.execute(check_select(sql), params)
        rows = cursor.fetchall()
    except sqlite3.Error as error:
        raise QueryError(f"SQLite: {error}") from error
    return [d[0] for d in cursor.description or []], rows


def as_dicts(headers: list[str], rows: list[tuple]) -> list[dict[str, Any]]:
    return [dict(zip(headers, row, strict=True)) for row in rows]
