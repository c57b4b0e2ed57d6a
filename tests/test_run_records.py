"""Run records: what a run stores, that secrets never are, and the read-only `wif runs` views."""

from __future__ import annotations

import json
import sqlite3
from dataclasses import replace
from pathlib import Path

import pytest
from sqlite_utils import Database

from indexer.redaction import Redactor
from indexer.schema import CacheError, MigrationSet
from tests.fakes.github_server import FakeGitHub
from tests.fakes.openai_server import FakeOpenAI, FakeReply, requested_schema, schema_example
from wif_action.app import AppConfig, build_workflow
from wif_action.cli import main
from wif_action.models import AskInput
from wif_action.ports import ToolError
from wif_action.run_records.proxies import RecordingProxy
from wif_action.run_records.query import connect
from wif_action.run_records.recorder import RunContext, RunRecorder
from wif_action.run_records.schema import m001_run_records, m002_llm_token_details, open_runs
from wif_action.run_records.store import RunStore
from wif_action.tools.progress import RecordingProgress

GH_TOKEN = "ghp_" + "A1b2C3d4E5f6G7h8I9j0K1l2M3n4O5p6Q7r8"
OPENAI_KEY = "sk-test-" + "9f8e7d6c5b4a39281706"
SLACK_TOKEN = "xoxb-" + "1111-2222-abcdefghijkl"
EXAMPLE_B = ["--sdk", "sentry-cocoa", "--version", "8.48.0", "--problem",
             "WatchdogTermination issues have empty tags (e.g. OS)",
             "--link", "https://github.com/getsentry/sentry-cocoa/issues/5397"]
TOOL_QUERY = "SELECT tool, count(*), sum(ok = 0) FROM tool_calls GROUP BY tool"


@pytest.fixture
def github(shared_fake_github: FakeGitHub) -> FakeGitHub:
    shared_fake_github.reset_counts()
    return shared_fake_github


@pytest.fixture
def env(monkeypatch, github):
    monkeypatch.setenv("GITHUB_API_URL", github.url)
    monkeypatch.setenv("GITHUB_TOKEN", GH_TOKEN)
    monkeypatch.setenv("SLACK_BOT_TOKEN", SLACK_TOKEN)
    monkeypatch.delenv("OPENAI_API_KEY", raising=False)
    monkeypatch.delenv("WIF_RUNS_DB", raising=False)


def ask(cache: Path, runs: Path, *extra: str) -> int:
    return main(["ask", "--quiet", "--json", "--db", str(cache), "--engine", "offline", "--runs-db", str(runs),
                 *(extra or EXAMPLE_B)])


def rows(runs: Path, sql: str) -> list[tuple]:
    conn = sqlite3.connect(runs)
    try:
        return conn.execute(sql).fetchall()
    finally:
        conn.close()


def stored_bytes(runs: Path) -> bytes:
    return b"".join(p.read_bytes() for p in runs.parent.glob(runs.name + "*"))


# -- redaction --------------------------------------------------------------------------------------
def test_redactor_removes_env_secrets_and_token_shapes():
    redact = Redactor({"GITHUB_TOKEN": "plain-secret-value", "OPENAI_API_KEY": "x"})
    text = (f"token plain-secret-value, {GH_TOKEN}, github_pat_11ABCDEFG0123456789_abcdefXYZ, {OPENAI_KEY}, "
            f"{SLACK_TOKEN}, Authorization: token abc123, Bearer eyJhbGciOiJIUzI1NiJ9.e30.sig, x stays")
    cleaned = redact.text(text)
    for secret in ("plain-secret-value", GH_TOKEN, "github_pat_11", OPENAI_KEY, SLACK_TOKEN, "abc123", "eyJhbGci"):
        assert secret not in cleaned
    assert cleaned.endswith("x stays")  # a 1-character env value is not treated as a secret
    assert redact.value({"k": [f"a {GH_TOKEN}"]}) == {"k": ["a [redacted]"]}
    prose = "fix: task-runner flushes (#123) in sk-learn docs; Bearer authentication and token expiration"
    assert redact.text(prose) == prose


