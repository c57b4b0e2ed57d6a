"""Docs that match the files (issue 26): every YAML block in README.md and docs/ is checked against
action.yml's inputs and by actionlint, a workflow built from the docs passes the question through, the
indexer snippet creates the `wif-cache` release before uploading to it, and the README's commands use a
cache that exists after cloning."""

from __future__ import annotations

import re
import shlex
import subprocess
import sys
from pathlib import Path

import pytest
import yaml

from tests.test_workflows_lint import tool

ROOT = Path(__file__).resolve().parent.parent
DOCS = [ROOT / "README.md", *sorted((ROOT / "docs").glob("*.md"))]
WIF_ACTION = re.compile(r"^[\w.-]+/wif@(v\d+|[0-9a-f]{40})$")  # the release-tag convention, or a full SHA
DISPATCHED = ("message", "sdk", "version", "problem", "links", "slack_channel", "slack_thread_ts")


def yaml_blocks() -> list[tuple[str, str]]:
    blocks = []
    for path in DOCS:
        for number, text in enumerate(re.findall(r"```ya?ml\n(.*?)```", path.read_text(), flags=re.DOTALL), 1):
            blocks.append((f"{path.relative_to(ROOT)}#{number}", text))
    return blocks


BLOCKS = yaml_blocks()
ACTION_INPUTS = set(yaml.safe_load((ROOT / "action.yml").read_text())["inputs"])


def wif_steps(document: object) -> list[dict]:
    """The steps of a block that run WIF's action (`./` in this repository, OWNER/wif@… elsewhere)."""
    if isinstance(document, dict) and "jobs" in document:
        steps = [step for job in document["jobs"].values() for step in job.get("steps", [])]
    elif isinstance(document, list):
        steps = document
    else:
        steps = [document]
    return [step for step in steps if isinstance(step, dict)
            and (step.get("uses") == "./" or WIF_ACTION.match(str(step.get("uses", ""))) or set(step) == {"with"})]


def test_the_docs_have_yaml_blocks():
    names = [name for name, _ in BLOCKS]
    assert any(name.startswith("docs/triggers.md") for name in names) and any(n.startswith("README") for n in names)


@pytest.mark.parametrize(("name", "text"), BLOCKS, ids=[name for name, _ in BLOCKS])
def test_every_with_key_is_an_input_of_action_yml(name, text):
    document = yaml.safe_load(text)
    for step in wif_steps(document):
        unknown = set(step.get("with") or {}) - ACTION_INPUTS
        assert not unknown, f"{name}: action.yml has no input {sorted(unknown)}"
        if "uses" in step and step["uses"] != "./":
            assert WIF_ACTION.match(step["uses"]), f"{name}: pin WIF as OWNER/wif@v1 (or a full SHA)"
        passed = {key: str(value) for key, value in (step.get("with") or {}).items()}
        if "${{ inputs." in " ".join(passed.values()):  # a step fed by dispatch inputs takes all of them
            for dispatched in DISPATCHED:
                key = dispatched.replace("_", "-")
                assert passed.get(key) == f"${{{{ inputs.{dispatched} }}}}", (
                    f"{name}: pass `{key}: ${{{{ inputs.{dispatched} }}}}` (wif dispatch and Slack send it)")


@pytest.mark.slow
@pytest.mark.parametrize(("name", "text"), [(n, t) for n, t in BLOCKS if "jobs:" in t],
                         ids=[n for n, t in BLOCKS if "jobs:" in t])
def test_every_documented_workflow_passes_actionlint(name, text, tmp_path):
    workflows = tmp_path / ".github" / "workflows"
    workflows.mkdir(parents=True)
    (workflows / "documented.yml").write_text(text)
    result = subprocess.run([tool("actionlint"), "-no-color", ".github/workflows/documented.yml"], cwd=tmp_path,
                            capture_output=True, text=True, timeout=120)
    assert result.returncode == 0, f"{name}:\n{result.stdout}{result.stderr}"


@pytest.mark.parametrize(("name", "text"), [(n, t) for n, t in BLOCKS if "workflow_dispatch:\n    inputs" in t],
                         ids=[n for n, t in BLOCKS if "workflow_dispatch:\n    inputs" in t])
def test_a_documented_dispatch_workflow_passes_the_whole_question_through(name, text):
    """`wif dispatch` and the Slack app send `message` (and the Slack thread); a workflow that drops an
    input answers without the question."""
    document = yaml.safe_load(text)
    declared = set(document[True]["workflow_dispatch"]["inputs"])  # PyYAML reads the key `on` as True
    assert set(DISPATCHED) <= declared, f"{name}: declare {sorted(set(DISPATCHED) - declared)}"
    (step,) = wif_steps(document)
    passed = {key: str(value) for key, value in (step.get("with") or {}).items()}
    for dispatched in DISPATCHED:
        key = dispatched.replace("_", "-")
        expected = f"${{{{ inputs.{dispatched} }}}}"
        assert passed.get(key) == expected, f"{name}: pass `{key}: {expected}`"


