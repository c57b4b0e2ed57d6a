"""`wif slack serve` / `wif slack manifest`: run the Slack app (the "Ask WIF" workflow step and message
shortcut), or print the app manifest for a mode.

Socket Mode by default (no public URL: the app connects out to Slack with SLACK_APP_TOKEN), or
HTTP (`--http --port N`) behind a public HTTPS URL, every request's signature checked with
SLACK_SIGNING_SECRET. Both dispatch the repository's wif.yml, like `wif dispatch`, once per request:
accepted requests are recorded in a small SQLite file (`--state`) that restarts and replicas share.
"""

from __future__ import annotations

import argparse
import json
import logging
import os
import signal
import sys
from collections.abc import Mapping
from typing import Any

from indexer.arguments import EXIT_USAGE, count_at_least, exit_codes_help
from indexer.redaction import Redactor

ENVIRONMENT = """environment:
  SLACK_BOT_TOKEN        the app's bot token (xoxb-…), always
  SLACK_APP_TOKEN        app-level token (xapp-…, connections:write), Socket Mode only
  SLACK_SIGNING_SECRET   the app's signing secret, checked on every request (HTTP mode: required)
  SLACK_API_URL          Slack Web API base URL (default https://slack.com/api/)
  GITHUB_TOKEN           token that may start workflows (Actions: write on WIF_REPOSITORY)
  GITHUB_API_URL         GitHub API base URL (GitHub Enterprise too)
  WIF_REPOSITORY         owner/name running wif.yml (default: GITHUB_REPOSITORY)
  WIF_WORKFLOW, WIF_REF  workflow file (default wif.yml) and branch (default main)
  WIF_SLACK_STATE        file of accepted requests (default wif-slack.db; see --state)
  WIF_SLACK_LEASE        seconds before another process takes up a request whose process died
                         (default 120; keep it above the slowest dispatch: GitHub gets 30 s per call)

Create the app from `wif slack manifest` (Socket Mode) or `wif slack manifest --http --url https://…`
(HTTP mode); see docs/triggers.md.
"""
EXIT_CODES = exit_codes_help("the app stopped cleanly (HTTP mode: on SIGTERM, once accepted requests are sent)",
                             None, "usage error: bad arguments, a setting above is missing, or the --state file\n"
                                   "     is unusable (not SQLite, damaged, another program's)") + """
  130  interrupted (Ctrl-C)"""
MANIFEST_EXIT_CODES = exit_codes_help("the manifest was printed", None, "usage error: --http without --url, or --url "
                                      "without --http")


def add_arguments(parser: argparse.ArgumentParser) -> None:
    parser.formatter_class = argparse.RawDescriptionHelpFormatter
    parser.epilog = ENVIRONMENT + "\n" + EXIT_CODES
    actions = parser.add_subparsers(dest="action", metavar="ACTION", required=True)
    serve = actions.add_parser("serve", help="run the app until interrupted", description=__doc__,
                               formatter_class=argparse.RawDescriptionHelpFormatter,
                               epilog=ENVIRONMENT + "\n" + EXIT_CODES)
    serve.add_argument("--http", action="store_true", help="serve HTTP instead of Socket Mode")
    serve.add_argument("--host", default="0.0.0.0", help="HTTP address to listen on (default 0.0.0.0)")
    serve.add_argument("--port", type=count_at_least(1), default=3000, help="HTTP port (default 3000)")
    serve.add_argument("--state", default=os.environ.get("WIF_SLACK_STATE") or "wif-slack.db",
                       help="SQLite file of accepted requests, shared by restarts and replicas "
                            "(default $WIF_SLACK_STATE or wif-slack.db)")
    show = actions.add_parser("manifest", help="print the Slack app manifest (JSON) for a mode",
                              description="Print the app manifest to paste at api.slack.com/apps "
                                          "(Create New App → From a manifest).",
                              epilog=MANIFEST_EXIT_CODES, formatter_class=argparse.RawDescriptionHelpFormatter)
    show.add_argument("--http", action="store_true", help="HTTP mode (needs --url) instead of Socket Mode")
    show.add_argument("--url", default="", help="the app's public HTTPS URL (its /slack/events is used)")