# -- the schema -------------------------------------------------------------------------------------
def test_the_runs_file_has_its_own_migrations_and_refuses_a_cache(tmp_path, example_cache_path):
    runs = tmp_path / "runs.db"
    open_runs(runs, create=True).conn.close()
    db = open_runs(runs)
    assert {"runs", "subtasks", "tool_calls", "llm_calls"} <= set(db.table_names())
    db.conn.close()
    with pytest.raises(CacheError, match="not a WIF run-records file"):
        open_runs(example_cache_path)
    with pytest.raises(CacheError, match="missing"):
        open_runs(tmp_path / "nope.db")


# -- recording a real run ---------------------------------------------------------------------------
def test_wif_ask_records_inputs_subtasks_tool_calls_and_answer(env, capsys, tmp_path, example_cache_path, github):
    runs = tmp_path / "runs.db"
    github.reset_counts()
    assert ask(example_cache_path, runs) == 0
    answer = json.loads(capsys.readouterr().out)
    [run] = rows(runs, "select id, status, repo, version, outcome, github_requests, inputs, answer, source, engine "
                       "from runs")
    assert run[1:6] == ("complete", "getsentry/sentry-cocoa", "8.48.0", answer["outcome"],
                        answer["usage"]["github_requests"])
    assert run[5] == github.total_requests() >= 1
    assert json.loads(run[6])["links"] == ["https://github.com/getsentry/sentry-cocoa/issues/5397"]
    assert json.loads(run[7])["outcome"] == answer["outcome"] and run[8:] == ("cli", "offline")
    subtasks = [r[0] for r in rows(runs, "select name from subtasks order by seq")]
    assert subtasks[:2] == ["extract_request", "resolve_repository"] and subtasks[-1] == "resolve_answer"
    assert "scan_release_notes" in subtasks
    calls = rows(runs, "select subtask, tool, method, arguments, ok from tool_calls")
    assert ("scan_release_notes", "judge", "filter_relevant_entries") in {c[:3] for c in calls}
    assert any(c[1] == "github" and "5397" in c[3] for c in calls)
    assert all(len(c[3]) <= 300 for c in calls)


def test_a_failing_tool_call_is_recorded_and_the_run_goes_on(env, monkeypatch, capsys, tmp_path, example_cache_path,
                                                             fake_github):
    runs = tmp_path / "runs.db"
    monkeypatch.setenv("GITHUB_API_URL", fake_github.url)
    fake_github.add_fault("GET", r"/issues/5397", status=422, times=None)
    assert ask(example_cache_path, runs) == 0
    failed = rows(runs, "select tool, method, error, github_requests from tool_calls where ok = 0")
    assert failed and failed[0][:2] == ("github", "issue_resolution") and "422" in failed[0][2]
    assert rows(runs, "select status from runs") == [("complete",)]


def test_recording_proxy_reraises_and_passes_other_attributes_through(tmp_path):
    class Tool:
        name = "stub"

        def pull_request(self, repo, number):
            raise ToolError("github", f"token {GH_TOKEN} rejected")

    recorder = RunRecorder(RunStore(tmp_path / "runs.db"), Redactor({}), RunContext())
    recorder.begin(AskInput(problem="p"))
    proxy = RecordingProxy(Tool(), "github", recorder, frozenset({"pull_request"}))
    assert proxy.name == "stub"
    with pytest.raises(ToolError):
        proxy.pull_request("o/r", 1)
    recorder.finish(None, RuntimeError("boom"))
    assert rows(tmp_path / "runs.db", "select ok, error from tool_calls") == [
        (0, "ToolError: github: token [redacted] rejected")]
    assert rows(tmp_path / "runs.db", "select status, error from runs") == [("error", "RuntimeError: boom")]


def test_a_crashed_run_leaves_a_visible_running_row(tmp_path):
    recorder = RunRecorder(RunStore(tmp_path / "runs.db"), Redactor({}), RunContext(source="action"))
    recorder.begin(AskInput(repo="a/b", version="1.0", problem="p"))  # ...and the process dies here
    assert rows(tmp_path / "runs.db", "select status, source, repo from runs") == [("running", "action", "a/b")]


