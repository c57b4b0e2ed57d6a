"""Judgement engines (implementations of `ports.Judge`) and the choice between them."""

from __future__ import annotations

import os
from collections.abc import Callable, Mapping
from typing import Any

from wif_action.ports import Judge

DEFAULT_MODEL = "gpt-4.1-mini"
ENGINE_NAMES = ("auto", "openai", "offline")


def choose_engine(name: str, *, cache: Any, registry: Any, env: Mapping[str, str] = os.environ,
                  make_llm: Callable[[Mapping[str, str]], Any] | None = None) -> Judge:
    """The engine for `--engine NAME`: "auto" uses OpenAI when OPENAI_API_KEY is set, else offline.

    Imports are lazy so the offline path never needs the OpenAI client (and vice versa).
    `make_llm` builds the client (app.llm_client, the composition root, unless given).
    """
    if name not in ENGINE_NAMES:
        raise ValueError(f"unknown engine '{name}': choose one of {', '.join(ENGINE_NAMES)}")
    has_key = bool(env.get("OPENAI_API_KEY", "").strip())
    if name == "openai" and not has_key:
        raise ValueError("--engine openai needs OPENAI_API_KEY (set it, or use --engine offline)")
    if name == "openai" or (name == "auto" and has_key):
        return _openai_engine(env, registry, make_llm, cache)
    from wif_action.engines.offline import OfflineJudge

    return OfflineJudge(cache, registry)


def _openai_engine(env: Mapping[str, str], registry: Any,
                   make_llm: Callable[[Mapping[str, str]], Any] | None, cache: Any = None) -> Judge:
    from wif_action.engines.offline import OfflineJudge
    from wif_action.engines.openai_engine import OpenAIJudge

    if make_llm is None:
        from wif_action.app import llm_client

        make_llm = llm_client
    model = env.get("WIF_MODEL") or DEFAULT_MODEL
    shortlist = OfflineJudge(cache, registry).shortlist if cache is not None else None
    return OpenAIJudge(make_llm(env), model, verify_model=env.get("WIF_VERIFY_MODEL") or model, registry=registry,
                       shortlist=shortlist)


def number_setting(env: Mapping[str, str], key: str, default: float) -> float:
    """A numeric setting from the environment; a malformed value is a clear error, not a crash."""
    value = env.get(key)
    if not value:
        return default
    try:
        return float(value)
    except ValueError:
        raise ValueError(f"{key} must be a number, got '{value}'") from None
