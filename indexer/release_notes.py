"""Parse one GitHub release body (Markdown or a plain CHANGELOG section) into entries.

WIF answers "was this fixed, where, by which PR" from release notes, so every bullet of a
release has to become an entry with a normalised section and the PR/issue numbers it cites.
The notes come from many hand-written and generated styles (Sentry house style, craft
auto-notes, release-please, GitHub's "What's Changed", Keep-a-Changelog), so the parser is
a forgiving line scanner rather than a Markdown renderer.

Reference rules (chosen so that a PR number is only claimed when the notes really cite it):

* ``[#N](…/pull/N)``, ``[(#N)](…/pull/N)``, a bare ``…/pull/N`` URL → PR ``N``.
* ``[#N](…/issues/N)`` (release-please writes PR links this way; GitHub redirects) → PR ``N``
  unless a closing keyword precedes it (``Fixes [#N](…/issues/N)``) → issue ``N``.
  Any other ``…/issues/N`` URL or link → issue ``N``.
* A bare ``#N`` (or ``owner/repo#N`` of the same repository) counts as a PR only when it is
  parenthesised (``(#1234)``, ``(#4917 and #4918)``), part of the trailing reference group
  of its line (``… #770``, ``…, #3551 by @user``), leads the line (``#97 Sentry …``) or ends
  a title (``Title #1048: details``). A mid-sentence ``#N`` ("reverting … from #6380
  (#6491)") is ambiguous between an issue and an earlier PR and is not counted; it stays in
  the text.
* ``Fixes/Closes/Resolves #N`` (also ``GH-N``, ``owner/repo#N``, issue URLs) → issue ``N``.
* With ``repo`` given, links and URLs to other repositories are never counted.

Only the bullet line itself (plus lines that continue it without a blank line) and its
nested sub-bullets contribute references; explanatory paragraphs after a blank line are
kept as text but often mention older PRs ("Re-lands #6380, reverted by #6491"), so their
numbers are not claimed (explicit issue links there are).

Entries are list items (``-``, ``*``, ``+``, ``1.``). Prose, blockquotes/alerts, admonitions,
code fences, tables, HTML and "New Contributors" lists are skipped; the one exception is old
plain-text changelogs whose paragraph lines each end in ``(#N)``, where every line is an entry.
"""

from __future__ import annotations

import logging
import re
from dataclasses import dataclass, field

SECTIONS = (
    "fix",
    "feature",
    "improvement",
    "performance",
    "breaking",
    "deprecation",
    "dependency",
    "internal",
    "docs",
    "other",
)

_log = logging.getLogger(__name__)

_MAX_TEXT = 4000  # entry text cap (chars)
_MAX_BOLD_TEXT = 600  # bold-title bullets: title plus the start of the explanation
_MAX_RAW = 16000  # raw source chars collected per bullet; bounds work on huge bullets
_MAX_REFS_PER_UNIT = 200  # bounds quadratic-ish work on pathological reference lists
_MAX_HEADING = 300


@dataclass(frozen=True)
class ReleaseNoteEntry:
    """One bullet of a release, classified, with the PRs/issues it references."""

    section: str
    text: str
    prs: tuple[int, ...]
    issues: tuple[int, ...]
    position: int
    heading: str


# --------------------------------------------------------------------------- headings


@dataclass(frozen=True)
class _Rule:
    """How a heading classifies its bullets.

    ``generic`` headings ("Other Changes", "What's Changed", …) let a bullet's own wording
    decide and only supply the default; ``skip`` drops the bullets ("New Contributors");
    ``reset`` marks a version heading inside a body, which ends the previous section.
    """

    section: str
    generic: bool = False
    skip: bool = False
    reset: bool = False