def test_a_broken_runs_file_never_breaks_the_answer(env, capsys, tmp_path, example_cache_path, monkeypatch):
    def fail(*args, **kwargs):
        raise sqlite3.OperationalError("disk I/O error")

    monkeypatch.setattr(RunStore, "finish", fail)
    assert ask(example_cache_path, tmp_path / "runs.db") == 0
    captured = capsys.readouterr()
    assert json.loads(captured.out)["outcome"] and "run records disabled" in captured.err


def test_an_unusable_runs_file_is_a_usage_error(env, capsys, tmp_path, example_cache_path):
    assert ask(example_cache_path, example_cache_path) == 2  # the release cache is not a runs file
    assert "run-records" in capsys.readouterr().err


def test_llm_calls_are_recorded_without_any_secret(env, monkeypatch, capsys, tmp_path, example_cache_path, github):
    runs = tmp_path / "runs.db"
    with FakeOpenAI() as fake:
        monkeypatch.setenv("OPENAI_API_KEY", OPENAI_KEY)
        monkeypatch.setenv("OPENAI_BASE_URL", fake.url + "/v1")
        monkeypatch.setenv("WIF_LLM_MAX_RETRIES", "0")
        message = f"sentry-cocoa 8.48.0: WatchdogTermination tags empty. my token is {GH_TOKEN} Bearer {SLACK_TOKEN}"
        code = main(["ask", "--quiet", "--db", str(example_cache_path), "--engine", "openai", "--runs-db", str(runs),
                     "--message", message])
        sent = len(fake.chat_requests())
    assert code == 0, capsys.readouterr().err
    llm = rows(runs, "select tool, model, prompt, response, prompt_tokens, ok from llm_calls")
    assert len(llm) == sent >= 1
    assert llm[0][0] == "extract_request" and "WatchdogTermination" in llm[0][2] and llm[0][4] > 0
    assert rows(runs, "select llm_calls, engine from runs") == [(sent, "openai")]
    data = stored_bytes(runs)
    for secret in (OPENAI_KEY, GH_TOKEN, SLACK_TOKEN):
        assert secret.encode() not in data


def test_observer_and_proxies_do_not_change_the_answer(env, tmp_path, example_cache_path):
    inputs = AskInput(sdk="sentry-cocoa", version="8.48.0", problem="WatchdogTermination issues have empty tags")
    plain = build_workflow(AppConfig(db=example_cache_path, engine="offline"), RecordingProgress()).run(inputs)
    recorded = build_workflow(AppConfig(db=example_cache_path, engine="offline", runs_db=tmp_path / "r.db"),
                              RecordingProgress()).run(inputs)
    assert replace(recorded, usage=plain.usage) == plain


# -- wif runs ---------------------------------------------------------------------------------------
@pytest.fixture
def recorded_runs(env, capsys, tmp_path, example_cache_path) -> Path:
    runs = tmp_path / "runs.db"
    assert ask(example_cache_path, runs) == 0
    assert ask(example_cache_path, runs, "--repo", "getsentry/sentry-python", "--version", "1.0.0",
               "--problem", "anything") == 0
    capsys.readouterr()
    return runs


def test_runs_list_newest_first(recorded_runs, capsys):
    assert main(["runs", "list", "--runs-db", str(recorded_runs)]) == 0
    lines = capsys.readouterr().out.splitlines()
    assert lines[0].split()[:3] == ["id", "started_at", "source"] and "github_requests" in lines[0]
    assert lines[2].split()[0] == "2" and "getsentry/sentry-python" in lines[2] and "too_old" in lines[2]
    assert main(["runs", "list", "--runs-db", str(recorded_runs), "--json", "--limit", "1"]) == 0
    assert [r["id"] for r in json.loads(capsys.readouterr().out)] == [2]


