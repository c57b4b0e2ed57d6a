"""zizmor and actionlint must pass on action.yml and every workflow (CI installs both; never skipped)."""

from __future__ import annotations

import re
import shutil
import subprocess
import sys
from pathlib import Path

import pytest
import yaml

pytestmark = pytest.mark.slow  # runs actionlint, zizmor and wif as processes; `-m "not slow"` skips it

ROOT = Path(__file__).resolve().parent.parent


def tool(name: str) -> str:
    """The tool from this interpreter's environment or PATH; fail loudly when missing."""
    local = Path(sys.executable).parent / name
    found = str(local) if local.exists() else shutil.which(name)
    assert found, f"{name} is not installed: `pip install -e .[test]` installs it (see .ci/run)"
    return found


def run(*command: str) -> subprocess.CompletedProcess:
    return subprocess.run(command, cwd=ROOT, capture_output=True, text=True, timeout=120)


def test_zizmor_finds_nothing():
    result = run(tool("zizmor"), "--offline", "action.yml", ".github/workflows/")
    assert result.returncode == 0, result.stdout + result.stderr
    assert "No findings to report" in result.stdout


def test_actionlint_is_clean():
    workflows = sorted(str(p.relative_to(ROOT)) for p in (ROOT / ".github" / "workflows").glob("*.yml"))
    assert {".github/workflows/ci.yml", ".github/workflows/wif.yml"} <= set(workflows)
    result = run(tool("actionlint"), *workflows)
    assert result.returncode == 0, result.stdout + result.stderr


def test_actions_are_pinned_to_full_commit_shas():
    documents = [yaml.safe_load((ROOT / "action.yml").read_text())["runs"]]
    documents += [job for p in (ROOT / ".github" / "workflows").glob("*.yml")
                  for job in yaml.safe_load(p.read_text())["jobs"].values()]
    uses = [step["uses"] for doc in documents for step in doc.get("steps", []) if "uses" in step]
    remote = [u for u in uses if not u.startswith("./")]
    assert remote and all(re.fullmatch(r"[\w.-]+/[\w./-]+@[0-9a-f]{40}", u) for u in remote), remote
