"""Errors that help (issue 26): each mistake a new user makes gets the command's own usage, a message
that names what is wrong and what to do, and the exit code the command's --help promises."""

from __future__ import annotations

import io
import json
import subprocess
import sys
from pathlib import Path

import pytest

from tests.fakes.github_server import FakeGitHub
from wif_action.cli import main
from wif_action.commands.message_input import MessageInputError, message_text

ROOT = Path(__file__).resolve().parent.parent
EXAMPLE = str(ROOT / "cache.db.example")
OFFLINE_ENV = {"PATH": "/usr/bin:/bin", "GITHUB_API_URL": "http://127.0.0.1:9"}  # refused at once: no internet


def usage_error(argv: list[str], capsys) -> str:
    with pytest.raises(SystemExit) as stop:
        main(argv)
    assert stop.value.code == 2
    return capsys.readouterr().err


def test_a_misspelt_option_gets_the_commands_usage_and_a_suggestion(capsys):
    err = usage_error(["ask", "--versoin", "8.1", "--db", EXAMPLE], capsys)
    assert err.startswith("usage: wif ask "), err
    assert "wif ask: error: unrecognized arguments: --versoin 8.1 (did you mean --version?)" in err


def test_the_misspelt_option_is_named_even_when_a_required_one_is_missing_too(capsys):
    """`wif ask --versoin 8.1` as typed: --db is missing as well, and the typo is still pointed out."""
    err = usage_error(["ask", "--versoin", "8.1"], capsys)
    assert err.startswith("usage: wif ask "), err
    assert "required: --db; unrecognized arguments: --versoin (did you mean --version?)" in err


def test_an_abbreviated_option_is_not_called_unknown(capsys):
    err = usage_error(["ask", "--vers", "8.1"], capsys)
    assert "required: --db" in err and "unrecognized" not in err


@pytest.mark.slow
def test_a_reader_that_leaves_early_gets_no_traceback():
    """`wif ask … | head -1`: the pipe closes before the answer is written."""
    process = subprocess.Popen([sys.executable, "-m", "wif_action.cli", "ask", "--db", EXAMPLE, "--engine", "offline",
                                "--sdk", "sentry-cocoa", "--version", "8.48.0", "--problem", "tags are empty",
                                "--deadline", "0", "--quiet", "--json"],
                               stdout=subprocess.PIPE, stderr=subprocess.PIPE, env=OFFLINE_ENV)
    assert process.stdout is not None and process.stderr is not None
    process.stdout.close()
    err = process.stderr.read().decode()
    assert process.wait(timeout=120) == 141
    assert "Traceback" not in err and "BrokenPipeError" not in err, err


@pytest.mark.parametrize(("argv", "usage", "suggestion"), [
    (["ask", "--db", EXAMPLE, "--message", "m", "--jsn"], "usage: wif ask ", "(did you mean --json?)"),
    (["index", "--db", "x.db", "--repos", "a/b"], "usage: wif index ", "(did you mean --repo?)"),
    (["runs", "list", "--limt", "3"], "usage: wif runs list ", "(did you mean --limit?)"),
    (["dispatch", "--mesage=hi"], "usage: wif dispatch ", "(did you mean --message?)"),
])
def test_every_command_refuses_unknown_options_itself(argv, usage, suggestion, capsys):
    err = usage_error(argv, capsys)
    assert err.startswith(usage) and suggestion in err, err


def test_an_option_like_nothing_known_gets_no_guess(capsys):
    err = usage_error(["ask", "--db", EXAMPLE, "--zzzzzz"], capsys)
    assert "unrecognized arguments: --zzzzzz" in err and "did you mean" not in err


def test_dispatch_without_a_token_names_it_and_its_scopes_before_any_request(capsys, monkeypatch):
    with FakeGitHub(token="ghp_test") as github:
        github.add_repo("acme/support")
        monkeypatch.setenv("GITHUB_API_URL", github.url)
        monkeypatch.delenv("GITHUB_TOKEN", raising=False)
        monkeypatch.delenv("GH_TOKEN", raising=False)
        code = main(["dispatch", "--repo", "acme/support", "--message", "iOS 8.48.0: tags are empty"])
        assert github.total_requests() == 0 and not github.dispatches
    err = capsys.readouterr().err
    assert code == 2
    assert "set GITHUB_TOKEN (or GH_TOKEN)" in err and "Actions: write on acme/support" in err, err
    assert "repo scope" in err and "ConnectionError" not in err


@pytest.mark.slow
def test_an_unknown_run_id_is_a_usage_error_that_says_which_ids_exist(tmp_path, capsys):
    runs = tmp_path / "runs.db"
    ask = subprocess.run([sys.executable, "-m", "wif_action.cli", "ask", "--db", EXAMPLE, "--engine", "offline",
                          "--sdk", "sentry-cocoa", "--version", "8.48.0", "--problem", "WatchdogTermination tags",
                          "--deadline", "0", "--quiet", "--runs-db", str(runs)],
                         capture_output=True, text=True, timeout=120, env=OFFLINE_ENV)
    assert ask.returncode == 0, ask.stderr[-500:]
    assert main(["runs", "show", "99", "--runs-db", str(runs)]) == 2
    assert f"wif runs show: no run 99 in {runs} (it holds run 1; `wif runs list` shows them)" in capsys.readouterr().err
    assert main(["runs", "show", "1", "--runs-db", str(runs), "--json"]) == 0
    assert json.loads(capsys.readouterr().out)["run"]["id"] == 1


