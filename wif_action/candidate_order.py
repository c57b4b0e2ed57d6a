"""The one top-candidate rule: which candidate an answer leads with, and the order it lists the others in.

Why one home: the rendered answer, `wif eval`, calibration and the run records all name "the" top candidate.
Written four times, the copies drifted (the run records' ignored objections), so a run record could name
another top PR than the answer. Every reader asks here.
"""

from __future__ import annotations

import math
import re
from collections.abc import Callable, Iterable
from typing import Protocol, TypeVar

from indexer.versions import parse_tag, version_key
from wif_action import lexicon
from wif_action.models import Grounds


class Ranked(Protocol):
    """What the rule reads of a candidate (an answer's `Candidate`, an evaluation `Claim`, …)."""

    @property
    def confidence(self) -> str: ...

    @property
    def objected(self) -> bool: ...

    @property
    def second_look(self) -> bool: ...

    @property
    def tag(self) -> str: ...

    @property
    def version(self) -> str: ...

    @property
    def strength(self) -> float | None: ...

    @property
    def breadth(self) -> float | None: ...

    @property
    def filed(self) -> float | None: ...


R = TypeVar("R", bound=Ranked)
UNRELEASED = "unreleased"  # the version of a candidate from the default branch's Unreleased notes


def candidate_order(candidates: Iterable[R]) -> list[R]:
    """HIGH candidates first, in the order found; then the others, oldest release first (within one release,
    the one naming the most of the problem first: `within_release`) — unless one of them is the clear match
    (`clear_leader`), which then leads them. At each of the two levels a candidate an objection marks
    (`objections.py`: other platform, opposite direction, …) comes after those nothing objects to, so it never
    leads while another candidate of its level stands; a second look (scan_release_notes.as_second_look) comes
    after every other MEDIUM, objected or not."""
    def key(candidate: R) -> tuple[bool, bool, bool, str, float]:
        high = candidate.confidence == "high"
        if high:
            return False, False, candidate.objected, "", 0.0
        return True, candidate.second_look, candidate.objected, release_order(candidate), within_release(candidate)

    ordered = sorted(candidates, key=key)
    leader = clear_leader(ordered)
    return ordered if leader is None else [leader, *(c for c in ordered if c is not leader)]


def within_release(candidate: Ranked) -> float:
    """The sort key among non-HIGH candidates of the same release: the headline naming more of the problem
    (`lead_measure`) first (no strength measured: after those with one, in the order found).

    Why: "oldest first" says nothing about two lines of one release; the order found is the notes' order, which
    says nothing about the problem, while the headline naming more of it is the likelier fix."""
    return -lead_measure(candidate)


def clear_leader(candidates: Iterable[R]) -> R | None:
    """Without a HIGH, the MEDIUM (nothing objecting; released, if any is) whose headline names `lead_margin`
    (lexicon.toml [weight]) times as much of the problem as any other such MEDIUM, by `lead_measure` or by strength
    alone, unless the two measures name two different leaders; None when there is a HIGH, fewer than two, any
    without a measured strength (an engine that gives none), or no clear winner. A second look nothing objects to
    leads the same way when it names `lead_margin` times as much as every other such MEDIUM and second look
    (`_look_ahead`).

    Why: oldest first answers "the first release that may fix it" when the candidates are alike; when one
    names far more of the problem than the rest, the older ones are mostly the same area, not the fix. Far more of
    its ideas (`lead_measure`) or far more of its words (strength) both say so; when each names another line, neither
    is clear."""
    pool = list(candidates)
    if any(c.confidence == "high" for c in pool):
        return None
    peers = [c for c in pool if not c.objected and not c.second_look]
    peers = [c for c in peers if c.version != UNRELEASED] or peers  # one the customer can have today leads
    return _look_ahead(pool, peers) or _leading(peers, lexicon.weight("lead_margin"))


