"""Engine-independent reasons a candidate cannot be the fix, whatever an engine scored it.

Why its own module: every engine's score goes through them (`subtasks/pr_evaluation.py`), the one path
calibration and cross-validation run too (`bench/calibrate_offline.py`), so they measure what ships.
Each check lowers a HIGH to MEDIUM and says why; the candidate is then marked `objected` and listed after the
others of its level. A cap (`CAPS`) lowers the level the same way but objects to nothing: it says the evidence is
thin, not that the line is about something else, so the line keeps its place among the MEDIUMs.
"""

from __future__ import annotations

from collections.abc import Callable

from indexer.bumps import parse_bump
from indexer.release_notes import commit_prefix
from wif_action import lexicon
from wif_action.direction import opposite
from wif_action.lexicon.terms import analyse
from wif_action.models import Confidence, Entry, PullRequest, Score
from wif_action.platforms import MAX_API_LEVEL, api_levels, named_platforms
from wif_action.problem_kind import feature_sections
from wif_action.question import Question, failure_classes

Check = Callable[[Score, PullRequest, Entry | None, Question], Score | None]


def weighed(score: Score, pull: PullRequest, entry: Entry | None, question: Question) -> tuple[Score, bool]:
    """The score after every check and cap, and whether any check objected (a cap never does)."""
    objected = False
    for check in CHECKS:
        objection = check(score, pull, entry, question)
        if objection is not None:
            score, objected = objection, True
    for cap in CAPS:
        capped = cap(score, pull, entry, question)
        if capped is not None:
            score = capped
    return score, objected


def not_on_a_reference_alone(score: Score, _pull: PullRequest, entry: Entry | None,
                             _question: Question) -> Score | None:
    """A bump line ("Bump Cocoa SDK from v8.13.0 to v8.14.2", "Bump `pydantic-core` to v2.14.3") says which
    releases of something else came in, not what they fixed, and a line pointing at a fix in another
    repository ("fixed upstream in owner/repo#12") has its evidence there: at most MEDIUM. A bundled SDK's own
    entries, followed by the scan, carry the evidence."""
    if entry is None or score.confidence == Confidence.LOW:
        return None
    bump, upstream = parse_bump(entry.text), lexicon.pattern("upstream_fix").search(entry.text)
    if bump is not None:
        why = f"only a bump of the bundled {bump.name} SDK; what it fixed is in that SDK's own notes"
    elif lexicon.pattern("dependency_update").match(entry.text):
        why = "only a dependency update; what it fixed is in that dependency's own notes"
    elif upstream is not None and upstream.group("repo").lower() != entry.release.repo.lower():
        why = f"the fix it points at is in {upstream.group('repo')}"
    else:
        return None
    return Score(confidence=Confidence.MEDIUM, reason=f"{score.reason} ({why})")


def on_the_platform(score: Score, pull: PullRequest, entry: Entry | None, question: Question) -> Score | None:
    """A fix its own words scope to other platforms ("… on web, linux and windows") than the problem's
    ("On iOS, …") cannot fix it: at most MEDIUM, saying why."""
    if score.confidence == Confidence.LOW:
        return None
    wanted = question.platforms
    scoped = named_platforms(entry.text if entry is not None else pull.title)
    if not wanted or not scoped or wanted & scoped:
        return None
    return Score(confidence=Confidence.MEDIUM,
                 reason=f"{score.reason} But it is about {', '.join(sorted(scoped))}, and the problem is on "
                        f"{', '.join(sorted(wanted))}.")


def on_the_api_levels(score: Score, pull: PullRequest, entry: Entry | None, question: Question) -> Score | None:
    """A fix its own words scope to Android API levels ("… running API level 34+") none of which the problem's
    are ("API 23 and below") cannot fix it: at most MEDIUM, saying why."""
    if score.confidence == Confidence.LOW or not question.api_levels:
        return None
    scoped = api_levels(entry.text if entry is not None else pull.title) or api_levels(pull.title)
    if not scoped or scoped & question.api_levels:
        return None
    return Score(confidence=Confidence.MEDIUM,
                 reason=f"{score.reason} But it is about Android API levels {_span(scoped)}, and the problem is "
                        f"on {_span(question.api_levels)}.")


