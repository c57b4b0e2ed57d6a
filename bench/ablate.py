"""Ablation: switch off one lexicon entry (or judge rule) at a time and list the cases whose answer changes.

Why: every word, synonym, cue phrase and rule must earn its place on labelled questions. An entry whose
removal changes no answer, in either input mode, is a candidate for deletion; one whose removal turns right
answers wrong is what the entry is for (and which repositories it was seen on says whether it generalises).

    python bench/ablate.py                          # every entry, public + holdout + near cases, fields and message
    python bench/ablate.py --only symptom:,rule:    # entries whose name starts with one of these
    python bench/ablate.py --list                   # the entries it can switch off
    python bench/ablate.py --json out.json          # also write every row
    python bench/ablate.py --names A,B --together   # A and B off at once: their joint effect, one row

An answer is the outcome plus the top candidate (release, PR or commit, level), read the way `wif eval` reads
it, and whether the right fix is listed below it (a change of "found" is a change too). Each row says, per changed
case, before → after and whether the top candidate was right (✓) or wrong (✗). GitHub is the fake server over the
fixture data (as bench/eval_offline.py), so nothing touches the network.
"""

from __future__ import annotations

import argparse
import contextlib
import copy
import json
import math
import os
import re
import sys
import time
from collections.abc import Callable, Iterator
from dataclasses import dataclass, field
from pathlib import Path
from typing import Any

ROOT = Path(__file__).resolve().parent.parent
sys.path.insert(0, str(ROOT))

from bench.labelled import case_files, fixture_dir, labelled_db, registry_file  # noqa: E402
from tests.fakes.github_server import FakeGitHub  # noqa: E402
from wif_action import candidate_order, direction, lexicon, objections, problem_kind, question  # noqa: E402
from wif_action.app import AppConfig  # noqa: E402
from wif_action.commands.eval_cases import run_case  # noqa: E402
from wif_action.engines.offline import evidence, extraction, judge, relevance, scoring  # noqa: E402
from wif_action.evaluation import Case, judge_result, load_cases, top_candidate  # noqa: E402
from wif_action.lexicon import cleaning, control_case, question_terms  # noqa: E402
from wif_action.lexicon.stemmer import stem  # noqa: E402
from wif_action.subtasks import scan_demotions, scan_release_notes  # noqa: E402

CASE_FILES = tuple(case_files())  # public + holdout + bench/data/near (bench/labelled.py)
MODES = ("fields", "message")
NEVER = "(?!)"  # a pattern that matches nothing


@dataclass
class Ablation:
    """One entry switched off: `tables` edits a copy of the lexicon's data, `patch` swaps a rule in code.
    `used`: the lexicon use that must have happened in a case's baseline run for the entry to matter there
    (a pattern that never matched, a synonym or platform word never looked up, cannot change that case);
    None: every case is run again."""

    name: str
    tables: Callable[[dict[str, Any]], None] | None = None
    patch: Callable[[], contextlib.AbstractContextManager[None]] | None = None
    used: str | None = None


@dataclass
class Row:
    name: str
    changed: dict[str, list[str]] = field(default_factory=dict)  # mode → "case: before → after"
    worse: int = 0  # top candidate right → not right, or outcome right → wrong
    better: int = 0


