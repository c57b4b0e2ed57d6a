"""A project people can depend on: one version (pyproject.toml) that `wif --version` reports, and a
CHANGELOG in Keep a Changelog form whose newest section collects the unreleased changes."""

from __future__ import annotations

import re
import subprocess
import sys
import tomllib
from pathlib import Path

import pytest

ROOT = Path(__file__).resolve().parent.parent


def project_version() -> str:
    return tomllib.loads((ROOT / "pyproject.toml").read_text())["project"]["version"]


@pytest.mark.slow
def test_wif_version_prints_the_pyproject_version():
    result = subprocess.run([sys.executable, "-m", "wif_action.cli", "--version"],
                            capture_output=True, text=True, timeout=60)
    assert result.returncode == 0, result.stderr
    assert result.stdout.strip() == f"wif {project_version()}"


def test_the_changelog_follows_keep_a_changelog():
    text = (ROOT / "CHANGELOG.md").read_text()
    sections = re.findall(r"^## \[([^\]]+)\](?: - (\d{4}-\d{2}-\d{2}))?$", text, flags=re.MULTILINE)
    assert sections and sections[0] == ("Unreleased", ""), sections
    released = [name for name, date in sections[1:]]
    assert all(re.fullmatch(r"\d+\.\d+\.\d+", name) for name in released), released
    assert all(date for _, date in sections[1:]), "every released section is dated"
    for name, _ in sections:
        assert re.search(rf"^\[{re.escape(name)}\]: https://", text, flags=re.MULTILINE), f"no link for {name}"
    headings = set(re.findall(r"^### (\w+)$", text, flags=re.MULTILINE))
    assert headings <= {"Added", "Changed", "Deprecated", "Removed", "Fixed", "Security"}, headings