_RESET = _Rule("other", generic=True, reset=True)
_FIX_WORD = re.compile(r"\bfix|\bbugs?\b|\bbugfix")
_MIXED_OTHER = re.compile(r"\bfeatures?\b|\bimprovements?\b|\benhancements?\b|\bchanges?\b")
_HEADING_RULES: tuple[tuple[re.Pattern[str], _Rule], ...] = (
    (re.compile(r"\bnew contributors?\b"), _Rule("other", skip=True)),
    (re.compile(r"\bwhat'?s changed\b|\bwhat changed\b"), _Rule("other", generic=True)),
    (re.compile(r"\bbreaking\b|\bbc break|\bremoved\b|\bremovals?\b|\bapi changes\b"), _Rule("breaking")),
    (re.compile(r"\bdeprecat|\bobsolet"), _Rule("deprecation")),
    (re.compile(r"\bsecurity\b"), _Rule("fix")),
)
_HEADING_RULES_LATE: tuple[tuple[re.Pattern[str], _Rule], ...] = (
    (
        re.compile(r"\binternals?\b|\bchores?\b|\brefactor|\btests?\b|\btesting\b|\bbuild\b|\bci\b|\btooling\b"),
        _Rule("internal"),
    ),
    (re.compile(r"\bfeatures?\b|\badded\b|\bnew\b|\bexperimental\b|\bhighlights?\b|\badditions?\b"), _Rule("feature")),
    (re.compile(r"\bimprovements?\b|\benhancements?\b|\bimproved\b"), _Rule("improvement")),
    (re.compile(r"\bimportant\b|\bnotable\b"), _Rule("feature", generic=True)),
    (re.compile(r"\bdependenc|\bdeps\b|\bpackaging\b|\bbumps?\b"), _Rule("dependency")),
    (re.compile(r"\bdocumentation\b|\bdocs?\b"), _Rule("docs")),
    (re.compile(r"\breverts?\b"), _Rule("other")),
    (re.compile(r"\bmisc|\bother|\bvarious\b|\bgeneral\b|\bsummary\b"), _Rule("other", generic=True)),
    (re.compile(r"\bbehaviou?r|\bchanged?\b|\bchanges\b"), _Rule("improvement", generic=True)),
)
_VERSION_IN_HEADING = re.compile(r"(?<![\w.])v?\d{1,4}\.(?:\d{1,4}|x)(?:[.\w+-]{0,40})")
_DATE_IN_HEADING = re.compile(r"\d{4}-\d{2}-\d{2}")
_VERSION_FILLER = frozenset({"", "v", "version", "release", "released", "unreleased"})
_HEADING_JUNK = re.compile(r"[^a-z0-9'&/+. -]+")
_MAX_HEADING_WORDS = 7


def _normalise_heading(heading: str) -> str:
    """Lower-case heading text without Markdown, emoji or punctuation noise."""
    text = _strip_inline_markup(heading[:_MAX_HEADING]).lower().replace("\u2019", "'")
    text = _HEADING_JUNK.sub(" ", text)
    return " ".join(text.split()).strip(" :.-")


def _rule_for_words(text: str) -> _Rule | None:
    """Map normalised heading words to a rule (first matching family wins)."""
    if not text or len(text.split()) > _MAX_HEADING_WORDS:
        return None
    for pattern, rule in _HEADING_RULES:
        if pattern.search(text):
            return rule
    has_fix = _FIX_WORD.search(text) is not None
    if has_fix and _MIXED_OTHER.search(text):
        return _Rule("other", generic=True)  # "Various fixes & improvements", "Features and Fixes"
    if has_fix:
        return _Rule("fix")
    if "performance" in text and "feature" not in text and "monitoring" not in text:
        return _Rule("performance")
    for pattern, rule in _HEADING_RULES_LATE:
        if pattern.search(text):
            return rule
    return None


def _heading_rule(heading: str) -> _Rule | None:
    """Rule for a heading; ``_RESET`` for a bare version heading such as ``2.4.x (2020-01-01)``."""
    text = _normalise_heading(heading)
    without_version = _DATE_IN_HEADING.sub(" ", text)
    without_version, found = _VERSION_IN_HEADING.subn(" ", without_version)
    if not found:
        return _rule_for_words(text)
    rest = " ".join(without_version.replace("(", " ").replace(")", " ").split())
    rule = _rule_for_words(rest)
    if rule is None and rest in _VERSION_FILLER:
        return _RESET
    return rule


def classify_heading(heading: str) -> str | None:
    """Normalised section for a heading such as "Bug Fixes 🐛"; None for unknown headings."""
    if not isinstance(heading, str):
        return None
    rule = _heading_rule(heading)
    if rule is None or rule.reset:
        return None
    return rule.section


# --------------------------------------------------------------------------- bullet wording

_CC_TYPES = {
    "fix": "fix", "fixes": "fix", "fixed": "fix", "bugfix": "fix", "hotfix": "fix", "security": "fix",
    "feat": "feature", "feature": "feature", "feats": "feature",
    "perf": "performance",
    "docs": "docs", "doc": "docs",
    "chore": "internal", "ci": "internal", "test": "internal", "tests": "internal",
    "build": "internal", "refactor": "internal", "ref": "internal", "style": "internal",
    "lint": "internal", "meta": "internal",
    "deps": "dependency", "dep": "dependency",
    "revert": "other",
}  # fmt: skip
_DEP_SCOPES = frozenset({"deps", "deps-dev", "dependencies", "dependency", "dev-deps"})
_CONVENTIONAL = re.compile(r"([A-Za-z]{2,10})(?:\(([^()\n]{0,60})\))?!?:\s")
_SCOPE_PREFIX = re.compile(r"\(([^()\n]{1,60})\)\s+")
_LABEL_PREFIX = re.compile(r"([A-Z][\w .+/-]{0,30}):\s+")
_BC_BREAK = re.compile(r"\[(?:bc break|breaking)\]", re.IGNORECASE)
_FIRST_WORD = re.compile(r"[A-Za-z]{1,20}")
_STRONG_WORDS = {
    "fix": "fix", "fixes": "fix", "fixed": "fix", "fixing": "fix", "bugfix": "fix",
    "bugfixes": "fix", "hotfix": "fix",
    "bump": "dependency", "bumps": "dependency", "bumped": "dependency", "deps": "dependency",
}  # fmt: skip
_WEAK_WORDS = {
    "add": "feature", "adds": "feature", "added": "feature", "adding": "feature",
    "introduce": "feature", "introduces": "feature", "introduced": "feature",
    "support": "feature", "supports": "feature", "allow": "feature", "allows": "feature",
    "implement": "feature", "implemented": "feature", "expose": "feature", "new": "feature",
    "improve": "improvement", "improved": "improvement", "improves": "improvement",
    "optimize": "performance", "optimise": "performance", "speed": "performance",
    "deprecate": "deprecation", "deprecated": "deprecation", "deprecates": "deprecation",
    "document": "docs", "documented": "docs",
    "revert": "other", "reverts": "other", "reverted": "other",
}  # fmt: skip