def test_runs_show_is_a_timeline(recorded_runs, capsys):
    assert main(["runs", "show", "1", "--runs-db", str(recorded_runs)]) == 0
    out = capsys.readouterr().out
    assert out.startswith("Run 1 — complete")
    assert "▶ check_links" in out and "github.issue_resolution(" in out and "judge.filter_relevant_entries(" in out
    assert out.index("▶ extract_request") < out.index("▶ scan_release_notes") < out.index("▶ resolve_answer")
    assert main(["runs", "show", "last", "--runs-db", str(recorded_runs), "--json"]) == 0
    assert json.loads(capsys.readouterr().out)["run"]["id"] == 2
    assert main(["runs", "show", "99", "--runs-db", str(recorded_runs)]) == 2  # an unknown id is a usage error


def test_runs_query_answers_which_tool_fails_most(recorded_runs, capsys):
    assert main(["runs", "query", "--runs-db", str(recorded_runs), TOOL_QUERY]) == 0
    out = capsys.readouterr().out
    assert out.splitlines()[0].split() == ["tool", "count(*)", "sum(ok", "=", "0)"]
    assert {line.split()[0] for line in out.splitlines()[2:]} >= {"cache", "github", "judge"}
    assert main(["runs", "query", "--runs-db", str(recorded_runs), "--json",
                 "WITH c AS (SELECT run_id FROM tool_calls) SELECT count(*) AS n FROM c;"]) == 0
    assert json.loads(capsys.readouterr().out)[0]["n"] > 0


@pytest.mark.parametrize("sql", [
    "DELETE FROM runs",
    "SELECT 1; DELETE FROM runs",
    "select 1; -- ok\n drop table runs",
    "PRAGMA query_only = OFF",
    "ATTACH DATABASE 'x.db' AS x",
    "WITH x AS (SELECT 1) DELETE FROM runs",
    "SELECT * FROM pragma_table_info('runs')",
    "",
])
def test_runs_query_is_read_only(recorded_runs, capsys, sql):
    before = rows(recorded_runs, "select count(*) from runs")
    assert main(["runs", "query", "--runs-db", str(recorded_runs), sql]) == 2
    assert "wif runs:" in capsys.readouterr().err
    assert rows(recorded_runs, "select count(*) from runs") == before


def test_the_query_connection_itself_cannot_write(recorded_runs):
    """Without the authorizer, `mode=ro` and `query_only` still refuse a write."""
    conn = connect(recorded_runs)
    conn.set_authorizer(None)
    with pytest.raises(sqlite3.OperationalError, match=r"readonly|read-only|query_only"):
        conn.execute("DELETE FROM runs")
    conn.close()


ENDLESS = "WITH RECURSIVE c(x) AS (SELECT 1 UNION ALL SELECT x + 1 FROM c) "


def test_a_runaway_statement_is_stopped_by_its_step_budget_and_row_cap(recorded_runs):
    """A recursive CTE without an end ran until Ctrl-C (count) or until memory ran out (rows). SQLite's step count
    bounds the first, the same on any machine; a row cap the second. The connection answers again after both."""
    from wif_action.run_records.query import QueryError, select

    conn = connect(recorded_runs)
    try:
        with pytest.raises(QueryError, match="took more than 1,000,000 SQLite steps and was stopped: narrow it"):
            select(conn, ENDLESS + "SELECT count(*) FROM c", max_steps=1_000_000)
        with pytest.raises(QueryError, match="returns more than 1,000 rows: add a LIMIT"):
            select(conn, ENDLESS + "SELECT x FROM c", max_rows=1_000)
        assert select(conn, ENDLESS + "SELECT x FROM c LIMIT 3", max_rows=3) == (["x"], [(1,), (2,), (3,)])
    finally:
        conn.close()


def test_runs_query_of_endless_rows_is_one_line_and_exit_2(recorded_runs, capsys):
    assert main(["runs", "query", "--runs-db", str(recorded_runs), ENDLESS + "SELECT x FROM c"]) == 2
    err = capsys.readouterr().err
    assert "wif runs:" in err and "more than 100,000 rows: add a LIMIT" in err and len(err.strip().splitlines()) == 1


def test_runs_query_keeps_semicolons_in_strings(recorded_runs, capsys):
    assert main(["runs", "query", "--runs-db", str(recorded_runs), "--json", "select ';' as a; "]) == 0
    assert json.loads(capsys.readouterr().out) == [{"a": ";"}]