def _look_ahead(pool: list[R], peers: list[R]) -> R | None:
    """The second look (nothing objecting, released) that names `lead_margin` (lexicon.toml [weight]) times as much
    of the problem as every other MEDIUM nothing objects to and every other such second look, as `clear_leader`
    measures it.

    Why: a line becomes a second look on its release line's words alone, against its batch's best line
    (`relative_to_best`); once its PR is read and scored it may name the problem's ideas far better than every
    candidate listed — then the line-level guess was wrong, and oldest-first would lead with a weaker line."""
    looks = [c for c in pool if c.second_look and not c.objected and c.version != UNRELEASED]
    if not looks:
        return None
    leader = _leading([*peers, *looks], lexicon.weight("lead_margin"))
    return leader if leader is not None and leader.second_look else None


def _leading(peers: list[R], margin: float) -> R | None:
    """The peer `margin` times ahead of every other by `lead_measure` or by strength, unless the two name two
    different peers; None for fewer than two or any without a measured strength."""
    if len(peers) < 2 or any(c.strength is None for c in peers) or not math.isfinite(margin):
        return None
    by_ideas, by_words = _ahead(peers, lead_measure, margin), _ahead(peers, lead_words, margin)
    if by_ideas is not None and by_words is not None and by_ideas is not by_words:
        return None
    return by_ideas or by_words


def _ahead(peers: list[R], measure: Callable[[R], float], margin: float) -> R | None:
    """The peer `measure` puts at least `margin` times ahead of every other, if any."""
    ranked = sorted(peers, key=lambda c: -measure(c))
    best, runner_up = measure(ranked[0]), measure(ranked[1])
    return ranked[0] if best > 0 and best >= margin * runner_up else None


def lead_measure(candidate: Ranked) -> float:
    """How much of the problem a candidate's headline names, for `clear_leader`: its `strength` (the problem's
    vocabulary it names, idf-weighted) times its `breadth` (the share of the problem's distinct ideas it names)
    to the power `lead_breadth` (lexicon.toml [weight]; 0: strength alone; no breadth measured: 1), weighed by the
    section its line is filed under (`_as_filed`).

    Why: strength counts every spelling of one idea ("watchdog termination", "watchdog", "termination" are three
    terms of one idea), so a headline repeating the one idea an older line also names can look as strong as one
    naming it and a second idea of the problem; breadth counts each idea once, so the line naming more of what
    the customer describes is the clear match."""
    breadth = 1.0 if candidate.breadth is None else candidate.breadth
    return (candidate.strength or 0.0) * breadth ** lexicon.weight("lead_breadth") * _as_filed(candidate)


def lead_words(candidate: Ranked) -> float:
    """The problem's words a candidate's headline names (`strength`), weighed by its section (`_as_filed`): the
    second measure of `clear_leader`."""
    return (candidate.strength or 0.0) * _as_filed(candidate)


def _as_filed(candidate: Ranked) -> float:
    """The weight of the section the candidate's line is filed under (`filed`, `filed_weight`) to the power
    `lead_section` (lexicon.toml [weight]; 0: off; no section known: 1).

    Why: the maintainers' heading says what a change is: a line filed under a mixed or lighter heading ("Other",
    a project's area headings, "Improvements") names the problem's words as often as a fix does, without being
    one, and it led the fix filed as such by naming a few more words ("Add V2List types …" over "Fix
    V2ListIterator: … empty page handling"), or, the older one, kept the later fix from leading. The judge already
    weighs a line's mass by its section; the order of the MEDIUMs did not."""
    return 1.0 if candidate.filed is None else candidate.filed ** lexicon.weight("lead_section")


def filed_weight(section: str | None, wants_functionality: bool) -> float | None:
    """The weight of a release-note section for this question (lexicon.toml [section_weight]; a feature section
    weighs `missing_functionality_section` when the request asks for functionality); None without a section."""
    if section is None:
        return None
    if wants_functionality and section in lexicon.words("feature_sections"):
        return lexicon.weight("missing_functionality_section")
    weights = lexicon.section_weights()
    return weights.get(section, weights["other"])