def missing_settings(env: Mapping[str, str], http: bool) -> list[str]:
    needed = ["SLACK_BOT_TOKEN", "SLACK_SIGNING_SECRET" if http else "SLACK_APP_TOKEN", "GITHUB_TOKEN"]
    missing = [name for name in needed if not (env.get(name) or "").strip()]
    if "/" not in (env.get("WIF_REPOSITORY") or env.get("GITHUB_REPOSITORY") or ""):
        missing.append("WIF_REPOSITORY (owner/name)")
    from indexer.github_client import api_url_problem  # PyGithub loads when serving, not for --help

    if api_url_problem(env.get("GITHUB_API_URL")):
        missing.append("GITHUB_API_URL (an http(s) URL)")
    return missing


def run(args: argparse.Namespace) -> int:
    if args.action == "manifest":
        return print_manifest(args)
    env = dict(os.environ)
    missing = missing_settings(env, args.http)
    if missing:
        print(f"wif slack serve: set {', '.join(missing)} (see `wif slack serve --help`)", file=sys.stderr)
        return EXIT_USAGE
    logging.basicConfig(level=logging.INFO, format="%(asctime)s %(name)s %(levelname)s %(message)s")
    from wif_action.slack_jobs import StateFileError

    try:
        app, jobs = build(env, args.state)
    except StateFileError as error:
        print(f"wif slack serve: {error}", file=sys.stderr)
        return EXIT_USAGE
    jobs.start_sweeping()
    try:
        if args.http:
            serve_http(app, env, args.host, args.port)
        else:
            from wif_action.slack_socket import GuardedSocketModeHandler

            GuardedSocketModeHandler(app, env["SLACK_APP_TOKEN"].strip()).start()
    finally:
        jobs.close()  # every accepted request is dispatched before the process ends
    return 0


def build(env: Mapping[str, str], state: str) -> tuple[Any, Any]:
    """The Bolt app and its job runner, from the composition root's clients."""
    from wif_action.app import slack_web_client, write_github
    from wif_action.slack_app import Dispatcher, build_slack_app
    from wif_action.slack_jobs import LEASE_SECONDS, JobRunner, RequestLog

    dispatcher = Dispatcher(lambda: write_github(env), env.get("WIF_REPOSITORY") or env["GITHUB_REPOSITORY"],
                            env.get("WIF_WORKFLOW") or "wif.yml", env.get("WIF_REF") or "main",
                            slack=lambda token: slack_web_client(env, token), redactor=Redactor(env))
    lease = _seconds(env.get("WIF_SLACK_LEASE"), LEASE_SECONDS)
    jobs = JobRunner(RequestLog(state, lease=lease), dispatcher.run, sweep_seconds=max(1.0, min(30.0, lease / 2)))
    return build_slack_app(env, jobs, slack_web_client(env)), jobs


def _seconds(text: str | None, default: float) -> float:
    try:
        value = float(text or default)
    except ValueError:
        return default
    return value if 1 <= value <= 3600 else default


def serve_http(app: Any, env: Mapping[str, str], host: str, port: int) -> None:
    """Serve until SIGINT/SIGTERM; then stop accepting (the caller finishes the accepted jobs)."""
    from wif_action.slack_http import serve

    server = serve(app, env["SLACK_SIGNING_SECRET"].strip(), host, port)

    def stop(_signum: int, _frame: Any) -> None:
        raise SystemExit(0)

    signal.signal(signal.SIGTERM, stop)
    logging.getLogger("wif.slack").info("listening on http://%s:%d/slack/events", host, server.port)
    try:
        server.run()
    finally:
        server.stop()


def print_manifest(args: argparse.Namespace) -> int:
    from wif_action.slack_manifest import manifest

    if args.http and not args.url.startswith(("https://", "http://")):
        print("wif slack manifest: --http needs --url https://… (the app's public URL)", file=sys.stderr)
        return EXIT_USAGE
    if args.url and not args.http:
        print("wif slack manifest: --url is for HTTP mode: add --http", file=sys.stderr)
        return EXIT_USAGE
    print(json.dumps(manifest(args.url if args.http else None), indent=2, ensure_ascii=False))
    return 0
