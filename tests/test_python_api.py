"""The Python API (issue 26): the README's snippet runs as written, `ask` returns the Answer that
`wif ask --json` prints, and `import wif_action` does not load the workflow until a name is used."""

from __future__ import annotations

import json
import re
import subprocess
import sys
import tomllib
from pathlib import Path

import pytest

import wif_action
from wif_action import Answer, CacheError, ask, open_cache

ROOT = Path(__file__).resolve().parent.parent
EXAMPLE_B = {"sdk": "sentry-cocoa", "version": "8.48.0",
             "problem": "WatchdogTermination issues have empty tags (e.g. OS)"}
OFFLINE_ENV = {"PATH": "/usr/bin:/bin", "GITHUB_API_URL": "http://127.0.0.1:9"}  # refused at once: no internet


def readme_python_snippet() -> str:
    section = (ROOT / "README.md").read_text().split("## Python API", 1)[1]
    (snippet,) = re.findall(r"```python\n(.*?)```", section.split("\n## ", 1)[0], flags=re.DOTALL)
    return snippet


@pytest.mark.slow
def test_the_readme_snippet_runs_as_written_and_prints_what_its_comment_says():
    snippet = readme_python_snippet()
    assert len(snippet.strip().splitlines()) <= 5
    result = subprocess.run([sys.executable, "-c", snippet], cwd=ROOT, capture_output=True, text=True, timeout=120,
                            env=OFFLINE_ENV)
    assert result.returncode == 0, result.stderr[-2000:]
    promised = re.search(r"# (.+)$", snippet.strip().splitlines()[-1]).group(1)
    assert result.stdout.strip() == promised


@pytest.mark.slow
def test_ask_returns_the_answer_that_wif_ask_json_prints():
    answer = ask(open_cache(ROOT / "cache.db.example"), **EXAMPLE_B, engine="offline", deadline=0, env=OFFLINE_ENV)
    assert isinstance(answer, Answer)
    cli = subprocess.run([sys.executable, "-m", "wif_action.cli", "ask", "--db", str(ROOT / "cache.db.example"),
                          "--sdk", EXAMPLE_B["sdk"], "--version", EXAMPLE_B["version"], "--problem",
                          EXAMPLE_B["problem"], "--engine", "offline", "--deadline", "0", "--quiet", "--json"],
                         capture_output=True, text=True, timeout=120, env=OFFLINE_ENV)
    assert cli.returncode == 0, cli.stderr[-1000:]
    assert json.loads(cli.stdout) == answer.public_json()


def test_one_cache_answers_many_questions_and_a_path_works_too():
    cache = open_cache(ROOT / "cache.db.example")
    assert "getsentry/sentry-cocoa" in cache.repositories()
    first = ask(cache, **EXAMPLE_B, engine="offline", deadline=0, env=OFFLINE_ENV)
    again = ask(str(ROOT / "cache.db.example"), message="iOS 8.48.0: WatchdogTermination issues have empty tags",
                engine="offline", deadline=0, env=OFFLINE_ENV)
    assert first.candidates[0].pr == again.candidates[0].pr == 5242


def test_an_unknown_sdk_is_an_answer_not_an_exception():
    answer = ask(ROOT / "cache.db.example", sdk="no-such-sdk", version="1.0.0", problem="it crashes",
                 engine="offline", deadline=0, env=OFFLINE_ENV)
    assert answer.outcome == "needs_clarification"


@pytest.mark.parametrize(("kwargs", "complaint"), [
    ({}, "give a problem"),
    ({"problem": "x", "sdk": "a", "repo": "b/c"}, "sdk or repo"),
    ({"problem": "x", "max_high": 4}, "max_high"),
    ({"problem": "x", "deadline": -1}, "deadline"),
])
def test_bad_arguments_raise_value_error(kwargs, complaint):
    with pytest.raises(ValueError, match=complaint):
        ask(ROOT / "cache.db.example", **kwargs)


def test_a_file_that_is_not_a_cache_raises_cache_error_and_is_left_alone(tmp_path):
    notes = tmp_path / "notes.md"
    notes.write_text("# my notes\n")
    with pytest.raises(CacheError):
        open_cache(notes)
    assert notes.read_text() == "# my notes\n"


@pytest.mark.slow
def test_importing_the_package_loads_no_workflow():
    code = ("import sys, wif_action; heavy = [m for m in ('wif_action.api', 'wif_action.workflow', 'pydantic', "
            "'github', 'openai') if m in sys.modules]; print(heavy); print(wif_action.__version__)")
    result = subprocess.run([sys.executable, "-c", code], capture_output=True, text=True, timeout=60)
    heavy, version = result.stdout.split("\n")[:2]
    assert heavy == "[]" and version and version != "unknown"


def test_the_api_names_are_exported_and_unknown_ones_are_attribute_errors():
    assert set(wif_action.__all__) >= {"ask", "open_cache", "Answer", "CacheError", "__version__"}
    with pytest.raises(AttributeError):
        _ = wif_action.no_such_name


def test_the_package_ships_its_types():
    """PEP 561: `py.typed` tells a team's mypy to read WIF's annotations (an `Answer`, not `Any`)."""
    assert (ROOT / "wif_action" / "py.typed").exists()
    package_data = tomllib.loads((ROOT / "pyproject.toml").read_text())["tool"]["setuptools"]["package-data"]
    assert "py.typed" in package_data["wif_action"]