def older_rivals(candidates: Iterable[R], grounds: Callable[[R], Grounds | None],
                 held: Iterable[R] = ()) -> list[tuple[R, R]]:
    """The HIGH candidates to demote to MEDIUM, each with the older MEDIUM that rivals it: a MEDIUM of an older
    release (nothing objecting, released) that brings evidence of its own — the run read its PR (`grounds`:
    `own_text`, or it cites only a commit: `_its_own`), so it is more than a release line echoing the question — is
    about the same thing (`_shared_subject`: it names the HIGH's most specific subject, or one of its rare ones, by
    the same term), and covers the problem at least `older_rival` (lexicon.toml [weight]; inf: the rule off) times as
    well (`strength`), or names at least `rival_breadth` times as many of its ideas (`_as_broad`), or was the first
    confirmed match of that subject, MEDIUM only by a cap (`first_match`).

    Why: the scan stops at the first HIGH, and a later fix of the same subject can reach HIGH while the right,
    older line stays MEDIUM; when the older one is about the same thing and names the problem about as well,
    the answer lists both, oldest first, instead of a ✓ on the later one. A line whose PR could not be read cannot
    take a ✓ away (its PR exists and was not seen: the line may be a planted note echoing the question); a line
    citing only a commit has nothing more to read, its note is the commit's own words.

    `held`: lines of the releases the customer already runs (`PrEvaluator.held`), MEDIUM or HIGH on their own
    words, rival the same way by their own weights (`held_rival` for `older_rival`, inf: off; `held_share` for
    `rival_share`) — never an answer, so they need no PR read: the customer's release already names a fix of this
    as well as the later line does, so the later one is no ✓."""
    pool, held_pool = list(candidates), list(held)
    older = (lexicon.weight("older_rival"), lexicon.weight("rival_share"))
    customers = (lexicon.weight("held_rival"), lexicon.weight("held_share"))
    ideas, thin = lexicon.weight("rival_breadth"), lexicon.weight("thin_rival")
    rivals = [(c, older, thin) for c in pool if c.confidence == "medium" and not c.objected and not c.second_look
              and c.strength is not None
              and c.version != UNRELEASED and (g := grounds(c)) is not None and _its_own(g)]
    rivals = [(c, customers, math.inf) for c in held_pool if not c.objected and c.strength is not None
              and grounds(c) is not None] + rivals
    found: list[tuple[R, R]] = []
    for high in pool:
        named = grounds(high)
        if high.confidence != "high" or not high.strength or named is None or not named.subjects:
            continue
        rival = next((r for r, (least, rare), thin_bar in rivals if math.isfinite(least)
                      and release_order(r) < release_order(high)
                      and ((_shared_subject(named, grounds(r) or Grounds(), rare)
                            and (first_match(grounds(r)) or (r.strength or 0.0) >= least * high.strength
                                 or _as_broad(r, high, ideas)))
                           or (named.thin and _as_broad(r, high, thin_bar)))), None)
        if rival is not None:
            found.append((high, rival))
    return found