def _span(levels: frozenset[int]) -> str:
    low, high = min(levels), max(levels)
    return f"{low}+" if high == MAX_API_LEVEL else f"{high} and below" if low == 1 else \
        str(low) if low == high else f"{low}–{high}"


def on_the_side_asked(score: Score, pull: PullRequest, entry: Entry | None, question: Question) -> Score | None:
    """A fix that qualifies a thing by the other side of an exchange (lexicon `[[counterpart]]`) than the problem
    qualifies it by — "cancel sending client request body on response future drop" for a response body that ends
    early — is about the same subject's other side, another trigger of it, another bug: at most MEDIUM, and listed
    after the lines nothing objects to. A problem that names the fix's side too objects to nothing.

    Why only a qualified thing: a headline naming only requests, for a problem naming only responses, moved no
    labelled answer from wrong to right (bench/ablation.md), and "requests" alone is often the whole exchange."""
    if score.confidence == Confidence.LOW or not question.sides:
        return None
    cut = int(lexicon.weight("headline_chars"))
    named = lexicon.sides_named(f"{entry.text[:cut] if entry is not None else ''}\n{pull.title}")
    counterparts = lexicon.counterparts()
    other = sorted(side for side, things in named.items() if side not in question.sides
                   and things & question.sides.get(counterparts[side], frozenset()))
    if not other:
        return None
    asked = sorted(counterparts[side] for side in other)
    return Score(confidence=Confidence.MEDIUM,
                 reason=f"{score.reason} But it is about the {' and '.join(other)} side, and the problem is about "
                        f"the {' and '.join(asked)}.")


def in_the_asked_direction(score: Score, pull: PullRequest, entry: Entry | None, question: Question) -> Score | None:
    """A change the opposite way (adding what the customer has too much of, removing what they miss) is
    about the same thing but not its fix: at most MEDIUM, saying why."""
    if score.confidence == Confidence.LOW:
        return None
    against = next((reason for headline in (pull.title, entry.text if entry else "")
                    if (reason := opposite(headline, question.complaints))), None)
    if against is None:
        return None
    return Score(confidence=Confidence.MEDIUM, reason=f"{score.reason} But {against}.")


def a_behaviour_change(score: Score, pull: PullRequest, entry: Entry | None, _question: Question) -> Score | None:
    """A `refactor:`/`ref:`/`chore:` change says it changes no behaviour: at most MEDIUM, saying why — unless the
    release note's own line says it fixes something (`pattern.fix_verb_headline`: "Fixes org auth tokens with no URL
    not supported by bumping CLI to v2.21.2" of a `chore(deps): update CLI` PR).

    Why: the PR's commit type is how the change was filed; the release line is what the maintainers tell users it
    changed, and a bump of a bundled tool that fixes a bug is filed as a chore as often as not."""
    if score.confidence != Confidence.HIGH:
        return None
    note = entry.text if entry is not None else ""
    if _note_says_it_fixes(note):
        return None
    for headline in (pull.title, note):
        prefix = commit_prefix(headline)
        if prefix is not None and prefix[0] in lexicon.words("no_behaviour_types"):
            return Score(confidence=Confidence.MEDIUM,
                         reason=f"{score.reason} But it is marked `{prefix[0]}`, a change that declares no "
                                "change of behaviour.")
    return None


def _note_says_it_fixes(note: str) -> bool:
    """Whether a release line leads with a fix verb ("Fixes …", "fix(x): Prevent …") and declares no type that
    changes no behaviour itself ("chore: fix lint" does)."""
    prefix = commit_prefix(note)
    return bool(lexicon.pattern("fix_verb_headline").match(note)) and \
        (prefix is None or prefix[0] not in lexicon.words("no_behaviour_types"))


def a_fix_for_a_bug(score: Score, _pull: PullRequest, entry: Entry | None, question: Question) -> Score | None:
    """A feature entry answers a request for missing functionality; for a broken behaviour it is at most
    MEDIUM, and listed after the fixes (the spec's "prioritize Fixes"). So is an entry of any other section too
    light to make a HIGH of a bug report (`_below_fixes`: a breaking change, a performance note, a deprecation), so
    it never leads the older fixes as the clear match."""
    if score.confidence == Confidence.LOW or entry is None or question.wants_functionality:
        return None
    if entry.section in feature_sections():
        why = "it adds functionality"
    elif _below_fixes(entry.section):
        why = f"it is filed under {entry.section} changes, not fixes"
    else:
        return None
    return Score(confidence=Confidence.MEDIUM,
                 reason=f"{score.reason} But {why}, and the problem is a broken behaviour.")


