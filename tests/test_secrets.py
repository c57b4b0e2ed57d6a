"""No secret ever leaves a run: `wif ask`, `wif index` and the Action, with distinctive tokens in the
environment, including runs where every upstream rejects them and echoes them back in error bodies
(as some OpenAI-compatible servers and proxies do).

Searched: stdout, stderr and step logs, the job summary, the GITHUB_OUTPUT file, the result JSON,
run records, the release cache, every Slack message and every GitHub comment sent to the fakes.
"""

from __future__ import annotations

import json
import os
import sqlite3
import subprocess
import sys
from collections.abc import Iterable, Iterator
from pathlib import Path

import pytest

from tests.action_harness import (
    CHANNEL,
    SUPPORT_REPO,
    ActionResult,
    ActionRunner,
    assert_answer_outputs,
    comment_event,
)
from tests.fakes.github_server import FakeGitHub
from tests.fakes.openai_server import FakeOpenAI, FakeReply
from tests.fakes.slack_server import FakeSlack
from tests.workflow_helpers import EXAMPLE_B, keyword_responder

pytestmark = pytest.mark.slow  # runs the Action's steps or `wif` as processes; `-m "not slow"` skips it

GITHUB_TOKEN = "ghp_SECRETgithub1234567890abcdefghij12345"
OPENAI_KEY = "sk-SECRETopenai-0123456789abcdefghijklmnopqrst"
SLACK_TOKEN = "xoxb-SECRET-slack-0123456789-abcdefghijkl"
# The full values, and fragments that would still betray a truncated one.
MARKERS = (GITHUB_TOKEN, OPENAI_KEY, SLACK_TOKEN, "SECRETgithub", "SECRETopenai", "SECRET-slack")
SECRET_ENV = {"GITHUB_TOKEN": GITHUB_TOKEN, "OPENAI_API_KEY": OPENAI_KEY, "SLACK_BOT_TOKEN": SLACK_TOKEN}
COCOA = "getsentry/sentry-cocoa"
RUBY = "getsentry/sentry-ruby"


def leaks(where: str, texts: Iterable[str | None]) -> list[str]:
    """`where: marker` for every marker found in any of `texts`."""
    return [f"{where}: {marker}" for text in texts if text for marker in MARKERS if marker in text]


def sqlite_text(path: Path) -> list[str]:
    """Everything in a SQLite file: its raw bytes (with WAL) and a dump (long values span pages)."""
    texts = [p.read_bytes().decode("latin-1") for p in (path, Path(f"{path}-wal")) if p.exists()]
    if path.exists():
        connection = sqlite3.connect(path)
        try:
            texts.append("\n".join(connection.iterdump()))
        finally:
            connection.close()
    return texts


def slack_texts(slack: FakeSlack) -> list[str]:
    """Every message WIF posted or edited (not the token it authenticated with)."""
    posted = [str(m.get(key)) for m in slack.messages for key in ("text", "markdown_text", "blocks")]
    return posted + [text for history in slack.history.values() for text in history]


def github_comment_texts(github: FakeGitHub) -> list[str]:
    """Every comment stored, and every comment or reaction body sent (even when the fake refused it)."""
    stored = [c["body"] for comments in github.comments.values() for c in comments]
    sent = [json.dumps(entry["json"]) for entry in github.log if entry["method"] in ("POST", "PATCH")]
    return stored + sent


# --------------------------------------------------------------------------- upstreams
def reject_everything(github: FakeGitHub, openai: FakeOpenAI, status: int = 401) -> None:
    """Every GitHub and OpenAI call fails with a body that quotes the secret it was sent."""
    github.add_fault(None, r".*", status=status, times=None,
                     body={"message": f"Bad credentials: {GITHUB_TOKEN}", "documentation_url": "x"})
    openai.responder = lambda _request: FakeReply(status=status, content=f"Incorrect API key provided: {OPENAI_KEY}")


def serve_normally(github: FakeGitHub, openai: FakeOpenAI, status: int = 200) -> None:
    openai.responder = keyword_responder("watchdog")


