"""Every command that opens a file, against the files people point it at by mistake: a damaged cache (garbage
pages), an empty file, one that is no SQLite file, a cache of an older or a newer WIF, a directory. Each gives
one line that says what is wrong and what to do, and the exit code its --help promises; never a traceback (run
in-process here, so any exception fails the test). Nothing reaches GitHub: every file is refused first."""

from __future__ import annotations

import os
import shutil
import sqlite3
from collections.abc import Callable
from pathlib import Path

import pytest
from sqlite_utils import Database

from indexer.schema import MIGRATIONS, MigrationSet
from wif_action.cli import main

ROOT = Path(__file__).resolve().parent.parent
EXAMPLE = ROOT / "cache.db.example"
QUESTION = ["--sdk", "sentry-cocoa", "--version", "8.48.0", "--problem", "WatchdogTermination tags are empty",
            "--engine", "offline"]


def _damaged(path: Path) -> None:
    data = bytearray(EXAMPLE.read_bytes())
    data[3 * 4096:3 * 4096 + 8000] = os.urandom(8000)  # pages past the header: only reading them finds it
    path.write_bytes(bytes(data))


def _older(path: Path) -> None:
    """A cache of an older WIF: its first two migrations only."""
    first = MigrationSet(MIGRATIONS.name)
    first.steps = MIGRATIONS.steps[:2]
    db = Database(path)
    first.apply(db)
    db.close()


def _newer(path: Path) -> None:
    shutil.copy(EXAMPLE, path)
    with sqlite3.connect(path) as conn:
        conn.execute("insert into _sqlite_migrations (migration_set, name) values (?, 'm999_from_the_future')",
                     [MIGRATIONS.name])
    conn.close()


BAD: dict[str, Callable[[Path], None]] = {
    "damaged": _damaged,
    "empty": lambda path: path.write_bytes(b""),
    "not-sqlite": lambda path: path.write_bytes(b"<html>proxy error</html>\n" * 200),
    "older": _older,
    "newer": _newer,
    "directory": lambda path: path.mkdir(),
}
# (argv before the file, argv after it, {kind: exit code} where it differs from 2)
COMMANDS = {
    "ask": (["ask", "--db"], QUESTION, {"damaged": 1}),  # opened without a scan: the answer says it cannot read
    "ask --json": (["ask", "--json", "--db"], QUESTION, {"damaged": 1}),
    "index": (["index", "--db"], ["--repo", "getsentry/sentry-ruby"], {"empty": None, "older": None}),
    "eval": (["eval", str(ROOT / "tests/data/eval/cases.jsonl"), "--engine", "offline", "--case", "spec-example-b",
              "--db"], [], {"damaged": 0}),  # a case that errors is counted in the report
    "ask --runs-db": (["ask", "--db", str(EXAMPLE), "--runs-db"], QUESTION, {"empty": None}),
    "runs list": (["runs", "list", "--runs-db"], [], {}),
    "runs show": (["runs", "show", "1", "--runs-db"], [], {}),
    "runs query": (["runs", "query", "select 1", "--runs-db"], [], {}),
    "ask --registry": (["ask", "--db", str(EXAMPLE), "--registry"], QUESTION, {}),
    "eval cases": (["eval", "--db", str(EXAMPLE), "--engine", "offline", "--case", "x"], [], {}),
}


# None above: the command takes such a file (it builds or migrates it), so it is no bad file for it
CASES = [(command, kind, codes.get(kind, 2)) for command, (_b, _a, codes) in COMMANDS.items() for kind in BAD
         if codes.get(kind, 2) is not None]


@pytest.mark.parametrize(("command", "kind", "expected"), CASES)
def test_a_bad_file_gets_one_line_and_the_promised_exit_code(command, kind, expected, tmp_path, capsys, monkeypatch):
    before, after, _codes = COMMANDS[command]
    monkeypatch.setenv("GITHUB_API_URL", "http://127.0.0.1:9")  # refused at once: nothing may need GitHub
    path = tmp_path / "file.db"
    BAD[kind](path)
    argv = [*before, str(path), *after] if command != "eval cases" else [*before[:1], str(path), *before[1:]]
    try:
        code = main(argv)
    except SystemExit as stop:  # argparse's own refusals
        code = stop.code
    out, err = capsys.readouterr()
    assert code == expected, (argv, out, err)
    if expected == 2:
        lines = err.strip().splitlines()
        assert len(lines) == 1 and str(path) in lines[0], err
        assert "Traceback" not in err and "Error:" not in lines[0].split(str(path))[0], err
    else:
        assert "could not be read" in out + err, out + err
