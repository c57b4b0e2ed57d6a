"""Where a labelled case's right fix is lost: one line per right fix saying the step that dropped it and why.

A fix is "found" when the answer lists it (HIGH or MEDIUM). Before that it passes, in the shipped workflow:
1. the scan reaches its release (range, early stop at a HIGH, the entries the user already has);
2. the batch filter (`relevance.rank_entries`) picks its line: BM25 > 0 (a term shared with the question), at
   least `min_relevance` × scale and `relative_to_best` × the batch's best (below that, a fix section's line as a
   second look: at most MEDIUM, never leading), within the batch's `max_per_batch`;
3. the score (`scoring.confidence`): MEDIUM needs `medium_concepts` key concepts named at half credit (or
   `body_concepts` in the PR body) and total mass × section ≥ `medium_mass` × scale; the objections may lower it;
4. the listing: at most `scan_release_notes.MAX_MEDIUM` MEDIUMs, the first found; only read candidates.

This runs the case through the shipped workflow (the runner of bench/quality_report.py), records what the judge
was handed and returned, and for each right fix prints the first step it did not pass, with the numbers that
decided it and the question's key concepts the line does or does not name (a word form the stemmer does not
fold, "sub-second" against "fractions of a second", shows up there).

    python bench/fixture_cache.py /tmp/c.db
    python bench/why_missed.py --db /tmp/c.db cocoa-launch-hang-dyld                 # both modes
    python bench/why_missed.py --db /tmp/c.db --mode fields --misses                 # every fields miss
    python bench/why_missed.py --db /tmp/c.db --set weight.relative_to_best=0.4 ID   # … with a weight changed
"""

from __future__ import annotations

import argparse
import sys
from collections.abc import Iterator
from contextlib import contextmanager
from dataclasses import dataclass, field, replace
from pathlib import Path

ROOT = Path(__file__).resolve().parent.parent
if str(ROOT) not in sys.path:
    sys.path.insert(0, str(ROOT))

from bench.calibrate_offline import judge_weights, parse_setting, thresholds  # noqa: E402
from bench.labelled import fixture_dir, registry_file  # noqa: E402
from bench.quality_report import labelled_cases  # noqa: E402
from tests.fakes.github_server import FakeGitHub  # noqa: E402
from wif_action import lexicon  # noqa: E402
from wif_action.app import AppConfig, build_workflow  # noqa: E402
from wif_action.candidate_order import top_candidate  # noqa: E402
from wif_action.commands.eval_cases import case_input, result_of  # noqa: E402
from wif_action.engines.offline import judge as offline_judge  # noqa: E402
from wif_action.engines.offline import scoring  # noqa: E402
from wif_action.engines.offline.evidence import Evidence  # noqa: E402
from wif_action.engines.offline.relevance import score_entries  # noqa: E402
from wif_action.evaluation import Case, Claim, FixRef, is_claim_of, judge_result  # noqa: E402
from wif_action.models import Answer, Candidate, Entry, PullRequest, RelevantEntry  # noqa: E402
from wif_action.question import Question  # noqa: E402
from wif_action.subtasks import scan_release_notes  # noqa: E402
from wif_action.tools.progress import RecordingProgress  # noqa: E402

MODES = ("fields", "message")


@dataclass
class Filtered:
    """One `filter_relevant_entries` call: what the judge was handed and what it picked."""

    entries: list[Entry]
    question: Question
    picked: list[RelevantEntry]
    judge: offline_judge.OfflineJudge


@dataclass
class Recording:
    filtered: list[Filtered] = field(default_factory=list)
    evidence: dict[tuple[str, int | str], Evidence] = field(default_factory=dict)


