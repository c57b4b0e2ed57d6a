"""Step outputs (GITHUB_OUTPUT) and the job summary (GITHUB_STEP_SUMMARY).

Why a random delimiter: a multi-line value is written as `name<<DELIM`; a
value containing the delimiter line would end it early and let text from a
PR or a request set other outputs. A fresh `ghadelimiter_<uuid4>` cannot be
guessed, and is checked against the value anyway.
"""

from __future__ import annotations

import uuid
from collections.abc import Mapping
from pathlib import Path

from wif_action.models import Answer, Confidence, Outcome

SUMMARY_BYTES = 1_000_000  # GitHub caps a step summary at 1 MiB (1,048,576 bytes, counted in UTF-8)
QUESTION_CHARS = 4_000  # the quoted question in the summary; the answer is never the part that is cut


def write_outputs(path: str | Path | None, values: Mapping[str, str]) -> None:
    """Append each value to the GITHUB_OUTPUT file (no-op without one, e.g. run locally)."""
    if not path:
        return
    with open(path, "a", encoding="utf-8") as handle:
        for name, value in values.items():
            handle.write(_entry(name, value))


def _entry(name: str, value: str) -> str:
    delimiter = f"ghadelimiter_{uuid.uuid4()}"
    while delimiter in value:
        delimiter = f"ghadelimiter_{uuid.uuid4()}"
    return f"{name}<<{delimiter}\n{value}\n{delimiter}\n"


def append_summary(path: str | Path | None, markdown: str) -> None:
    if not path:
        return
    with open(path, "a", encoding="utf-8") as handle:
        handle.write(fit_bytes(markdown, SUMMARY_BYTES) + "\n")


def fit_bytes(text: str, limit: int) -> str:
    """`text` cut to at most `limit` UTF-8 bytes, never inside a character."""
    data = text.encode("utf-8")
    return text if len(data) <= limit else data[:limit].decode("utf-8", errors="ignore")


def answer_outputs(answer: Answer, result_json: str) -> dict[str, str]:
    """The action's outputs: `fixed-in` and `pr` only for a high-confidence fix; an unreleased one has a `pr`
    and no `fixed-in` (it is in no release yet)."""
    fix = next((c for c in answer.candidates if c.confidence == Confidence.HIGH), None)
    high = answer.outcome in (Outcome.HIGH, Outcome.UNRELEASED) and fix is not None
    return {
        "outcome": str(answer.outcome),
        "fixed-in": fix.version if fix and high and not fix.unreleased else "",
        "pr": fix.url if fix and high else "",
        "answer": answer.message,
        "result-json": result_json,
    }


def summary_markdown(answer: Answer, question: str, progress: list[str]) -> str:
    """The job summary: the question, the answer (its reasoning trace included) and the progress log."""
    parts = ["## WIF: was it fixed?", f"**Outcome:** `{answer.outcome}`"]
    if answer.repo:
        parts.append(f"**Repository:** {answer.repo}")
    if question:
        shown = question if len(question) <= QUESTION_CHARS else question[:QUESTION_CHARS] + " … (cut)"
        parts.append("<details><summary>Question</summary>\n\n" + _quote(shown) + "\n\n</details>")
    parts.append(answer.message)
    if progress:
        parts.append("<details><summary>Progress</summary>\n\n" + "\n".join(f"- {p}" for p in progress)
                     + "\n\n</details>")
    return "\n\n".join(parts)


def _quote(text: str) -> str:
    return "\n".join(f"> {line}" for line in text.splitlines()) or ">"
