"""The Action's inputs, read from the environment the composite action's steps set.

Why environment variables only: values such as the problem text or a
comment body are attacker-controlled, so action.yml passes them through
`env:` (never `${{ }}` inside a script) and they are read here as data.
"""

from __future__ import annotations

import os
import re
from collections.abc import Mapping
from dataclasses import dataclass, field
from pathlib import Path

from wif_action.engines import ENGINE_NAMES

_CHANNEL = re.compile(r"#?[A-Za-z0-9][A-Za-z0-9_.-]{0,80}")
_THREAD_TS = re.compile(r"\d{9,11}\.\d{1,6}")
_URL = re.compile(r"https?://[^\s,]+")


DEFAULT_DEADLINE = 240.0  # seconds for the whole analysis (WIF_DEADLINE)
DEFAULT_MAX_RELEASES = 100  # the spec's release-count guard; an operator may raise it (WIF_MAX_RELEASES)
MAX_RELEASES_HELP = ("scan at most N stable releases after the customer's version; more is answered too_old "
                     "(default: WIF_MAX_RELEASES, else the spec's 100). Raising it costs little offline, but the LLM "
                     "engine's token cost grows with every release scanned")


class ConfigError(Exception):
    """The Action is set up wrongly (unusable cache and no way to index, bad engine): exit non-zero."""


def _value(env: Mapping[str, str], *names: str) -> str:
    for name in names:
        value = (env.get(name) or "").strip()
        if value:
            return value
    return ""


@dataclass
class ActionSettings:
    sdk: str = ""
    version: str = ""
    problem: str = ""
    links: list[str] = field(default_factory=list)
    message: str = ""
    engine: str = "auto"
    registry: str | None = None
    cache_db: str = ""
    slack_channel: str = ""
    slack_thread_ts: str = ""
    result_json: str = "wif-result.json"
    runs_db: str = ""
    progress_interval: float = 1.0
    deadline: float = DEFAULT_DEADLINE
    max_releases: int = DEFAULT_MAX_RELEASES
    warnings: list[str] = field(default_factory=list)

    @classmethod
    def from_env(cls, env: Mapping[str, str] = os.environ) -> ActionSettings:
        temp = Path(env.get("RUNNER_TEMP") or ".")
        settings = cls(
            sdk=_value(env, "INPUT_SDK"), version=_value(env, "INPUT_VERSION"),
            problem=_value(env, "INPUT_PROBLEM"), links=_URL.findall(env.get("INPUT_LINKS") or ""),
            message=_value(env, "INPUT_MESSAGE"), engine=_value(env, "INPUT_ENGINE") or "auto",
            registry=_value(env, "INPUT_REGISTRY") or None, cache_db=_value(env, "INPUT_CACHE_DB", "WIF_DB"),
            slack_channel=_value(env, "INPUT_SLACK_CHANNEL"), slack_thread_ts=_value(env, "INPUT_SLACK_THREAD_TS"),
            result_json=_value(env, "WIF_RESULT_JSON") or str(temp / "wif-result.json"),
            runs_db=_value(env, "WIF_RUNS_DB") or (str(temp / "wif-runs.db") if env.get("RUNNER_TEMP") else ""),
            progress_interval=_interval(env),
            deadline=deadline_from(env),
            max_releases=_action_max_releases(env),
        )
        settings._validate()
        return settings

    def _validate(self) -> None:
        if self.engine not in ENGINE_NAMES:
            raise ConfigError(f"engine must be one of {', '.join(ENGINE_NAMES)}, not '{self.engine[:40]}'")
        if self.slack_channel and not _CHANNEL.fullmatch(self.slack_channel):
            self.warnings.append("slack-channel is not a Slack channel ID; Slack delivery is off")
            self.slack_channel = ""
        if self.slack_thread_ts and not _THREAD_TS.fullmatch(self.slack_thread_ts):
            self.warnings.append("slack-thread-ts is not a Slack message timestamp; posting a new thread")
            self.slack_thread_ts = ""


def deadline_from(env: Mapping[str, str], default: float = DEFAULT_DEADLINE) -> float:
    """The run's time budget in seconds from WIF_DEADLINE (a malformed or negative value: the default)."""
    try:
        value = float(env.get("WIF_DEADLINE") or default)
    except ValueError:
        return default
    return value if value >= 0 else default


def max_releases_from(env: Mapping[str, str], name: str = "WIF_MAX_RELEASES") -> int:
    """The release-count guard from `name` (unset: the spec's 100). Raises ValueError for anything but a
    positive whole number: a guard silently left at 100, or turned off, is not what the operator asked for."""
    text = (env.get(name) or "").strip()
    if not text:
        return DEFAULT_MAX_RELEASES
    return positive_count(text, name)


def positive_count(text: str, name: str) -> int:
    """`text` as a whole number >= 1; ValueError naming `name` otherwise."""
    try:
        value = int(text.strip())
    except ValueError:
        raise ValueError(f"{name} must be a positive whole number, not '{text[:40]}'") from None
    if value < 1:
        raise ValueError(f"{name} must be a positive whole number, not '{text[:40]}'")
    return value


def _action_max_releases(env: Mapping[str, str]) -> int:
    """The `max_releases` input, else WIF_MAX_RELEASES; a bad value is a configuration error."""
    try:
        if (env.get("INPUT_MAX_RELEASES") or "").strip():
            return max_releases_from(env, "INPUT_MAX_RELEASES")
        return max_releases_from(env)
    except ValueError as error:
        raise ConfigError(str(error).replace("INPUT_MAX_RELEASES", "the max_releases input")) from None


def _interval(env: Mapping[str, str]) -> float:
    """Seconds between progress edits (WIF_PROGRESS_INTERVAL; tests shorten it)."""
    try:
        return max(0.0, float(env.get("WIF_PROGRESS_INTERVAL") or 1.0))
    except ValueError:
        return 1.0