@contextmanager
def recording() -> Iterator[Recording]:
    """Record every filter call and the evidence of every scored PR of the offline judge, for one run."""
    record = Recording()
    filter_method = offline_judge.OfflineJudge.filter_relevant_entries
    evidence_method = offline_judge.OfflineJudge._evidence

    def filter_relevant_entries(self: offline_judge.OfflineJudge, entries: list[Entry],
                                question: Question) -> list[RelevantEntry]:
        picked = filter_method(self, entries, question)
        record.filtered.append(Filtered(list(entries), question, picked, self))
        return picked

    def evidence(self: offline_judge.OfflineJudge, pr: PullRequest, entry: Entry | None,
                 question: Question) -> tuple[object, Evidence]:
        stats, found = evidence_method(self, pr, entry, question)
        record.evidence[(pr.repo, pr.number if pr.commit is None else f"commit:{pr.commit}")] = found
        return stats, found

    offline_judge.OfflineJudge.filter_relevant_entries = filter_relevant_entries  # type: ignore[method-assign]
    offline_judge.OfflineJudge._evidence = evidence  # type: ignore[method-assign,assignment]
    try:
        yield record
    finally:
        offline_judge.OfflineJudge.filter_relevant_entries = filter_method  # type: ignore[method-assign]
        offline_judge.OfflineJudge._evidence = evidence_method  # type: ignore[method-assign]


def answer(case: Case, mode: str, config: AppConfig) -> tuple[Answer, Recording]:
    guard = case.max_releases or config.max_releases
    workflow = build_workflow(replace(config, max_releases=guard, run_source=f"why:{case.id}"), RecordingProgress())
    with recording() as record:
        result = workflow.run(case_input(case, mode))
    return result, record


def _is_fix_entry(entry: Entry, fix: FixRef, case: Case) -> bool:
    repo = fix.repo or case.repo
    if repo and entry.release.repo != repo:
        return False
    if fix.pr is not None:
        return fix.pr in entry.prs
    return any(c.startswith(fix.commit or "~") or (fix.commit or "").startswith(c) for c in entry.commit_hashes)


def _fmt(value: float) -> str:
    return f"{value:.2f}"


def explain_fix(case: Case, fix: FixRef, result: Answer, record: Recording) -> list[str]:
    """The first step the fix did not pass, and the numbers behind it."""
    label = f"{fix.fixed_in} #{fix.pr}" if fix.pr is not None else f"{fix.fixed_in} commit {fix.commit}"
    listed = [c for c in result.candidates if _claims(c, fix)]
    for call in record.filtered:
        hits = [e for e in call.entries if _is_fix_entry(e, fix, case)]
        if hits:
            return [f"{label}: " + line for line in _in_batch(call, hits[0], fix, case, listed, record, result)]
    where = f"release {fix.fixed_in}"
    scanned = [r.tag for call in record.filtered for r in {e.release.tag: e.release for e in call.entries}.values()]
    if listed:
        return [f"{label}: listed ({listed[0].confidence.value}) through the links check, not the scan"]
    return [f"{label}: never handed to the filter — {where} not among the releases judged "
            f"({len(record.filtered)} filter calls{', last ' + scanned[-1] if scanned else ''}; outcome "
            f"{result.outcome.value}: the scan stopped at a HIGH, the range ends earlier, or the user has the PR)"]


def _claims(c: Candidate, fix: FixRef) -> bool:
    claim = Claim(version=c.version, tag=c.tag, pr=c.pr, confidence=c.confidence.value, repo=c.repo, commit=c.commit)
    return is_claim_of(claim, [fix])


def _trace(result: Answer) -> list[str]:
    return [str(line) for line in result.trace]


