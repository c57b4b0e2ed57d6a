"""The composite action, driven for real: action.yml's `run:` steps in bash, as a runner would.

The harness loads action.yml, evaluates the `${{ }}` expressions of each step's `env:` (and of
its script, exactly as GitHub would) from a context dict, gives every step the files and
variables a runner gives (GITHUB_OUTPUT, GITHUB_STEP_SUMMARY, GITHUB_EVENT_PATH, ...), skips
only `uses:` steps, and talks to fake GitHub, Slack and OpenAI servers on 127.0.0.1.
Shared by tests/test_action.py and the fault and secret suites.
"""

from __future__ import annotations

import json
import re
import shutil
import socket
import subprocess
import sys
from dataclasses import dataclass, field
from pathlib import Path
from typing import Any

import yaml

from tests.fakes.github_server import FakeGitHub
from tests.fakes.slack_server import FakeSlack
from wif_action.models import Outcome

ROOT = Path(__file__).resolve().parent.parent
FAKE_GH = ROOT / "tests" / "fakes" / "gh"  # the GitHub CLI a run finds first on PATH once a test asks for it
PYTHON = ROOT / "tests" / "fakes" / "python"  # `python` on a run's PATH: runs $WIF_TEST_PYTHON, this interpreter
# The programs action.yml's `run:` steps and the fake gh call (`sha256sum || shasum`, `cut`, `mkdir`; `cp`), besides
# python and wif. A run's PATH holds links to these and nothing else, so a program a test did not fake (a real `gh`
# in /usr/bin) is "command not found", never reached.
COREUTILS = ("sha256sum", "shasum", "cut", "mkdir", "cp")
BASH = shutil.which("bash") or "/bin/bash"
ACTION = yaml.safe_load((ROOT / "action.yml").read_text())
EXPRESSION = re.compile(r"\$\{\{\s*(.*?)\s*\}\}", re.DOTALL)
SUPPORT_REPO = "acme/support"
CHANNEL = "C0SUPPORT"
OUTCOMES = {str(o) for o in Outcome}


# --------------------------------------------------------------------------- expression evaluation
def evaluate(expression: str, context: dict[str, Any]) -> str:
    """`a || b || 'literal'` over dotted context paths: the first non-empty operand, as GitHub does."""
    value: Any = ""
    for operand in expression.split("||"):
        value = _operand(operand.strip(), context)
        if value:
            break
    return "" if value is None else str(value)


def _operand(operand: str, context: dict[str, Any]) -> Any:
    if operand.startswith("'") and operand.endswith("'"):
        return operand[1:-1].replace("''", "'")
    value: Any = context
    for part in operand.split("."):
        value = value.get(part, "") if isinstance(value, dict) else ""
    return value


def substitute(template: str, context: dict[str, Any]) -> str:
    """Replace every `${{ expr }}`, once (values are never re-evaluated, as on GitHub)."""
    return EXPRESSION.sub(lambda m: evaluate(m.group(1), context), str(template))


def condition(expression: str, context: dict[str, Any], succeeded: bool) -> bool:
    """The `if:` forms this action uses: always(), success(), failure(), ==, != and &&."""
    expression = EXPRESSION.sub(lambda m: m.group(1), expression).strip()
    results = []
    for clause in (c.strip() for c in expression.split("&&")):
        if clause in ("always()", "success()", "failure()"):
            results.append({"always()": True, "success()": succeeded, "failure()": not succeeded}[clause])
        elif match := re.fullmatch(r"(.+?)\s*(==|!=)\s*(.+)", clause):
            left, right = evaluate(match.group(1), context), evaluate(match.group(3), context)
            results.append((left == right) == (match.group(2) == "=="))
        else:
            results.append(bool(evaluate(clause, context)))
    explicit_status = any(f in expression for f in ("always()", "success()", "failure()"))
    return all(results) and (explicit_status or succeeded)


def parse_command_file(path: Path) -> dict[str, str]:
    """GITHUB_OUTPUT / GITHUB_ENV syntax: `name=value` lines and `name<<DELIMITER` blocks."""
    values: dict[str, str] = {}
    lines = path.read_text(encoding="utf-8").split("\n") if path.exists() else []
    index = 0
    while index < len(lines):
        line = lines[index]
        if "<<" in line and ("=" not in line or line.index("<<") < line.index("=")):
            name, delimiter = line.split("<<", 1)
            end = lines.index(delimiter, index + 1)
            values[name] = "\n".join(lines[index + 1:end])
            index = end + 1
            continue
        if "=" in line:
            name, value = line.split("=", 1)
            values[name] = value
        index += 1
    return values