UPSTREAMS = {
    "rejected-401": (reject_everything, 401),
    "server-error-500": (reject_everything, 500),
    "working": (serve_normally, 200),
}


@pytest.fixture
def github(example_b_github: FakeGitHub) -> FakeGitHub:
    return example_b_github


@pytest.fixture
def openai(openai_fake: FakeOpenAI) -> FakeOpenAI:
    return openai_fake


def run_wif(args: list[str], env: dict[str, str]) -> subprocess.CompletedProcess[str]:
    base = {"PATH": os.environ.get("PATH", "/usr/bin:/bin"), "HOME": env.get("HOME", "/tmp"), "LANG": "C.UTF-8",
            "WIF_BACKOFF_SCALE": "0"}  # retries as in production, without their sleeps (indexer.backoff)
    return subprocess.run([sys.executable, "-m", "wif_action.cli", *args], capture_output=True, text=True,
                          env={**base, **env}, timeout=120)


# --------------------------------------------------------------------------- wif ask
ASK_RUNS = [pytest.param(*UPSTREAMS[name], output, id=f"{name}{output}")
            for name, output in [("rejected-401", "--json"), ("rejected-401", "--plain"),
                                 ("server-error-500", "--json"), ("working", "--json")]]


@pytest.mark.parametrize(("upstreams", "status", "output"), ASK_RUNS)
def test_wif_ask_never_prints_or_records_a_secret(cache_path_for, tmp_path, github, openai, upstreams, status,
                                                  output):
    upstreams(github, openai, status)
    runs = tmp_path / "runs.db"
    env = {**SECRET_ENV, "GITHUB_API_URL": github.url, "OPENAI_BASE_URL": openai.url + "/v1",
           "WIF_LLM_MAX_RETRIES": "0", "WIF_LLM_TIMEOUT": "30", "HOME": str(tmp_path)}
    args = ["ask", "--db", str(cache_path_for([COCOA])), "--engine", "openai", "--sdk", EXAMPLE_B.sdk,
            "--version", EXAMPLE_B.version, "--problem", EXAMPLE_B.problem, "--link", EXAMPLE_B.links[0],
            "--runs-db", str(runs), *([output] if output == "--json" else [])]
    result = run_wif(args, env)
    assert result.returncode == 0, result.stderr
    assert openai.chat_requests() and github.total_requests(), "the secrets were really sent upstream"
    found = leaks("stdout", [result.stdout]) + leaks("stderr", [result.stderr]) + leaks("runs", sqlite_text(runs))
    assert not found
    assert "Traceback" not in result.stderr
    if output == "--json":
        assert json.loads(result.stdout)["outcome"]
    assert sqlite_text(runs), "run records were written"


# --------------------------------------------------------------------------- wif index
@pytest.mark.parametrize("status", [401, 403, 500])
def test_wif_index_never_prints_or_stores_a_secret(tmp_path, fake_github, status):
    db = tmp_path / "cache.db"
    env = {"GITHUB_TOKEN": GITHUB_TOKEN, "GITHUB_API_URL": fake_github.url, "HOME": str(tmp_path)}
    first = run_wif(["index", "--db", str(db), "--repo", RUBY, "--json"], env)
    assert first.returncode == 0, first.stderr
    fake_github.add_fault(None, r".*", status=status, times=None,
                          body={"message": f"Bad credentials: {GITHUB_TOKEN}"})
    second = run_wif(["index", "--db", str(db), "--repo", RUBY, "--json", "--refresh-days", "100000"], env)
    assert second.returncode == 1
    assert json.loads(second.stdout)["repos"][0]["error"], "the failure is reported"
    outputs = [first.stdout, first.stderr, second.stdout, second.stderr]
    assert not leaks("wif index", outputs) + leaks("cache", sqlite_text(db))
    assert "Traceback" not in second.stderr