def _bullet_core(text: str) -> str:
    """Bullet text without leading emphasis, brackets and list noise."""
    return text.lstrip(" *_`>").strip()


def _classify_conventional(text: str) -> str | None:
    """Section from a conventional-commit prefix (``fix(scope):``, ``build(deps):``)."""
    match = _CONVENTIONAL.match(text)
    if not match:
        return None
    kind = match.group(1).lower()
    scope = (match.group(2) or "").strip().lower()
    if kind not in _CC_TYPES:
        return None
    if scope in _DEP_SCOPES:
        return "dependency"
    return _CC_TYPES[kind]


def _classify_wording(text: str, weak: bool) -> str | None:
    """Section implied by the bullet's own words; ``weak`` also trusts verbs like "Add"."""
    core = _bullet_core(text)
    if _BC_BREAK.match(core):
        return "breaking"
    found = _classify_conventional(core)
    if found:
        return found
    for prefix in (_SCOPE_PREFIX, _LABEL_PREFIX):
        match = prefix.match(core)
        if match:
            core = core[match.end() :]
            found = _classify_conventional(core)
            if found:
                return found
    word_match = _FIRST_WORD.match(core)
    if not word_match:
        return None
    word = word_match.group(0).lower()
    if word in _STRONG_WORDS:
        return _STRONG_WORDS[word]
    return _WEAK_WORDS.get(word) if weak else None


def classify_bullet(text: str) -> str | None:
    """Section implied by a bullet's own wording ("fix(x): …", "Fixed …", "Add …"), else None."""
    if not isinstance(text, str):
        return None
    return _classify_wording(text[:_MAX_TEXT], weak=True)


# --------------------------------------------------------------------------- inline rendering

_HTML_TAG = re.compile(
    r"</?(?:br|strong|em|b|i|u|code|kbd|sup|sub|span|div|p|a|img|details|summary|small|ins|del|s)"
    r"(?:\s[^<>]{0,300})?/?>",
    re.IGNORECASE,
)
_IMAGE = re.compile(r"!\[[^\[\]\n]{0,300}\]\([^()\s]{0,500}(?:\s+\"[^\"\n]{0,200}\")?\)")
_TOKEN = re.compile(
    r"\[(?P<label>[^\[\]\n]{0,300})\]\((?P<url>[^()\s]{0,500})(?:\s+\"[^\"\n]{0,200}\")?\)"
    r"|<(?P<auto>https?://[^\s<>]{1,500})>"
    r"|(?P<bare>https?://[^\s<>()\[\]`'\"]{1,500})"
    r"|(?P<code>`[^`\n]{1,500}`)"
)
_GITHUB_REF = re.compile(
    r"(?:https?://(?:(?:www\.)?github\.com|github-redirect\.dependabot\.com)/)?"
    r"([A-Za-z0-9-]{1,39}/[\w.-]{1,100})/(pull|pulls|issues)/#?(\d{1,7})"
    r"(?:[/?#][^\s]{0,400})?",
    re.IGNORECASE,
)
_GITHUB_REPO_URL = re.compile(
    r"(?:https?://(?:www\.)?github\.com/)?([A-Za-z0-9-]{1,39}/[\w.-]{1,100})(?:/[^\s]{0,400})?", re.IGNORECASE
)
_NUMBER_LABEL = re.compile(r"[(\[]?#{1,2}(\d{1,7})[)\]]?")
_ESCAPE = re.compile(r"\\([\\`*_{}\[\]()#+\-.!<>|~])")
_BARE_REF = re.compile(
    r"(?<![\w&#/])(?:(?P<own>[A-Za-z0-9-]{1,39}/[\w.-]{1,100})#|(?P<gh>GH-)|#{1,2})(?P<num>\d{1,7})(?!\w)"
)
_ISSUE_KEYWORD = re.compile(
    r"\b(?:close[sd]?|fix(?:e[sd])?|resolve[sd]?)\s{0,3}:?\s{0,3}(?:issues?\s{1,3})?\(?\s{0,3}$",
    re.IGNORECASE,
)
_REF_SEPARATOR = re.compile(r"[\s,]{0,6}(?:and|&|or)?[\s,]{0,6}", re.IGNORECASE)
_TAIL_TOKEN = re.compile(
    r"\[?(?:#{1,2}\d{1,7}|[\w.-]{1,100}/[\w.-]{1,100}#\d{1,7})[\],.;:!]{0,4}"
    r"|[(\[]?(?:@[\w-]{1,60}|by|in|and|&|thanks|via|-)?[)\],.;:!]{0,4}",
    re.IGNORECASE,
)
_TITLE_END = re.compile(r"\s{0,3}(?::|\s-\s)")  # "Title #1048: details", "Title #363 - details"
_SPACES = re.compile(r"\s+")


