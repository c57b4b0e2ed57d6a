"""What a command imports: `--help` loads no client, an offline answer loads none it does not use (issue 23).

Why it matters: PyGithub with requests, PyJWT and cryptography cost ~110 ms, sqlite-utils with click and
pluggy ~40 ms, pydantic and its models ~75 ms — of every answer, most of which make no GitHub request at all.
Each check runs in a fresh interpreter, so what an earlier test imported cannot hide a regression.
"""

from __future__ import annotations

import json
import subprocess
import sys
from pathlib import Path

import pytest

ROOT = Path(__file__).resolve().parent.parent
CLIENTS = {"github", "requests", "jwt", "cryptography", "sqlite_utils", "openai", "slack_sdk", "slack_bolt", "httpx2"}
pytestmark = pytest.mark.slow  # a fresh interpreter per check


def loaded_after(argv: list[str], env: dict[str, str] | None = None, *, modules: bool = False) -> set[str]:
    """The top-level packages (every module, with `modules`) loaded once `wif <argv>` has run in a fresh
    interpreter."""
    name = "name" if modules else "name.split('.')[0]"
    code = ("import contextlib, io, json, sys\nfrom wif_action.cli import main\n"
            "with contextlib.redirect_stdout(io.StringIO()), contextlib.redirect_stderr(io.StringIO()):\n"
            "    try:\n        main(json.loads(sys.argv[1]))\n    except SystemExit:\n        pass\n"
            f"print(json.dumps(sorted({{{name} for name in sys.modules}})))")
    result = subprocess.run([sys.executable, "-c", code, json.dumps(argv)], capture_output=True, text=True,
                            cwd=ROOT, timeout=120, env=env)
    assert result.returncode == 0, result.stderr
    return set(json.loads(result.stdout))


COMMANDS = [[], ["ask"], ["index"], ["dispatch"], ["eval"], ["runs"], ["slack"], ["action"]]


@pytest.mark.parametrize("command", COMMANDS)
def test_help_loads_no_client_and_no_model(command: list[str]) -> None:
    """No client, and not the workflow's pydantic models either (~70 ms): `--help` only prints."""
    assert not loaded_after([*command, "--help"]) & (CLIENTS | {"pydantic"})


def test_an_offline_answer_from_the_cache_loads_no_client_and_no_pydantic() -> None:
    """Example B answered from cache.db.example: its PR details are cached, so no GitHub request, and the
    cache is read with sqlite3; the workflow's models are dataclasses (pydantic is the LLM engine's), and the
    notes parser's scanner is `wif index`'s (the judge reads only its sections)."""
    loaded = loaded_after(["ask", "--db", "cache.db.example", "--engine", "offline", "--sdk", "sentry-cocoa",
                           "--version", "8.48.0", "--problem", "WatchdogTermination issues have empty tags (e.g. OS)",
                           "--quiet"], env={"PATH": "/usr/bin:/bin", "GITHUB_API_URL": "http://127.0.0.1:9"},
                          modules=True)
    packages = {name.split(".")[0] for name in loaded}
    assert not packages & (CLIENTS | {"pydantic"}), packages & (CLIENTS | {"pydantic"})
    assert "indexer.release_notes.sections" in loaded
    assert not loaded & {"indexer.release_notes.scanner", "indexer.release_notes.html"}
