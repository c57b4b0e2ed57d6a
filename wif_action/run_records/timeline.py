"""`wif runs show`: one run as a readable timeline — what it was asked, did, spent and answered."""

from __future__ import annotations

import json
import sqlite3
from typing import Any

from wif_action.run_records.query import as_dicts, select
from wif_action.run_records.tables import clip

_TEXT_PREVIEW = 300


def load_run(conn: sqlite3.Connection, run_id: str) -> dict[str, Any] | None:
    """The run row and its subtasks, tool calls and LLM calls; `last` means the newest run."""
    where, params = ("id = (select max(id) from runs)", []) if run_id == "last" else ("id = ?", [run_id])
    headers, rows = select(conn, f"select * from runs where {where}", params)
    if not rows:
        return None
    run = as_dicts(headers, rows)[0]
    record: dict[str, Any] = {"run": run}
    for table in ("subtasks", "tool_calls", "llm_calls"):
        headers, rows = select(conn, f"select * from {table} where run_id = ? order by seq", [run["id"]])
        record[table] = as_dicts(headers, rows)
    return record


def render_run(record: dict[str, Any]) -> str:
    run = record["run"]
    parts = [_header(run), _timeline(record), _llm_section(record["llm_calls"]), _answer(run)]
    return "\n\n".join(part for part in parts if part)


def top_change(run: dict[str, Any]) -> str | None:
    """The change a run's answer led with: "#12", or "commit 92e109c" for a release line citing only a commit
    (`top_commit`, absent from a file an older WIF wrote); None without a top candidate."""
    if run.get("top_pr"):
        return f"#{run['top_pr']}"
    return f"commit {str(run['top_commit'])[:7]}" if run.get("top_commit") else None


def _header(run: dict[str, Any]) -> str:
    inputs = json.loads(run["inputs"] or "{}")
    change = top_change(run)
    top = f"{run['top_version']} {change} ({run['top_confidence']})" if change else "none"
    lines = [
        f"Run {run['id']} — {run['status']} — started {run['started_at']} ({run['source']}, engine {run['engine']},"
        f" cache {run['cache']}, wif {run['wif_version']})",
        "Inputs: " + ", ".join(f"{k}={clip(json.dumps(v, ensure_ascii=False), 200)}" for k, v in inputs.items()),
        f"Outcome: {run['outcome'] or '–'} · top candidate {top} · repo {run['repo'] or '–'} "
        f"· version {run['version'] or '–'}",
        f"Cost: {_seconds(run['duration_ms'])} · GitHub requests {run['github_requests'] or 0} · "
        f"LLM calls {run['llm_calls'] or 0} · tokens {_tokens(run)}{_usd(run.get('cost_usd'))}",
    ]
    if run["error"]:
        lines.append(f"Error: {run['error']}")
    if run["status"] == "running":
        lines.append("(no end recorded: the run is still going, or the process died)")
    return "\n".join(lines)


def _timeline(record: dict[str, Any]) -> str:
    """Subtasks in order, each with its tool and LLM calls (time = ms since the run started)."""
    calls = [(c["started_ms"], 0, c) for c in record["tool_calls"]]
    calls += [(c["started_ms"] or 0.0, 1, c) for c in record["llm_calls"]]
    calls.sort(key=lambda item: (item[0], item[1]))
    lines = []
    names = [s["name"] for s in record["subtasks"]]
    for subtask in record["subtasks"]:
        lines.append(f"{subtask['started_ms']:>9.1f} ms  ▶ {subtask['name']} → {subtask['outcome']} "
                     f"({subtask['duration_ms']:.1f} ms)")
        lines += [_call_line(c) for _, _, c in calls if c["subtask"] == subtask["name"]]
    outside = [_call_line(c) for _, _, c in calls if c["subtask"] not in names]
    if outside:
        lines += ["             (outside any subtask)", *outside]
    return "Timeline\n" + "\n".join(lines) if lines else "Timeline: nothing recorded"


def _call_line(call: dict[str, Any]) -> str:
    status = "ok" if call["ok"] else f"ERROR {call['error']}"
    if "method" not in call:  # an LLM call
        mode = f", {call['mode']}" if call.get("mode") not in (None, "json_schema") else ""
        return (f"{call['started_ms'] or 0:>9.1f} ms      llm {call['tool']} {call['model']}: "
                f"{_tokens(call)} [{call['latency_ms']} ms{mode}, {status}]")
    requests = f", {call['github_requests']} GitHub request(s)" if call["github_requests"] else ""
    result = f" → {call['result']}" if call["result"] else ""
    return (f"{call['started_ms']:>9.1f} ms    {call['tool']}.{call['method']}({call['arguments']}){result} "
            f"[{call['duration_ms']:.1f} ms{requests}, {status}]")


def _tokens(row: dict[str, Any]) -> str:
    """"P prompt (C cached) / X completion (R reasoning)"; the parts only when recorded and non-zero (a file an
    older WIF wrote has no such columns)."""
    cached, reasoning = row.get("cached_tokens"), row.get("reasoning_tokens")
    return (f"{row['prompt_tokens'] or 0} prompt" + (f" ({cached} cached)" if cached else "")
            + f" / {row['completion_tokens'] or 0} completion" + (f" ({reasoning} reasoning)" if reasoning else ""))


def _usd(cost: float | None) -> str:
    return f" · ${cost:.4f} at list prices" if cost else ""


def _llm_section(calls: list[dict[str, Any]]) -> str:
    if not calls:
        return ""
    blocks = []
    for c in calls:
        blocks.append(f"[{c['seq']}] {c['tool']} ({c['model']}, schema {c['schema']})\n"
                      f"  prompt:   {clip(c['prompt'] or '', _TEXT_PREVIEW)}\n"
                      f"  response: {clip(c['response'] or '', _TEXT_PREVIEW)}")
    return "LLM calls (full text: wif runs query \"SELECT prompt, response FROM llm_calls WHERE run_id = …\")\n" + \
        "\n".join(blocks)


def _answer(run: dict[str, Any]) -> str:
    return f"Answer\n{run['message']}" if run["message"] else ""


def _seconds(ms: int | None) -> str:
    return "–" if ms is None else f"{ms / 1000:.2f} s"