def _in_batch(call: Filtered, entry: Entry, fix: FixRef, case: Case, listed: list[Candidate],
              record: Recording, result: Answer) -> list[str]:
    judge, question = call.judge, call.question
    stats = judge._statistics(list(dict.fromkeys(e.release.repo for e in call.entries)), question.terms,
                              [e.text for e in call.entries])
    scored = score_entries(call.entries, question.terms, stats, question.wants_functionality)
    ranked = sorted(range(len(scored)), key=lambda i: -scored[i][0])
    index = call.entries.index(entry)
    score, match, _ = scored[index]
    best = scored[ranked[0]][0] if ranked else 0.0
    repo = entry.release.repo
    floor = lexicon.weight("min_relevance") * stats.scale(repo)
    relative = lexicon.weight("relative_to_best") * best
    rank = ranked.index(index) + 1
    picked = any(item.entry.id == entry.id for item in call.picked)
    shared = ", ".join(f"{t.surface}={v:.2f}" for t, v in match.matched[:8]) or "nothing"
    lines = [f"line “{entry.text[:110]}” ({entry.section}) — BM25×section {_fmt(score)}, rank {rank}/"
             f"{len(scored)} in its batch, best {_fmt(best)} (“{scored[ranked[0]][2].text[:60]}”); shares {shared}"]
    if not picked:
        above = sum(1 for s, _, _ in scored if s > score)
        most = lexicon.weight("max_per_batch")
        why = ("shares no term with the question" if score <= 0 else
               f"below min_relevance×scale {_fmt(floor)}" if score < floor else
               f"cut by max_per_batch {int(most)} ({above} scored higher)" if above >= most else
               f"below relative_to_best×best {_fmt(relative)} (needs {score / best:.2f} of best) and of a section "
               "fixes are not listed in (no second look)" if score < relative else
               "dropped as a repeat of a picked line")
        lines.append(f"DROPPED by the filter: {why}")
        lines += _concepts(question, entry, judge, repo)
        return lines
    key = (fix.repo or repo, fix.pr if fix.pr is not None else f"commit:{fix.commit}")
    evidence = next((ev for (r, k), ev in record.evidence.items()
                     if k == key[1] or (isinstance(k, str) and fix.commit and k.startswith(f"commit:{fix.commit}"))),
                    None)
    if listed:
        look = " (a second look)" if any(item.entry.id == entry.id and item.second_look for item in call.picked) else ""
        lines.append(f"LISTED as {listed[0].confidence.value}{' (objected)' if listed[0].objected else ''}{look}")
        return lines
    if evidence is None:
        lines.append(_never_scored(call, entry, score, relative))
        return lines
    lines += _scored(evidence, judge)
    change = f"PR #{fix.pr} (" if fix.pr is not None else f"Commit {str(fix.commit)[:7]}"
    lines += [f"trace: {line[:240]}" for line in _trace(result) if line.startswith(change)]
    lines += _concepts(question, entry, judge, repo)
    return lines


def _never_scored(call: Filtered, entry: Entry, score: float, relative: float) -> str:
    """Why a line the filter picked was never scored. A second look is named as such: an earlier HIGH of its batch
    ended the scan before it, and once the scan has a HIGH only the lines ranked above the HIGH's own are judged
    (`scan_demotions.demote_behind_later_lines`), never a second look, so it cannot rival that HIGH."""
    if any(item.entry.id == entry.id and item.second_look for item in call.picked):
        return (f"picked as a second look (BM25×section {_fmt(score)} < relative_to_best×best {_fmt(relative)}) but "
                "never scored: an earlier HIGH of the batch ended the scan, and a second look is not judged as a "
                "later rival of that HIGH (demote_behind_later_lines judges only lines ranked above it)")
    return "picked by the filter but never scored (an earlier HIGH of the batch ended the scan, or no PR)"


def _scored(evidence: Evidence, judge: offline_judge.OfflineJudge) -> list[str]:
    weights = judge.thresholds()  # the mode's (`explain` reads in the case's input mode)
    named = evidence.named(0.5)
    mass = evidence.total_mass * max(evidence.section_weight, 0.5)
    need = scoring.medium_bar(evidence, weights)
    area = scoring._headline_in_area(evidence, weights) or evidence.body_concepts >= weights.body_concepts
    if area and mass >= need:
        return ["scored MEDIUM or better by the judge, then lowered to LOW by an objection, or cut by the listing "
                f"(MAX_MEDIUM {scan_release_notes.MAX_MEDIUM} MEDIUMs kept, oldest first)"]
    parts = []
    if not area:
        weak = lexicon.weight("weak_line", evidence.from_message)
        line = "" if evidence.line_relevance is None or evidence.line_relevance >= weak else \
            f" of a line scored {_fmt(evidence.line_relevance)} (< weak_line {_fmt(weak)})"
        parts.append(f"names {len(named)} key concept(s) at half credit{line} (< medium_concepts "
                     f"{weights.medium_concepts}) and {evidence.body_concepts} in the PR body (< body_concepts "
                     f"{weights.body_concepts})")
    if mass < need:
        body = evidence.total_mass - evidence.headline_mass
        bar = "medium_mass×scale×bodiless_mass" if evidence.bodiless else "medium_mass×scale"
        parts.append(f"mass×section {_fmt(mass)} < {bar} {_fmt(need)} "
                     f"(headline {_fmt(evidence.headline_mass)}, body {_fmt(body)}, section {evidence.section_weight})")
    return ["scored LOW: " + "; ".join(parts)]


