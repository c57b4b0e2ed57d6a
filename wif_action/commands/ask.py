"""`wif ask`: answer one question from the release cache — a thin layer over `wif_action.api.ask`.

Exit codes (indexer.arguments): 0 whenever an answer was produced (any outcome but
failed, deferrals too); 1 when the run ended `failed`; 2 for usage errors or an unusable cache.
"""

from __future__ import annotations

import argparse
import json
import os
import sys

from indexer.arguments import (
    EXIT_ANSWERED,
    EXIT_CODES_HELP,
    EXIT_FAILED,
    EXIT_USAGE,
    USAGE_ERROR,
    repository,
    seconds,
)
from indexer.redaction import Redactor
from wif_action.commands.message_input import MESSAGE_HELP_SUFFIX, MessageInputError, message_text
from wif_action.delivery.settings import MAX_RELEASES_HELP, deadline_from, max_releases_from, positive_count

EXAMPLES = """examples:
  wif ask --db cache.db.example --sdk sentry-cocoa --version 8.48.0 \\
      --problem "WatchdogTermination issues have empty tags (e.g. OS)" \\
      --link https://github.com/getsentry/sentry-cocoa/issues/5397
  wif ask --db cache.db.example --message "Android SDK 8.17.0: OkHttp reports 504s for FORCE_CACHE misses. Fixed?"
  pbpaste | wif ask --db cache.db.example --message - --json
  wif ask --db cache.db --repo acme/acme-sdk --version 2.3.1 --problem "..."   # cache.db: built by `wif index`

environment:
  GITHUB_API_URL, GITHUB_TOKEN     GitHub API for PR and issue details (token optional)
  OPENAI_API_KEY, OPENAI_BASE_URL  enable the OpenAI engine (any OpenAI-compatible server)
  WIF_MODEL, WIF_VERIFY_MODEL      models for judging and for the adversarial double-check
  WIF_DEADLINE                     default of --deadline (seconds)
  WIF_MAX_RELEASES                 default of --max-releases (a positive whole number; else 100)
"""


def add_arguments(parser: argparse.ArgumentParser) -> None:
    parser.formatter_class = argparse.RawDescriptionHelpFormatter
    parser.epilog = EXAMPLES + "\n" + EXIT_CODES_HELP
    add_question_arguments(parser)
    parser.add_argument("--json", action="store_true", help="print exactly one JSON object on stdout")
    parser.add_argument("--quiet", action="store_true", help="no progress lines on stderr")
    parser.add_argument("--runs-db", metavar="FILE", help="keep a run record in this SQLite file (see `wif runs`)")


def add_question_arguments(parser: argparse.ArgumentParser) -> None:
    """Options shared by `wif ask` and the Action entry point."""
    parser.add_argument("--db", required=True, help="release cache built by `wif index` (e.g. cache.db.example)")
    which = parser.add_mutually_exclusive_group()
    which.add_argument("--sdk", help="SDK name or id as people write it: sentry-cocoa, iOS, @sentry/nextjs, ...")
    which.add_argument("--repo", type=repository, help="the SDK's GitHub repository, owner/name")
    parser.add_argument("--version", dest="sdk_version", metavar="VERSION", help="the customer's SDK version")
    parser.add_argument("--problem", help="what the customer observes")
    parser.add_argument("--link", action="append", default=[], metavar="URL", help="GitHub issue/PR URL (repeatable)")
    parser.add_argument("--message", help="free text as pasted from Slack or an issue (instead of / besides fields)"
                        + MESSAGE_HELP_SUFFIX)
    parser.add_argument("--engine", choices=("auto", "openai", "offline"), default="auto",
                        help="auto (default) uses OpenAI when OPENAI_API_KEY is set, else the offline engine")
    parser.add_argument("--registry", help="SDK registry JSON (default: the packaged Sentry registry)")
    parser.add_argument("--max-high", type=_max_high, default=1, metavar="N",
                        help="keep scanning until N confirmed high-confidence fixes (1-3, default 1)")
    parser.add_argument("--deadline", type=seconds, default=deadline_from(os.environ), metavar="SECONDS",
                        help="time budget for the whole run (default: WIF_DEADLINE, else 240); once spent, "
                             "GitHub and the LLM are no longer called and the answer says what was skipped")
    parser.add_argument("--max-releases", type=_max_releases, default=None, metavar="N", help=MAX_RELEASES_HELP)


def _max_high(text: str) -> int:
    try:
        value = int(text)
    except ValueError:
        raise argparse.ArgumentTypeError(f"expected 1, 2 or 3, got '{text}'") from None
    if not 1 <= value <= 3:
        raise argparse.ArgumentTypeError("--max-high must be 1, 2 or 3")
    return value


def _max_releases(text: str) -> int:
    try:
        return positive_count(text, "--max-releases")
    except ValueError as error:
        raise argparse.ArgumentTypeError(str(error)) from None


def release_guard(args: argparse.Namespace) -> int:
    """--max-releases, else WIF_MAX_RELEASES, else 100; raises ValueError for a bad WIF_MAX_RELEASES."""
    return args.max_releases if args.max_releases is not None else max_releases_from(os.environ)


def usage_error(args: argparse.Namespace, message: str) -> int:
    """Exit 2 with the reason on stderr; under --json also as the one JSON object on stdout."""
    text = Redactor(os.environ).text(f"wif ask: {message}") or ""
    print(text, file=sys.stderr)
    if getattr(args, "json", False):
        print(json.dumps({"outcome": USAGE_ERROR, "message": text, "exit_code": EXIT_USAGE}, ensure_ascii=False))
    return EXIT_USAGE


def run(args: argparse.Namespace) -> int:
    # The workflow (pydantic models, engines, the cache) loads when a question is asked, not for --help.
    from wif_action.api import CacheError, RegistryError, ask
    from wif_action.tools.progress import ConsoleProgress, RecordingProgress

    try:
        message = message_text(args.message)
    except MessageInputError as error:
        return usage_error(args, str(error))
    if not ((message or "").strip() or (args.problem or "").strip()):
        return usage_error(args, "give --problem (with --sdk/--repo and --version) or --message")
    try:
        guard = release_guard(args)
    except ValueError as error:
        return usage_error(args, str(error))
    progress = RecordingProgress() if args.quiet else ConsoleProgress()
    try:
        answer = ask(args.db, sdk=args.sdk, repo=args.repo, version=args.sdk_version, problem=args.problem,
                     links=args.link or [], message=message, engine=args.engine, registry=args.registry,
                     max_high=args.max_high, deadline=args.deadline, max_releases=guard, progress=progress,
                     runs_db=args.runs_db, run_source="cli")
    except (CacheError, RegistryError, ValueError) as error:
        return usage_error(args, str(error))
    redactor = Redactor(os.environ)  # an upstream may have echoed a secret into an error we quote
    if args.json:
        print(json.dumps(redactor.value(answer.public_json()), ensure_ascii=False))
    else:
        print(redactor.text(answer.message))
    return EXIT_FAILED if answer.outcome == "failed" else EXIT_ANSWERED
