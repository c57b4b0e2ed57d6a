"""Judgement engines (implementations of `ports.Judge`) and the choice between them."""

from __future__ import annotations

import os
from collections.abc import Callable, Mapping
from typing import TYPE_CHECKING, Any

if TYPE_CHECKING:  # ports pulls the pydantic models; `wif ask --help` reads ENGINE_NAMES only
    from wif_action.engines.offline.scoring import Thresholds
    from wif_action.ports import Judge

DEFAULT_MODEL = "gpt-4.1-mini"
DEFAULT_VERIFY_MODEL = "gpt-4.1"  # the double-check is a different, stronger model unless models are configured
ENGINE_NAMES = ("auto", "openai", "offline")


def choose_engine(name: str, *, cache: Any, registry: Any, make_llm: Callable[[Mapping[str, str]], Any],
                  env: Mapping[str, str] = os.environ, weights: Thresholds | None = None) -> Judge:
    """The engine for `--engine NAME`: "auto" uses OpenAI when OPENAI_API_KEY is set, else offline.

    Imports are lazy so the offline path never needs the OpenAI client (and vice versa).
    `make_llm` builds the LLM client: it comes from the composition root (`app.llm_client`), which
    imports this package, never the other way round. `weights`: the offline judge's thresholds (None: the
    lexicon's; calibration passes others).
    """
    if name not in ENGINE_NAMES:
        raise ValueError(f"unknown engine '{name}': choose one of {', '.join(ENGINE_NAMES)}")
    has_key = bool(env.get("OPENAI_API_KEY", "").strip())
    if name == "openai" and not has_key:
        raise ValueError("--engine openai needs OPENAI_API_KEY (set it, or use --engine offline)")
    if name == "openai" or (name == "auto" and has_key):
        return _openai_engine(env, registry, make_llm, cache)
    from wif_action.engines.offline import OfflineJudge

    return OfflineJudge(cache, registry, weights) if weights is not None else OfflineJudge(cache, registry)


def _openai_engine(env: Mapping[str, str], registry: Any,
                   make_llm: Callable[[Mapping[str, str]], Any], cache: Any = None) -> Judge:
    from wif_action.engines.offline import OfflineJudge
    from wif_action.engines.openai_engine import OpenAIJudge

    model = env.get("WIF_MODEL") or DEFAULT_MODEL
    shortlist = OfflineJudge(cache, registry).shortlist if cache is not None else None
    return OpenAIJudge(make_llm(env), model, verify_model=verify_model(env), registry=registry,
                       shortlist=shortlist)


def verify_model(env: Mapping[str, str]) -> str:
    """WIF_VERIFY_MODEL; else a different, stronger model than the default one; else (WIF_MODEL set, e.g. a
    deployment or a local model that is all the endpoint has) WIF_MODEL, asked with the verify prompt."""
    explicit = (env.get("WIF_VERIFY_MODEL") or "").strip()
    if explicit:
        return explicit
    model = (env.get("WIF_MODEL") or "").strip()
    return model or DEFAULT_VERIFY_MODEL