@dataclass
class _Ref:
    """A reference found while rendering.

    ``kind``: ``pr`` (pull link/URL), ``issue`` (issue link/URL), ``pr-or-issue`` (``[#N](…/issues/N)``,
    a PR unless a closing keyword precedes it), ``bare`` (``#N``) or ``gh`` (``GH-N``, issue only
    after a closing keyword).
    """

    kind: str
    number: int
    start: int
    end: int
    keyword: bool = False


def _strip_inline_markup(text: str) -> str:
    """Plain text for headings/summaries: no HTML tags, emphasis or link targets."""
    text = _HTML_TAG.sub(" ", _drop_comments(text))
    text = _IMAGE.sub(" ", text)
    text = _TOKEN.sub(_token_text, text)
    return text.replace("**", "").replace("`", "").strip()


def _drop_comments(text: str) -> str:
    """Remove ``<!-- … -->`` (an unclosed one runs to the end); linear, unlike a lazy regex."""
    parts: list[str] = []
    pos = 0
    while True:
        start = text.find("<!--", pos)
        if start < 0:
            parts.append(text[pos:])
            return " ".join(parts)
        parts.append(text[pos:start])
        end = text.find("-->", start + 4)
        if end < 0:
            return " ".join(parts)
        pos = end + 3


def _token_text(match: re.Match[str]) -> str:
    """Readable text of a link/code token (link label, code without backticks, URL)."""
    if match.group("url") is not None:
        return match.group("label")
    return match.group(0)


def _same_repo(owner_repo: str, repo: str | None) -> bool:
    """True when a link's repository is the release's own (any repository if unknown)."""
    return repo is None or owner_repo.lower() == repo.lower()


def _clean_plain(text: str) -> str:
    """Plain Markdown text as readers see it: no bold markers or backslash escapes."""
    return _ESCAPE.sub(r"\1", text.replace("**", ""))


def _cited_label(label: str, number_text: str) -> str:
    """Link label that keeps the cited number readable: ``[PR](…/pull/12)`` → ``PR (#12)``."""
    if number_text in label:
        return label
    return f"{label} (#{number_text})" if label else f"#{number_text}"


class _Renderer:
    """Renders one paragraph of a bullet to text while locating its references."""

    def __init__(self, repo: str | None) -> None:
        self.repo = repo
        self.parts: list[str] = []
        self.length = 0
        self.refs: list[_Ref] = []
        self.plain_spans: list[tuple[int, int]] = []

    def emit(self, text: str, plain: bool = False) -> int:
        """Append text; returns its start offset. Plain spans are scanned for bare refs."""
        start = self.length
        self.parts.append(text)
        self.length += len(text)
        if plain:
            self.plain_spans.append((start, self.length))
        return start

    def link(self, label: str, url: str) -> None:
        """Render ``[label](url)``: label text, with GitHub PR/issue targets as refs."""
        label = _clean_plain(label).strip()
        match = _GITHUB_REF.fullmatch(url)
        if not match:
            self.emit(label, plain=self._own_number_label(label, url))
            return
        owner_repo, kind, number_text = match.group(1), match.group(2).lower(), match.group(3)
        number = int(number_text)
        bare_label = label.strip("()[] ")
        is_number_label = bare_label.lstrip("#") == number_text and bare_label.startswith("#")
        if not _same_repo(owner_repo, self.repo):
            text = f"{owner_repo}#{number_text}" if is_number_label else label
            self.emit(text or f"{owner_repo}#{number_text}")
            return
        text = _cited_label(label, number_text)
        start = self.emit(text)
        ref_kind = "pr" if kind.startswith("pull") else ("pr-or-issue" if is_number_label else "issue")
        self.refs.append(_Ref(ref_kind, number, start, start + len(text)))

    def _own_number_label(self, label: str, url: str) -> bool:
        """``[#N](broken link into this repository)``: the label still cites ``#N``."""
        if not _NUMBER_LABEL.fullmatch(label):
            return False
        if not url.lower().startswith(("http://", "https://")):
            return True
        match = _GITHUB_REPO_URL.fullmatch(url)
        return bool(match) and "github.com/" in url.lower() and _same_repo(match.group(1), self.repo)

    def url(self, url: str) -> None:
        """Render a bare URL; same-repository PR/issue URLs become ``#N`` refs."""
        trail = len(url) - len(url.rstrip(".,;:!?"))
        core = url[: len(url) - trail] if trail else url
        match = _GITHUB_REF.fullmatch(core)
        if match and _same_repo(match.group(1), self.repo):
            number_text = match.group(3)
            start = self.emit(f"#{number_text}")
            kind = "pr" if match.group(2).lower().startswith("pull") else "issue"
            self.refs.append(_Ref(kind, int(number_text), start, start + 1 + len(number_text)))
        else:
            self.emit(core)
        if trail:
            self.emit(url[len(url) - trail :])

    def render(self, raw: str) -> None:
        """Tokenise a raw Markdown paragraph into the output buffer."""
        raw = _IMAGE.sub(" ", _HTML_TAG.sub(" ", _drop_comments(raw)))
        pos = 0
        for match in _TOKEN.finditer(raw):
            if match.start() > pos:
                self.emit(_clean_plain(raw[pos : match.start()]), plain=True)
            if match.group("url") is not None:
                self.link(match.group("label"), match.group("url"))
            elif match.group("auto"):
                self.url(match.group("auto"))
            elif match.group("bare"):
                self.url(match.group("bare"))
            else:
                self.emit(match.group("code"))
            pos = match.end()
        if pos < len(raw):
            self.emit(_clean_plain(raw[pos:]), plain=True)

    def text(self) -> str:
        """The rendered paragraph."""
        return "".join(self.parts)


