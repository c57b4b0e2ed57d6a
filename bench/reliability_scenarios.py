"""Re-run the reliability scenarios of issue 13, 25 or the entry-point sweep several times; print the failures.

    python bench/reliability_scenarios.py [--trials N] [--issue 13|25|sweep]

Each scenario is the set of tests that reproduce one defect against a fake server that fails that way;
a trial is one pytest process running them (real PyGithub, openai, slack-sdk over HTTP on 127.0.0.1),
so a flaky bound or race shows up as a failed trial. The slow-drip end-to-end check (two processes
against servers dripping one byte every 4 s) is `python bench/bench_slow_drip.py`.
"""

from __future__ import annotations

import argparse
import subprocess
import sys
import time
from pathlib import Path

from tabulate import tabulate

ROOT = Path(__file__).resolve().parent.parent

SCENARIOS: dict[str, list[str]] = {
    "1 slow drip: GitHub, LLM, Slack, indexer bounded": [
        "tests/test_wall_clock.py",
        "tests/test_slack_delivery.py::test_a_dripping_slack_is_cut_off_by_the_wall_clock_bound",
        "tests/test_indexer.py::test_a_dripping_github_is_cut_off_per_repository_and_then_the_run_stops",
    ],
    "2 after the deadline the cache still answers": [
        "tests/test_faults_github.py::test_after_the_deadline_the_cached_notes_still_answer_without_pr_details",
        "tests/test_faults_github.py::test_after_the_deadline_cached_pr_details_still_count",
        "tests/test_faults_github.py::test_an_expired_deadline_makes_no_github_request",
    ],
    "3 a 200 that is not a chat completion": [
        "tests/test_faults_openai.py::test_a_200_that_is_not_a_chat_completion_is_an_unusable_reply",
    ],
    "4 truncated / ok:false-object Slack replies": [
        "tests/test_slack_delivery.py::test_bad_slack_replies_are_tool_errors_never_crashes",
    ],
    "5 secrets never reach the job log": [
        "tests/test_secrets.py",
    ],
    "6 an HTML 200 is not PR details": [
        "tests/test_faults_github.py::test_a_200_that_is_not_a_pr_is_a_failed_lookup_never_pr_details",
    ],
    "7 comment delivery: breaker and bound": [
        "tests/test_comment_breaker.py",
    ],
    "8 oversize replies cut off at the body cap": [
        "tests/test_body_caps.py",
    ],
    "9 disk full": [
        "tests/test_faults_github.py::test_a_full_disk_for_outputs_and_summary_costs_only_those_channels",
    ],
    "10 job summary in bytes, question capped": [
        "tests/test_faults_github.py::test_a_huge_question_cannot_push_the_answer_out_of_the_summary",
        "tests/test_faults_github.py::test_the_summary_caps_the_quoted_question_and_counts_bytes",
    ],
    "11 LLM reasons scrubbed of unread versions/PRs": [
        "tests/test_faults_openai.py::test_claims_the_run_never_read_are_rejected_not_shown",
        "tests/test_github_refs.py::test_reasons_are_scrubbed_of_versions_and_prs_the_run_never_read",
    ],
    "12 wif index stops after systemic failures": [
        "tests/test_indexer.py::test_index_stops_after_three_repositories_fail_the_same_systemic_way",
    ],
    "13 a rejected token stops GitHub calls": [
        "tests/test_faults_github.py::test_a_rejected_token_stops_github_calls_and_says_which_token_and_permission",
    ],
    "/WIF case-insensitive like the workflow": [
        "tests/test_wif_comment.py::test_the_command_is_case_insensitive_like_the_workflows_startswith",
    ],
}


SA = "tests/test_slack_app.py::"
SCENARIOS_25: dict[str, list[str]] = {
    "1 idle/dripping clients block no one; ack before dispatch": [
        SA + "test_an_idle_connection_blocks_no_one",
        SA + "test_the_shortcut_is_acknowledged_before_the_dispatch_completes",
        SA + "test_a_client_that_drips_its_request_is_cut_off",
    ],
    "2 retries after restart / 2nd replica / crash: one dispatch": [
        SA + "test_a_slack_retry_does_not_dispatch_twice",
        SA + "test_a_retry_after_a_restart_or_at_a_second_replica_does_not_dispatch_again",
        SA + "test_two_shortcuts_without_a_trigger_id_are_two_requests",
        SA + "test_a_request_its_process_died_with_is_dispatched_once_by_the_next",
    ],
    "3 a token GitHub echoes never reaches Slack": [SA + "test_a_token_github_echoes_never_reaches_slack"],
    "4 garbage body / bad timestamp: 400/401, one line": [
        SA + "test_a_garbage_body_is_refused_with_one_log_line", SA + "test_a_non_numeric_timestamp_is_refused",
    ],
    "5 manifests declare what the handlers need": [
        SA + "test_each_manifest_declares_what_the_handlers_need",
        SA + "test_the_shipped_manifest_is_what_wif_slack_manifest_prints",
    ],
    "6 gzip bomb (GitHub), oversize Slack reply": [
        "tests/test_body_caps.py::test_a_gzip_bomb_from_github_is_capped_as_it_is_decompressed",
        "tests/test_body_caps.py::test_an_oversize_slack_reply_is_one_failed_call_never_downloaded",
    ],
    "7 on-the-spot indexing inside WIF_DEADLINE": [
        "tests/test_faults_github.py::test_indexing_on_the_spot_fits_inside_wif_deadline",
    ],
    "8 secrets by value out of the cache": [
        "tests/test_secrets.py::test_wif_index_never_stores_a_secret_pasted_into_notes_or_a_pr",
    ],
    "10 any 401 trips the GitHub breaker": [
        "tests/test_faults_github.py::test_a_rejected_token_stops_github_calls_and_says_which_token_and_permission",
    ],
    "11 wif ask --json usage error is one JSON object": [
        "tests/test_cli.py::test_json_usage_errors_still_print_one_json_object",
    ],
    "spec guards (v-partial, batches of 5, rc tag, pasted secret)": [
        "tests/test_spec_guards.py",
        "tests/test_secrets.py::test_a_secret_pasted_into_the_question_never_reaches_the_action_outputs",
    ],
}


