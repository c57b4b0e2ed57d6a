"""Per-model settings and prices: what a call to a given model needs, and what it costs.

Why: reasoning models (o-series, gpt-5) count their hidden reasoning against `max_completion_tokens`,
so the answer-sized caps that suit a chat model end them on `length`; they also take longer and reject
`temperature`. Prices make `wif eval` report what a question costs on the configured model.
Every value here can be overridden from the environment (see `settings_for`, `price_for`).
"""

from __future__ import annotations

import json
import re
from collections.abc import Mapping
from dataclasses import dataclass

REASONING_MODEL = re.compile(r"(^|/)(o\d|gpt-5)(?!.*-chat)", re.IGNORECASE)
EFFORTS = ("minimal", "low", "medium", "high")
# Reasoning tokens allowed on top of each tool's answer cap, by effort (a judgement needs little).
REASONING_TOKENS = {"minimal": 1_000, "low": 4_000, "medium": 12_000, "high": 32_000}
CHAT_TIMEOUT = 30.0  # seconds per attempt; a retry follows if the run's deadline leaves time
REASONING_TIMEOUT = 120.0

# USD per 1M tokens: (input, cached input, output). List prices of November 2025; override with WIF_PRICES.
PRICES: dict[str, tuple[float, float, float]] = {
    "gpt-4.1": (2.00, 0.50, 8.00),
    "gpt-4.1-mini": (0.40, 0.10, 1.60),
    "gpt-4.1-nano": (0.10, 0.025, 0.40),
    "gpt-4o": (2.50, 1.25, 10.00),
    "gpt-4o-mini": (0.15, 0.075, 0.60),
    "gpt-5": (1.25, 0.125, 10.00),
    "gpt-5-mini": (0.25, 0.025, 2.00),
    "gpt-5-nano": (0.05, 0.005, 0.40),
    "o3": (2.00, 0.50, 8.00),
    "o4-mini": (1.10, 0.275, 4.40),
}


@dataclass(frozen=True)
class ModelSettings:
    """How to call one model."""

    reasoning: bool
    reasoning_effort: str | None  # sent to reasoning models only
    reasoning_tokens: int  # added to every answer cap of a reasoning model
    timeout: float  # seconds per attempt

    def max_tokens(self, answer_tokens: int) -> int:
        return answer_tokens + (self.reasoning_tokens if self.reasoning else 0)


def settings_for(model: str, env: Mapping[str, str]) -> ModelSettings:
    """Settings for `model`: WIF_REASONING_MODEL (1/0, for deployments whose name hides the model),
    WIF_REASONING_EFFORT, WIF_REASONING_TOKENS and WIF_LLM_TIMEOUT override the defaults."""
    flag = (env.get("WIF_REASONING_MODEL") or "").strip().lower()
    reasoning = flag in ("1", "true", "yes") if flag else bool(REASONING_MODEL.search(model))
    effort = (env.get("WIF_REASONING_EFFORT") or "low").strip().lower()
    if effort not in EFFORTS:
        raise ValueError(f"WIF_REASONING_EFFORT must be one of {', '.join(EFFORTS)}, got '{effort}'")
    tokens = _number(env, "WIF_REASONING_TOKENS", REASONING_TOKENS[effort])
    timeout = _number(env, "WIF_LLM_TIMEOUT", REASONING_TIMEOUT if reasoning else CHAT_TIMEOUT)
    return ModelSettings(reasoning=reasoning, reasoning_effort=effort if reasoning else None,
                         reasoning_tokens=int(tokens), timeout=timeout)


def price_for(model: str, env: Mapping[str, str]) -> tuple[float, float, float] | None:
    """(input, cached input, output) USD per 1M tokens; WIF_PRICES='{"model": [in, cached, out]}' adds or
    overrides entries. A dated snapshot (`gpt-4.1-mini-2025-04-14`) uses its base model's price."""
    table = dict(PRICES)
    raw = (env.get("WIF_PRICES") or "").strip()
    if raw:
        try:
            extra = {str(k): (float(v[0]), float(v[1]), float(v[2])) for k, v in json.loads(raw).items()}
        except (ValueError, TypeError, IndexError, AttributeError):
            raise ValueError('WIF_PRICES must be JSON like {"my-model": [0.4, 0.1, 1.6]} '
                             "(USD per 1M input, cached input, output tokens)") from None
        table.update(extra)
    name = model.rsplit("/", 1)[-1]
    if name in table:
        return table[name]
    base = re.sub(r"-\d{4}-\d{2}-\d{2}$", "", name)
    return table.get(base)


def cost_usd(price: tuple[float, float, float], prompt: int, cached: int, completion: int) -> float:
    """The cost of tokens at `price`; cached prompt tokens are part of `prompt` and billed at the cached rate."""
    fresh = max(prompt - cached, 0)
    return (fresh * price[0] + cached * price[1] + completion * price[2]) / 1_000_000


def _number(env: Mapping[str, str], key: str, default: float) -> float:
    value = (env.get(key) or "").strip()
    if not value:
        return default
    try:
        number = float(value)
    except ValueError:
        raise ValueError(f"{key} must be a number, got '{value}'") from None
    if number <= 0:
        raise ValueError(f"{key} must be positive, got '{value}'")
    return number
