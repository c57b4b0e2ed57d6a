"""The `wif` command: a thin argparse layer over the library.

Each subcommand lives in its own module exposing `add_arguments(parser)` and
`run(args) -> int`; modules are imported only when their subcommand runs, so
`wif --help` and `wif ask` stay fast.
"""

from __future__ import annotations

import argparse
import difflib
import importlib
import json
import os
import sys
from collections.abc import Sequence
from typing import NoReturn

from indexer.redaction import Redactor, log_to_stderr_redacted

SUBCOMMANDS = {
    "ask": ("wif_action.commands.ask", "Answer one 'was it fixed?' question from the release cache."),
    "index": ("wif_action.commands.index", "Cache the stable releases (and parsed notes) of SDK repositories."),
    "eval": ("wif_action.commands.evaluate", "Run evaluation cases through `wif ask` and report accuracy."),
    "runs": ("wif_action.commands.runs", "List, show and query recorded runs."),
    "dispatch": ("wif_action.commands.dispatch", "Start the WIF workflow on GitHub (workflow_dispatch)."),
    "action": ("wif_action.commands.action", "Entry point of the GitHub Action (reads the runner's environment)."),
    "slack": ("wif_action.commands.slack", "Run the Slack app: the \"Ask WIF\" workflow step and message shortcut."),
}


EXIT_CODES = """exit codes:
  0  `wif --help` or `wif --version`; otherwise each command's own codes (see `wif COMMAND --help`)
  2  usage error: no command, an unknown command or option
  130  interrupted (Ctrl-C)"""


class WifArgumentParser(argparse.ArgumentParser):
    """An option the command does not know is refused by that command, with its own usage line and
    the option it most likely meant (`wif ask --versoin` → "did you mean --version?"), not by `wif` —
    also when another complaint (a required option missing) comes first."""

    _given: tuple[str, ...] = ()

    def parse_known_args(  # type: ignore[override]
        self, args: Sequence[str] | None = None, namespace: argparse.Namespace | None = None
    ) -> tuple[argparse.Namespace, list[str]]:
        self._given = tuple(sys.argv[1:] if args is None else args)
        parsed, extras = super().parse_known_args(args, namespace)
        if extras:
            self.error(f"unrecognized arguments: {' '.join(extras)}")
        return parsed, extras

    def error(self, message: str) -> NoReturn:
        unknown = self._unknown_options()
        if unknown and "unrecognized arguments" not in message:
            message += f"; unrecognized arguments: {' '.join(unknown)}"
        super().error(message + self._suggestion(unknown or list(self._given)))

    def _unknown_options(self) -> list[str]:
        """`--words` this parser neither knows nor abbreviates (a parser with subcommands leaves them to those)."""
        if self._subparsers is not None:
            return []
        known = [option for option in self._option_string_actions if option.startswith("--")]
        return [word for word in self._given if word.startswith("--") and word != "--"
                and not any(option.startswith(word.split("=", 1)[0]) for option in known)]

    def _suggestion(self, words: list[str]) -> str:
        known = [option for option in self._option_string_actions if option.startswith("--")]
        for word in words:
            if word.startswith("--") and word.split("=", 1)[0] not in known:
                close = difflib.get_close_matches(word.split("=", 1)[0], known, n=1, cutoff=0.6)
                if close:
                    return f" (did you mean {close[0]}?)"
        return ""


class JsonArgumentParser(WifArgumentParser):
    """Under `--json`, a usage error also prints one JSON object on stdout (outcome `usage_error`, the message):
    a caller that parses stdout learns why instead of reading nothing."""

    def exit(self, status: int = 0, message: str | None = None) -> NoReturn:
        from indexer.arguments import EXIT_USAGE, USAGE_ERROR

        if status == EXIT_USAGE and message:
            text = Redactor(os.environ).text(message.strip())
            print(json.dumps({"outcome": USAGE_ERROR, "message": text, "exit_code": EXIT_USAGE}, ensure_ascii=False))
        super().exit(status, message)


def build_parser(argv: list[str]) -> argparse.ArgumentParser:
    kind = JsonArgumentParser if "--json" in argv else WifArgumentParser
    parser = kind(
        prog="wif",
        description="WIF — Was It Fixed? Finds the release and PR that fixed an SDK bug, with evidence.",
        formatter_class=argparse.RawDescriptionHelpFormatter,
        epilog=EXIT_CODES,
    )
    parser.add_argument("--version", action=VersionAction, help="print the installed version of WIF and exit")
    commands = parser.add_subparsers(dest="command", metavar="COMMAND")
    for name, (module_name, help_text) in SUBCOMMANDS.items():
        sub = commands.add_parser(name, help=help_text, description=help_text)
        sub.set_defaults(_module=module_name)
        if name == _requested_command(argv):
            importlib.import_module(module_name).add_arguments(sub)
    return parser


class VersionAction(argparse.Action):
    """`wif --version`: the version is read from the installed package's metadata only when asked."""

    def __init__(self, option_strings: list[str], dest: str, **kwargs: object) -> None:
        super().__init__(option_strings, dest, nargs=0, default=argparse.SUPPRESS, help=str(kwargs.get("help")))

    def __call__(self, parser: argparse.ArgumentParser, *_: object) -> None:
        from wif_action.version import installed_version

        print(f"wif {installed_version()}")
        parser.exit(0)


def _requested_command(argv: list[str]) -> str | None:
    words = [arg for arg in argv if not arg.startswith("-")]
    return words[0] if words else None


def main(argv: list[str] | None = None) -> int:
    argv = sys.argv[1:] if argv is None else argv
    log_to_stderr_redacted()
    parser = build_parser(argv)
    args = parser.parse_args(argv)
    if not getattr(args, "_module", None):
        parser.print_help()
        return 2
    module = importlib.import_module(args._module)
    try:
        code: int = module.run(args)
        sys.stdout.flush()  # a closed pipe shows here, not as "Exception ignored" at exit
        return code
    except KeyboardInterrupt:
        print("interrupted", file=sys.stderr)
        return 130
    except BrokenPipeError:  # `wif ask … | head -1`: the reader left; no traceback, no second error at exit
        os.dup2(os.open(os.devnull, os.O_WRONLY), sys.stdout.fileno())
        return 141  # 128 + SIGPIPE, what a shell reports for a command cut off this way


if __name__ == "__main__":
    sys.exit(main())