# --------------------------------------------------------------------------- the runner
@dataclass
class ActionResult:
    outputs: dict[str, str]
    steps: dict[str, dict[str, Any]]
    summary: str
    returncodes: list[int]
    logs: str
    skipped_uses: list[str] = field(default_factory=list)

    def json(self) -> dict:
        return json.loads(Path(self.outputs["result-json"]).read_text())


class ActionRunner:
    """Runs action.yml's steps like a runner: per-step env, command files, `if:`, expressions."""

    def __init__(self, tmp_path: Path, github: FakeGitHub, slack: FakeSlack, extra_env: dict[str, str] | None = None):
        self.tmp = tmp_path
        self.github, self.slack = github, slack
        self.extra_env = dict(extra_env or {})
        self.full_disk_in_answer_step = False  # GITHUB_OUTPUT / STEP_SUMMARY of the Answer step on /dev/full
        self.bin = tmp_path / "bin"  # what a test adds (the fake gh)
        self.bin.mkdir(exist_ok=True)
        self.tools = _tools(tmp_path / "tools")  # what every run needs (`COREUTILS`, python, wif)
        for name in ("home", "temp", "workspace"):
            (tmp_path / name).mkdir(exist_ok=True)
        self.gh_calls = tmp_path / "gh-calls"  # one line of arguments per call of the fake gh

    def fake_gh(self, asset: Path | str | None = None) -> None:
        """Put the fake gh on PATH (by default a run has none): `gh release download` delivers a copy of `asset`
        (this test's own, no file another test shares), or finds no release. A link to a committed script, so
        no executable is written and run at once (ETXTBSY while a process forked meanwhile holds it open)."""
        gh = self.bin / "gh"
        if not gh.is_symlink():
            gh.symlink_to(FAKE_GH)
        self.extra_env["WIF_TEST_GH_ARGS"] = str(self.gh_calls)
        self.extra_env.pop("WIF_TEST_GH_ASSET", None)
        if asset is not None:
            copy = self.tmp / "release-asset.db"
            shutil.copyfile(asset, copy)
            self.extra_env["WIF_TEST_GH_ASSET"] = str(copy)

    def base_env(self, event_name: str, event_path: Path) -> dict[str, str]:
        return {
            "PATH": f"{self.bin}:{self.tools}",
            "HOME": str(self.tmp / "home"), "LANG": "C.UTF-8", "CI": "true", "GITHUB_ACTIONS": "true",
            "RUNNER_OS": "Linux", "RUNNER_TEMP": str(self.tmp / "temp"),
            "GITHUB_WORKSPACE": str(self.tmp / "workspace"), "GITHUB_ACTION_PATH": str(ROOT),
            "GITHUB_EVENT_NAME": event_name, "GITHUB_EVENT_PATH": str(event_path),
            "GITHUB_REPOSITORY": SUPPORT_REPO, "GITHUB_API_URL": self.github.url,
            "GITHUB_RUN_ID": "4242", "SLACK_API_URL": self.slack.url + "/api/",
            "WIF_SKIP_INSTALL": "1", "WIF_TEST_PYTHON": sys.executable, "WIF_PROGRESS_INTERVAL": "0.05",
            "WIF_BACKOFF_SCALE": "0",  # retries as in production, without their sleeps (indexer.backoff)
            **self.extra_env,
        }

    def run(self, inputs: dict[str, str], event_name: str, event: dict[str, Any]) -> ActionResult:
        event_path = self.tmp / "event.json"
        event_path.write_text(json.dumps(event))
        context: dict[str, Any] = {
            "github": {"token": "ghs_testtoken", "repository": SUPPORT_REPO, "action_repository": "",
                       "run_id": "4242", "run_attempt": "1", "job": "wif", "event_name": event_name,
                       "event": event},
            "runner": {"temp": str(self.tmp / "temp"), "os": "Linux"},
            "steps": {},
        }
        context["inputs"] = {name: substitute(spec.get("default", ""), context)
                             for name, spec in ACTION["inputs"].items()}
        context["inputs"].update(inputs)
        return self._steps(context, self.base_env(event_name, event_path))

    def _steps(self, context: dict[str, Any], env: dict[str, str]) -> ActionResult:
        succeeded, codes, logs, summary, skipped, extra_env = True, [], [], [], [], {}
        for number, step in enumerate(ACTION["runs"]["steps"]):
            if "uses" in step:
                skipped.append(step["uses"])
                continue
            if not (condition(step["if"], context, succeeded) if "if" in step else succeeded):
                continue
            files = {name: self.tmp / f"{name.lower()}-{number}" for name in
                     ("GITHUB_OUTPUT", "GITHUB_STEP_SUMMARY", "GITHUB_ENV", "GITHUB_PATH")}
            for path in files.values():
                path.touch()
            full = self.full_disk_in_answer_step and step.get("name") == "Answer"
            if full:  # every write fails with ENOSPC, like a full disk
                files.update(GITHUB_OUTPUT=Path("/dev/full"), GITHUB_STEP_SUMMARY=Path("/dev/full"))
            step_env = {**env, **extra_env, **{k: str(v) for k, v in files.items()},
                        **{k: substitute(v, context) for k, v in (step.get("env") or {}).items()}}
            script = self.tmp / f"step-{number}.sh"
            script.write_text(substitute(step["run"], context))
            process = subprocess.run([BASH, "--noprofile", "--norc", "-eo", "pipefail", str(script)],
                                     env=step_env, cwd=self.tmp / "workspace", capture_output=True, text=True,
                                     timeout=120)
            codes.append(process.returncode)
            logs.append(f"--- step {step.get('name')}\n{process.stdout}\n{process.stderr}")
            succeeded = succeeded and process.returncode == 0
            extra_env.update(parse_command_file(files["GITHUB_ENV"]))
            summary.append("" if full else files["GITHUB_STEP_SUMMARY"].read_text())
            if "id" in step:
                context["steps"][step["id"]] = {"outputs": {} if full else parse_command_file(files["GITHUB_OUTPUT"]),
                                                "outcome": "success" if process.returncode == 0 else "failure"}
        outputs = {name: substitute(spec["value"], context) for name, spec in ACTION["outputs"].items()}
        return ActionResult(outputs, context["steps"], "".join(summary), codes, "\n".join(logs), skipped)


