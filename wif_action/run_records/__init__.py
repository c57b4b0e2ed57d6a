"""Run records: what each `wif ask` / Action run read, called, spent and answered.

Kept in their own SQLite file (`--runs-db`, or `WIF_RUNS_DB` in the Action) so
anyone can answer "why did it say that?" with `wif runs show` or plain SQL.
"""

RUNS_DB_ENV = "WIF_RUNS_DB"
