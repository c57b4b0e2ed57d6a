"""Writes to the run-records file: a `runs` row at start, everything else in one transaction at the end.

Why that split: a run that crashes (or is killed by the Action's timeout) still
leaves a visible `running` row, and a finished run is never half-written.
"""

from __future__ import annotations

from pathlib import Path
from typing import Any

from indexer.store import now, write_with_retry
from wif_action.run_records.schema import open_runs


class RunStore:
    """The run-records file of one process; opened (created/migrated) once."""

    def __init__(self, path: str | Path):
        self.path = Path(path)
        self.db = open_runs(self.path, create=True)

    def begin(self, row: dict[str, Any]) -> int:
        """Insert the `runs` row of a starting run and return its id (autocommit)."""
        row = {**row, "started_at": row.get("started_at") or now(), "status": "running"}
        columns = ", ".join(row)
        marks = ", ".join("?" for _ in row)
        cursor = self.db.execute(f"insert into runs ({columns}) values ({marks})", list(row.values()))
        return int(cursor.lastrowid or 0)

    def finish(self, run_id: int, run: dict[str, Any], children: dict[str, list[dict[str, Any]]]) -> None:
        """Update the run and insert its subtasks, tool calls and LLM calls atomically."""

        def work() -> None:
            assignments = ", ".join(f"{column} = ?" for column in run)
            self.db.execute(f"update runs set {assignments} where id = ?", [*run.values(), run_id])
            for table, rows in children.items():
                self._insert(table, [{"run_id": run_id, "seq": seq, **row} for seq, row in enumerate(rows, 1)])

        write_with_retry(self.db, work, on_busy=lambda message: None)

    def _insert(self, table: str, rows: list[dict[str, Any]]) -> None:
        if not rows:
            return
        columns = list(rows[0])
        sql = f"insert into {table} ({', '.join(columns)}) values ({', '.join('?' for _ in columns)})"
        self.db.conn.executemany(sql, [[row.get(column) for column in columns] for row in rows])

    def close(self) -> None:
        self.db.conn.close()