def more_specific_held(high: R, held: Iterable[R], grounds: Callable[[R], Grounds | None]) -> R | None:
    """The first line of a release the customer already runs (`PrEvaluator.held`, MEDIUM or HIGH on its own words,
    nothing objecting) that names the problem more specifically than the later HIGH: it names one of the HIGH's
    subjects (`_names_subject`), every subject of the HIGH it leaves unnamed is everyday (a share of the repository's
    notes of at least `held_specific`, lexicon.toml [weight]; 0: off), it names a specific idea of the problem the
    HIGH does not (`_specific_beyond`), and it names more of the problem's ideas (`breadth`). None when none does.
    Both are weighed on their release line alone.

    Why: the scan judges only releases after the customer's (the spec), so when the customer's release already says
    it fixed the problem ("`null` in the JSON payload caused an uncaught exception" of the gRPC gateway), a later
    line of the same part of the code ("respond with status 400 … instead of 500" on a JSON decoding error) reached
    ✓ by its everyday words though it names nothing of the problem the older line leaves out. A later line that
    names a specific idea the older one lacks ("one data category", "Unity 6") is the later fix of that: it keeps
    its ✓ (the fixed-again lines name the same subjects and are no broader)."""
    rare, named = lexicon.weight("held_specific"), grounds(high)
    if rare <= 0 or named is None or not named.subjects or high.breadth is None:
        return None
    for line in held:
        theirs = grounds(line)
        if (line.confidence in ("high", "medium") and not line.objected and theirs is not None and theirs.subjects
                and line.breadth is not None and line.breadth > high.breadth
                and release_order(line) < release_order(high)
                and any(_names_subject(theirs, subject) for subject in named.subjects)
                and all(share >= rare for subject, share in _shared(named) if not _names_subject(theirs, subject))
                and _specific_beyond(theirs, named, rare)):
            return line
    return None


def stronger_held(high: R, held: Iterable[R], grounds: Callable[[R], Grounds | None]) -> R | None:
    """The first line of a release the customer already runs, confirmed HIGH on its own words (`PrEvaluator.held`,
    nothing objecting) and filed as a fix (`_filed_as_fix`), that is about another part of the code than the later
    HIGH (no subject in common, `_apart`) and names the problem at least `held_stronger` (lexicon.toml [weight]; inf:
    off) times as well (`strength`). None when none does. Both are weighed on their release line alone.

    Why: the other held rules ask for a subject in common, so a later line of another part of the code ("`:multi`
    with keyword `:dispatch` accumulates data to generated values") kept its ✓ on the customer's setup words while
    the customer's own release says, in more of the problem's words, that it fixed the problem ("Fix `mu/get-in` for
    false-y keys"): two explanations of one problem, and the better one is already in the customer's hands. A line of
    the same part of the code is left to those rules: a stronger older fix there is often an earlier fix of that
    code that the later line fixes again ("Make SentryBreadcrumb thread-safe" before "Fixes crash caused by modifying
    breadcrumbs from multiple threads"); a line filed as a feature ("Calculated break duration for Circuit breaker")
    says it fixed nothing."""
    least, named = lexicon.weight("held_stronger"), grounds(high)
    if not high.strength or not math.isfinite(least) or named is None or not named.subjects:
        return None
    for line in held:
        theirs = grounds(line)
        if (line.confidence == "high" and not line.objected and _filed_as_fix(line)
                and line.strength is not None and line.strength >= least * high.strength
                and release_order(line) < release_order(high)
                and theirs is not None and theirs.subjects and _apart(theirs, named)):
            return line
    return None


def _filed_as_fix(line: Ranked) -> bool:
    """Whether a line is filed under the fixes: its section weighs as much as the fix section's
    (lexicon.toml [section_weight] `fix`); no section known: not."""
    return line.filed is not None and line.filed >= lexicon.section_weights()["fix"]


def _apart(one: Grounds, other: Grounds) -> bool:
    """Whether two lines name no subject in common: not the same name (`_same_name`), and no word of one's subject
    (of at least four letters) within a word of the other's ("breadcrumb" of `SentryBreadcrumb`, "header" of
    "policy header").

    Why: a code name is one term and the prose naming the same thing its words, so comparing terms alone would call
    two lines about one part of the code apart."""
    def within(word: str, other_word: str) -> bool:
        return len(word) >= 4 and word in other_word

    return not any(_same_name(a, b) or any(within(x, y) or within(y, x) for x in a.split() for y in b.split())
                   for a in one.subjects for b in other.subjects)


def _shared(grounds: Grounds) -> list[tuple[str, float]]:
    """Each subject with its share of the repository's notes (1.0, everyday, when the engine measures none)."""
    return list(zip(grounds.subjects, grounds.shares or (1.0,) * len(grounds.subjects), strict=False))