def test_the_shipped_workflow_passes_the_same_inputs():
    """docs/triggers.md's workflow for another repository is wif.yml with the action from a tag."""
    shipped = yaml.safe_load((ROOT / ".github" / "workflows" / "wif.yml").read_text())
    (documented,) = [yaml.safe_load(t) for n, t in BLOCKS if n.startswith("docs/") and "issue_comment:" in t]
    assert set(documented[True]["workflow_dispatch"]["inputs"]) == set(shipped[True]["workflow_dispatch"]["inputs"])
    assert documented["jobs"]["wif"]["if"] == shipped["jobs"]["wif"]["if"]
    shipped_with = set(wif_steps(shipped)[0]["with"])
    assert shipped_with <= set(wif_steps(documented)[0]["with"])


@pytest.mark.parametrize("path", DOCS, ids=[p.name for p in DOCS])
def test_an_upload_to_the_wif_cache_release_creates_it_first(path):
    text = path.read_text()
    for match in re.finditer(r"gh release upload wif-cache", text):
        before = text[:match.start()]
        block_start = before.rfind("```")
        assert "gh release create wif-cache" in before[block_start:], (
            f"{path.name}: `gh release upload wif-cache` fails until the release exists; create it first "
            "(as .github/workflows/index.yml does)")


def test_the_indexer_docs_point_to_the_shipped_workflow():
    text = (ROOT / "docs" / "triggers.md").read_text()
    assert "(../.github/workflows/index.yml)" in text
    assert (ROOT / ".github" / "workflows" / "index.yml").exists()
    assert "gh release create wif-cache" in (ROOT / ".github" / "workflows" / "index.yml").read_text()


def readme_ask_commands() -> list[list[str]]:
    """`wif ask --db …` lines of the README's bash blocks (continuations joined)."""
    text = (ROOT / "README.md").read_text()
    commands = []
    for block in re.findall(r"```bash\n(.*?)```", text, flags=re.DOTALL):
        for line in block.replace("\\\n", " ").splitlines():
            line = line.split(" && ")[-1].strip()
            if line.startswith("wif ask --db"):
                commands.append(shlex.split(line, comments=True))
    return commands


def test_readme_ask_examples_use_a_cache_that_exists_or_say_where_it_comes_from():
    """cache.db.example ships with the repository; any other --db is built by a `wif index` shown first."""
    text = (ROOT / "README.md").read_text()
    commands = readme_ask_commands()
    assert len(commands) >= 4
    for command in commands:
        db = command[command.index("--db") + 1]
        if db == "cache.db.example":
            continue
        first_use = re.search(rf"wif ask --db {re.escape(db)}\s", text)
        assert first_use and f"wif index --db {db} " in text[:first_use.start()], (
            f"--db {db}: say that `wif index --db {db}` builds it before the first command that uses it")


@pytest.mark.slow
@pytest.mark.parametrize("command", [c for c in readme_ask_commands() if "cache.db.example" in c],
                         ids=lambda c: " ".join(c[3:7]))
def test_readme_ask_examples_on_the_example_cache_answer(command):
    env = {"PATH": "/usr/bin:/bin", "GITHUB_API_URL": "http://127.0.0.1:9"}  # refused at once: no internet
    result = subprocess.run([sys.executable, "-m", "wif_action.cli", *command[1:], "--deadline", "0", "--quiet"],
                            cwd=ROOT, capture_output=True, text=True, timeout=120, env=env)
    assert result.returncode == 0, result.stderr[-1000:]
    assert result.stdout.strip()


def readme_eval_table(text: str | None = None) -> dict[str, list[str]]:
    """The README's eval table (of `text`, else README.md): metric → [fields, fields CV, message, message CV]."""
    section = (text if text is not None else (ROOT / "README.md").read_text()).split(
        "## Evaluation and run records", 1)[1]
    rows = {}
    for line in section.split("\n\n| metric |", 1)[1].splitlines()[2:]:
        if not line.startswith("|"):
            break
        cells = [cell.strip() for cell in line.strip("|").split("|")]
        rows[cells[0]] = cells[1:]
    return rows


def printed_by(mode: str) -> dict:
    """What the README's reproduce command prints (its --json form)."""
    result = subprocess.run([sys.executable, "bench/eval_offline.py", "--input", mode, "--json"], cwd=ROOT,
                            capture_output=True, text=True, timeout=300,
                            env={"PATH": "/usr/bin:/bin"})
    assert result.returncode == 0, result.stderr[-2000:]
    return __import__("json").loads(result.stdout)["metrics"]


