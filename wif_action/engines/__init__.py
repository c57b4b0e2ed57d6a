"""Judgement engines (implementations of `ports.Judge`) and the choice between them."""

from __future__ import annotations

import os
from collections.abc import Callable, Mapping
from typing import Any

from wif_action.ports import Judge

DEFAULT_MODEL = "gpt-4.1-mini"
ENGINE_NAMES = ("auto", "openai", "offline")


def choose_engine(name: str, *, cache: Any, registry: Any, env: Mapping[str, str] = os.environ,
                  on_llm_call: Callable[[Any], None] | None = None) -> Judge:
    """The engine for `--engine NAME`: "auto" uses OpenAI when OPENAI_API_KEY is set, else offline.
    `on_llm_call` receives each LLM call's record (the app passes its event bus).

    Imports are lazy so the offline path never needs the OpenAI client (and vice versa).
    """
    if name not in ENGINE_NAMES:
        raise ValueError(f"unknown engine '{name}': choose one of {', '.join(ENGINE_NAMES)}")
    has_key = bool(env.get("OPENAI_API_KEY", "").strip())
    if name == "openai" and not has_key:
        raise ValueError("--engine openai needs OPENAI_API_KEY (set it, or use --engine offline)")
    if name == "openai" or (name == "auto" and has_key):
        return _openai_engine(env, registry, on_llm_call)
    from wif_action.engines.offline import OfflineJudge

    return OfflineJudge(cache, registry)


def _openai_engine(env: Mapping[str, str], registry: Any, on_llm_call: Callable[[Any], None] | None) -> Judge:
    from wif_action.engines.openai_engine import OpenAIJudge
    from wif_action.tools.llm import DEFAULT_MAX_RETRIES, DEFAULT_TIMEOUT, LLMClient

    llm = LLMClient(
        env["OPENAI_API_KEY"].strip(),
        base_url=env.get("OPENAI_BASE_URL") or None,
        timeout=_number(env, "WIF_LLM_TIMEOUT", DEFAULT_TIMEOUT),
        max_retries=int(_number(env, "WIF_LLM_MAX_RETRIES", DEFAULT_MAX_RETRIES)),
        on_call=on_llm_call,
    )
    model = env.get("WIF_MODEL") or DEFAULT_MODEL
    return OpenAIJudge(llm, model, verify_model=env.get("WIF_VERIFY_MODEL") or model, registry=registry)


def _number(env: Mapping[str, str], key: str, default: float) -> float:
    """A numeric setting from the environment; a malformed value is a clear error, not a crash."""
    value = env.get(key)
    if not value:
        return default
    try:
        return float(value)
    except ValueError:
        raise ValueError(f"{key} must be a number, got '{value}'") from None