def test_runs_commands_refuse_a_file_that_is_not_run_records(capsys, example_cache_path, tmp_path):
    """The refusal says what to do about a run-records file, not the release cache's "point --db at the file
    `wif index` built" / "rebuild it with `wif index`" (run records are no file `wif index` builds)."""
    garbage = tmp_path / "garbage.db"
    garbage.write_bytes(b"not a database " * 100)
    for path in (example_cache_path, garbage):
        assert main(["runs", "list", "--runs-db", str(path)]) == 2
        err = capsys.readouterr().err
        assert "not a WIF run-records file" in err and "`wif runs` only reads them" in err, err
        assert "wif index" not in err and len(err.strip().splitlines()) == 1
    damaged = tmp_path / "damaged.db"
    open_runs(damaged, create=True).conn.close()
    damaged.write_bytes(damaged.read_bytes()[:-4096])  # a truncated file: its header counts one page more
    with pytest.raises(CacheError, match=r"damaged WIF run-records file .*Move it aside\. Point --runs-db") as refused:
        open_runs(damaged, create=True)
    assert "wif index" not in str(refused.value)


def test_failed_llm_calls_and_the_fallback_engine_are_recorded(env, monkeypatch, capsys, tmp_path,
                                                               example_cache_path):
    runs = tmp_path / "runs.db"
    with FakeOpenAI(responder=lambda request: FakeReply(status=500, content="upstream broke")) as fake:
        monkeypatch.setenv("OPENAI_API_KEY", OPENAI_KEY)
        monkeypatch.setenv("OPENAI_BASE_URL", fake.url + "/v1")
        monkeypatch.setenv("WIF_LLM_MAX_RETRIES", "0")
        code = main(["ask", "--quiet", "--db", str(example_cache_path), "--engine", "openai", "--runs-db", str(runs),
                     *EXAMPLE_B])
    assert code == 0, capsys.readouterr().err
    [(calls, failed)] = rows(runs, "select count(*), sum(ok = 0) from llm_calls")
    assert calls == failed >= 1
    failing = dict(rows(runs, "select tool, sum(ok = 0) from tool_calls group by tool"))
    assert failing["judge"] >= 1 and failing["fallback"] == 0
    assert rows(runs, "select count(*) from tool_calls where tool = 'fallback'")[0][0] >= 1


def test_cached_and_reasoning_tokens_mode_and_cost_are_recorded(env, monkeypatch, capsys, tmp_path,
                                                                example_cache_path):
    """Each LLM call's cached prompt tokens, reasoning tokens and output mode, and the run's totals and cost."""
    runs = tmp_path / "runs.db"

    def reply(request: dict) -> FakeReply:
        content = schema_example(requested_schema(request)[1] or {})
        return FakeReply(content=content, usage={
            "prompt_tokens": 2_000, "completion_tokens": 60, "total_tokens": 2_060,
            "prompt_tokens_details": {"cached_tokens": 1_536}, "completion_tokens_details": {"reasoning_tokens": 40}})

    with FakeOpenAI(responder=reply) as fake:
        fake.rejected_formats.add("json_schema")  # every call falls back to JSON mode: the mode is recorded
        for key, value in {"OPENAI_API_KEY": OPENAI_KEY, "OPENAI_BASE_URL": fake.url + "/v1",
                           "WIF_LLM_MAX_RETRIES": "0", "WIF_MODEL": "gpt-4.1-mini",
                           "WIF_VERIFY_MODEL": "gpt-4.1"}.items():
            monkeypatch.setenv(key, value)
        code = main(["ask", "--quiet", "--db", str(example_cache_path), "--engine", "openai", "--runs-db", str(runs),
                     *EXAMPLE_B])
    assert code == 0, capsys.readouterr().err
    calls = rows(runs, "select cached_tokens, reasoning_tokens, mode from llm_calls where ok = 1")
    assert calls and set(calls) == {(1_536, 40, "json_object")}
    [(cached, reasoning, cost, prompt)] = rows(runs, "select cached_tokens, reasoning_tokens, cost_usd, "
                                                     "prompt_tokens from runs")
    assert (cached, reasoning, prompt) == (1_536 * len(calls), 40 * len(calls), 2_000 * len(calls))
    fresh_only = 2_000 * len(calls) * 0.40 / 1e6  # gpt-4.1-mini, had no token been cached
    assert 0 < cost < fresh_only * 5 and cost != pytest.approx(fresh_only)
    capsys.readouterr()
    assert main(["runs", "show", "last", "--runs-db", str(runs)]) == 0
    out = capsys.readouterr().out
    assert f"({1_536 * len(calls)} cached)" in out and f"({40 * len(calls)} reasoning)" in out
    assert "$" in out and "1536 cached) / 60 completion (40 reasoning) [" in out and "json_object" in out