def ablations() -> list[Ablation]:
    """Every entry of the lexicon and every rule this script can switch off, by name."""
    data = lexicon.data()
    found: list[Ablation] = []
    for index, record in enumerate(data["symptom"]):
        for word in record["words"]:
            key = stem(word) if word.isalpha() else word
            found.append(Ablation(f"symptom:{record['name']}:{word}", _drop_symptom_word(index, word),
                                  used=f"synonym:{key}"))
        if sum(other["family"] == record["family"] for other in data["symptom"]) > 1:  # alone: nothing to split
            found.append(Ablation(f"symptom:{record['name']}:family", _own_family(index)))
        for flag in ("says_what", "remedy", "named_by_fix"):
            if record.get(flag):
                found.append(Ablation(f"symptom:{record['name']}:{flag}", _flag_off(index, flag)))
    for index, record in enumerate(data["platform"]):
        for word in record["words"]:
            found.append(Ablation(f"platform:{record['name']}:{word}", _drop_platform_word(index, word),
                                  used=f"platform:{word}"))
    for short in data.get("abbreviation", {}):
        found.append(Ablation(f"abbreviation:{short}", _drop_entry("abbreviation", short),
                              used=f"equivalent:{stem(short)}"))
    for index, record in enumerate(data.get("ecosystem", [])):
        found.append(Ablation(f"ecosystem:{record['name']}", _drop_ecosystem(index)))
    for index, record in enumerate(data.get("counterpart", [])):
        found.append(Ablation(f"counterpart:{'/'.join(words[0] for words in record['sides'])}",
                              _drop_counterpart(index)))
    for word in data.get("equivalent", {}):
        found.append(Ablation(f"equivalent:{word}", _drop_entry("equivalent", word), used=f"equivalent:{stem(word)}"))
    for name in data["words"]:
        found.append(Ablation(f"words:{name}", _empty_list(name)))
        if name in WORD_BY_WORD:
            found.extend(Ablation(f"words:{name}:{word}", _drop_word(name, word)) for word in data["words"][name])
    for name in data["pattern"]:
        found.append(Ablation(f"pattern:{name}", _never(name), used=f"pattern:{name}"))
    for check in objections.CHECKS:
        found.append(Ablation(f"rule:objection:{check.__name__}", patch=_without_check(check)))
    for check in objections.CAPS:
        found.append(Ablation(f"rule:cap:{check.__name__}", patch=_without_check(check, "CAPS")))
    for module, function, value in RULES:
        found.append(Ablation(f"rule:{module.__name__.rsplit('.', 1)[-1]}.{function}",
                              patch=_replaced(module, function, value)))
    for name, value in WEIGHT_RULES:
        found.append(Ablation(f"rule:weight.{name}", _weight(name, value)))
    order = ("symptom", "abbreviation", "equivalent", "words", "rule", "pattern", "platform", "ecosystem",
             "counterpart")
    return sorted(found, key=lambda ablation: order.index(ablation.name.split(":", 1)[0]))