def _tools(folder: Path) -> Path:
    """A folder of links to the programs a run may call: `COREUTILS` found on this machine, `PYTHON` as python and
    python3, and the `wif` installed beside this interpreter. Why links, not the folders they live in: /usr/bin (or
    a system Python's folder) also holds whatever else the machine has installed."""
    folder.mkdir(exist_ok=True)
    wif = Path(sys.executable).parent / "wif"
    assert wif.exists(), f"no wif beside {sys.executable}: install the package (pip install -e .) to run the Action"
    links = {"python": PYTHON, "python3": PYTHON, "wif": wif}
    links |= {name: Path(found) for name in COREUTILS if (found := shutil.which(name))}
    for name, target in links.items():
        if not (folder / name).is_symlink():
            (folder / name).symlink_to(target)
    return folder


# --------------------------------------------------------------------------- events and checks
def dispatch_event(inputs: dict[str, str]) -> dict[str, Any]:
    return {"inputs": inputs, "ref": "refs/heads/main", "workflow": ".github/workflows/wif.yml",
            "repository": {"full_name": SUPPORT_REPO}, "sender": {"login": "bridge", "type": "User"}}


def comment_event(github: FakeGitHub, body: str, *, association: str = "MEMBER", user_type: str = "User",
                  pull_request: bool = False, issue: int = 7, issue_body: str = "") -> dict[str, Any]:
    try:
        github.repo(SUPPORT_REPO)
    except KeyError:
        github.add_repo(SUPPORT_REPO)
    comment = github.add_comment(SUPPORT_REPO, issue, body, user="alice", user_type=user_type,
                                 author_association=association)
    issue_json: dict[str, Any] = {"number": issue, "title": "Customer: WatchdogTermination tags empty",
                                  "body": issue_body, "user": {"login": "alice", "type": "User"}}
    if pull_request:
        issue_json["pull_request"] = {"url": f"{github.url}/repos/{SUPPORT_REPO}/pulls/{issue}"}
    return {"action": "created", "issue": issue_json,
            "comment": {"id": comment["id"], "body": body, "user": {"login": "alice", "type": user_type},
                        "author_association": association},
            "repository": {"full_name": SUPPORT_REPO}, "sender": {"login": "alice", "type": user_type}}


LATEST_PYTHON = {"sdk": "sentry-python", "version": "2.68.0", "problem": "Spans are dropped when the app forks."}


def assert_answer_outputs(result: ActionResult) -> None:
    assert result.returncodes and result.returncodes[-1] == 0, result.logs
    assert result.outputs["outcome"] in OUTCOMES, result.logs
    assert result.outputs["answer"].strip(), result.logs
    data = result.json()
    assert data["outcome"] == result.outputs["outcome"]
    assert data["message"] == result.outputs["answer"]
    assert result.outputs["answer"] in result.summary


def closed_port() -> int:
    """A local port nothing listens on (connection refused)."""
    with socket.socket() as sock:
        sock.bind(("127.0.0.1", 0))
        return sock.getsockname()[1]
