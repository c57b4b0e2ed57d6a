"""The one module that owns the SQLite schema of the run-records file.

Same approach as the release cache (`indexer/schema.py`): a named migration
set, applied on open for writers, checked (never applied) for readers, so a
reader never mistakes the release cache or a newer file for run records.
"""

from __future__ import annotations

import sqlite3
from pathlib import Path
from typing import TYPE_CHECKING

from indexer.schema import BUSY_TIMEOUT_MS, MigrationSet, migration, open_migrated

if TYPE_CHECKING:  # sqlite-utils loads when a run-records file is opened
    from sqlite_utils import Database

# m002's and m003's columns are read when present: `wif runs` still reads a file an older WIF wrote (an Action
# artifact).
MIGRATIONS = MigrationSet("wif-runs", reader_optional=frozenset({"m002_llm_token_details", "m003_top_commit"}))
LABEL = "WIF run-records file"


@migration(MIGRATIONS)
def m001_run_records(db: Database) -> None:
    db.table("runs").create(
        {
            "id": int, "started_at": str, "finished_at": str, "duration_ms": int, "status": str,
            "source": str, "engine": str, "cache": str, "wif_version": str, "inputs": str,
            "repo": str, "version": str, "problem": str, "outcome": str, "top_version": str,
            "top_pr": int, "top_confidence": str, "github_requests": int, "llm_calls": int,
            "prompt_tokens": int, "completion_tokens": int, "answer": str, "message": str, "error": str,
        },
        pk="id",
        not_null={"started_at", "status"},
        defaults={"status": "running"},
    )
    db.table("runs").create_index(["started_at"])
    db.table("subtasks").create(
        {"run_id": int, "seq": int, "name": str, "started_ms": float, "duration_ms": float, "outcome": str},
        pk=("run_id", "seq"),
        foreign_keys=[("run_id", "runs", "id")],
    )
    db.table("tool_calls").create(
        {
            "run_id": int, "seq": int, "subtask": str, "tool": str, "method": str, "arguments": str,
            "result": str, "started_ms": float, "duration_ms": float, "ok": int, "error": str, "github_requests": int,
        },
        pk=("run_id", "seq"),
        foreign_keys=[("run_id", "runs", "id")],
    )
    db.table("tool_calls").create_index(["tool", "method"])
    db.table("llm_calls").create(
        {
            "run_id": int, "seq": int, "subtask": str, "tool": str, "model": str, "schema": str,
            "prompt": str, "response": str, "prompt_tokens": int, "completion_tokens": int,
            "started_ms": float, "latency_ms": int, "ok": int, "error": str,
        },
        pk=("run_id", "seq"),
        foreign_keys=[("run_id", "runs", "id")],
    )


@migration(MIGRATIONS)
def m002_llm_token_details(db: Database) -> None:
    """Cached prompt tokens and reasoning tokens (parts of prompt and completion tokens, billed differently),
    each call's output mode (json_schema, or the JSON-mode fallback) and each run's cost at the configured
    models' prices (null when a price is unknown)."""
    db.table("runs").add_column("cached_tokens", int)
    db.table("runs").add_column("reasoning_tokens", int)
    db.table("runs").add_column("cost_usd", float)
    db.table("llm_calls").add_column("cached_tokens", int)
    db.table("llm_calls").add_column("reasoning_tokens", int)
    db.table("llm_calls").add_column("mode", str)


@migration(MIGRATIONS)
def m003_top_commit(db: Database) -> None:
    """The commit the answer led with when its release line cites a commit and no PR (`top_pr` is then null), so
    a run record names the change it answered with either way."""
    db.table("runs").add_column("top_commit", str)


def hint(path: Path, *, create: bool = False) -> str:
    """What to do about an unusable file: a writer may start a new one, a reader (`wif runs`) only reads."""
    if create:
        return f"Point --runs-db at a run-records file, or at a new path to start one ({path} is not usable)."
    return ("Run records are written by `wif ask --runs-db FILE`, `wif eval --runs-db FILE` and the Action "
            "(wif-runs.db in its wif-result artifact); `wif runs` only reads them.")


def open_runs(path: str | Path, *, create: bool = False) -> Database:
    """Open the run-records file; writers pass create=True (creates/migrates), readers don't.

    Raises indexer.schema.CacheError when the file is missing, foreign or of another schema.
    """
    return open_migrated(Path(path), MIGRATIONS, LABEL, hint(Path(path), create=create), create=create)


def open_runs_readonly(path: str | Path) -> sqlite3.Connection:
    """A connection that cannot write: checked schema, `mode=ro` URI and `PRAGMA query_only`."""
    open_runs(path).conn.close()
    uri = Path(path).resolve().as_uri() + "?mode=ro"
    conn = sqlite3.connect(uri, uri=True, timeout=BUSY_TIMEOUT_MS / 1000)
    conn.execute("PRAGMA query_only = ON")
    return conn