# Rules of the offline judge written in code (not tables), and what "off" means for each.
RULES: list[tuple[Any, str, Any]] = [
    (scoring, "_another_failure", lambda evidence: False),  # the kind-of-failure check
    (scoring, "_quoted_unique_fix", lambda evidence: False),  # a quoted code name no other entry names
    (scoring, "_failure_left_unsaid", lambda evidence: False),  # ... by a `fix:` naming no failure: no ✓
    (scoring, "_symptom_class", lambda concept: False),  # symptom concepts cannot verify a HIGH
    (scoring, "_says_which_fix", lambda evidence, unnamed: True),  # a `fix:` commit type says which fix
    (evidence, "_named_things", lambda query, stats, repo: frozenset()),  # "frozen frames" is no hang
    (scoring, "_in_the_host_sdk", lambda evidence: False),  # a bundled SDK's fix for the host SDK's code
    (scoring, "_names_only_the_quoted_code", lambda evidence: False),  # only the command the customer quoted
    (evidence, "_anothers_member", lambda key, headline, members, query: False),  # "AxiosError.toJSON" is `toJSON`
    (question_terms, "_without_routes", lambda text: text or ""),  # the customer's routes ("/api/v1/cart") are no terms
    (cleaning, "_seconds", lambda match: " "),  # a duration ("300 seconds", "5 min") is one term in seconds
    (cleaning, "_spelled_seconds", lambda match: match.group(0)),  # "five minutes" is also "300s"
    (question_terms, "acronyms", lambda text: []),  # "Content-Security-Policy" in a question also reads as "CSP"
    (question_terms, "without_what_works", lambda text, keep_code=False: text),  # the control case out of the request
    (question_terms, "without_control_statements", lambda text: text),  # "…; Intel Macs work." out of the problem
    (control_case, "_clauses_that_complain",  # ... out of the request as a whole statement, not by clause
     lambda sentence, works, complains, keep_code: control_case._clauses_of(sentence, works, complains, keep_code)),
    (scoring, "_only_where", lambda evidence, uncommon: False),  # a headline naming only platforms is no ✓
    (evidence, "_without_negation", lambda query, stats, repo: {}),  # "unsymbolicated" → "symbolication"
    (evidence, "_symptom_of_phrase", lambda head, term: False),  # "crash" alone names "crash loop" in full
    (candidate_order, "within_release", lambda candidate: 0.0),  # one release's lines: the stronger first
    (candidate_order, "_look_ahead", lambda pool, peers: None),  # a second look naming far more leads too
    (objections, "_note_says_it_fixes", lambda note: False),  # a "Fixes …" line of a `chore:` PR is no chore
    (objections, "_below_fixes", lambda section: False),  # a breaking-change line is listed after the fixes
    (objections, "_names_what_failed", lambda question: False),  # a 5xx or crash reported: a fix answers an ask too
    (candidate_order, "_rare_part", lambda high, rival, rare: False),  # an older "provider" rivals "content provider"
    (candidate_order, "_same_name", lambda one, other: one == other),  # a class name and a phrase of its words
    (candidate_order, "_its_own", lambda grounds: grounds.own_text),  # a line citing only a commit rivals as a PR's
    (candidate_order, "first_match", lambda grounds: False),  # a capped confirmed line rivals by its subject alone
    (candidate_order, "_names_a_rarer_idea", lambda rival, high: True),  # a line ranked below rivals without it
    (scan_demotions, "behind_first_match", lambda grounds: False),  # ... and the line it demotes cannot lead
    (extraction, "_shared_name", lambda text, registry: None),  # "sentry 13.4.0" is the SDK when none other is
    (extraction, "_shared_at_version", lambda text, registry, version, best: best),  # "sentry 0.47.0 in a tokio app"
    (question, "manager_keys", lambda request_text: set()),  # "via CocoaPods" weighs as an SDK name
    (question, "own_name_keys", lambda text, repo, registry: set()),  # "Sentry.Xamarin" of sentry-xamarin: no evidence
    (scan_release_notes, "_first_shipped", lambda entries: {}),  # a PR a later release repeats ships in the first
    (problem_kind, "asked_in_own_words", lambda text: text),  # quoted errors, "when there is no …": no request
    (direction, "without_conditions", lambda sentence: sentence),  # "… when X has no data" is no complaint
    (judge, "_KEBAB", re.compile(NEVER)),  # "actix-web", "sentry-tower" are code names for picking a repository
    (evidence, "_without_side_effects", lambda headline: (headline, "")),  # a later "may …" sentence is a caveat
    (relevance, "_second_look_at", lambda entry, feature_request: False),  # the rest of a batch's best few, listed
    (cleaning, "_reference_or_annotation", lambda match: " "),  # "@JsonNames" is an annotation, "by @Viicos" a handle
    (scan_release_notes, "_displaces_a_second_look", lambda candidate: True),  # an objected MEDIUM keeps no look out
]

# Word lists whose words are each switched off too (`words:NAME:WORD`): short lists whose every word was added
# for a case of its own.
WORD_BY_WORD = ("versioned_names",)

