"""`wif slack serve`: run the Slack app (the "Ask WIF" workflow step and message shortcut).

Socket Mode by default (no public URL: the app connects out to Slack with SLACK_APP_TOKEN), or
HTTP (`--http --port N`) for a container or serverless host, every request's signature checked
with SLACK_SIGNING_SECRET. Both dispatch the repository's wif.yml, like `wif dispatch`.
"""

from __future__ import annotations

import argparse
import os
import sys
from collections.abc import Mapping

from indexer.arguments import EXIT_CODES_HELP, EXIT_USAGE, count_at_least
from wif_action.app import write_github
from wif_action.slack_app import Dispatcher, build_slack_app

ENVIRONMENT = """environment:
  SLACK_BOT_TOKEN        the app's bot token (xoxb-…), always
  SLACK_APP_TOKEN        app-level token (xapp-…, connections:write), Socket Mode only
  SLACK_SIGNING_SECRET   the app's signing secret, checked on every request (HTTP mode: required)
  SLACK_API_URL          Slack Web API base URL (default https://slack.com/api/)
  GITHUB_TOKEN           token that may start workflows (Actions: write on WIF_REPOSITORY)
  GITHUB_API_URL         GitHub API base URL (GitHub Enterprise too)
  WIF_REPOSITORY         owner/name running wif.yml (default: GITHUB_REPOSITORY)
  WIF_WORKFLOW, WIF_REF  workflow file (default wif.yml) and branch (default main)

See docs/triggers.md for creating the app from slack/manifest.json.
"""


def add_arguments(parser: argparse.ArgumentParser) -> None:
    parser.formatter_class = argparse.RawDescriptionHelpFormatter
    parser.epilog = ENVIRONMENT + "\n" + EXIT_CODES_HELP
    actions = parser.add_subparsers(dest="action", metavar="ACTION", required=True)
    serve = actions.add_parser("serve", help="run the app until interrupted", description=__doc__,
                               formatter_class=argparse.RawDescriptionHelpFormatter,
                               epilog=ENVIRONMENT + "\n" + EXIT_CODES_HELP)
    serve.add_argument("--http", action="store_true", help="serve HTTP instead of Socket Mode")
    serve.add_argument("--port", type=count_at_least(1), default=3000, help="HTTP port (default 3000)")


def missing_settings(env: Mapping[str, str], http: bool) -> list[str]:
    needed = ["SLACK_BOT_TOKEN", "SLACK_SIGNING_SECRET" if http else "SLACK_APP_TOKEN", "GITHUB_TOKEN"]
    missing = [name for name in needed if not (env.get(name) or "").strip()]
    if "/" not in (env.get("WIF_REPOSITORY") or env.get("GITHUB_REPOSITORY") or ""):
        missing.append("WIF_REPOSITORY (owner/name)")
    return missing


def run(args: argparse.Namespace) -> int:
    env = dict(os.environ)
    missing = missing_settings(env, args.http)
    if missing:
        print(f"wif slack serve: set {', '.join(missing)} (see `wif slack serve --help`)", file=sys.stderr)
        return EXIT_USAGE
    dispatcher = Dispatcher(lambda: write_github(env), env.get("WIF_REPOSITORY") or env["GITHUB_REPOSITORY"],
                            env.get("WIF_WORKFLOW") or "wif.yml", env.get("WIF_REF") or "main")
    app = build_slack_app(env, dispatcher)
    if args.http:
        app.start(port=args.port)
    else:
        from slack_bolt.adapter.socket_mode import SocketModeHandler

        SocketModeHandler(app, env["SLACK_APP_TOKEN"].strip()).start()
    return 0