def _paren_depth(text: str, end: int) -> int:
    """Unclosed ``(`` before ``end``: a ref inside parentheses is a citation."""
    prefix = text[:end]
    return prefix.count("(") - prefix.count(")")


def _tail_start(text: str) -> int:
    """Offset where the trailing group of refs/credits ("#12 by @x in #13") begins."""
    tokens = list(re.finditer(r"\S+", text))
    start = len(text)
    for token in reversed(tokens):
        if not _TAIL_TOKEN.fullmatch(token.group(0)):
            break
        start = token.start()
    return start


def _bare_refs(renderer: _Renderer, text: str) -> None:
    """Find ``#N`` / ``owner/repo#N`` / ``GH-N`` in plain spans of the rendered text."""
    found: list[_Ref] = []
    for start, end in renderer.plain_spans:
        for match in _BARE_REF.finditer(text, start, end):
            own = match.group("own")
            if own and not _same_repo(own, renderer.repo):
                continue
            kind = "gh" if match.group("gh") else "bare"
            found.append(_Ref(kind, int(match.group("num")), match.start(), match.end()))
            if len(found) >= _MAX_REFS_PER_UNIT:
                break
    renderer.refs.extend(found)
    renderer.refs.sort(key=lambda ref: ref.start)


def _is_citation(text: str, ref: _Ref, tail: int) -> bool:
    """A bare ``#N`` cites a PR when parenthesised, trailing, leading or ending a title."""
    if ref.start >= tail or _paren_depth(text, ref.start) > 0:
        return True
    if not text[: ref.start].strip(" -*:"):
        return True
    return _TITLE_END.match(text, ref.end) is not None


def _resolve_refs(renderer: _Renderer) -> tuple[list[int], list[int]]:
    """Decide which references are PRs and which are issues (see module docstring)."""
    text = renderer.text()
    _bare_refs(renderer, text)
    tail = _tail_start(text)
    prs: list[int] = []
    issues: list[int] = []
    previous: _Ref | None = None
    for ref in renderer.refs[:_MAX_REFS_PER_UNIT]:
        before = text[max(0, ref.start - 40) : ref.start]
        chained = (
            previous is not None
            and previous.keyword
            and _REF_SEPARATOR.fullmatch(text[previous.end : ref.start]) is not None
        )
        ref.keyword = chained or _ISSUE_KEYWORD.search(before) is not None
        previous = ref
        if ref.number <= 0:
            continue
        if ref.kind == "pr" or (ref.kind == "pr-or-issue" and not ref.keyword):
            prs.append(ref.number)
        elif ref.kind in ("issue", "pr-or-issue") or ref.keyword:
            issues.append(ref.number)
        elif ref.kind == "bare" and _is_citation(text, ref, tail):
            prs.append(ref.number)
    return prs, issues


def _render_unit(raw: str, repo: str | None, count_refs: bool | None) -> tuple[str, list[int], list[int]]:
    """Render one paragraph; returns (text, prs, issues).

    ``count_refs`` True: all references; False: explanatory paragraph, only explicit issue
    references; None: none (dependency-bump sub-bullets pointing at other repositories).
    """
    renderer = _Renderer(repo)
    renderer.render(raw)
    text = renderer.text()
    if count_refs is None:
        return text, [], []
    prs, issues = _resolve_refs(renderer)
    if not count_refs:
        explicit = {ref.number for ref in renderer.refs if ref.kind == "issue" or ref.keyword}
        return text, [], [n for n in issues if n in explicit]
    return text, prs, issues


def _dedupe(numbers: list[int]) -> tuple[int, ...]:
    """Unique numbers in order of first appearance."""
    return tuple(dict.fromkeys(numbers))


# --------------------------------------------------------------------------- line scanner

