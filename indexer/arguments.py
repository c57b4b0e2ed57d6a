"""Argument types and exit codes shared by every `wif` subcommand.

Why here: impossible values (`--deadline -5`, `--timeout 0`, `--repo nonsense`) must be
refused at the boundary with one clear message, the same way in every command, and a
script must be able to tell "answered", "failed" and "misused" apart by exit code.
"""

from __future__ import annotations

import argparse
import math
from collections.abc import Callable

EXIT_ANSWERED = 0  # an answer was given (any outcome but failed), or the work was done
EXIT_FAILED = 1  # the run ended `failed` (or, for `wif index`, every repository failed)
EXIT_USAGE = 2  # bad arguments or an unusable input file
USAGE_ERROR = "usage_error"  # the `outcome` of the one JSON object `--json` prints when exiting 2


def exit_codes_help(answered: str, failed: str | None, usage: str) -> str:
    """The `exit codes:` section of one command's --help: each command says what its own codes mean."""
    lines = [(EXIT_ANSWERED, answered), (EXIT_FAILED, failed), (EXIT_USAGE, usage)]
    return "exit codes:\n" + "\n".join(f"  {code}  {text}" for code, text in lines if text)


# `wif ask`'s: the answer's outcome decides.
EXIT_CODES_HELP = exit_codes_help(
    "an answer was given (any outcome but `failed`, deferrals and no_result included)",
    "the run ended `failed` (the answer says why)",
    "usage error: bad arguments, unusable cache or registry file (with --json, stdout still gets one\n"
    "     JSON object: {\"outcome\": \"usage_error\", \"message\": …})")


def seconds(text: str) -> float:
    """A finite, non-negative number of seconds (0 means: no time for network calls)."""
    try:
        value = float(text)
    except ValueError:
        raise argparse.ArgumentTypeError(f"expected a number of seconds, got '{text}'") from None
    if not math.isfinite(value) or value < 0:
        raise argparse.ArgumentTypeError(f"must be a finite number of seconds >= 0, got '{text}'")
    return value


def count_at_least(minimum: int) -> Callable[[str], int]:
    """An integer >= `minimum` (e.g. a timeout of at least 1 s, a limit of at least 0)."""

    def parse(text: str) -> int:
        try:
            value = int(text)
        except ValueError:
            raise argparse.ArgumentTypeError(f"expected a whole number, got '{text}'") from None
        if value < minimum:
            raise argparse.ArgumentTypeError(f"must be >= {minimum}, got '{text}'")
        return value

    parse.__name__ = f"integer >= {minimum}"
    return parse


def non_negative_days(text: str) -> float:
    """A finite number of days >= 0."""
    return seconds(text)


def repository(text: str) -> str:
    """A GitHub repository written `owner/name` (the registry, with packaging, loads when one is given, not for
    `--help`)."""
    from indexer.registry import SLUG

    value = text.strip()
    if not SLUG.match(value):
        raise argparse.ArgumentTypeError(f"expected a repository as owner/name, got '{text}'")
    return value