def test_a_file_an_older_wif_wrote_is_still_read_and_migrated_by_the_next_writer(env, capsys, tmp_path,
                                                                                 example_cache_path):
    runs = tmp_path / "old-runs.db"
    older = MigrationSet("wif-runs")
    older.steps.append(m001_run_records)
    db = Database(runs)
    older.apply(db)
    db["runs"].insert({"id": 1, "started_at": "2026-01-01T00:00:00Z", "status": "complete", "prompt_tokens": 10,
                       "completion_tokens": 2, "inputs": "{}"})
    db.conn.close()
    assert main(["runs", "show", "1", "--runs-db", str(runs)]) == 0
    assert "tokens 10 prompt / 2 completion" in capsys.readouterr().out
    assert ask(example_cache_path, runs) == 0
    assert "m002_llm_token_details" in {name for (name,) in rows(runs, "select name from _sqlite_migrations")}
    assert rows(runs, "select count(*) from runs") == [(2,)]


def test_a_file_written_before_top_commit_is_read_and_then_migrated(env, capsys, tmp_path, example_cache_path):
    """A file an older WIF wrote with the migrations it had (m001, m002: the same functions it ran): `wif runs`
    reads it as it is (no `top_commit` column: list and show still name its top PR), and the next writer adds
    `top_commit` (m003), the old row's left empty, the new row's top PR recorded as before."""
    runs = tmp_path / "older-runs.db"
    older = MigrationSet("wif-runs")
    older.steps.extend([m001_run_records, m002_llm_token_details])
    db = Database(runs)
    older.apply(db)
    db["runs"].insert({"id": 1, "started_at": "2026-01-01T00:00:00Z", "status": "complete", "inputs": "{}",
                       "outcome": "high", "top_version": "8.52.0", "top_pr": 5242, "top_confidence": "high"})
    db.conn.close()
    assert main(["runs", "list", "--runs-db", str(runs)]) == 0
    assert "8.52.0 #5242" in capsys.readouterr().out
    assert main(["runs", "show", "1", "--runs-db", str(runs)]) == 0
    assert "top candidate 8.52.0 #5242 (high)" in capsys.readouterr().out
    assert "top_commit" not in {name for (_, name, *_) in rows(runs, "pragma table_info(runs)")}
    assert ask(example_cache_path, runs) == 0
    assert "m003_top_commit" in {name for (name,) in rows(runs, "select name from _sqlite_migrations")}
    assert rows(runs, "select id, top_pr, top_commit from runs order by id") == [(1, 5242, None), (2, 5242, None)]
    capsys.readouterr()
    assert main(["runs", "list", "--runs-db", str(runs)]) == 0
    assert capsys.readouterr().out.count("8.52.0 #5242") == 2


def test_the_recorded_cache_methods_include_those_of_its_base_ports() -> None:
    """`ReleaseCache` inherits `cached_pull` from `PullRequestCache` (the GitHub tools' port): a cache call the
    run makes through it is recorded like the rest, not passed through unseen."""
    from wif_action.run_records.hook import TOOL_METHODS

    assert {"cached_pull", "entries", "stable_after"} <= TOOL_METHODS["cache"]
    assert "cached_pull" not in TOOL_METHODS["github"]
