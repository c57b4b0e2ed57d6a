"""The forgiving line scanner that turns a release body into ``ReleaseNoteEntry`` records.

It walks the body one line at a time, tracking headings (ATX, bold/colon pseudo-headings,
``<details>``/``<summary>``), skipping code fences, comments, admonitions, quotes, tables and
HTML, and collecting each list item with its continuation lines and nested items before
rendering it (``references``) and classifying it (``sections``).
"""

from __future__ import annotations

import re
from dataclasses import dataclass, field
from functools import lru_cache

from indexer.release_notes.model import _MAX_BOLD_TEXT, _MAX_HEADING, _MAX_RAW, _MAX_TEXT, ReleaseNoteEntry
from indexer.release_notes.references import (
    _dedupe,
    _render_unit,
    _strip_inline_markup,
    _without_credit_prefix,
    cites_own_commit,
    commit_refs,
)
from indexer.release_notes.sections import _classify_wording, _heading_rule, _Rule, own_fix_type
from indexer.words import alternation, words

# --------------------------------------------------------------------------- line scanner

_FENCE = re.compile(r"(`{3,}|~{3,})")
_HEADING_START = re.compile(r"(#{1,6})(?:[ \t]|$)")
_BULLET = re.compile(r"([-*+]|\d{1,9}[.)])(?:[ \t]+(.*)|$)")
_BOLD_BULLET = re.compile(r"\*\*[-*+][ \t]+(.*)$")
_BOLD_LINE = re.compile(r"(?:\*\*|__)([^*_\n]{1,80})(?:\*\*|__):?$")
_COLON_LINE = re.compile(r"([A-Za-z][\w '\u2019&/-]{0,60}):$")
_ADMONITION = re.compile(r"(?:!!!|\?\?\?\+?)[ \t]")
_SETEXT_UNDERLINE = re.compile(r"(?:={3,}|-{3,})$")
_MAX_LINE = 20000  # longer source lines are truncated before any matching
_HTML_LINE = re.compile(r"</?[A-Za-z][^<>]{0,300}>?")
_PLAIN_ENTRY = re.compile(r"\(#\d{1,7}\)[ \t]*(?:by[ \t]+@[\w-]{1,60}[ \t]*)?\.?$")
_WORD = re.compile(r"[A-Za-z]{2,}")
_SKIP_BULLET = re.compile(r"\**full changelog\b", re.IGNORECASE)
_MAX_PSEUDO_HEADING_WORDS = 5
# A list item that is only a section's name (its words from this set): old changelogs nest their entries under one.
@lru_cache(maxsize=1)
def _section_name() -> re.Pattern[str]:
    """Up to five words of words.toml `section_name_words` ("Bug Fixes", "New features and changes")."""
    return re.compile(rf"(?:{alternation(words('section_name_words'))}[ \t,/]*){{1,5}}", re.IGNORECASE)


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
    prose: list[tuple[_Context, list[str]]] = field(default_factory=list)  # paragraphs no entry came from (prose.py)
    prose_size: int = 0
    scope: tuple[int, str] | None = None  # (indent, "**http1:**") of a scope-only item whose nested items are entries


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
    """Specific headings win, except a feature-like one over a line whose own conventional-commit type says fix
    ("fix(proxy): …" under "Enhancements", words.toml `fix_type_overrides`); generic ones defer to the bullet's
    wording."""
    if not context.generic:
        overridden = context.section in words("fix_type_overrides") and own_fix_type(head_text)
        return "fix" if overridden else context.section
    return _classify_wording(head_text, weak=False) or context.section


def _push_heading(state: _State, level: int, text: str) -> None:
    """Enter a heading; deeper headings are sub-groups of the current one."""
    _close_bullet(state)
    state.scope = None
    rule = _heading_rule(text)
    while state.stack and state.stack[-1].level >= level:
        state.stack.pop()
    if rule is not None and rule.reset:
        state.stack.append(_Head(level, "", None))
    else:
        state.stack.append(_Head(level, _strip_inline_markup(text)[:_MAX_HEADING], rule))