def _names_subject(line: Grounds, subject: str) -> bool:
    """Whether a line names a subject: by the same name (`_same_name`), or by a word of the subject's phrase that is
    not its last ("sentinel" of "sentinel server": the word saying which server; "view" of "scroll view" is only
    the kind of thing, and says nothing of which).

    Why: a release line often names the part of the code by its qualifier alone ("Add `auth` to command-map for
    Sentinel"), while the head noun of an English compound is the general word."""
    *qualifiers, _ = subject.split()
    return any(_same_name(subject, theirs) or theirs in qualifiers for theirs in line.subjects)


def _specific_beyond(line: Grounds, high: Grounds, rare: float) -> bool:
    """Whether the line names a subject rarer than `rare` in its repository's notes that the HIGH does not name,
    by the same name or as a word of one of its phrases either way."""
    return any(share < rare and not any(_same_name(subject, other) or subject in other.split()
                                        or other in subject.split() for other in high.subjects)
               for subject, share in _shared(line))


def _its_own(grounds: Grounds) -> bool:
    """Whether a scanned line brings evidence of its own to rival with: the run read its PR (`own_text`), or the line
    cites a commit and no PR (`commit_line`), so the note is the change's own record (its commit subject, as in
    changelogs generated from commits), judged as its only text the way a PR's title is.

    Why the commit line: a project that cites commits has no PR to read, so its lines could never hold back a later
    ✓ of the same subject, and the right, older commit line (capped at MEDIUM: `objections.more_than_the_note`)
    lost to the later HIGH. A PR line whose PR could not be read stays out: its PR exists and was not seen."""
    return grounds.own_text or grounds.commit_line


def first_match(grounds: Grounds | None) -> bool:
    """Whether a line was the first confirmed match of its subject: its own words made it a HIGH the second check
    confirmed, and only a cap (`Grounds.capped`: a line citing only a commit, `objections.more_than_the_note`)
    kept it MEDIUM. Such a line rivals a later HIGH of its subject without measuring which names more of the problem.

    Why: the scan goes oldest first and stops at the first confirmed HIGH, so an older PR line so confirmed would
    have been the ✓ and the later line never judged; the cap (no PR to confirm the note) lets the scan go on, and a
    later line of the same subject naming more of the problem's words ("handle empty JSON response body" against
    "avoid serializing null optional bodies") reached ✓ over the fix the scan had already found."""
    return grounds is not None and grounds.capped


def later_rival(high: R, later: Iterable[R], grounds: Callable[[R], Grounds | None],
                below: Iterable[R] = ()) -> R | None:
    """The first of `later` (lines the scan passed over once it had `high`, of its release or later ones) that
    rivals the HIGH: MEDIUM or better, nothing objecting, not a second look, its own evidence (`_its_own`), naming
    the HIGH's first subject (or a rare one, `_shared_subject`; unless `later_subject` is 0) and covering the
    problem at least `later_rival` (lexicon.toml [weight]; inf: off) times as well (`strength`); one of `below`
    (the filter ranked it below the HIGH's line) also naming an idea of the problem the HIGH does not, at least as
    rare as the HIGH's rarest (`_names_a_rarer_idea`). None when none does.

    Why: `older_rivals`' twin for the lines after the HIGH within its batch: the filter ranked them above the HIGH's
    line, and one naming the same thing at least as well says the earlier ✓ may be another bug of that part. A line
    ranked below says so only when it names what the HIGH leaves out: most such lines repeat the HIGH's fix (a
    release listing it twice, a follow-up naming the same ideas) and must not take a right ✓ away."""
    named, least = grounds(high), lexicon.weight("later_rival")
    if named is None or not high.strength or not math.isfinite(least):
        return None
    same, lower = lexicon.weight("later_subject") > 0, [id(c) for c in below]
    for rival in later:
        theirs = grounds(rival)
        if (rival.confidence in ("high", "medium") and not rival.objected and not rival.second_look
                and rival.strength is not None and theirs is not None and _its_own(theirs)
                and release_order(rival) >= release_order(high)
                and (not same or _shared_subject(named, theirs, lexicon.weight("rival_share"))
                     or _names_in_full(theirs, named))
                and rival.strength >= least * high.strength
                and (id(rival) not in lower or _names_a_rarer_idea(theirs, named))):
            return rival
    return None