# Rules that are a weight of lexicon.toml [weight], and the value that switches each off.
WEIGHT_RULES: list[tuple[str, float]] = [
    ("lead_margin", math.inf),  # candidate_order: a MEDIUM naming far more of the problem leads the older ones
    ("lead_breadth", 0.0),  # candidate_order: ... measured by how many of the problem's ideas it names, too
    ("lead_section", 0.0),  # candidate_order: ... each weighed by the section its line is filed under
    ("older_rival", math.inf),  # candidate_order: an older MEDIUM of the same subject demotes a later HIGH
    ("rival_share", 0.0),  # candidate_order: ... naming a rare subject of the HIGH, not only its first
    ("rival_breadth", math.inf),  # candidate_order: ... or as many of the problem's ideas (breadth), not only words
    ("thin_rival", math.inf),  # candidate_order: ... a thin HIGH by an older line naming about as many ideas
    ("thin_scope", 0.0),  # scoring: a thin headline's conventional-commit scope does not carry its ✓
    ("thin_unfiled", 0.0),  # scoring: a thin headline neither saying nor filed as a fix has no few-concept ✓
    ("label_name_whole", 0.0),  # evidence: a component label's code name is read whole, not by its words
    ("behind_own", 0.0),  # scan_demotions: a bundled HIGH demoted behind an older own line is objected too
    ("held_releases", 0.0),  # scan_demotions: a line of a release the customer already runs demotes a HIGH
    ("later_reach", 1.0),  # scan_release_notes: lines ranked just below the HIGH in its batch rival it too
    ("weak_line", 0.0),  # scoring: a weak line of a message is in the area only by its PR description
    ("held_resume", 0.0),  # scan_release_notes: ... before the scan stops at it, so the scan goes on
    ("held_specific", 0.0),  # scan_demotions: ... or an older one of them naming the problem more specifically
    ("held_stronger", math.inf),  # scan_demotions: ... or a confirmed fix of another part naming it better
    ("negated_base", 0.0),  # question_terms: an "un-" word also reads as the word it negates ("unminified")
]


def _drop_symptom_word(index: int, word: str) -> Callable[[dict[str, Any]], None]:
    def edit(data: dict[str, Any]) -> None:
        data["symptom"][index]["words"].remove(word)
    return edit


def _drop_entry(table: str, key: str) -> Callable[[dict[str, Any]], None]:
    """Switch one entry of a word-to-word table (`[abbreviation]`, `[equivalent]`) off."""
    def edit(data: dict[str, Any]) -> None:
        del data[table][key]
    return edit


def _own_family(index: int) -> Callable[[dict[str, Any]], None]:
    def edit(data: dict[str, Any]) -> None:
        record = data["symptom"][index]
        record["family"] = f"{record['name']}-alone"
    return edit


def _flag_off(index: int, flag: str) -> Callable[[dict[str, Any]], None]:
    def edit(data: dict[str, Any]) -> None:
        data["symptom"][index][flag] = False
    return edit


def _drop_ecosystem(index: int) -> Callable[[dict[str, Any]], None]:
    def edit(data: dict[str, Any]) -> None:
        data["ecosystem"][index]["words"] = []
    return edit


def _drop_counterpart(index: int) -> Callable[[dict[str, Any]], None]:
    def edit(data: dict[str, Any]) -> None:
        data["counterpart"][index]["sides"] = [[], []]
    return edit


def _drop_platform_word(index: int, word: str) -> Callable[[dict[str, Any]], None]:
    def edit(data: dict[str, Any]) -> None:
        data["platform"][index]["words"].remove(word)
    return edit


def _weight(name: str, value: float) -> Callable[[dict[str, Any]], None]:
    """The weight set to `value` in `[weight]` and in every input mode's own table that has it (a rule shipped on
    in one mode only, `[message_weight] weak_line`, is off only when its mode's value is)."""
    def edit(data: dict[str, Any]) -> None:
        for table in ("weight", *(f"{mode}_weight" for mode in lexicon.MODES)):
            if table == "weight" or name in data.get(table, {}):
                data[table][name] = value
    return edit


def _empty_list(name: str) -> Callable[[dict[str, Any]], None]:
    def edit(data: dict[str, Any]) -> None:
        data["words"][name] = []
    return edit


def _drop_word(name: str, word: str) -> Callable[[dict[str, Any]], None]:
    def edit(data: dict[str, Any]) -> None:
        data["words"][name] = [other for other in data["words"][name] if other != word]
    return edit


def _never(name: str) -> Callable[[dict[str, Any]], None]:
    def edit(data: dict[str, Any]) -> None:
        data["pattern"][name]["re"] = NEVER
    return edit