def _emit(state: _State, context: _Context, units: list[_Unit], bold: bool, cited: bool = False) -> None:
    """Turn collected paragraphs into an entry (if it has any text; with ``cited``, only if it cites a PR or
    commit)."""
    texts: list[str] = []
    prs: list[int] = []
    issues: list[int] = []
    commits: tuple[str, ...] = ()
    nested_refs = context.generic or context.section != "dependency"
    prose_budget = _MAX_BOLD_TEXT if bold else _MAX_TEXT
    for index, unit in enumerate(units):
        if not unit.lines:
            continue
        count: bool | None = unit.count_refs
        if index > 0 and not nested_refs:
            count = None
        raw = " ".join(unit.lines)
        text, unit_prs, unit_issues = _render_unit(raw, state.repo, count)
        text = " ".join(text.split())  # `\s` runs to one space, ends stripped (str.split's whitespace is `\s`)
        if index == 0:
            if unit.count_refs:
                commits = commit_refs(raw, text, state.repo)
            text = _without_credit_prefix(text)
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
    if cited and not pr_numbers and not cites_own_commit(commits, state.repo):  # prose: this repository's change
        return
    issue_numbers = tuple(n for n in _dedupe(issues) if n not in pr_numbers)
    state.entries.append(
        ReleaseNoteEntry(
            section=_section(context, head_text),
            text=text,
            prs=pr_numbers,
            issues=issue_numbers,
            position=len(state.entries),
            heading=context.heading,
            commits=commits,
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
    if not lines:
        return
    context = _context(state.stack)
    if context.skip:
        return
    if any(not _is_plain_entry(line, state.repo) for line in lines):
        if state.prose_size < _MAX_RAW:  # kept for a body no list item made an entry of (prose.py)
            state.prose.append((context, lines))
            state.prose_size += sum(len(line) for line in lines)
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
    """Open a new top-level bullet under the current heading context; an item nested under a scope-only item
    ("* **http1:**") starts with that scope, as a one-line "* **http2:** …" item does."""
    _close_bullet(state)
    if state.scope is not None and indent <= state.scope[0]:
        state.scope = None
    if state.scope is not None:
        content = f"{state.scope[1]} {content}"
    stripped = content.strip()
    bold = bold or (len(stripped) > 4 and stripped.startswith("**") and stripped.endswith("**"))
    unit = _Unit([], True)
    bullet = _Bullet(indent, bold, _context(state.stack), [unit], unit)
    bullet.add(unit, content)
    state.bullet = bullet


def _handle_bullet(state: _State, indent: int, content: str, bold: bool) -> None:
    """A list item: nested items join their parent, others start a new entry. A parent that only names a section
    ("* Bug Fixes" over "  * Fix …" items, old mix CHANGELOGs) is a heading, and its items are the entries."""
    bullet = state.bullet
    if bullet is not None and indent >= bullet.indent + 2 and (heading := _list_heading(bullet)) is not None:
        state.bullet = None  # the section's name is no entry
        _push_heading(state, 7, heading)
        _start_bullet(state, indent, content, bold)
        return
    if bullet is not None and indent >= bullet.indent + 2 and (scope := _scope_only(bullet)) is not None:
        state.bullet = None  # clog's "* **http1:**" over its fixes: the scope is no entry, each item is one
        state.scope = (bullet.indent, scope)
        _start_bullet(state, indent, content, bold)
        return
    if bullet is not None and indent >= bullet.indent + 2:
        unit = _Unit([], True)
        bullet.units.append(unit)
        bullet.add(unit, content)
        bullet.open_unit = unit
        bullet.blank = False
        return
    _start_bullet(state, indent, content, bold)


def _list_heading(bullet: _Bullet) -> str | None:
    """The section a bullet names when it is nothing but a section's name ("Bug Fixes", "Enhancements:",
    "Breaking Changes"); None for an entry ("TTFD fixes", "New Performance APIs"), however short."""
    if len(bullet.units) != 1 or len(bullet.units[0].lines) != 1:
        return None
    text = _strip_inline_markup(bullet.units[0].lines[0]).strip().rstrip(":").strip()
    if not _section_name().fullmatch(text):
        return None
    rule = _heading_rule(text)
    return text if rule is not None and not rule.reset else None


_SCOPE_ONLY = re.compile(r"\*\*[^*\s][^*\n]{0,39}?(?::\*\*|\*\*:)")


def _scope_only(bullet: _Bullet) -> str | None:
    """The bold scope a bullet is nothing but ("**http1:**", clog's scope groups), as "**http1:**"; None otherwise."""
    if len(bullet.units) != 1 or len(bullet.units[0].lines) != 1:
        return None
    text = bullet.units[0].lines[0].strip()
    return text.replace("**:", ":**") if _SCOPE_ONLY.fullmatch(text) else None


_TOWNCRIER_REFS = re.compile(r"\*?Related issues and pull requests on GitHub:\*?\s*", re.IGNORECASE)


def _handle_text(state: _State, indent: int, stripped: str) -> None:
    """A prose line: continuation of the open bullet, or a paragraph of its own."""
    bullet = state.bullet
    if bullet is not None:
        if not bullet.blank and bullet.open_unit is not None:
            bullet.add(bullet.open_unit, stripped)
            return
        indented = indent >= bullet.indent + 2
        if indented or (bullet.bold and bullet.paragraphs == 0):
            cites = _TOWNCRIER_REFS.match(stripped)  # towncrier's own paragraph of the entry's references
            unit = _Unit([], cites is not None)
            bullet.units.append(unit)
            bullet.add(unit, stripped[cites.end():] if cites else stripped)
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
    if state.bullet is None and len(state.paragraph) == 1 and _SETEXT_UNDERLINE.match(stripped):
        _push_heading(state, 1 if stripped[0] == "=" else 2, state.paragraph.pop())  # "Features\n--------"
        return
    if indent < 2 and stripped[0] in "!?" and _ADMONITION.match(stripped):
        _close_bullet(state)
        state.in_admonition = True
        return
    if _handle_structural(state, indent, stripped):
        return
    bold_bullet = _BOLD_BULLET.match(stripped) if stripped.startswith("**") else None
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
    heading = _heading_parts(stripped) if stripped[0] == "#" and (indent <= 3 or inside) else None
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
    if not stripped or stripped[0] not in "-*_":  # `stripped` has no leading blank: its first character decides
        return False
    mark = stripped[0]  # a rule is that character 3+ times, blanks between, and nothing else
    return not stripped.strip(mark + " \t") and stripped.count(mark) >= 3
