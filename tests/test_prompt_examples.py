"""The worked examples in the prompt files (wif_action/prompts/): each answer is a valid reply in the tool's own
schema, keys in schema order (a model copies what it is shown), and no example leaks an evaluation case."""

from __future__ import annotations

import json
import re
from pathlib import Path

import pytest
from pydantic import BaseModel

from wif_action.engines.openai_engine import PRScore, PRVerdict, RelevantEntries, load_prompt

ROOT = Path(__file__).parent.parent
CASE_FILES = (ROOT / "tests" / "data" / "eval" / "cases.jsonl", ROOT / "bench" / "data" / "holdout_cases.jsonl")
JUDGED = {"filter_relevant_entries": RelevantEntries, "score_pr_confidence": PRScore, "verify_pr_match": PRVerdict}


def examples(tool: str) -> str:
    prompt = load_prompt(tool)
    assert "Worked examples" in prompt, f"{tool} has worked examples"
    return prompt[prompt.index("Worked examples"):]


def answers(text: str) -> list[str]:
    """The JSON objects of the examples (balanced braces)."""
    found, depth, start = [], 0, 0
    for i, char in enumerate(text):
        if char == "{":
            start = i if depth == 0 else start
            depth += 1
        elif char == "}":
            depth -= 1
            if depth == 0:
                found.append(text[start:i + 1])
    return found


def keys_in_order(schema: type[BaseModel], value: dict) -> None:
    assert list(value) == list(schema.model_fields), f"{schema.__name__} keys in schema order"
    for name, field in schema.model_fields.items():
        inner = getattr(field.annotation, "__args__", ())
        item = next((t for t in inner if isinstance(t, type) and issubclass(t, BaseModel)), None)
        for element in value[name] if item is not None else []:
            keys_in_order(item, element)


@pytest.mark.parametrize("tool", sorted(JUDGED))
def test_every_worked_answer_is_a_valid_reply_in_schema_order(tool: str) -> None:
    replies = answers(examples(tool))
    assert 2 <= len(replies) <= 3
    for reply in replies:
        value = json.loads(reply)
        JUDGED[tool].model_validate_json(reply, strict=True)
        keys_in_order(JUDGED[tool], value)


@pytest.mark.parametrize("tool", sorted(JUDGED))
def test_no_worked_example_leaks_an_evaluation_case(tool: str) -> None:
    """No five-word run of an example appears in any public or holdout case (problem, message, evidence)."""
    cases = " ".join(" ".join(re.findall(r"[a-z0-9]+", path.read_text(encoding="utf-8").lower()))
                     for path in CASE_FILES)
    words = re.findall(r"[a-z0-9]+", examples(tool).lower())
    leaked = {" ".join(words[i:i + 5]) for i in range(len(words) - 4) if f" {' '.join(words[i:i + 5])} " in cases}
    assert not leaked
    assert not re.search(r"getsentry|sentry-|pydantic/|openai/", examples(tool))