_FENCE = re.compile(r"(`{3,}|~{3,})")
_HEADING_START = re.compile(r"(#{1,6})(?:[ \t]|$)")
_BULLET = re.compile(r"([-*+]|\d{1,9}[.)])(?:[ \t]+(.*)|$)")
_BOLD_BULLET = re.compile(r"\*\*[-*+][ \t]+(.*)$")
_BOLD_LINE = re.compile(r"(?:\*\*|__)([^*_\n]{1,80})(?:\*\*|__):?$")
_COLON_LINE = re.compile(r"([A-Za-z][\w '\u2019&/-]{0,60}):$")
_ADMONITION = re.compile(r"(?:!!!|\?\?\?\+?)[ \t]")
_MAX_LINE = 20000  # longer source lines are truncated before any matching
_HTML_LINE = re.compile(r"</?[A-Za-z][^<>]{0,300}>?")
_PLAIN_ENTRY = re.compile(r"\(#\d{1,7}\)[ \t]*(?:by[ \t]+@[\w-]{1,60}[ \t]*)?\.?$")
_WORD = re.compile(r"[A-Za-z]{2,}")
_SKIP_BULLET = re.compile(r"\**full changelog\b", re.IGNORECASE)
_MAX_PSEUDO_HEADING_WORDS = 5


@dataclass
class _Head:
    """One open heading: level 1-6 for ``#``, 7 for ``**Bold**``/``Colon:`` pseudo-headings."""

    level: int
    text: str
    rule: _Rule | None


@dataclass
class _Context:
    """Section context a bullet was found in."""

    section: str
    generic: bool
    skip: bool
    heading: str


@dataclass
class _Unit:
    """A paragraph of a bullet: its first line, a nested item or an explanatory paragraph."""

    lines: list[str]
    count_refs: bool


@dataclass
class _Bullet:
    """The list item being collected; ``blank`` means a blank line followed its last line."""

    indent: int
    bold: bool
    context: _Context
    units: list[_Unit]
    open_unit: _Unit | None
    blank: bool = False
    paragraphs: int = 0
    size: int = 0

    def add(self, unit: _Unit, line: str) -> None:
        """Append a line to a unit, bounded by ``_MAX_RAW``."""
        if self.size >= _MAX_RAW:
            return
        line = line[: _MAX_RAW - self.size]
        self.size += len(line)
        unit.lines.append(line)


@dataclass
class _State:
    """Scanner state for one body."""

    repo: str | None
    entries: list[ReleaseNoteEntry] = field(default_factory=list)
    stack: list[_Head] = field(default_factory=list)
    saved_stacks: list[list[_Head]] = field(default_factory=list)
    bullet: _Bullet | None = None
    paragraph: list[str] = field(default_factory=list)
    fence: str | None = None
    in_comment: bool = False
    in_admonition: bool = False
    after_break: bool = True  # previous line was blank/heading: a pseudo-heading may start here


def _context(stack: list[_Head]) -> _Context:
    """Effective section: deepest specific heading wins, else deepest generic default."""
    heading = " > ".join(head.text for head in stack if head.text)
    known = [head.rule for head in stack if head.rule is not None]
    skip = bool(known) and known[-1].skip  # "New Contributors" > "Packaging" is not skipped
    for head in reversed(stack):
        if head.rule is not None and not head.rule.generic and not head.rule.skip:
            return _Context(head.rule.section, False, skip, heading)
    for head in reversed(stack):
        if head.rule is not None and head.rule.generic:
            return _Context(head.rule.section, True, skip, heading)
    return _Context("other", True, skip, heading)


def _section(context: _Context, head_text: str) -> str:
    """Specific headings win; generic ones defer to the bullet's wording."""
    if not context.generic:
        return context.section
    return _classify_wording(head_text, weak=False) or context.section


def _push_heading(state: _State, level: int, text: str) -> None:
    """Enter a heading; deeper headings are sub-groups of the current one."""
    _close_bullet(state)
    rule = _heading_rule(text)
    while state.stack and state.stack[-1].level >= level:
        state.stack.pop()
    if rule is not None and rule.reset:
        state.stack.append(_Head(level, "", None))
    else:
        state.stack.append(_Head(level, _strip_inline_markup(text)[:_MAX_HEADING], rule))


def _emit(state: _State, context: _Context, units: list[_Unit], bold: bool) -> None:
    """Turn collected paragraphs into an entry (if it has any text)."""
    texts: list[str] = []
    prs: list[int] = []
    issues: list[int] = []
    nested_refs = context.generic or context.section != "dependency"
    prose_budget = _MAX_BOLD_TEXT if bold else _MAX_TEXT
    for index, unit in enumerate(units):
        if not unit.lines:
            continue
        count: bool | None = unit.count_refs
        if index > 0 and not nested_refs:
            count = None
        text, unit_prs, unit_issues = _render_unit(" ".join(unit.lines), state.repo, count)
        text = _SPACES.sub(" ", text).strip()
        if not unit.count_refs:  # explanatory paragraph: bounded, esp. after bold titles
            text = text[: max(0, prose_budget)]
            prose_budget -= len(text) + 1
        if text:
            texts.append(text)
        prs.extend(unit_prs)
        issues.extend(unit_issues)
    text = " ".join(texts)[:_MAX_TEXT].rstrip()
    if not text or _SKIP_BULLET.match(text):
        return
    head_text = texts[0]
    pr_numbers = tuple(n for n in _dedupe(prs) if str(n) in text)
    issue_numbers = tuple(n for n in _dedupe(issues) if n not in pr_numbers)
    state.entries.append(
        ReleaseNoteEntry(
            section=_section(context, head_text),
            text=text,
            prs=pr_numbers,
            issues=issue_numbers,
            position=len(state.entries),
            heading=context.heading,
        )
    )


