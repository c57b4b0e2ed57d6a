"""The CLI boundary: impossible arguments are refused with a clear message (exit 2), and the
exit code tells a script what happened (0 answered, 1 failed, 2 usage) — documented in --help."""

from __future__ import annotations

import argparse
import json
import subprocess
import sys
from typing import Any

import pytest

from indexer.arguments import EXIT_CODES_HELP
from wif_action.cli import main

ASK = ["ask", "--db", "cache.db.example", "--engine", "offline", "--sdk", "sentry-cocoa", "--version", "8.48.0",
       "--problem", "WatchdogTermination issues have empty tags"]


@pytest.mark.parametrize(("argv", "complaint"), [
    ([*ASK, "--deadline", "-5"], "--deadline: must be a finite number of seconds >= 0, got '-5'"),
    ([*ASK, "--deadline", "nan"], "--deadline: must be a finite number of seconds >= 0"),
    ([*ASK, "--deadline", "soon"], "--deadline: expected a number of seconds, got 'soon'"),
    ([*ASK, "--max-high", "7"], "--max-high must be 1, 2 or 3"),
    ([*ASK, "--max-high", "two"], "expected 1, 2 or 3, got 'two'"),
    ([*ASK, "--max-releases", "0"], "--max-releases must be a positive whole number, not '0'"),
    ([*ASK, "--max-releases", "-3"], "--max-releases must be a positive whole number, not '-3'"),
    ([*ASK, "--max-releases", "1.5"], "--max-releases must be a positive whole number, not '1.5'"),
    ([*ASK, "--max-releases", "lots"], "--max-releases must be a positive whole number, not 'lots'"),
    (["ask", "--db", "x.db", "--repo", "not a repo", "--version", "1.0.0", "--problem", "p"],
     "--repo: expected a repository as owner/name, got 'not a repo'"),
    (["index", "--db", "x.db", "--repo", "getsentry/sentry-cocoa", "--timeout", "0"], "--timeout: must be >= 1"),
    (["index", "--db", "x.db", "--repo", "getsentry/sentry-cocoa", "--max-pulls", "-1"], "--max-pulls: must be >= 0"),
    (["index", "--db", "x.db", "--repo", "getsentry/sentry-cocoa", "--refresh-days", "inf"], "--refresh-days"),
    (["index", "--db", "x.db", "--repo", "sentry-cocoa"], "--repo: expected a repository as owner/name"),
    (["runs", "list", "--limit", "0"], "--limit: must be >= 1, got '0'"),
])
def test_impossible_arguments_are_usage_errors(argv, complaint, capsys):
    with pytest.raises(SystemExit) as stop:
        main(argv)
    assert stop.value.code == 2
    err = capsys.readouterr().err
    assert complaint in err and "Traceback" not in err, err


@pytest.mark.parametrize("command", [[], ["ask"], ["index"], ["eval"], ["runs"], ["runs", "list"], ["runs", "show"],
                                     ["runs", "query"], ["dispatch"], ["action"], ["slack", "serve"],
                                     ["slack", "manifest"]])
def test_every_help_states_its_own_exit_codes(command, capsys):
    with pytest.raises(SystemExit) as stop:
        main([*command, "--help"])
    assert stop.value.code == 0
    out = capsys.readouterr().out
    codes = out[out.index("\nexit codes:\n"):]
    assert "\n  0  " in codes and "\n  2  " in codes, codes
    if command != ["ask"]:
        assert "an answer was given" not in out, "only `wif ask` exits 0 for an answer"
    if command[:1] in (["runs"], ["eval"], ["action"], ["slack"]):
        assert "\n  1  " not in codes, "these commands never exit 1"


def _parsers(parser: argparse.ArgumentParser, path: tuple[str, ...] = ()) -> list[tuple[tuple[str, ...], Any]]:
    """Every (sub)command's parser under `parser`, with its command words."""
    found = [(path, parser)]
    for action in parser._actions:
        if isinstance(action, argparse._SubParsersAction):
            for name, sub in action.choices.items():
                found += _parsers(sub, (*path, name))
    return found