def test_a_missing_runs_file_is_explained_without_contradiction(tmp_path, capsys):
    missing = tmp_path / "nope.db"
    assert main(["runs", "list", "--runs-db", str(missing)]) == 2
    err = capsys.readouterr().err
    assert f"No WIF run-records file at {missing}" in err
    assert "wif ask --runs-db FILE" in err and "only reads" in err
    assert "new path to start one" not in err, "wif runs never starts a file"
    assert not missing.exists()


@pytest.mark.slow
def test_message_dash_reads_a_paste_too_long_for_the_command_line():
    """2.5 MB on standard input: more than one argument may carry (Linux: 128 KiB per argument)."""
    question = "iOS SDK 8.48.0: WatchdogTermination issues have empty tags (e.g. OS). Fixed?\n"
    paste = question + "> earlier log line of the customer's thread, quoted in full\n" * 43_000
    assert len(paste.encode()) > 2_500_000
    result = subprocess.run([sys.executable, "-m", "wif_action.cli", "ask", "--db", EXAMPLE, "--engine", "offline",
                             "--message", "-", "--deadline", "0", "--quiet", "--json"],
                            input=paste, capture_output=True, text=True, timeout=120, env=OFFLINE_ENV)
    assert result.returncode == 0, result.stderr[-500:]
    answer = json.loads(result.stdout)
    assert answer["request"]["repo"] == "getsentry/sentry-cocoa" and answer["request"]["version"] == "8.48.0"
    assert "WatchdogTermination" in answer["request"]["problem"] and answer["outcome"] != "failed"


@pytest.mark.slow
def test_message_dash_with_nothing_on_stdin_is_a_usage_error():
    result = subprocess.run([sys.executable, "-m", "wif_action.cli", "ask", "--db", EXAMPLE, "--message", "-"],
                            input="  \n", capture_output=True, text=True, timeout=60, env=OFFLINE_ENV)
    assert result.returncode == 2
    assert "wif ask: --message -: standard input was empty" in result.stderr


def test_message_dash_keeps_text_that_is_not_utf8_and_leaves_other_values_alone():
    assert message_text("-", io.BytesIO("Fixed? caf\u00e9 ".encode() + b"\xff")) == "Fixed? caf\u00e9 \ufffd"
    assert message_text("a literal message") == "a literal message"
    assert message_text(None) is None
    with pytest.raises(MessageInputError):
        message_text("-", io.BytesIO(b""))


class _Endless(io.RawIOBase):
    """`yes |` as standard input: never ends; counts what was read."""

    read_bytes = 0

    def readable(self) -> bool:
        return True

    def readinto(self, buffer) -> int:  # type: ignore[no-untyped-def]
        buffer[:] = b"y\n" * (len(buffer) // 2) + b"y" * (len(buffer) % 2)
        self.read_bytes += len(buffer)
        return len(buffer)


def test_message_dash_reads_a_bounded_amount_of_an_endless_input_and_says_so():
    """`yes | wif ask --message -` read until memory ran out; now it stops after MAX_STDIN_BYTES and refuses."""
    from wif_action.commands.message_input import MAX_STDIN_BYTES

    endless = _Endless()
    with pytest.raises(MessageInputError, match="standard input is over 16 MiB"):
        message_text("-", io.BufferedReader(endless))
    assert endless.read_bytes <= MAX_STDIN_BYTES + 2 * io.DEFAULT_BUFFER_SIZE
    exactly = b"x" * MAX_STDIN_BYTES
    assert message_text("-", io.BytesIO(exactly)) == exactly.decode()


def test_dispatch_message_dash_sends_standard_input(monkeypatch, capsys):
    with FakeGitHub(token="ghp_test") as github:
        github.add_repo("acme/support")
        monkeypatch.setenv("GITHUB_API_URL", github.url)
        monkeypatch.setenv("GITHUB_TOKEN", "ghp_test")
        monkeypatch.setattr(sys, "stdin", io.TextIOWrapper(io.BytesIO(b"iOS 8.48.0: tags are `$(empty)`\n")))
        assert main(["dispatch", "--repo", "acme/support", "--message", "-"]) == 0
        assert github.dispatches[0]["inputs"] == {"message": "iOS 8.48.0: tags are `$(empty)`"}


@pytest.mark.parametrize("command", [["ask"], ["dispatch"]])
def test_help_says_dash_reads_standard_input(command, capsys):
    with pytest.raises(SystemExit):
        main([*command, "--help"])
    assert "`-` reads it from standard input" in " ".join(capsys.readouterr().out.split())


@pytest.mark.parametrize("url", ["not a url", "ftp://ghe.example.com/api/v3", "http://[::1", "http://127.0.0.1:99999",
                                 "https://"])
@pytest.mark.parametrize("argv", [["dispatch", "--repo", "acme/support", "--message", "iOS 8.48.0: tags are empty"],
                                  ["index", "--db", "{db}", "--repo", "getsentry/sentry-cocoa"]])
def test_a_malformed_github_api_url_is_one_line_and_exit_2(tmp_path, monkeypatch, capsys, url, argv):
    """GITHUB_API_URL set by hand (GitHub Enterprise) and mistyped was a traceback from PyGithub's first request
    (AttributeError, AssertionError "Unknown URL scheme", ValueError "Invalid IPv6 URL")."""
    monkeypatch.setenv("GITHUB_API_URL", url)
    monkeypatch.setenv("GITHUB_TOKEN", "ghp_test")
    assert main([arg.format(db=tmp_path / "cache.db") for arg in argv]) == 2
    err = capsys.readouterr().err
    assert "GITHUB_API_URL must be an http(s) URL" in err and repr(url) in err and "Traceback" not in err, err
    assert len(err.strip().splitlines()) == 1 and not (tmp_path / "cache.db").exists()
