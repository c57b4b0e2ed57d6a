"""How long a retry waits: the retry policy's wait times WIF_BACKOFF_SCALE (default 1).

Why a scale, not a switch: which statuses are retried, how often and which Retry-After is too long stay
exactly what production runs; only the sleeping changes. The test suite sets 0 (every fault test would
otherwise sleep urllib3's, openai's and slack_sdk's back-off for real: ~30 s a run), an operator on a
local mirror may shorten waits, and GitHub's Retry-After is still honoured at the default scale.
"""

from __future__ import annotations

import os
from collections.abc import Mapping

ENV = "WIF_BACKOFF_SCALE"


def backoff_scale(env: Mapping[str, str] = os.environ) -> float:
    """WIF_BACKOFF_SCALE as a non-negative factor; unset or unreadable is 1 (the libraries' own waits)."""
    try:
        scale = float((env.get(ENV) or "1").strip())
    except ValueError:
        return 1.0
    return scale if scale >= 0 and scale == scale else 1.0  # NaN is not a scale