def _below_fixes(section: str) -> bool:
    """Whether a release-note section weighs less for a bug report (lexicon.toml [section_weight]) than a line
    needs to be a HIGH (`min_section_for_high`): what the maintainers filed there is not what they call a fix."""
    weights = lexicon.section_weights()
    return weights.get(section, weights["other"]) < lexicon.weight("min_section_for_high")


def a_feature_for_missing_functionality(score: Score, _pull: PullRequest, entry: Entry | None,
                                       question: Question) -> Score | None:
    """The mirror of `a_fix_for_a_bug`: when the request asks for functionality that does not exist yet, the
    spec prioritises the features that add it, so a fix in the same area is listed after them. Its level
    stays: a fix can deliver what was missing, and only the order among MEDIUMs changes."""
    if score.confidence != Confidence.MEDIUM or entry is None or entry.section in feature_sections():
        return None
    if not question.wants_functionality or _names_what_failed(question):
        return None
    return Score(confidence=Confidence.MEDIUM,
                 reason=f"{score.reason} But it changes existing behaviour, and the request asks for functionality.")


def _names_what_failed(question: Question) -> bool:
    """The problem names what failed (a `says_what` symptom of the lexicon: a crash, a hang, a 5xx response): a
    broken behaviour, whatever its ask's words ("… our 5xx alerting fires. Can a newer echo tell client cancellations
    apart?"), so the fix of it is an answer as good as a feature (neither is objected, `a_fix_for_a_bug` and this).

    Why: read as a request for functionality alone, the right fix ("Avoid context canceled errors") was objected, and
    an objected MEDIUM never stops the scan nor leads while an unrelated MEDIUM stands."""
    return bool(question.problem_keys & lexicon.says_what_terms())


def more_than_the_note(score: Score, pull: PullRequest, _entry: Entry | None, _question: Question) -> Score | None:
    """A line that cites only a commit has no PR whose title and description could confirm what the note
    says: the note is both the match and its only check, so it is at most MEDIUM (the spec's HIGH asks for a
    PR that explicitly mentions fixing the symptom). The candidate still names the release and the commit.

    A cap, not an objection (`CAPS`): like a PR whose details could not be read (`pr_evaluation`, "PR details
    unavailable"), the line is judged on its own words and keeps its place among the MEDIUMs — the oldest, or
    the clear leader (`candidate_order`), leads; as an objection it was listed after every MEDIUM nothing objected
    to, so the right commit line, the strongest of its scan, lost to an unrelated MEDIUM 40 releases later."""
    if score.confidence != Confidence.HIGH or pull.commit is None:
        return None
    return Score(confidence=Confidence.MEDIUM,
                 reason=f"{score.reason} But the release note cites only a commit, so nothing beyond this one line "
                        "confirms it.")


def of_the_failure_asked(score: Score, pull: PullRequest, entry: Entry | None, question: Question) -> Score | None:
    """The problem says what failed (a crash, a hang, running out of memory: the lexicon's `says_what` symptoms):
    a fix whose headline names only another of these (a crash fix for a frozen screen) is the same subject's
    other bug — at most MEDIUM, and listed after the MEDIUMs nothing objects to. A headline naming none is not
    objected to (the spec's MEDIUM "does not directly mention the symptom"); "missing", "dropped" and the like
    are left out, as a condition ("fires without a sender") reads like them."""
    if score.confidence == Confidence.LOW:
        return None
    classes = lexicon.says_what_terms()
    asked = _families(question.problem_keys & classes)
    if not asked:
        return None
    cut = int(lexicon.weight("headline_chars"))  # the start of a note is its headline, as the offline judge reads it
    headline = f"{entry.text[:cut] if entry is not None else ''}\n{pull.title}"
    named = _families(frozenset(term.key for term in analyse(headline)) & classes - lexicon.remedy_terms())
    if asked & named:
        return None
    if not named:
        return None
    what = ", ".join(sorted(_names(named)))
    return Score(confidence=Confidence.MEDIUM,
                 reason=f"{score.reason} But it names another failure ({what}) than the problem's.")


