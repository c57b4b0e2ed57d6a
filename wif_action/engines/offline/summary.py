"""Extractive summaries of long PR descriptions (the spec's token-efficiency rule).

The offline engine has no model to write a summary, so it keeps the opening
paragraph (usually what the PR does) plus the sentences that share words with the
purpose (usually the problem), in their original order. Code blocks, HTML comments
and checklists (PR templates) are dropped first.
"""

from __future__ import annotations

import re

from wif_action.lexicon.terms import MAX_ANALYSED_CHARS, analyse

MAX_SUMMARY_CHARS = 2_000
MAX_INPUT_CHARS = 5 * MAX_ANALYSED_CHARS
MAX_SENTENCES = 40
_COMMENT = re.compile(r"<!--[\s\S]{0,4000}?-->")
_CHECKLIST = re.compile(r"^\s*[-*] \[[ xX]\]")
_SENTENCE = re.compile(r"(?<=[.!?])\s+|\n+")


def summarize(text: str, purpose: str) -> str:
    """First paragraph + purpose-related sentences, at most MAX_SUMMARY_CHARS."""
    text = _prose(_COMMENT.sub(" ", (text or "")[:MAX_INPUT_CHARS]))
    if len(text) <= MAX_SUMMARY_CHARS:
        return text.strip()
    paragraphs = [p.strip() for p in re.split(r"\n\s*\n", text) if p.strip() and not p.lstrip().startswith("#")]
    opening = paragraphs[0][: MAX_SUMMARY_CHARS // 2] if paragraphs else ""
    wanted = {term.key for term in analyse(purpose)}
    out = opening
    for sentence in _related_sentences(text[len(opening):], wanted):
        if len(out) + len(sentence) + 1 > MAX_SUMMARY_CHARS:
            break
        out = f"{out}\n{sentence}" if out else sentence
    return out[:MAX_SUMMARY_CHARS]


def _prose(text: str) -> str:
    """The text without fenced code blocks and checklist lines."""
    kept, fenced = [], False
    for line in text.splitlines():
        if line.lstrip().startswith(("```", "~~~")):
            fenced = not fenced
        elif not fenced and not _CHECKLIST.match(line):
            kept.append(line)
    return "\n".join(kept)


def _related_sentences(text: str, wanted: set[str]) -> list[str]:
    """Sentences sharing the most purpose terms, returned in document order."""
    sentences = [s.strip() for s in _SENTENCE.split(text[:MAX_ANALYSED_CHARS]) if len(s.strip()) > 20]
    scored = [(len({t.key for t in analyse(s)} & wanted), i, s) for i, s in enumerate(sentences)]
    best = sorted((item for item in scored if item[0] > 0), key=lambda item: (-item[0], item[1]))[:MAX_SENTENCES]
    return [s for _, _, s in sorted(best, key=lambda item: item[1])]