def _close_bullet(state: _State) -> None:
    """Finish the open bullet and any pending plain paragraph."""
    _flush_paragraph(state)
    bullet = state.bullet
    state.bullet = None
    if bullet is None or bullet.context.skip:
        return
    _emit(state, bullet.context, bullet.units, bullet.bold)


def _flush_paragraph(state: _State) -> None:
    """Plain (non-list) lines are prose, except old bodies whose lines each end in ``(#N)``."""
    lines = state.paragraph
    state.paragraph = []
    if not lines or any(not _is_plain_entry(line, state.repo) for line in lines):
        return
    context = _context(state.stack)
    if context.skip:
        return
    for line in lines:
        _emit(state, context, [_Unit([line], True)], False)


def _is_plain_entry(line: str, repo: str | None) -> bool:
    """A prose line that reads like a changelog entry: words followed by ``(#N)``."""
    if len(line) > 400:
        return False
    text, _prs, _issues = _render_unit(line, repo, None)
    text = text.strip()
    if not _PLAIN_ENTRY.search(text):
        return False
    words = [w for w in text.split() if not w.startswith(("@", "(#", "#")) and _WORD.search(w)]
    return len(words) >= 3


def _start_bullet(state: _State, indent: int, content: str, bold: bool) -> None:
    """Open a new top-level bullet under the current heading context."""
    _close_bullet(state)
    stripped = content.strip()
    bold = bold or (len(stripped) > 4 and stripped.startswith("**") and stripped.endswith("**"))
    unit = _Unit([], True)
    bullet = _Bullet(indent, bold, _context(state.stack), [unit], unit)
    bullet.add(unit, content)
    state.bullet = bullet


def _handle_bullet(state: _State, indent: int, content: str, bold: bool) -> None:
    """A list item: nested items join their parent, others start a new entry."""
    bullet = state.bullet
    if bullet is not None and indent >= bullet.indent + 2:
        unit = _Unit([], True)
        bullet.units.append(unit)
        bullet.add(unit, content)
        bullet.open_unit = unit
        bullet.blank = False
        return
    _start_bullet(state, indent, content, bold)


def _handle_text(state: _State, indent: int, stripped: str) -> None:
    """A prose line: continuation of the open bullet, or a paragraph of its own."""
    bullet = state.bullet
    if bullet is not None:
        if not bullet.blank and bullet.open_unit is not None:
            bullet.add(bullet.open_unit, stripped)
            return
        indented = indent >= bullet.indent + 2
        if indented or (bullet.bold and bullet.paragraphs == 0):
            unit = _Unit([], False)
            bullet.units.append(unit)
            bullet.add(unit, stripped)
            bullet.open_unit = unit
            bullet.blank = False
            bullet.paragraphs += 1
            return
        _close_bullet(state)
    state.paragraph.append(stripped)


def _pseudo_heading(stripped: str) -> str | None:
    """``**Fixes**`` or ``Bug fixes:`` lines that name a known section."""
    match = _BOLD_LINE.match(stripped) or _COLON_LINE.match(stripped)
    if not match:
        return None
    text = match.group(1).strip()
    if len(text.split()) > _MAX_PSEUDO_HEADING_WORDS:
        return None
    rule = _heading_rule(text)
    if rule is None or rule.reset or (rule.generic and rule.section == "improvement"):
        return None  # "…a variety of changes:" introduces a list, it does not name a section
    return text


def _handle_html(state: _State, stripped: str) -> None:
    """``<details>``/``<summary>`` wrappers act as headings; other HTML lines are dropped."""
    lower = stripped.lower()
    if lower.startswith("<details"):
        _close_bullet(state)
        state.saved_stacks.append(list(state.stack))
    if lower.startswith("</details"):
        _close_bullet(state)
        if state.saved_stacks:
            state.stack = state.saved_stacks.pop()
        return
    summary = _summary_text(stripped)
    if summary:
        text = _strip_inline_markup(summary)
        rule = _heading_rule(text)
        if rule is not None and not rule.reset:
            level = state.stack[-1].level if state.stack else 3
            _push_heading(state, level, text)