def _names_a_rarer_idea(rival: Grounds, high: Grounds) -> bool:
    """Whether the rival names, as a subject, an idea of the problem the HIGH does not name (nor a phrase holding
    it), fewer or as few of the repository's notes naming it (`Grounds.shares`) as the rarest subject the HIGH names,
    and rare there (under `rival_share`, lexicon.toml [weight]: the bar of `_shared_subject`'s rare subjects).

    Why: the filter ranked the line below the HIGH's, so it is no rival for naming the same ideas (most such lines
    are the HIGH's fix told twice, or its follow-up); naming one more idea of the problem, as specific as anything
    the HIGH names, says the HIGH may be another bug of the same part — the customer's setup named verbatim
    ("--interactive prompts for required vars") with the symptom ("Esc") left out. An everyday idea ("command" in
    a pasted error) says nothing of the kind, however everyday the HIGH's own ideas are."""
    if not rival.subjects or not high.subjects:
        return False
    rarest = min([*(high.shares or (1.0,) * len(high.subjects)), lexicon.weight("rival_share")])
    shares = rival.shares or (1.0,) * len(rival.subjects)
    return any(share <= rarest and not any(_one_idea(subject, own) for own in high.subjects)
               for subject, share in zip(rival.subjects, shares, strict=False))


def _one_idea(one: str, other: str) -> bool:
    """Whether two subjects name one idea: the same name (`_same_name`), or one a word of the other ("replai" of
    "replai id": a concept is named by whichever of its terms a headline has)."""
    return _same_name(one, other) or one in other.split() or other in one.split()


def _names_in_full(rival: Grounds, high: Grounds) -> bool:
    """Whether the rival's first (heaviest) subject is an idea of the problem the HIGH names only in part
    (`Grounds.partly`), when `later_in_full` (lexicon.toml [weight]; 0: off) is on: "Allow empty PATH_INFO." names
    `PATH_INFO`, the HIGH "Fix `Rack::Lint` matching some paths incorrectly as authority form" only its word "path".

    Why: two lines are about the same thing when one names in full what the other only grazes; the later one,
    which the filter ranked above the HIGH's line, says which of the two is the problem's own idea."""
    return lexicon.weight("later_in_full") > 0 and bool(rival.subjects) and rival.subjects[0] in high.partly


def _as_broad(rival: Ranked, high: Ranked, least: float) -> bool:
    """Whether the rival names at least `least` (lexicon.toml [weight] `rival_breadth`; inf: off) times as many of
    the problem's ideas as the HIGH, each idea counted once (`breadth`).

    Why: `strength` counts every spelling of an idea, so a later line spelling the ideas the older one names several
    ways ("MapObjectEncoder's AddByteString", "map object", "byte string") looks far stronger while it names no
    more of what the customer describes; breadth counts each idea once (as `lead_measure` does)."""
    return math.isfinite(least) and rival.breadth is not None and high.breadth is not None and high.breadth > 0 \
        and rival.breadth >= least * high.breadth


