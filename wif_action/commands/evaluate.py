"""`wif eval`: run evaluation cases through exactly the code path of `wif ask`, and report.

Each case gets a freshly built workflow (`app.build_workflow`, as `wif ask`
does), so its GitHub requests and LLM usage are its own. `--input fields`
passes the structured fields a workflow_dispatch would; `--input message` the
free text a `/wif` comment or Slack thread would.

A remote engine is checked with one tiny call per model before any case runs. A case
in which any step fell back to the offline engine is reported apart and never counted
as the remote engine's (its metrics cover only the cases it judged end to end).

Exit codes: 0 when the harness ran (whatever the accuracy); 1 when some case fell back
to the offline engine (reported apart); 2 for a bad cases file, an unusable
cache/engine setup or an endpoint that fails the check.
"""

from __future__ import annotations

import argparse

from indexer.arguments import exit_codes_help

EPILOG = """examples:
  wif eval tests/data/eval/cases.jsonl --db cache.db.example --engine offline
  wif eval tests/data/eval/cases.jsonl --db cache.db.example --input message --only fix --json
  python bench/eval_offline.py --input fields   # the same, with GitHub served by the fake server (README numbers)

""" + exit_codes_help("the report was printed, whatever the accuracy (cases that errored are counted in it)", None,
                      "usage error: bad arguments, an unreadable cases file, unusable cache or registry file")


def add_arguments(parser: argparse.ArgumentParser) -> None:
    parser.formatter_class = argparse.RawDescriptionHelpFormatter
    parser.epilog = EPILOG
    parser.add_argument("cases", help="cases file, one JSON case per line (see tests/data/eval/README.md)")
    parser.add_argument("--db", required=True, help="release cache built by `wif index`")
    parser.add_argument("--engine", choices=("auto", "openai", "offline"), default="auto",
                        help="auto (default) uses OpenAI when OPENAI_API_KEY is set, else the offline engine")
    parser.add_argument("--input", choices=("fields", "message"), default="fields",
                        help="fields: repo/sdk, version, problem, links (workflow_dispatch); "
                             "message: the free text (a /wif comment or Slack thread)")
    parser.add_argument("--only", metavar="CATEGORY", help="run only these categories (comma-separated)")
    parser.add_argument("--case", action="append", default=[], metavar="ID", help="run only this case (repeatable)")
    parser.add_argument("--registry", help="SDK registry JSON (default: the packaged one)")
    parser.add_argument("--runs-db", metavar="FILE", help="also keep a run record of every case in this file")
    parser.add_argument("--json", action="store_true", help="print one JSON object with all metrics and cases")


def run(args: argparse.Namespace) -> int:
    from wif_action.commands.eval_cases import run_eval  # the workflow and its models load only when cases run

    return run_eval(args)