def test_wif_index_never_stores_a_secret_pasted_into_notes_or_a_pr(tmp_path, fake_github):
    """Release notes and PR bodies that contain the run's secret values (plain ones: no token shape to
    match) are stored redacted: `index.yml` publishes this file as a release asset."""
    plain_token, plain_key = "0123456789abcdef0123456789abcdef01234567", "plain-openai-key-value-42"
    sha = "92e109c4e5f60718293a4b5c6d7e8f9012345678"  # hex like the token: a commit the note cites is kept
    body = (f"### Fixes\n\n- Fix a crash when the token {plain_token} is set (#7)\n- Key {plain_key} (#8)\n"
            f"- Keep query params on base_url ({sha[:7]})\n- Retry on 502 {sha}\n")
    fake_github.add_repo("acme/leaky", releases=[{"tag_name": "1.0.1", "body": body, "name": f"1.0.1 {plain_key}"},
                                                  {"tag_name": "1.0.0", "body": "### Fixes\n\n- First (#1)\n"}],
                         pulls=[{"number": 7, "title": f"Fix {plain_token}", "body": f"Uses {plain_key}",
                                 "merged_at": "2026-01-01T00:00:00Z"}])
    db = tmp_path / "cache.db"
    env = {"GITHUB_TOKEN": plain_token, "OPENAI_API_KEY": plain_key, "GITHUB_API_URL": fake_github.url,
           "HOME": str(tmp_path)}
    result = run_wif(["index", "--db", str(db), "--repo", "acme/leaky", "--pulls", "recent", "--json"], env)
    assert result.returncode == 0, result.stderr
    stored = "\n".join(sqlite_text(db))
    assert plain_token not in stored and plain_key not in stored
    connection = sqlite3.connect(db)
    try:
        texts = [row[0] for row in connection.execute("select text from entries")]
        commits = sorted(row[0] for row in connection.execute("select commits from entries where commits != '[]'"))
        pulls = connection.execute("select title, body from pulls where number = 7").fetchall()
    finally:
        connection.close()
    assert "Fix a crash when the token [redacted] is set" in "\n".join(texts)  # the rest of the line is kept
    assert pulls == [("Fix [redacted]", "Uses [redacted]")]
    assert commits == [f'["{sha[:7]}"]', f'["{sha}"]'] and f"Retry on 502 {sha}" in texts


def test_a_hex_token_is_redacted_by_value_while_commits_and_ids_beside_it_stay():
    """A classic GitHub token is 40 hex, like a commit SHA: it goes by value, and the cited commit, the customer's
    event id and trace id in the same text are no secret and stay."""
    from indexer.redaction import Redactor

    token = "0123456789abcdef0123456789abcdef01234567"
    sha, event, trace = "92e109c4e5f60718293a4b5c6d7e8f9012345678", "9f8e7d6c5b4a39281706f5e4d3c2b1a0", \
        "550e8400-e29b-41d4-a716-44665544000a"
    text = f"Fixed by {sha} (92e109c); event {event}, trace {trace}; the run used {token}."
    assert Redactor({"GITHUB_TOKEN": token}).text(text) == text.replace(token, "[redacted]")


# --------------------------------------------------------------------------- the Action
@pytest.fixture
def slack() -> Iterator[FakeSlack]:
    with FakeSlack() as fake:
        yield fake


def action_texts(result: ActionResult, tmp_path: Path) -> dict[str, list[str]]:
    """Every place the Action writes to: step logs, command files, result JSON and run records."""
    command_files = [p.read_text() for p in tmp_path.glob("github_*-*")]
    result_json = Path(result.outputs["result-json"]).read_text() if result.outputs.get("result-json") else ""
    return {"step logs": [result.logs], "summary and outputs": [result.summary, *command_files],
            "result JSON": [result_json], "run records": sqlite_text(tmp_path / "temp" / "wif-runs.db")}