SCENARIOS_SWEEP: dict[str, list[str]] = {
    "1 Slack payload fields of the wrong JSON type: 400 naming the field (HTTP), refused in Socket Mode": [
        SA + "test_a_shortcut_field_of_the_wrong_type_is_a_400_naming_it",
        SA + "test_a_step_field_of_the_wrong_type_is_a_400_naming_it",
        SA + "test_socket_mode_refuses_the_same_shapes_in_the_listener",
    ],
    "2 quoted event/trace/span ids are no commit claims; secrets by value beside SHAs": [
        "tests/test_github_refs.py::test_event_trace_and_span_ids_are_no_commit_claims_and_are_never_blanked",
        "tests/test_faults_openai.py::test_a_reason_quoting_the_customers_event_and_trace_ids_keeps_its_high",
        "tests/test_secrets.py::test_a_hex_token_is_redacted_by_value_while_commits_and_ids_beside_it_stay",
        "tests/test_secrets.py::test_wif_index_never_stores_a_secret_pasted_into_notes_or_a_pr",
    ],
    "3 release asset via the committed fake gh (was flaky under load)": [
        "tests/test_action.py::test_release_asset_is_used_when_gh_downloads_it",
        "tests/test_action.py::test_missing_cache_indexes_the_question_repository_on_the_spot",
    ],
    "4 registry entries of the wrong type: one line, exit 2": [
        "tests/test_registry.py::test_a_repository_entry_of_the_wrong_type_is_named",
        "tests/test_registry.py::test_a_top_level_table_of_the_wrong_type_is_named",
        "tests/test_registry.py::test_wif_index_and_ask_say_what_is_wrong_with_the_registry_in_one_line",
    ],
    "5 dispatch reply not JSON / run details malformed": [
        "tests/test_dispatch.py::test_a_reply_that_is_not_json_says_the_run_may_have_started_and_where_to_look",
        "tests/test_dispatch.py::test_run_details_of_the_wrong_type_still_report_the_started_run",
    ],
    "6 endless standard input bounded; unusable Slack state file": [
        "tests/test_cli_errors.py::test_message_dash_reads_a_bounded_amount_of_an_endless_input_and_says_so",
        SA + "test_an_unusable_state_file_is_one_line_and_exit_2_before_serving",
    ],
    "7 malformed GITHUB_API_URL; a job row of another shape still answered": [
        "tests/test_cli_errors.py::test_a_malformed_github_api_url_is_one_line_and_exit_2",
        SA + "test_a_malformed_github_api_url_stops_serve_before_it_starts",
        SA + "test_a_row_another_version_wrote_is_still_dispatched_or_answered",
    ],
    "8 a releases page of other JSON types fails one repository, not the run": [
        "tests/test_faults_github.py::test_a_releases_page_of_other_json_types_fails_that_repository_only",
    ],
    "9 wif runs query: a runaway statement is stopped": [
        "tests/test_run_records.py::test_a_runaway_statement_is_stopped_by_its_step_budget_and_row_cap",
        "tests/test_run_records.py::test_runs_query_of_endless_rows_is_one_line_and_exit_2",
    ],
}


def trial(nodes: list[str]) -> tuple[bool, int, float]:
    """One pytest process over the scenario's tests: (passed, tests collected, seconds)."""
    started = time.monotonic()
    done = subprocess.run([sys.executable, "-m", "pytest", "-o", "addopts=", "-q", "-p", "no:cacheprovider", *nodes],
                          cwd=ROOT, capture_output=True, text=True, check=False)
    last = (done.stdout.strip().splitlines() or [""])[-1]
    counted = sum(int(word) for word, after in zip(last.split(), last.split()[1:], strict=False)
                  if word.isdigit() and after.startswith(("passed", "failed", "error")))
    return done.returncode == 0, counted, time.monotonic() - started


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--trials", type=int, default=3)
    parser.add_argument("--issue", choices=("13", "25", "sweep"), default="13",
                        help="which issue's scenarios (sweep: the entry-point sweep of hostile input)")
    args = parser.parse_args()
    rows = []
    chosen = {"13": SCENARIOS, "25": SCENARIOS_25, "sweep": SCENARIOS_SWEEP}[args.issue]
    for name, nodes in chosen.items():
        results = [trial(nodes) for _ in range(args.trials)]
        rows.append([name, results[0][1], args.trials, sum(not ok for ok, _, _ in results),
                     f"{sum(s for _, _, s in results) / len(results):.1f}"])
        print(f"{name}: {rows[-1][3]} of {args.trials} trials failed", file=sys.stderr, flush=True)
    print(tabulate(rows, headers=["scenario", "tests", "trials", "failed trials", "s per trial"], tablefmt="github"))


if __name__ == "__main__":
    main()