def _summary_text(line: str) -> str | None:
    """Text between ``<summary …>`` and ``</summary>`` on one line (str.find: linear)."""
    lower = line.lower()
    start = lower.find("<summary")
    opening_end = lower.find(">", start) if start >= 0 else -1
    end = lower.find("</summary>", opening_end) if opening_end >= 0 else -1
    if end < 0:
        return None
    return line[opening_end + 1 : end]


def _heading_parts(stripped: str) -> tuple[int, str] | None:
    """ATX heading level and text (closing ``#`` sequence removed), or None."""
    match = _HEADING_START.match(stripped)
    if not match:
        return None
    text = stripped[match.end() :].strip()
    closed = text.rstrip("#")
    if closed != text and (not closed or closed[-1] in " \t"):
        text = closed.strip()
    return len(match.group(1)), text


def _in_bullet_body(state: _State, indent: int) -> bool:
    """True when an indented line belongs to the open bullet rather than the page."""
    return state.bullet is not None and indent >= state.bullet.indent + 2


def _closes_fence(opening: str, marker: str, stripped: str) -> bool:
    """A closing fence uses the opening character, is at least as long, and has no info string."""
    return marker[0] == opening[0] and len(marker) >= len(opening) and not stripped[len(marker) :].strip()


def _skip_block_line(state: _State, line: str, stripped: str) -> bool:
    """Consume lines of comments, code fences and admonitions; True when consumed."""
    if state.in_comment:
        state.in_comment = "-->" not in line
        return True
    if state.fence is not None:
        marker = _FENCE.match(stripped)
        if marker and _closes_fence(state.fence, marker.group(1), stripped):
            state.fence = None
        return True
    if state.in_admonition:
        if not stripped or line.startswith(("  ", "\t")):
            return True
        state.in_admonition = False
    marker = _FENCE.match(stripped)
    if marker:
        state.fence = marker.group(1)
        return True
    if stripped.startswith("<!--"):
        state.in_comment = "-->" not in stripped
        return True
    return False


def _handle_line(state: _State, line: str) -> None:
    """Dispatch one source line."""
    stripped = line.strip()
    if _skip_block_line(state, line, stripped):
        return
    after_break = state.after_break
    state.after_break = not stripped
    indent = len(line) - len(line.lstrip())
    if not stripped:
        _flush_paragraph(state)
        if state.bullet is not None:
            state.bullet.blank = True
        return
    if _ADMONITION.match(stripped) and indent < 2:
        _close_bullet(state)
        state.in_admonition = True
        return
    if _handle_structural(state, indent, stripped):
        return
    bold_bullet = _BOLD_BULLET.match(stripped)
    bullet = _BULLET.match(stripped)
    if bold_bullet:
        content = bold_bullet.group(1).rstrip()
        content = content[:-2] if content.endswith("**") else content
        _handle_bullet(state, indent, f"**{content.strip()}**", True)
    elif bullet and not _is_rule(stripped):
        if (bullet.group(2) or "").strip():
            _handle_bullet(state, indent, bullet.group(2), False)
    elif _is_rule(stripped):
        _close_bullet(state)
    else:
        pseudo = after_break and not _in_bullet_body(state, indent)
        heading = _pseudo_heading(stripped) if pseudo else None
        if heading is not None:
            _push_heading(state, 7, heading)
        else:
            _handle_text(state, indent, stripped)


def _handle_structural(state: _State, indent: int, stripped: str) -> bool:
    """Headings, quotes, tables and HTML; True when the line was consumed."""
    inside = _in_bullet_body(state, indent)
    heading = _heading_parts(stripped) if indent <= 3 or inside else None
    if heading:
        if inside:
            _handle_text(state, indent, heading[1])
        else:
            _push_heading(state, heading[0], heading[1])
            state.after_break = True
        return True
    if stripped.startswith(">") or stripped.startswith("|"):
        if not inside:
            _close_bullet(state)
        return True
    if stripped.startswith("<") and _HTML_LINE.match(stripped):
        _handle_html(state, stripped)
        return True
    return False


def _is_rule(stripped: str) -> bool:
    """Thematic break (``---``, ``***``, ``___``)."""
    compact = stripped.replace(" ", "").replace("\t", "")
    return len(compact) >= 3 and len(set(compact)) == 1 and compact[0] in "-*_"


def _parse(body: str, repo: str | None) -> list[ReleaseNoteEntry]:
    """Scan the body line by line; see module docstring for the rules."""
    state = _State(repo=repo)
    text = body.replace("\r\n", "\n").replace("\r", "\n").replace("\x00", "")
    for line in text.split("\n"):
        _handle_line(state, line[:_MAX_LINE].expandtabs(4))
    _close_bullet(state)
    return state.entries


def parse_release_notes(body: str | None, repo: str | None = None) -> list[ReleaseNoteEntry]:
    """Entries of one release body; never raises (malformed input yields fewer entries)."""
    if not isinstance(body, str) or not body.strip():
        return []
    if not isinstance(repo, str) or "/" not in repo:
        repo = None
    try:
        return _parse(body, repo)
    except Exception:  # pragma: no cover - safety net; the property tests call _parse directly
        _log.exception("release-notes parse failed")
        return []
