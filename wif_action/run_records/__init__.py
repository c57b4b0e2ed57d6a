"""Run records: what each `wif ask` / Action run read, called, spent and answered.

Kept in their own SQLite file (`--runs-db`, or `WIF_RUNS_DB` in the Action) so
anyone can answer "why did it say that?" with `wif runs show` or plain SQL.
"""

from __future__ import annotations

import os
from collections.abc import Mapping

RUNS_DB_ENV = "WIF_RUNS_DB"


def runs_db_from_env(env: Mapping[str, str] = os.environ) -> str | None:
    """The run-records file the Action should write (None: recording off)."""
    value = (env.get(RUNS_DB_ENV) or "").strip()
    return value or None