def _concepts(question: Question, entry: Entry, judge: offline_judge.OfflineJudge, repo: str) -> list[str]:
    """The question's key concepts and whether the line names each (a concept it misses is where a word form,
    a compound or a synonym may be lost)."""
    from wif_action.engines.offline.evidence import key_concepts
    from wif_action.lexicon.terms import term_counts
    stats = judge._statistics([repo], question.terms, [entry.text])
    concepts = key_concepts(question.terms, stats, repo, question.problem_keys, question.alternatives)
    counts = term_counts(entry.text)
    named = [c.name for c in concepts if any(counts.get(t.key) for t in c.terms)]
    missing = [c.name for c in concepts if not any(counts.get(t.key) for t in c.terms)]
    unknown = [t.surface for k, t in question.terms.items() if t.kind != "synonym" and stats.df(repo, k) == 0][:12]
    return [f"key concepts the line names: {', '.join(named) or 'none'}; does not: {', '.join(missing) or 'none'}",
            f"question terms no note of {repo} uses: {', '.join(unknown) or 'none'}"]


def explain(case: Case, mode: str, config: AppConfig) -> list[str]:
    """A header line (the answer, and whether the right fix is first, listed or not found), then per right fix
    where it was lost (`explain_fix`)."""
    result, record = answer(case, mode, config)
    with lexicon.input_mode(mode):  # the weights the run read (lexicon.toml [<mode>_weight])
        lines = [headline(case, mode, result)]
        for fix in case.expect.fixes():
            lines += ["    " + line for line in explain_fix(case, fix, result, record)]
    return lines


def headline(case: Case, mode: str, result: Answer) -> str:
    """The answer's outcome, the candidate it leads with and whether that is the right fix. Why `top_candidate`
    (not the first listed): the verdict judges the one top-candidate rule's pick, and the header must name that
    candidate (a clear leader or an older MEDIUM can lead the rendered answer while listed later)."""
    verdict = judge_result(case, result_of(case.id, result, 0.0))
    top = top_candidate(result.candidates)
    return (f"[{mode}] {case.id}: {result.outcome.value}" + (f" {top.version} #{top.pr}" if top else "")
            + (" — top-1 right" if verdict.top1 else " — found, not first" if verdict.found else " — not found"))


def main(argv: list[str] | None = None) -> int:
    parser = argparse.ArgumentParser(description=__doc__.split("\n\n")[0])
    parser.add_argument("ids", nargs="*", help="case ids (default with --misses: every case whose fix is not found)")
    parser.add_argument("--db", required=True, help="the fixture cache (bench/fixture_cache.py)")
    parser.add_argument("--mode", choices=MODES, action="append", help="input mode (default: both)")
    parser.add_argument("--misses", action="store_true", help="every fix case whose right fix is not listed")
    parser.add_argument("--set", action="append", default=[], metavar="NAME=VALUE",
                        help="a weight for the run, as quality_report.py --set")
    args = parser.parse_args(argv)
    cases = {case.id: case for case in labelled_cases()}
    unknown = [i for i in args.ids if i not in cases]
    if unknown:
        parser.error(f"no labelled case {', '.join(unknown)}")
    setting = parse_setting(args.set)
    weights, rest = judge_weights(setting)
    with FakeGitHub(fixture_dir()) as github, thresholds(rest):
        config = AppConfig(db=Path(args.db), engine="offline", env={"GITHUB_API_URL": github.url}, weights=weights,
                           registry=registry_file())
        for mode in args.mode or MODES:
            chosen = [cases[i] for i in args.ids] or [c for c in cases.values() if c.expect.fixes()]
            for case in chosen:
                lines = explain(case, mode, config)
                if args.misses and not args.ids and "not found" not in lines[0]:
                    continue
                print("\n".join(lines))
    return 0


if __name__ == "__main__":
    raise SystemExit(main())
