"""`wif dispatch`: start the WIF workflow on GitHub (workflow_dispatch) and print the run's URL.

This is what a Slack bridge (or a person) calls: the run then answers in the
Slack thread given by --slack-channel / --slack-thread-ts. Needs a token with
Actions: write on the repository (GITHUB_TOKEN or GH_TOKEN).
"""

from __future__ import annotations

import argparse
import os
import sys

from indexer.arguments import EXIT_ANSWERED, EXIT_FAILED, EXIT_USAGE, exit_codes_help
from wif_action.commands.message_input import MESSAGE_HELP_SUFFIX, MessageInputError, message_text

MAX_MESSAGE_CHARS = 20_000  # what the Action reads of a request (delivery.events.MAX_REQUEST_CHARS)
TOKEN_SCOPES = ("a fine-grained token or GitHub App token with Actions: write on {repo} "
                "(a classic token needs the repo scope)")
EPILOG = """examples:
  GITHUB_TOKEN=... wif dispatch --repo OWNER/REPO --message "iOS 8.48.0: WatchdogTermination tags are empty"
  pbpaste | GITHUB_TOKEN=... wif dispatch --repo OWNER/REPO --message - --slack-channel C0123ABCD

environment:
  GITHUB_TOKEN (or GH_TOKEN)  a token that may start workflows: Actions: write on --repo
                              (fine-grained token or GitHub App; a classic token needs the repo scope)
  GITHUB_API_URL              API base URL (GitHub Enterprise; default https://api.github.com)
  GITHUB_REPOSITORY           default of --repo

""" + exit_codes_help(
    "the workflow was started; its run's URL is printed",
    "GitHub refused the request or could not be reached (the message says why, with a hint)",
    "usage error: bad arguments, no token, no question")


def add_arguments(parser: argparse.ArgumentParser) -> None:
    parser.formatter_class = argparse.RawDescriptionHelpFormatter
    parser.epilog = EPILOG
    parser.add_argument("--message", default="",
                        help="the request as free text (a Slack message as it is); WIF extracts the fields"
                             + MESSAGE_HELP_SUFFIX)
    parser.add_argument("--sdk", default="", help="SDK name as people write it (sentry-cocoa, iOS, ...)")
    parser.add_argument("--version", dest="sdk_version", default="", metavar="VERSION",
                        help="the customer's SDK version")
    parser.add_argument("--problem", default="", help="what the customer observes")
    parser.add_argument("--links", default="", help="GitHub issue/PR URLs, space- or comma-separated")
    parser.add_argument("--slack-channel", default="", help="Slack channel ID to answer in (e.g. C0123ABC)")
    parser.add_argument("--slack-thread-ts", default="", help="ts of the Slack message to answer under")
    parser.add_argument("--repo", default=os.environ.get("GITHUB_REPOSITORY", ""),
                        help="owner/name of the repository running wif.yml (default: $GITHUB_REPOSITORY)")
    parser.add_argument("--workflow", default="wif.yml", help="workflow file name (default: wif.yml)")
    parser.add_argument("--ref", default="main", help="branch to run the workflow from (default: main)")


def dispatch_inputs(args: argparse.Namespace) -> dict[str, str]:
    """The workflow_dispatch inputs; empty optional ones are left out (the workflow has at most 10)."""
    inputs = {"message": args.message, "sdk": args.sdk, "version": args.sdk_version, "problem": args.problem,
              "links": args.links,
              "slack_channel": args.slack_channel, "slack_thread_ts": args.slack_thread_ts}
    return {key: value.strip() for key, value in inputs.items() if value and value.strip()}


def run(args: argparse.Namespace) -> int:
    """Every check (arguments, then the token) comes before the one request."""
    from indexer.github_client import api_url_problem
    from wif_action.app import write_github  # PyGithub loads when dispatching, not for --help
    from wif_action.tools.github_issues import DISPATCH_HINTS, GitHubWriteError, dispatch_workflow

    try:
        args.message = _capped(message_text(args.message) or "")
    except MessageInputError as error:
        return _usage(str(error))
    token = (os.environ.get("GITHUB_TOKEN") or os.environ.get("GH_TOKEN") or "").strip()
    if not args.repo or "/" not in args.repo:
        return _usage("give --repo owner/name (or set GITHUB_REPOSITORY)")
    if not (args.message.strip() or (args.sdk.strip() and args.sdk_version.strip() and args.problem.strip())):
        return _usage("give --message, or --sdk, --version and --problem")
    if bool(args.slack_thread_ts) and not args.slack_channel:
        return _usage("--slack-thread-ts needs --slack-channel")
    if problem := api_url_problem(os.environ.get("GITHUB_API_URL")):
        return _usage(problem)
    if not token:
        return _usage("set GITHUB_TOKEN (or GH_TOKEN) to " + TOKEN_SCOPES.format(repo=args.repo)
                      + "; nothing was sent")
    env = dict(os.environ) | {"GITHUB_TOKEN": token}
    try:
        url = dispatch_workflow(write_github(env), args.repo, args.workflow, args.ref, dispatch_inputs(args))
    except GitHubWriteError as error:
        hint = DISPATCH_HINTS.get(error.status)
        print(f"wif dispatch: {error.reason}" + (f"\n  {hint}" if hint else ""), file=sys.stderr)
        return EXIT_FAILED
    print(url)
    return EXIT_ANSWERED


def _usage(problem: str) -> int:
    print(f"wif dispatch: {problem}", file=sys.stderr)
    return EXIT_USAGE


def _capped(message: str) -> str:
    """At most what the Action reads; GitHub refuses an oversized input with a bare 422."""
    if len(message) <= MAX_MESSAGE_CHARS:
        return message
    print(f"wif dispatch: the message has {len(message):,} characters; sending the first {MAX_MESSAGE_CHARS:,} "
          "(what WIF reads of a request)", file=sys.stderr)
    return message[:MAX_MESSAGE_CHARS]