def _without_check(check: Any, table: str = "CHECKS") -> Callable[[], contextlib.AbstractContextManager[None]]:
    """`check` left out of `objections.CHECKS` (or of `objections.CAPS`) for the run."""
    @contextlib.contextmanager
    def patch() -> Iterator[None]:
        kept = getattr(objections, table)
        setattr(objections, table, tuple(other for other in kept if other is not check))
        try:
            yield
        finally:
            setattr(objections, table, kept)
    return patch


def _replaced(module: Any, name: str, value: Any) -> Callable[[], contextlib.AbstractContextManager[None]]:
    @contextlib.contextmanager
    def patch() -> Iterator[None]:
        kept = getattr(module, name)
        setattr(module, name, value)
        try:
            yield
        finally:
            setattr(module, name, kept)
    return patch


@contextlib.contextmanager
def switched_off(ablation: Ablation, packaged: dict[str, Any]) -> Iterator[None]:
    """The judge with this one entry off; the lexicon as the run started afterwards (an edit of lexicon.toml
    while it runs changes nothing)."""
    with all_switched_off([ablation], packaged):
        yield


@contextlib.contextmanager
def all_switched_off(chosen: list[Ablation], packaged: dict[str, Any]) -> Iterator[None]:
    """The judge with every one of these entries off at once (`--together`: their joint effect, which one at a
    time cannot show); the lexicon as the run started afterwards."""
    tables = copy.deepcopy(packaged)
    for ablation in chosen:
        if ablation.tables is not None:
            ablation.tables(tables)
    lexicon.use(tables)
    try:
        with contextlib.ExitStack() as stack:
            for ablation in chosen:
                if ablation.patch is not None:
                    stack.enter_context(ablation.patch())
            yield
    finally:
        lexicon.use(packaged)


# -- which lexicon entries a run used (so an ablation re-runs only the cases an entry can change) --------
_used: set[str] = set()


class _Recorded:
    """A compiled lexicon pattern that notes when it matched (and so did every pattern embedded in it)."""

    def __init__(self, name: str, compiled: Any, embedded: set[str]):
        self._compiled, self._names = compiled, {f"pattern:{n}" for n in {name} | embedded}

    def _hit(self, result: Any) -> Any:
        if result:
            _used.update(self._names)
        return result

    def search(self, *args: Any) -> Any:
        return self._hit(self._compiled.search(*args))

    def match(self, *args: Any) -> Any:
        return self._hit(self._compiled.match(*args))

    def fullmatch(self, *args: Any) -> Any:
        return self._hit(self._compiled.fullmatch(*args))

    def sub(self, repl: Any, string: str, count: int = 0) -> str:
        text, replaced = self._compiled.subn(repl, string, count)
        self._hit(replaced)
        return text

    def split(self, string: str, maxsplit: int = 0) -> list[str]:
        parts = self._compiled.split(string, maxsplit)
        self._hit(len(parts) > 1)
        return parts

    def finditer(self, *args: Any) -> Iterator[Any]:
        for match in self._compiled.finditer(*args):
            _used.update(self._names)
            yield match

    def findall(self, *args: Any) -> list[Any]:
        return self._hit(self._compiled.findall(*args))

    def __getattr__(self, name: str) -> Any:
        return getattr(self._compiled, name)


class _RecordedDict(dict):
    """A lexicon lookup table (synonyms, equivalents, platform words) that notes every key found in it."""

    def __init__(self, prefix: str, items: dict[str, str]):
        super().__init__(items)
        self._prefix = prefix

    def _note(self, key: object) -> None:
        if dict.__contains__(self, key):
            _used.add(f"{self._prefix}{key}")

    def get(self, key: Any, default: Any = None) -> Any:
        self._note(key)
        return super().get(key, default)

    def __getitem__(self, key: Any) -> Any:
        self._note(key)
        return super().__getitem__(key)

    def __contains__(self, key: object) -> bool:
        self._note(key)
        return super().__contains__(key)


