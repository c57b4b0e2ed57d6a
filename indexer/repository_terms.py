"""Each repository's BM25 document statistics (how many notes, their mean length), kept at index time (m011).

Why here, in one home: the indexer stores them (`rebuild`) and the read path counts them itself when a row is
missing (`wif_action/tools/cache.py`); both use `ENTRY_LENGTH_SQL`, so the two agree to the bit. Changing it
needs a migration that recomputes the table. Plain `sqlite3` (the read path imports no sqlite-utils).
"""

from __future__ import annotations

from typing import Any, Protocol

TABLE = "repository_terms"
# A note's length in BM25 tokens as the read path measures it: words between spaces.
ENTRY_LENGTH_SQL = "length(text) - length(replace(text, ' ', '')) + 1"
_INSERT = (f"insert or replace into {TABLE} (repo_id, documents, mean_length) "
           f"select repo_id, count(*), avg({ENTRY_LENGTH_SQL}) from entries {{where}} group by repo_id")


class Executes(Protocol):
    def execute(self, sql: str, parameters: Any = ..., /) -> Any: ...


def rebuild(db: Executes, repo_id: int | None = None) -> None:
    """Count the statistics of one repository again (of every repository with `repo_id` None) from its notes;
    a repository with no notes gets no row (the read path then counts 0 documents itself)."""
    if repo_id is None:
        db.execute(f"delete from {TABLE}")
        db.execute(_INSERT.format(where=""))
        return
    db.execute(f"delete from {TABLE} where repo_id = ?", [repo_id])
    db.execute(_INSERT.format(where="where repo_id = ?"), [repo_id])


def invalidate(db: Executes, repo_id: int) -> None:
    """Drop a repository's row: its notes are changing (`rebuild` counts them again)."""
    db.execute(f"delete from {TABLE} where repo_id = ?", [repo_id])