def _shared_subject(high: Grounds, rival: Grounds, rare: float) -> bool:
    """Whether the rival names, by the same term, the HIGH's first (heaviest) subject, or another of its subjects
    that fewer than `rare` (lexicon.toml [weight] `rival_share`, `held_share` for a line the customer runs; 0: the
    first subject only) of the repository's notes name.

    Why: two lines naming the same rare thing ("greenlet" in werkzeug's notes) are about the same part of the
    library, whichever of the problem's ideas weighs most in each; an everyday word they share ("thread", "file")
    says nothing about that — the repository's own term counts tell which is which, not a global list. A rare
    subject of the rival that is a part of one of the HIGH's subjects counts too (`_rare_part`)."""
    if rival.subjects and any(_same_name(high.subjects[0], subject) or _within(high.subjects[0], subject)
                              for subject in rival.subjects):
        return True
    shares = high.shares or (1.0,) * len(high.subjects)
    return any(subject in rival.subjects and share < rare
               for subject, share in zip(high.subjects[1:], shares[1:], strict=False)) or _rare_part(high, rival, rare)


def _within(subject: str, phrase: str) -> bool:
    """Whether the HIGH's first subject is a word of a longer phrase the rival names ("header" of "header name"),
    when `subject_in_phrase` (lexicon.toml [weight]; 0: off) is on.

    Why: a concept is named by its longest phrase, so an older line saying "header name" is about the header the
    HIGH names; comparing terms alone sees two subjects."""
    return (lexicon.weight("subject_in_phrase") > 0 and " " not in subject and " " in phrase
            and subject in phrase.split())


def _same_name(one: str, other: str) -> bool:
    """Whether two subjects (term keys) name the same thing: the same term, or one code name and a phrase of two
    or more of its words in order ("digestauthmiddleware" of `DigestAuthMiddleware` and "digest auth" of "digest
    auth dropping challenge fields"; a word's stem may lose a few letters, "compos ui" of `ComposeUi`).

    Why: a class name is one term, the prose naming the same part of the code is its words, so comparing by the term
    alone never sees that a line naming "digest auth" is about `DigestAuthMiddleware`."""
    return one == other or _spells(one, other) or _spells(other, one)


def _spells(name: str, phrase: str) -> bool:
    """Whether `phrase`'s words, in order, spell part of the code name `name`; the name's key is stemmed as one word
    (`terms._identifier`: "latestapivers" of `LatestApiVersion`), so it may end inside its last word ("vers" of
    "version")."""
    words = phrase.split()
    if len(words) < 2 or " " in name:
        return False
    *first, last = words
    cut = [re.escape(last[:len(last) - n]) + "$" for n in range(1, 5) if len(last) - n >= 3]
    ending = "(?:" + "|".join([re.escape(last) + "[a-z]{0,3}", *cut]) + ")"
    return re.search("".join(re.escape(word) + "[a-z]{0,3}" for word in first) + ending, name) is not None


def _rare_part(high: Grounds, rival: Grounds, rare: float) -> bool:
    """Whether the rival names, as a subject rare in its own repository's notes (a share under `rare`), a part of
    one of the HIGH's subjects: "Fix `FacebookInitProvider` instrumentation" (subject "provider", rare in its
    plugin's notes) rivals "reset content-provider timespans" (subject "content provider").

    Why: a subject is compared by its term, and a class name splits into fewer words than the prose naming the same
    thing, so the older, specific line names the head word alone; a rare head word says the two lines are about the
    same part of the code, an everyday one ("path" of "root path") says nothing, hence the share bar."""
    shares = rival.shares or (1.0,) * len(rival.subjects)
    return any(share < rare and set(part.split()) < set(subject.split())
               for part, share in zip(rival.subjects, shares, strict=False) for subject in high.subjects)


def top_candidate(candidates: Iterable[R]) -> R | None:
    """The candidate the answer leads with (the first of `candidate_order`); None without candidates."""
    ordered = candidate_order(candidates)
    return ordered[0] if ordered else None


def release_order(candidate: Ranked) -> str:
    """A sort key of the candidate's release (its tag, else its version): a fix not released yet after every
    release; unparsable ones first."""
    if candidate.version == UNRELEASED:
        return "~"
    parsed = parse_tag(candidate.tag or candidate.version)
    return version_key(parsed) if parsed else ""