@contextlib.contextmanager
def recording() -> Iterator[None]:
    """While inside, lexicon patterns, synonyms, equivalents and platform words note their use in `_used`. Term
    counts stored at index time are not used (a fingerprint that matches none): every entry is analysed, so its
    lookups count."""
    pattern, synonyms, platform_of = lexicon.pattern, lexicon.synonyms, lexicon.platform_of
    equivalents = lexicon.equivalents
    fingerprint = lexicon.fingerprint
    lexicon.fingerprint = lambda: "recording"
    embedded = {name: set(re.findall(r"<<(\w+)>>", "".join(_as_list(spec["re"]))))
                for name, spec in lexicon.data()["pattern"].items()}
    lexicon.pattern = lambda name: _Recorded(name, pattern(name), _closure(name, embedded))  # type: ignore
    lexicon.synonyms = lambda: _RecordedDict("synonym:", synonyms())
    lexicon.platform_of = lambda: _RecordedDict("platform:", platform_of())
    lexicon.equivalents = lambda: _RecordedDict("equivalent:", equivalents())
    try:
        yield
    finally:
        lexicon.pattern, lexicon.synonyms, lexicon.platform_of = pattern, synonyms, platform_of
        lexicon.equivalents = equivalents
        lexicon.fingerprint = fingerprint


def _as_list(value: str | list[str]) -> list[str]:
    return [value] if isinstance(value, str) else value


def _closure(name: str, embedded: dict[str, set[str]]) -> set[str]:
    """The patterns embedded in `name`, and in those, …"""
    found: set[str] = set()
    todo = [name]
    while todo:
        for inner in embedded.get(todo.pop(), set()):
            if inner not in found:
                found.add(inner)
                todo.append(inner)
    return found


@dataclass(frozen=True)
class Answer:
    text: str  # "high 8.52.0 #5242" / "no_result"
    right: bool  # the top candidate is an expected fix, or (no fix expected) the outcome is right


def answers(cases: list[Case], mode: str, config: AppConfig,
            used: dict[str, set[str]] | None = None) -> dict[str, Answer]:
    """Each case's answer; `used` (when given) gets what lexicon entries each case's run used."""
    found = {}
    for case in cases:
        _used.clear()
        result = run_case(case, mode, config)
        if used is not None:
            used[case.id] = set(_used)
        verdict = judge_result(case, result)
        top = top_candidate(result)
        name = f" {top.version} {f'#{top.pr}' if top.pr is not None else top.commit}" if top else ""
        confidence = f" ({top.confidence})" if top and top.confidence != result.outcome else ""
        right = verdict.top1 if verdict.has_fix else verdict.outcome_status != "wrong"
        listed = " (right fix listed)" if verdict.found and not verdict.top1 else ""
        found[case.id] = Answer(f"{result.outcome}{name}{confidence}{listed}", right)
    return found


def affected(cases: list[Case], ablation: Ablation, used: dict[str, set[str]]) -> list[Case]:
    """The cases whose baseline run used the entry (every case for an entry whose use is not recorded)."""
    return cases if ablation.used is None else [case for case in cases if ablation.used in used[case.id]]


def compare(name: str, base: dict[str, dict[str, Answer]], now: dict[str, dict[str, Answer]]) -> Row:
    row = Row(name)
    for mode in MODES:
        for case_id, before in base[mode].items():
            after = now[mode][case_id]
            if after.text == before.text:
                continue
            mark = lambda answer: "✓" if answer.right else "✗"  # noqa: E731
            row.changed.setdefault(mode, []).append(f"{case_id}: {before.text} {mark(before)} → "
                                                    f"{after.text} {mark(after)}")
            row.worse += before.right and not after.right
            row.better += after.right and not before.right
    return row


