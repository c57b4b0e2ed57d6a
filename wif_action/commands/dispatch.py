"""`wif dispatch`: start the WIF workflow on GitHub (workflow_dispatch) and print the run's URL.

This is what a Slack bridge (or a person) calls: the run then answers in the
Slack thread given by --slack-channel / --slack-thread-ts. Needs a token with
Actions: write on the repository (GITHUB_TOKEN or GH_TOKEN).
"""

from __future__ import annotations

import argparse
import os
import sys

from wif_action.app import write_github
from wif_action.tools.github_issues import DISPATCH_HINTS, GitHubWriteError, dispatch_workflow


def add_arguments(parser: argparse.ArgumentParser) -> None:
    parser.add_argument("--message", default="",
                        help="the request as free text (a Slack message as it is); WIF extracts the fields")
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
    if not args.repo or "/" not in args.repo:
        print("wif dispatch: give --repo owner/name (or set GITHUB_REPOSITORY)", file=sys.stderr)
        return 2
    if not (args.message.strip() or (args.sdk.strip() and args.sdk_version.strip() and args.problem.strip())):
        print("wif dispatch: give --message, or --sdk, --version and --problem", file=sys.stderr)
        return 2
    if bool(args.slack_thread_ts) and not args.slack_channel:
        print("wif dispatch: --slack-thread-ts needs --slack-channel", file=sys.stderr)
        return 2
    env = dict(os.environ)
    env["GITHUB_TOKEN"] = env.get("GITHUB_TOKEN") or env.get("GH_TOKEN") or ""
    try:
        url = dispatch_workflow(write_github(env), args.repo, args.workflow, args.ref, dispatch_inputs(args))
    except GitHubWriteError as error:
        hint = DISPATCH_HINTS.get(error.status)
        print(f"wif dispatch: {error.reason}" + (f"\n  {hint}" if hint else ""), file=sys.stderr)
        return 1
    print(url)
    return 0
