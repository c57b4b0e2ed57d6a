"""`wif runs`: list, show and query run records (read-only).

  wif runs list  [--limit N] [--json]       newest first
  wif runs show  RUN_ID|last [--json]       a readable timeline of one run
  wif runs query "SELECT …" [--json]        any single read-only SELECT over the records

Tables: runs, subtasks, tool_calls, llm_calls (see wif_action/run_records/schema.py).
Exit codes: 0 printed; 2 usage error (no such run, unusable file, refused or failed query).
"""

from __future__ import annotations

import argparse
import json
import os
import sqlite3
import sys

from indexer.arguments import EXIT_ANSWERED, EXIT_USAGE, count_at_least, exit_codes_help
from indexer.schema import CacheError
from wif_action.run_records import RUNS_DB_ENV
from wif_action.run_records.query import QueryError, as_dicts, connect, select
from wif_action.run_records.tables import format_table
from wif_action.run_records.timeline import load_run, render_run

LIST_SQL = """select id, started_at, source, repo, version, outcome,
  case when top_pr is not null then top_version || ' #' || top_pr{commit} end as top,
  round(duration_ms / 1000.0, 2) as seconds, github_requests, llm_calls, status
from runs order by id desc limit ?"""
# a run led by a release line citing only a commit (m003's `top_commit`; a file an older WIF wrote has no such column)
COMMIT_TOP = "\n    when top_commit is not null then top_version || ' commit ' || substr(top_commit, 1, 7)"
EXAMPLES = """examples:
  wif runs list --runs-db runs.db
  wif runs show last --runs-db runs.db
  wif runs query --runs-db runs.db "SELECT tool, count(*), sum(ok = 0) FROM tool_calls GROUP BY tool"
  wif runs query --runs-db runs.db "SELECT avg(github_requests), avg(prompt_tokens) FROM runs"
"""
EXIT_CODES = exit_codes_help(
    "the runs, the run or the rows were printed (also when there are none)", None,
    "usage error: bad arguments, no such run, a missing or unusable runs file, a refused or failed query")


def add_arguments(parser: argparse.ArgumentParser) -> None:
    parser.formatter_class = argparse.RawDescriptionHelpFormatter
    parser.epilog = EXAMPLES + "\n" + EXIT_CODES
    common = argparse.ArgumentParser(add_help=False)
    common.add_argument("--runs-db", default=os.environ.get(RUNS_DB_ENV) or "runs.db", metavar="FILE",
                        help=f"run-records file (default: ${RUNS_DB_ENV} or runs.db)")
    common.add_argument("--json", action="store_true", help="print JSON instead of a table")
    actions = parser.add_subparsers(dest="action", metavar="ACTION", required=True)
    def action(name: str, help_text: str) -> argparse.ArgumentParser:
        return actions.add_parser(name, help=help_text, description=help_text[:1].upper() + help_text[1:] + ".",
                                  parents=[common], epilog=EXIT_CODES,
                                  formatter_class=argparse.RawDescriptionHelpFormatter)

    listing = action("list", "recent runs, newest first")
    listing.add_argument("--limit", type=count_at_least(1), default=20, help="how many runs (default 20)")
    show = action("show", "the timeline of one run")
    show.add_argument("run_id", metavar="RUN_ID", help="a run id, or `last`")
    query = action("query", "a read-only SELECT over the records")
    query.add_argument("sql", metavar="SQL", help="one read-only SELECT over the tables runs, subtasks, tool_calls "
                       "and llm_calls (anything that writes is refused)")


def run(args: argparse.Namespace) -> int:
    try:
        conn = connect(args.runs_db)
    except CacheError as error:
        print(f"wif runs: {error}", file=sys.stderr)
        return EXIT_USAGE
    try:
        return {"list": _list, "show": _show, "query": _query}[args.action](conn, args)
    except QueryError as error:
        print(f"wif runs: {error}", file=sys.stderr)
        return EXIT_USAGE
    finally:
        conn.close()


def _print_rows(headers: list[str], rows: list[tuple], as_json: bool) -> None:
    if as_json:
        print(json.dumps(as_dicts(headers, rows), ensure_ascii=False))
    else:
        print(format_table(headers, rows) if rows else "(no rows)")


def _list(conn: sqlite3.Connection, args: argparse.Namespace) -> int:
    columns, _ = select(conn, "select * from runs limit 0")
    sql = LIST_SQL.format(commit=COMMIT_TOP if "top_commit" in columns else "")
    headers, rows = select(conn, sql, [max(1, args.limit)])
    _print_rows(headers, rows, args.json)
    return EXIT_ANSWERED


def _show(conn: sqlite3.Connection, args: argparse.Namespace) -> int:
    record = load_run(conn, args.run_id)
    if record is None:
        print(f"wif runs show: no run {args.run_id} in {args.runs_db} ({_known_runs(conn)}; "
              "`wif runs list` shows them)", file=sys.stderr)
        return EXIT_USAGE
    print(json.dumps(record, ensure_ascii=False) if args.json else render_run(record))
    return EXIT_ANSWERED


def _known_runs(conn: sqlite3.Connection) -> str:
    """What a mistyped run id could have been: the ids the file holds."""
    low, high, count = conn.execute("select min(id), max(id), count(*) from runs").fetchone()
    if not count:
        return "it holds no runs yet"
    return f"it holds run {low}" if count == 1 else f"it holds {count} runs, ids {low} to {high}"


def _query(conn: sqlite3.Connection, args: argparse.Namespace) -> int:
    headers, rows = select(conn, args.sql)
    _print_rows(headers, rows, args.json)
    return EXIT_ANSWERED