def main(argv: list[str]) -> int:
    parser = argparse.ArgumentParser(description=__doc__.split("\n\n")[0])
    parser.add_argument("--only", help="comma-separated name prefixes of the entries to switch off")
    parser.add_argument("--list", action="store_true", help="list the entries and exit")
    parser.add_argument("--json", metavar="FILE", help="also write every row as JSON")
    parser.add_argument("--shard", metavar="I/N", help="run only every N-th entry starting at I (0-based)")
    parser.add_argument("--skip", help="comma-separated entry names not to run (measured already)")
    parser.add_argument("--names", help="comma-separated exact entry names to switch off")
    parser.add_argument("--together", action="store_true",
                        help="switch the chosen entries off all at once (one row: their joint effect)")
    args = parser.parse_args(argv)
    packaged = copy.deepcopy(lexicon.data())
    lexicon.use(packaged)
    chosen = ablations()
    if args.only:
        prefixes = tuple(prefix.strip() for prefix in args.only.split(",") if prefix.strip())
        chosen = [ablation for ablation in chosen if ablation.name.startswith(prefixes)]
    if args.skip:
        skipped = {name.strip() for name in args.skip.split(",")}
        chosen = [ablation for ablation in chosen if ablation.name not in skipped]
    if args.names:
        wanted = {name.strip() for name in args.names.split(",") if name.strip()}
        chosen = [ablation for ablation in chosen if ablation.name in wanted]
        missing = wanted - {ablation.name for ablation in chosen}
        if missing:
            parser.error(f"no such entries: {', '.join(sorted(missing))}")
    if args.shard:
        index, count = (int(part) for part in args.shard.split("/"))
        chosen = chosen[index::count]
    if args.list:
        print("\n".join(ablation.name for ablation in chosen))
        return 0
    cases = [case for path in CASE_FILES for case in load_cases(path)]
    with FakeGitHub(fixture_dir()) as github:
        github.rate_limit_limit = github.rate_limit_remaining = 10**9  # a whole run makes more than 5,000 requests
        os.environ["GITHUB_API_URL"] = github.url
        os.environ.pop("GITHUB_TOKEN", None)
        config = AppConfig(db=labelled_db(), engine="offline", run_source="eval", registry=registry_file())
        used: dict[str, dict[str, set[str]]] = {mode: {} for mode in MODES}
        with recording():
            base = {mode: answers(cases, mode, config, used[mode]) for mode in MODES}
        print(f"{len(cases)} cases × {len(MODES)} input modes; {len(chosen)} entries to switch off", file=sys.stderr)
        if args.together:
            with all_switched_off(chosen, packaged):
                now = {mode: answers(cases, mode, config) for mode in MODES}
            rows = [compare(f"{len(chosen)} entries together", base, now)]
            chosen = []
        else:
            rows = []
        for number, ablation in enumerate(chosen, 1):
            started = time.perf_counter()
            with switched_off(ablation, packaged):
                now = {mode: {**base[mode], **answers(affected(cases, ablation, used[mode]), mode, config)}
                       for mode in MODES}
            rows.append(compare(ablation.name, base, now))
            print(f"[{number}/{len(chosen)}] {ablation.name}: {sum(map(len, rows[-1].changed.values()))} changed "
                  f"({time.perf_counter() - started:.0f} s)", file=sys.stderr)
            print(json.dumps(rows[-1].__dict__, ensure_ascii=False), file=sys.stderr, flush=True)  # kept if stopped
    print(render(rows))
    if args.json:
        Path(args.json).write_text(json.dumps([row.__dict__ for row in rows], indent=1, ensure_ascii=False))
    return 0


def render(rows: list[Row]) -> str:
    lines = ["| entry switched off | fields | message | right→wrong | wrong→right | changed cases |",
             "|---|---|---|---|---|---|"]
    for row in rows:
        changes = "; ".join(f"[{mode}] {change}" for mode in MODES for change in row.changed.get(mode, []))
        lines.append(f"| `{row.name}` | {len(row.changed.get('fields', []))} | {len(row.changed.get('message', []))} "
                     f"| {row.worse} | {row.better} | {changes or '—'} |")
    unused = [row.name for row in rows if not row.changed]
    lines += ["", f"Changing no case ({len(unused)}): " + (", ".join(f"`{name}`" for name in unused) or "none")]
    return "\n".join(lines)


if __name__ == "__main__":
    sys.exit(main(sys.argv[1:]))