@pytest.mark.parametrize(("upstreams", "status"), UPSTREAMS.values(), ids=UPSTREAMS.keys())
def test_the_action_never_posts_or_writes_a_secret(tmp_path, github, openai, slack, cache_path_for, upstreams,
                                                   status):
    upstreams(github, openai, status)
    if status != 200:  # Slack too: an ok:false body that quotes the token, then an HTML error page
        slack.add_fault("POST", r"/chat\.postMessage", status=200, times=1,
                        body={"ok": False, "error": "invalid_auth", "token": SLACK_TOKEN})
        slack.add_fault("POST", r"^/api/", status=502, times=None, raw_body=f"<html>{SLACK_TOKEN}</html>".encode())
    event = comment_event(github, f"/wif sdk: sentry-cocoa version: 8.48.0 links: {EXAMPLE_B.links[0]}\n"
                                  f"problem: {EXAMPLE_B.problem}")
    runner = ActionRunner(tmp_path, github, slack, extra_env={"WIF_LLM_MAX_RETRIES": "0"})
    inputs = {"cache-db": str(cache_path_for([COCOA])), "engine": "openai", "github-token": GITHUB_TOKEN,
              "openai-api-key": OPENAI_KEY, "openai-base-url": openai.url + "/v1", "model": "gpt-test",
              "slack-bot-token": SLACK_TOKEN, "slack-channel": CHANNEL}
    result = runner.run(inputs, "issue_comment", event)
    assert_answer_outputs(result)
    assert openai.chat_requests() and slack.total_requests() and github.total_requests()
    found = [leak for where, texts in action_texts(result, tmp_path).items() for leak in leaks(where, texts)]
    found += leaks("Slack", slack_texts(slack)) + leaks("GitHub comments", github_comment_texts(github))
    assert not found
    assert "Traceback" not in result.summary and "Traceback" not in result.outputs["answer"]
    if status == 200:  # delivered: the checks above covered real posts
        assert any(c["user"]["type"] == "Bot" for c in github.comments[(SUPPORT_REPO, 7)])
        assert [m for m in slack.messages if m.get("bot_id")]


def test_log_lines_and_tracebacks_are_redacted_by_value_and_shape(monkeypatch):
    """The job log gets tracebacks from the crash path; a token an upstream echoed into an error
    (any shape: here one not shaped like ghp_) must not appear in it."""
    import logging

    from indexer.redaction import RedactingFormatter

    monkeypatch.setenv("SLACK_BOT_TOKEN", "plain-secret-value-123")
    formatter = RedactingFormatter()
    try:
        raise RuntimeError("upstream said: token plain-secret-value-123 and ghp_abcdefghijklmnopqrstuvwx rejected")
    except RuntimeError:
        import sys

        record = logging.LogRecord("wif", logging.ERROR, __file__, 1, "failed", None, sys.exc_info())
    line = formatter.format(record)
    assert "RuntimeError" in line and "plain-secret-value-123" not in line and "ghp_abc" not in line


def test_a_secret_pasted_into_the_question_never_reaches_the_action_outputs(tmp_path, github, slack,
                                                                            cache_path_for):
    """The answer quotes the question; a support engineer pasted the run's token into it (a plain value:
    no token shape to match). Outputs, summary and result JSON carry it redacted, never verbatim."""
    plain = "plainSecretValue0123456789xyz"
    problem = f"{EXAMPLE_B.problem} Our config has token {plain} set."
    event = comment_event(github, f"/wif sdk: sentry-cocoa version: 8.48.0 links: {EXAMPLE_B.links[0]}\n"
                                  f"problem: {problem}")
    runner = ActionRunner(tmp_path, github, slack)
    inputs = {"cache-db": str(cache_path_for([COCOA])), "engine": "offline", "github-token": plain}
    result = runner.run(inputs, "issue_comment", event)
    assert_answer_outputs(result)
    texts = action_texts(result, tmp_path)
    written = [text for where in ("summary and outputs", "result JSON") for text in texts[where]]
    assert written and not [text for text in written if plain in text]
    assert "[redacted]" in result.summary and "[redacted]" in texts["result JSON"][0]
    sent = [json.dumps(entry["json"]) for entry in github.log if entry["method"] in ("POST", "PATCH")]
    assert sent and not [c for c in sent if plain in c]  # WIF's comments (the customer's own is theirs)