@pytest.mark.slow
@pytest.mark.parametrize(("mode", "column"), [("fields", 0), ("message", 2)])
def test_the_readme_eval_table_is_what_its_reproduce_command_prints(mode, column):
    """If the judge changes, regenerate the table with `python bench/eval_offline.py --readme`."""
    readme = (ROOT / "README.md").read_text()
    assert f"python bench/eval_offline.py --input {mode}" in readme
    table, metrics = readme_eval_table(), printed_by(mode)
    outcome, fixes, requests = metrics["outcome"], metrics["fixes"], metrics["usage"]["github_requests"]
    expected = {
        "outcome accuracy (right + tolerated)": f"{outcome['right'] + outcome['acceptable']}/{outcome['cases']}",
        "top-1 exact fix (release + PR)": f"{fixes['top1']}/{fixes['cases_with_fix']}",
        "fix found among candidates": f"{fixes['found']}/{fixes['cases_with_fix']}",
        "precision of HIGH answers": f"{fixes['right_high']}/{fixes['high_answers']}",
        "answers naming a `must_not_claim` fix": str(fixes["wrong_claims"]),
        "GitHub requests per question (mean / max)": f"{requests['mean']:.2f} / {requests['max']:.0f}",
    }
    for metric, value in expected.items():
        shown = table[metric][column].split(" (")[0]
        assert shown == value, (f"README's eval table, {metric} ({mode}): {shown}, but `python bench/eval_offline.py "
                                f"--input {mode}` prints {value}; run `python bench/eval_offline.py --readme`")


def test_eval_offline_readme_rewrites_only_the_in_sample_cells() -> None:
    """`bench/eval_offline.py --readme` writes each mode's metrics into its in-sample column; the CV columns, the
    rows' names and every line outside the table stay as written, and a second rewrite changes nothing."""
    from bench.eval_offline import rewrite_table

    def metrics(right: int, high: int) -> dict:
        return {"outcome": {"right": right, "acceptable": 1, "cases": 49},
                "fixes": {"top1": 30, "found": 31, "cases_with_fix": 37, "right_high": high, "high_answers": 20,
                          "wrong_claims": 2},
                "usage": {"github_requests": {"mean": 0.5, "max": 4.0}}}

    readme = (ROOT / "README.md").read_text()
    rewritten = rewrite_table(readme, {"fields": metrics(40, 20), "message": metrics(10, 19)})
    before, after = readme_eval_table(readme), readme_eval_table(rewritten)
    assert after["outcome accuracy (right + tolerated)"][0::2] == ["41/49 (84%)", "11/49 (22%)"]
    assert after["precision of HIGH answers"][0::2] == ["20/20 (100%)", "19/20 (95%)"]
    assert after["top-1 exact fix (release + PR)"][0] == "30/37 (81%)"
    assert after["fix found among candidates"][2] == "31/37 (84%)"
    assert after["answers naming a `must_not_claim` fix"][0::2] == ["2", "2"]
    assert after["GitHub requests per question (mean / max)"][0::2] == ["0.50 / 4", "0.50 / 4"]
    assert {m: row[1::2] for m, row in after.items()} == {m: row[1::2] for m, row in before.items()}
    changed = [line for line in rewritten.splitlines() if line not in readme.splitlines()]
    assert changed and all(line.startswith("| ") for line in changed)
    assert len(rewritten.splitlines()) == len(readme.splitlines())
    assert rewrite_table(rewritten, {"fields": metrics(40, 20), "message": metrics(10, 19)}) == rewritten


def test_action_yml_has_branding_the_marketplace_accepts():
    """GitHub Marketplace shows an action with `branding`: a Feather icon name and one of eight colours."""
    branding = yaml.safe_load((ROOT / "action.yml").read_text())["branding"]
    assert branding["color"] in {"white", "black", "yellow", "blue", "green", "orange", "red", "purple", "gray-dark"}
    assert re.fullmatch(r"[a-z0-9]+(-[a-z0-9]+)*", branding["icon"])


def documented_wif_commands() -> list[tuple[str, list[str], list[str]]]:
    """(where, subcommand words, --options) of every `wif …` line in the shell blocks of README.md and docs/."""
    found = []
    for path in DOCS:
        for block in re.findall(r"```(?:bash|sh)\n(.*?)```", path.read_text(), flags=re.DOTALL):
            for line in block.replace("\\\n", " ").splitlines():
                for part in re.split(r"&&|\|", line.split(" #")[0]):
                    words = part.split()
                    while words and re.fullmatch(r"[A-Z_]+=\S*", words[0]):  # VAR=value prefixes
                        words = words[1:]
                    if len(words) < 2 or words[0] != "wif" or words[1] == "...":
                        continue
                    command = words[1:3] if words[1] in ("runs", "slack") else words[1:2]
                    options = re.findall(r"(?<![\w-])--[a-z][\w-]*", " ".join(words))  # `[--json]` too
                    found.append((f"{path.name}: {part.strip()[:60]}", command, options))
    return found


@pytest.mark.parametrize(("where", "command", "options"), documented_wif_commands(),
                         ids=[where for where, _, _ in documented_wif_commands()])
def test_every_documented_option_exists(where, command, options, capsys):
    from wif_action.cli import main

    with pytest.raises(SystemExit):
        main([*command, "--help"])
    help_text = capsys.readouterr().out
    assert help_text.startswith("usage: wif " + " ".join(command)), f"{where}: no command `wif {' '.join(command)}`"
    unknown = [option for option in options if not re.search(rf"{re.escape(option)}\b", help_text)]
    assert not unknown, f"{where}: `wif {' '.join(command)}` has no {unknown}"
