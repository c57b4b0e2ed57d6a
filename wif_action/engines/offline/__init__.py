"""The offline judgement engine: rule-based extraction and calibrated BM25 scoring, no LLM."""

from wif_action.engines.offline.judge import OfflineJudge

__all__ = ["OfflineJudge"]
