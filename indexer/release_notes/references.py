"""Inline rendering of one bullet paragraph and extraction of the PR/issue numbers it cites.

``_render_unit`` turns raw Markdown (links, bare URLs, code spans, HTML, ``#N`` references)
into readable text and decides which references are PRs and which are issues, following the
reference rules in the package docstring; ``_strip_inline_markup`` gives plain text for
headings and summaries.
"""

from __future__ import annotations

import re
from dataclasses import dataclass

from indexer.github_refs import commit_ref, split_commit
from indexer.release_notes.model import _MAX_REFS_PER_UNIT

# --------------------------------------------------------------------------- inline rendering

_HTML_TAG = re.compile(
    r"</?(?:br|strong|em|b|i|u|code|kbd|sup|sub|span|div|p|a|img|details|summary|small|ins|del|s)"
    r"(?:\s[^<>]{0,300})?/?>",
    re.IGNORECASE,
)
_IMAGE = re.compile(r"!\[[^\[\]\n]{0,300}\]\([^()\s]{0,500}(?:\s+\"[^\"\n]{0,200}\")?\)")
# Every alternative starts with a literal character outside its groups (the bare URL's "h", the code span's first
# backtick: `bare` and `code` are then the whole match, `match.group(0)`), so the regex engine skips the positions
# where none of "[<h`:" stands instead of trying the seven alternatives at every character.
_TOKEN = re.compile(
    r"\[(?P<label>[^\[\]\n]{0,300})\]\((?P<url>[^()\s]{0,500})(?:\s+\"[^\"\n]{0,200}\")?\)"
    r"|<(?P<auto>https?://[^\s<>]{1,500})>"
    r"|h(?P<bare>ttps?://[^\s<>()\[\]`'\"]{1,500})"
    r"|`(?P<rst_label>[^`<\n]{0,300}?)\s*<(?P<rst_url>https?://[^\s<>`]{1,500})>`_{1,2}"  # reStructuredText link
    r"|:(?P<role>pr|pull|issue|ghpull|ghissue|gh):`#?(?P<role_num>\d{1,7})`"  # Sphinx role (towncrier notes)
    r"|:user:`(?P<role_user>[\w-]{1,60})`"
    r"|`(?P<code>`[^\n]{1,500}?``|[^`\n]{1,500}`)"  # ``literal`` (rst, and Markdown's double-backtick span)
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
# A reference written as a Markdown reference link ("[#554][]", "#554]") and the words joining a group of them: what
# may stand before a reference that still leads its line ("[#554][], [#1017][]: Close …", zap's changelog)
_GROUP_REFERENCE = re.compile(r"#\d{1,7}\]?(?:\[[^\]\s]{0,20}\])?")
_GROUP_JOIN = re.compile(r"\b(?:and)\b|&", re.IGNORECASE)


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
    if "<!--" not in text:  # most text has none: no copy
        return text
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
    if match.group("rst_url") is not None:
        return match.group("rst_label")
    return match.group(0)


def _same_repo(owner_repo: str, repo: str | None) -> bool:
    """True when a link's repository is the release's own (any repository if unknown)."""
    return repo is None or owner_repo.lower() == repo.lower()


def _clean_plain(text: str) -> str:
    """Plain Markdown text as readers see it: no bold markers or backslash escapes."""
    text = text.replace("**", "")
    return _ESCAPE.sub(r"\1", text) if "\\" in text else text  # most text escapes nothing: skip the pass


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
        return match is not None and "github.com/" in url.lower() and _same_repo(match.group(1), self.repo)

    def role(self, role: str, number_text: str) -> None:
        """Render a Sphinx role of towncrier notes: ``:pr:`N``` cites PR N; ``:issue:`N``` names a number
        that is a PR unless a closing keyword precedes it (towncrier files fragments under either)."""
        start = self.emit(f"#{number_text}")
        kind = "pr" if role in ("pr", "pull", "ghpull") else "pr-or-issue"
        self.refs.append(_Ref(kind, int(number_text), start, start + 1 + len(number_text)))

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
        raw = _drop_comments(raw)
        if "<" in raw:  # every tag starts with "<", every image with "![": most lines have neither
            raw = _HTML_TAG.sub(" ", raw)
        if "![" in raw:
            raw = _IMAGE.sub(" ", raw)
        pos = 0
        for match in _TOKEN.finditer(raw):
            start = match.start()
            if start > pos:
                self.emit(_clean_plain(raw[pos:start]), plain=True)
            kind = match.lastgroup  # each alternative's last group names it, whatever the others hold
            if kind == "url":
                self.link(match.group("label"), match.group("url"))
            elif kind == "rst_url":
                self.link(match.group("rst_label"), match.group("rst_url"))
            elif kind == "role_num":
                self.role(match.group("role").lower(), match.group("role_num"))
            elif kind == "role_user":
                self.emit(f"@{match.group('role_user')}")
            elif kind == "auto":
                self.url(match.group(kind))
            elif kind == "bare":
                self.url(match.group(0))
            else:  # a code span: the whole match, backticks included
                self.emit(match.group(0))
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
    """Offset where the trailing group of refs/credits ("#12 by @x in #13") begins. Read token by token from the
    end (str.rsplit splits on the whitespace `\\s` matches): the group is a few tokens of a long line."""
    start = len(text)
    rest = text
    while True:
        parts = rest.rsplit(None, 1)
        if not parts or not _TAIL_TOKEN.fullmatch(parts[-1]):
            return start
        rest = rest.rstrip()
        start = len(rest) - len(parts[-1])
        rest = parts[0] if len(parts) == 2 else ""


def _bare_refs(renderer: _Renderer, text: str) -> None:
    """Find ``#N`` / ``owner/repo#N`` / ``GH-N`` in plain spans of the rendered text."""
    if "#" not in text and "GH-" not in text:  # every bare reference has one; the refs are in order already
        return
    found: list[_Ref] = []
    for start, end in renderer.plain_spans:
        if text.find("#", start, end) < 0 and text.find("GH-", start, end) < 0:
            continue
        for match in _BARE_REF.finditer(text, start, end):
            own = match.group("own")
            if own and not _same_repo(own, renderer.repo):
                continue
            kind = "gh" if match.group("gh") else "bare"
            found.append(_Ref(kind, int(match.group("num")), match.start(), match.end()))
            if len(found) >= _MAX_REFS_PER_UNIT:
                break
    if found:
        renderer.refs.extend(found)
        renderer.refs.sort(key=lambda ref: ref.start)


def _is_citation(text: str, ref: _Ref, tail: int) -> bool:
    """A bare ``#N`` cites a PR when parenthesised, trailing, leading or ending a title."""
    if ref.start >= tail or _paren_depth(text, ref.start) > 0:
        return True
    if not text[: ref.start].strip(" -*:[("):  # leads the line: "#97 Sentry …", "[#123] Fix …"
        return True
    if _follows_only_references(text[: ref.start]):  # … or is one of a leading group of them
        return True
    return _TITLE_END.match(text, ref.end) is not None


def _follows_only_references(prefix: str) -> bool:
    """Whether the text before a reference is only other references and their separators ("[#554][], [", "[#460][]
    and ["), so every reference of a group that leads the line cites a PR, not just the first."""
    without = _GROUP_REFERENCE.sub("", prefix)
    return without != prefix and not _GROUP_JOIN.sub("", without).strip(" -*+:[(,\t")


def _resolve_refs(renderer: _Renderer) -> tuple[list[int], list[int]]:
    """Decide which references are PRs and which are issues (see the package docstring)."""
    text = renderer.text()
    _bare_refs(renderer, text)
    tail = _tail_start(text)
    prs: list[int] = []
    issues: list[int] = []
    # A line that links its PR explicitly ("… (#2599) by @x in https://…/pull/3006") cites a bare #N below that
    # number as the issue it is about (generated notes print the PR's title, which often names its issue; issues and
    # PRs share one counter and an issue predates the PR that fixes it). A higher bare #N is a later PR: the backport
    # of the linked one ("… ([#17357](…/pull/17357)) (#17359)").
    explicit_pull = max((ref.number for ref in renderer.refs if ref.kind == "pr"), default=0)
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
            (issues if ref.number < explicit_pull else prs).append(ref.number)
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


_CHANGESET_CREDIT = re.compile(
    r"^(?:`?[0-9a-f]{7,40}`?\s+)?(?P<refs>[#\d\s]{0,60})(?:`?[0-9a-f]{7,40}`?\s+)?"
    r"Thanks\s+@[@\w\s,-]{0,300}?!\s+-\s+(?P<rest>\S.*)$",
    re.DOTALL,
)
# "1a2b3c4: Fix …", and GoReleaser's "1a2b3c4 fix(api): …" (a hash with a digit, then a commit type)
_COMMIT_PREFIX = re.compile(
    r"^`?(?:[0-9a-f]{7,40}`?:\s+|(?=[a-f]{0,39}\d)[0-9a-f]{7,40}`?\s+(?=[a-z]{2,12}(?:\([^()]{0,40}\))?!?:\s))"
    r"(?P<rest>\S.*)$",
    re.DOTALL,
)


def _without_credit_prefix(text: str) -> str:
    """Changesets write "#512 `9f8e7d6` Thanks @carol! - Fix wrong timestamps" (older ones "`9f8e7d6` #512 Thanks
    …"), others "1a2b3c4: Fix …" or
    "1a2b3c4 fix(api): …": the change comes first, its PR stays cited at the end ("Fix wrong timestamps
    (#512)")."""
    match = _CHANGESET_CREDIT.match(text)
    if match is not None:
        cited = " ".join(f"({ref})" for ref in match.group("refs").split() if ref.startswith("#"))
        return f"{match.group('rest')} {cited}".strip()
    match = _COMMIT_PREFIX.match(text)
    return match.group("rest") if match is not None else text


_MAX_SCAN = 16000  # raw chars searched for commit URLs
_MAX_COMMITS = 20
_COMMIT_URL = re.compile(
    r"https?://(?:www\.)?github\.com/([A-Za-z0-9-]{1,39}/[\w.-]{1,100})/commits?/([0-9a-fA-F]{7,40})(?![0-9a-zA-Z])"
)
# A hash the line cites: enclosed ("(92e109c)", "`92e109c`", "[92e109c]"), or a full 40-hex SHA anywhere.
# The opening character is matched, not looked behind for: the regex engine then skips to the next "(", "[" or "`"
# instead of trying the look-behind at every character (a match ends on a hex digit, never on an opener, so the
# same hashes are found).
_ENCLOSED_SHA = re.compile(r"[(\[`]([0-9a-f]{7,40})(?=[)\]`])")
_FULL_SHA = re.compile(r"(?<![\w/])([0-9a-f]{40})(?![\w/])")
_HEX_RUN = re.compile(r"[0-9a-f]{40}")  # what every `_FULL_SHA` match holds: most lines have none
_LEADING_SHA = re.compile(r"^(?:[#\d\s]{0,60})?`?([0-9a-f]{7,40})`?(?=:?\s)")


def _looks_like_sha(token: str) -> bool:
    """A short hash has a digit and a letter ("92e109c"); "deadbeef" is a word, "1234567" a number."""
    return len(token) == 40 or (any(c.isdigit() for c in token) and any(c.isalpha() for c in token))


def commit_refs(raw: str, text: str, repo: str | None) -> tuple[str, ...]:
    """Commits a bullet cites: this repository's first, as hashes — commit URLs (full SHA from the URL), enclosed
    short hashes ("… base_url (92e109c)"), full SHAs, and a leading credit hash ("1a2b3c4: Fix …", changesets'
    "#512 `9f8e7d6` Thanks …") —, then another repository's commit links as `owner/repo@sha`
    (`github_refs.commit_ref`); a hash that spells one of those is not this repository's.

    Why: many projects cite a commit, not a PR; the line is then the only evidence, and its commit is the
    one thing to link to — in the repository the link names (socket.io-client's lines citing engine.io-client's
    commits for the fixes it ships from there)."""
    own: list[str] = []
    foreign: list[tuple[str, str]] = []
    if "/commit" in raw:  # every commit URL has it
        for match in _COMMIT_URL.finditer(raw[:_MAX_SCAN]):
            sha = match.group(2).lower()
            if _same_repo(match.group(1), repo):
                own.append(sha)
            else:
                foreign.append((match.group(1), sha))
    found = list(own)
    candidates = [m.group(1) for m in _ENCLOSED_SHA.finditer(text)]
    if _HEX_RUN.search(text) is not None:
        candidates += [m.group(1) for m in _FULL_SHA.finditer(text)]
    leading = _CHANGESET_CREDIT.match(text) or _COMMIT_PREFIX.match(text)
    if leading is not None:
        candidates += [m.group(1) for m in [_LEADING_SHA.match(text)] if m is not None]
    for token in candidates:
        if not _looks_like_sha(token) or any(sha.startswith(token) for _, sha in foreign):
            continue
        found.append(token)
    others = tuple(dict.fromkeys(commit_ref(owner_repo, sha) for owner_repo, sha in foreign))
    return ((_unique_shas(found) if found else ()) + others)[:_MAX_COMMITS]


def cites_own_commit(commits: tuple[str, ...], repo: str | None) -> bool:
    """Whether one of a line's commits (`commit_refs`) is of its own repository."""
    return any(split_commit(ref, repo or "")[0] == (repo or "") for ref in commits)


def _unique_shas(shas: list[str]) -> tuple[str, ...]:
    """In order, without a short hash that another (longer) one already spells out."""
    kept: list[str] = []
    for sha in sorted(dict.fromkeys(shas), key=len, reverse=True):
        if not any(other.startswith(sha) for other in kept):
            kept.append(sha)
    return tuple(sorted(kept, key=shas.index))[:_MAX_COMMITS]


def _dedupe(numbers: list[int]) -> tuple[int, ...]:
    """Unique numbers in order of first appearance."""
    return tuple(dict.fromkeys(numbers))