@pytest.mark.parametrize("command", ["ask", "index", "eval", "runs", "dispatch", "action", "slack"])
def test_every_option_and_argument_says_what_it_is_in_help(command):
    """`--help` explains every option and positional argument of every command (`wif eval --engine` and `wif runs
    query SQL` were listed bare), and every subcommand says what it does."""
    from wif_action.cli import build_parser

    for path, parser in _parsers(build_parser([command])):
        if path and path != (command,) and not parser.description:
            pytest.fail(f"wif {' '.join(path)}: no description")
        bare = [action.option_strings or action.dest for action in parser._actions
                if not isinstance(action, argparse._SubParsersAction) and not action.help]
        assert not bare, f"wif {' '.join(path)}: {bare} without help"


def test_ask_help_has_the_ask_exit_codes(capsys):
    with pytest.raises(SystemExit):
        main(["ask", "--help"])
    assert EXIT_CODES_HELP in capsys.readouterr().out


@pytest.mark.slow
def test_an_answer_exits_zero_and_says_done():
    """Example A on the shipped cache: an answer (any outcome but failed) is exit 0 and ✓ Done."""
    result = subprocess.run([sys.executable, "-m", "wif_action.cli", *ASK, "--deadline", "0", "--json"],
                            capture_output=True, text=True, timeout=120,
                            env={"PATH": "/usr/bin:/bin", "GITHUB_API_URL": "http://127.0.0.1:9"})
    assert result.returncode == 0, result.stderr[-1000:]
    assert json.loads(result.stdout)["outcome"] != "failed"
    assert "✓ Done." in result.stderr and "✗" not in result.stderr


def test_a_missing_problem_is_a_usage_error(capsys):
    assert main(["ask", "--db", "cache.db.example", "--sdk", "sentry-cocoa", "--version", "8.48.0"]) == 2
    assert "give --problem" in capsys.readouterr().err


@pytest.mark.parametrize("value", ["0", "-1", "many", "2.5"])
def test_a_bad_wif_max_releases_is_a_usage_error(value, capsys, monkeypatch):
    monkeypatch.setenv("WIF_MAX_RELEASES", value)
    assert main([*ASK, "--deadline", "0"]) == 2
    err = capsys.readouterr().err
    assert f"WIF_MAX_RELEASES must be a positive whole number, not '{value}'" in err and "Traceback" not in err


def test_help_says_the_llm_cost_grows_with_max_releases(capsys):
    with pytest.raises(SystemExit):
        main(["ask", "--help"])
    text = " ".join(capsys.readouterr().out.split())
    assert "--max-releases N" in text and "WIF_MAX_RELEASES" in text and "token cost grows" in text


@pytest.mark.parametrize(("argv", "complaint"), [
    (["ask", "--db", "cache.db.example", "--sdk", "sentry-cocoa", "--version", "8.48.0"], "give --problem"),
    ([*ASK, "--max-high", "7"], "--max-high must be 1, 2 or 3"),
    (["ask", "--db", "no-such-cache.db", "--sdk", "sentry-cocoa", "--version", "8.48.0", "--problem", "p"],
     "No WIF release cache"),
    (["ask", "--db", "cache.db.example", "--sdk", "sentry-cocoa", "--version", "8.48.0", "--problem", "p",
      "--registry", "no-such-registry.json"], "registry"),
])
def test_json_usage_errors_still_print_one_json_object(argv, complaint, tmp_path):
    """A caller parsing stdout of `wif ask --json` learns why it exited 2 (it used to get nothing)."""
    result = subprocess.run([sys.executable, "-m", "wif_action.cli", *argv, "--json"], capture_output=True,
                            text=True, timeout=120, env={"PATH": "/usr/bin:/bin", "WIF_DEADLINE": "0"})
    assert result.returncode == 2, result.stderr[-1000:]
    (line,) = result.stdout.splitlines()
    data = json.loads(line)
    assert data["outcome"] == "usage_error" and complaint in data["message"] and data["exit_code"] == 2
    assert "Traceback" not in result.stderr
