"""`wif action`: the GitHub Action's entry point. Reads the runner's environment, answers, delivers.

Contract: never a traceback where people look. Any unexpected error becomes
a `failed` answer with a short message (details on stderr, in the job log).
Never a secret either: the answer, every skipped step and the question pass
through a Redactor (the token and key values of this run, and token shapes)
before they reach Slack, the issue, the outputs, the summary or the log.
Exit 0 whenever an answer was produced, whatever its outcome; 2 only for a
configuration error (no usable cache and no way to index, a bad engine),
and even then the summary and outputs are written.
"""

from __future__ import annotations

import argparse

from indexer.arguments import exit_codes_help

ENVIRONMENT = """environment (set by action.yml; every value arrives as data, never as script):
  INPUT_SDK, INPUT_VERSION, INPUT_PROBLEM, INPUT_LINKS, INPUT_MESSAGE   the question (dispatch inputs)
  INPUT_ENGINE, INPUT_REGISTRY, INPUT_CACHE_DB (or WIF_DB)              analysis setup
  INPUT_SLACK_CHANNEL, INPUT_SLACK_THREAD_TS, SLACK_BOT_TOKEN, SLACK_API_URL   Slack delivery
  GITHUB_EVENT_NAME, GITHUB_EVENT_PATH, GITHUB_REPOSITORY               the trigger (/wif comments)
  GITHUB_API_URL, GITHUB_TOKEN                                          GitHub reads, comments, reactions
  OPENAI_API_KEY, OPENAI_BASE_URL, WIF_MODEL, WIF_VERIFY_MODEL          the OpenAI engine
  GITHUB_OUTPUT, GITHUB_STEP_SUMMARY, RUNNER_TEMP                       outputs, summary, result files
  WIF_RESULT_JSON, WIF_RUNS_DB, WIF_PROGRESS_INTERVAL                   result paths, progress edit interval
  WIF_DEADLINE                                                          seconds for the analysis (default 240)
  INPUT_MAX_RELEASES (or WIF_MAX_RELEASES)                              release-count guard (default 100; the LLM
                                                                        engine's token cost grows with it)
"""


EXIT_CODES = exit_codes_help(
    "an answer was delivered, whatever its outcome (`failed` too: read the `outcome` output),\n"
    "     or the trigger was not for WIF (outcome `ignored`)", None,
    "the Action's inputs or release cache were unusable (the failure is still posted where it can be)")


def add_arguments(parser: argparse.ArgumentParser) -> None:
    parser.formatter_class = argparse.RawDescriptionHelpFormatter
    parser.epilog = ENVIRONMENT + "\n" + EXIT_CODES


def run(args: argparse.Namespace) -> int:
    from wif_action.commands.action_run import run_action  # the clients and models load only when it runs

    return run_action()
