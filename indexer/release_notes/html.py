"""Release bodies written as HTML lists (``<h3>Bug Fixes</h3><ul><li>…</li></ul>``), rewritten as Markdown.

Why: GitHub renders HTML in a release body, and some projects publish their notes that way; the line
scanner skips HTML lines, so such a release would have no entries at all. Headings become ``#``
headings, list items ``-`` bullets (nested lists indented), and ``<a href>`` links Markdown links so
their PR references are read like any other. Bodies where no line starts with an HTML heading or list
are left untouched.
"""

from __future__ import annotations

import re

# A line that starts with a heading or list tag ("<h3>Bug Fixes</h3><ul><li>…" may be one line), in a body with
# list items: HTML notes, not a Markdown bullet that mentions a tag.
_BLOCK_LINE = re.compile(r"^[ \t]{0,8}<(?:ul|ol|li|h[1-6])[\s>]", re.IGNORECASE | re.MULTILINE)
_LIST_ITEM = re.compile(r"<li[\s>]", re.IGNORECASE)
_BLOCK_TAG = re.compile(r"<(/?)(ul|ol|li|h[1-6])\b[^<>]{0,300}>", re.IGNORECASE)
_ANCHOR = re.compile(r"<a\s[^<>]{0,300}?href=[\"'](?P<url>[^\"'<>\s]{1,500})[\"'][^<>]{0,300}>"
                     r"(?P<label>[^<>]{0,300})</a>", re.IGNORECASE)


def html_lists_to_markdown(body: str) -> str:
    """`body` with its HTML headings and lists as Markdown; unchanged unless a line starts with a heading or
    list tag and the body has list items (a bullet about "`<li>` rendering" is Markdown)."""
    if not (_BLOCK_LINE.search(body) and _LIST_ITEM.search(body)):
        return body
    body = _ANCHOR.sub(lambda m: f"[{m.group('label').strip()}]({m.group('url')})", body)
    out: list[str] = []
    depth, heading, position = 0, False, 0
    for match in _BLOCK_TAG.finditer(body):
        text = body[position:match.start()]
        out.append(_one_line(text) if depth or heading else text)  # Markdown around the lists stays as is
        position = match.end()
        closing, tag = match.group(1) == "/", match.group(2).lower()
        if tag in ("ul", "ol"):
            depth = max(depth - 1, 0) if closing else depth + 1
            out.append("\n")
        elif tag == "li":
            out.append("\n" if closing else "\n" + "  " * max(depth - 1, 0) + "- ")
        else:
            heading = not closing
            out.append("\n\n" if closing else "\n\n" + "#" * int(tag[1]) + " ")
    out.append(body[position:])
    return "".join(out)


def _one_line(text: str) -> str:
    """Text inside an item or heading: one line (HTML's line breaks there are spaces)."""
    return " ".join(part.strip() for part in text.split("\n") if part.strip())