def of_the_exception_asked(score: Score, pull: PullRequest, entry: Entry | None,
                           question: Question) -> Score | None:
    """The problem names the class of its failure (lexicon `failure_class`: "a `NullPointerException` thrown
    from …"): a fix whose headline names only other classes ("Fix AbstractMethodError when …") fixes another
    exception of the same place — another bug, at most MEDIUM and listed after the MEDIUMs nothing objects to. A
    headline naming no class is not objected to."""
    if score.confidence == Confidence.LOW:
        return None
    asked = question.failure_classes
    if not asked:
        return None
    cut = int(lexicon.weight("headline_chars"))
    named = failure_classes(f"{entry.text[:cut] if entry is not None else ''}\n{pull.title}")
    if not named or asked.keys() & named.keys():
        return None
    return Score(confidence=Confidence.MEDIUM,
                 reason=f"{score.reason} But it names another failure ({', '.join(sorted(named.values()))}) "
                        "than the problem's.")


def only_the_types(score: Score, pull: PullRequest, entry: Entry | None, question: Question) -> Score | None:
    """A change to type declarations only (lexicon `types_only`: a `types:`/`typings:` commit, "… type annotation
    to accept …", "… for static type checkers") changes what a type checker reads, not what the code does: for a
    problem that names no types (lexicon `types_asked`: TypeScript, mypy, type definitions, …) — a failure at run
    time — it is at most MEDIUM, and listed after the MEDIUMs nothing objects to.

    Why: such a line names the problem's words as any line of its area does ("types: export CJS types from ESM" for
    a server that fails to start on an ESM import, "`readinto()` type annotation" for a `TypeError`), and it led the
    run-time fix of the same release or an older one."""
    return _headline_only(score, pull, entry, question, ("types_only", "types_asked"), anchored=False,
                          why="it changes type declarations only, and the problem is a failure at run time.")


def only_the_message(score: Score, pull: PullRequest, entry: Entry | None, question: Question) -> Score | None:
    """A change whose lead rewords a failure's message (lexicon `message_only`: "Improve exception message when the
    wrong password is used", "Better exception for bad passwords") changes what the failure says, not whether it
    happens: for a problem that is not about what a message says (lexicon `message_asked`: "the error tells us …",
    "misleading") it is at most MEDIUM, and listed after the MEDIUMs nothing objects to.

    Why: such a line names the failure's own words (its subject, "password", "authentication") as the fix of that
    failure does, and a ✓ on it tells a customer whose connection fails that a clearer error fixed it."""
    return _headline_only(score, pull, entry, question, ("message_only", "message_asked"), anchored=True,
                          why="it changes what the failure's message says, and the problem is the failure itself.")


def _headline_only(score: Score, pull: PullRequest, entry: Entry | None, question: Question,
                   patterns: tuple[str, str], *, anchored: bool, why: str) -> Score | None:
    """At most MEDIUM when the line's or the PR title's headline is only of one kind (the first lexicon pattern;
    `anchored`: it must open the headline) and the problem does not ask about that kind (the second pattern)."""
    only, asked = (lexicon.pattern(name) for name in patterns)
    if score.confidence == Confidence.LOW or asked.search(question.text):
        return None
    cut = int(lexicon.weight("headline_chars"))
    headlines = (entry.text[:cut] if entry is not None else "", pull.title)
    if not any((only.match if anchored else only.search)(headline) for headline in headlines):
        return None
    return Score(confidence=Confidence.MEDIUM, reason=f"{score.reason} But {why}")


def _families(keys: frozenset[str]) -> set[int]:
    """The kinds of failure (lexicon: a symptom's `family`) these term keys name."""
    return {index for index, family in enumerate(lexicon.symptom_families()) if family & keys}


def _names(families: set[int]) -> set[str]:
    names = lexicon.symptom_names()
    return {names.get(term, term) for index in families for term in lexicon.symptom_families()[index]}


CHECKS: tuple[Check, ...] = (not_on_a_reference_alone, on_the_platform, on_the_api_levels, on_the_side_asked,
                             in_the_asked_direction,
                             a_behaviour_change, a_fix_for_a_bug, a_feature_for_missing_functionality,
                             of_the_failure_asked, of_the_exception_asked, only_the_types, only_the_message)
CAPS: tuple[Check, ...] = (more_than_the_note,)  # lower the level, object to nothing