@pytest.mark.parametrize("text", [
    "Authorization: Bearer abc.def", "proxy-AUTHORIZATION= s3cret-value", "Authorİzation: x1y2z3", "authorıZATION= q",
    "token ab12cd34ef", "TOKEN   abcd1234", "BaſIC dXNlcjpwYXNz1", "bearer\tZm9vYmFy9", "ıoken ab12cd34",
    "key sk-abc1****wxyz here", "rk-live_1234567", "pk-x*y*z*1", "xoxb-123456-abcdef", "xoxp-aaaaaa",
    "ghp_abcdefghijkl", "(gho_1234567890_x)", "github_pat_11ABCDEFG_0123456789", "v1." + "0a" * 20,
    "plain notes: fix the token refresh, bump basic-auth, sk-learn 1.2", "", "a_b gh k- xox v1. ordinary words",
    "HTTPS://U:pw-1234@h.example", "see https://h.example and mail a@b.c", "Emulate basic HTTP/1.1 responses",
])
def test_redaction_skips_a_regex_only_when_its_text_cannot_match(text):
    """The redactor runs a token regex only over text containing the strings a match needs (indexing redacts
    every release body; most contain none): the result is the same as running every regex, in any case."""
    from indexer import redaction

    everything = text
    everything = redaction._AUTH_HEADER.sub(lambda m: m.group(1) + redaction.MARK, everything)
    everything = redaction._URL_PASSWORD.sub(lambda m: m.group(1) + redaction.MARK + "@", everything)
    everything = redaction._BEARER.sub(redaction.scheme_credential, everything)
    for pattern, _ in redaction._PATTERNS:
        everything = pattern.sub(redaction.MARK, everything)
    assert redaction.Redactor({}).text(text) == (everything or text)


@pytest.mark.parametrize(("text", "kept"), [
    ("Emulate basic HTTP/1.1 response in `HTTPSConnection`", True),  # sentry-python's PR body, blanked before
    ("Refresh the token v2.1.0 introduced", True),
    ("Use basic HTTP/2 framing", True),
    ("Authorization failed for Basic dXNlcjE6cGFzczE=", False),
    ("curl -H 'Bearer 1a2b3c4d5e6f'", False),
    ("token ab12.cd34.ef56", False),  # dotted like a JWT, not a version: letters in its parts
])
def test_a_version_after_a_scheme_word_is_prose_a_credential_is_not(text: str, kept: bool) -> None:
    """`_BEARER` blanks what follows "Basic"/"Bearer"/"token" when it has a digit; a protocol or release version
    there ("basic HTTP/1.1") is prose a release note quotes, and the cache must keep it."""
    from indexer import redaction

    assert (redaction.Redactor({}).text(text) == text) is kept


def test_a_password_in_a_configured_url_is_redacted_by_value_and_in_any_url():
    """`OPENAI_BASE_URL=https://bob:…@proxy/v1` (an OpenAI-compatible gateway behind basic auth) or a proxy URL with
    a password: an error quoting the URL, or the password alone, percent-encoded or not, never shows it; a password
    in any other URL's user info is redacted too; a URL without one, an e-mail address and a path with "@" stay."""
    from indexer.redaction import Redactor

    env = {"OPENAI_BASE_URL": "https://bob:s3cr%40t-pw1@gateway.example/v1",
           "HTTPS_PROXY": "http://proxyuser:proxy-pass-99@proxy.example:8080", "GITHUB_API_URL": "https://[bad"}
    redactor = Redactor(env)
    text = ("POST https://bob:s3cr%40t-pw1@gateway.example/v1/chat failed (pw s3cr@t-pw1); proxy-pass-99 refused; "
            "retry via ftp://x:other-pw-7@mirror.example; mail ops@example.com; see https://example.com/@team")
    shown = redactor.text(text) or ""
    for secret in ("s3cr%40t-pw1", "s3cr@t-pw1", "proxy-pass-99", "other-pw-7"):
        assert secret not in shown, shown
    assert "https://bob:[redacted]@gateway.example/v1/chat" in shown
    assert "ops@example.com" in shown and "https://example.com/@team" in shown
