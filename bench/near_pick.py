"""Draw the fix lines to label for one in-sample repository of bench/data/near, at random with a fixed seed.

Why: a labelled set measures the judge only if nobody chose the questions it answers well. The draw reads
the release data far_data.py wrote, not WIF's parser (a line the parser misreads must still be drawable): a
bullet under a heading (## to ###, or an rst `-` underline) that says fix/bug and not improvements/features,
citing exactly one PR far_data found a commit for, in the release that first cites it (by version). Each pick
gets two customer versions, each drawn from up to 5 stable releases of the same major line: `before` the fix
(for a `fix` case) and `after` it, the fix release included (for an `already_has_fix` case). The labeller takes
the list in order: the first usable picks become fix cases, the next one or two already-fixed ones; a pick
skipped (no `before`, or no customer-visible bug) is said in the case or the commit. Problem, message and label
are written from this list BEFORE running WIF.

Two opt-in pools (so the existing draws stay as they were): `--areas` for notes whose headings name areas, not
change kinds (Black's "Stable style", "Configuration", "Packaging"): under such a heading, a bullet that says
fix/bug; `--commits` draws, instead of PR lines, the fix lines that cite no PR but exactly one commit
(release-please's `* **client:** avoid memory leak ([b449f36](…/commit/b449f36…))`), first cited in that release;
`--bold` also reads a line that is only bold text as a heading, in a body with no other heading (echo's `**Fixes**` /
`**Enhancements**`, GitHub's generated notes pasted into a CHANGELOG); `--prefixed` draws, instead, the bullets of a
heading-less body that carry their kind as a prefix saying fix/bug (Guzzle 6's `* Fix: …`, `* Bug fix: …`);
`--clog` reads clog's notes (hyper): `#### Bug Fixes` headings in a body with no shallower one, a bullet that only
names a scope (`* **http1:**`) over nested items as one line per item (`http1: …`), and a line's `closes [#N](…)`
issue links left out of its references; `--mixed` also draws a bullet saying fix/bug under a mixed heading
(kotlinx.serialization's `### Bugfixes and improvements`) and reads lists indented two spaces (`  * Fix … (#N)`);
with `--flat`, a heading-less list indented two spaces (monolog's `  * Fixed … (#N)`).

    python bench/near_pick.py bench/data/near/urllib3__urllib3.json.gz --seed 21
    python bench/near_pick.py bench/data/near/openai__openai-node.json.gz --seed 21 --commits
    python bench/near_pick.py bench/data/near/psf__black.json.gz --seed 21 --areas
    python bench/near_pick.py bench/data/near/labstack__echo.json.gz --seed 21 --bold
    python bench/near_pick.py bench/data/near/guzzle__guzzle.json.gz --seed 21 --prefixed
    python bench/near_pick.py bench/data/near/hyperium__hyper.json.gz --seed 21 --clog
    python bench/near_pick.py bench/data/near/Kotlin__kotlinx.serialization.json.gz --seed 21 --mixed
    python bench/near_pick.py bench/data/near/Seldaek__monolog.json.gz --seed 21 --flat --mixed
"""

from __future__ import annotations

import argparse
import gzip
import json
import random
import re
import sys
from pathlib import Path

from packaging.version import Version

ROOT = Path(__file__).resolve().parent.parent
if str(ROOT) not in sys.path:
    sys.path.insert(0, str(ROOT))

from bench.far_data import PR_REF  # noqa: E402

FIX_HEADING = re.compile(r"fix|bug", re.I)
FIX_WORD = re.compile(r"\b(?:fix(?:e[sd]|ing)?|bugs?)\b", re.I)  # a flat list's bullet: "Fix …", not "debugger"
MIXED_HEADING = re.compile(r"improve|feature|enhance", re.I)  # craft's "Various fixes & improvements" is not a fix list
HEADING = re.compile(r"^(?:#{1,3} +(?P<md>.+)|(?P<rst>[^\s#-].*)\n[-~^]{3,}[ \t]*)$", re.M)  # "#### Tracing" is a topic
# a plain line ending in ":" right over a list (zap: "Bugfixes:" / "Enhancements:"), read only in a body that has no
# Markdown or rst heading, so a "Note:" over a list elsewhere never becomes a section
COLON_HEADING = re.compile(r"^(?P<md>[A-Z][\w ]{0,40}):[ \t]*(?=\n[-*] )", re.M)
# a line that is only bold text, "**Fixes**" (echo), read with --bold only in a body that has no other heading; a
# bold lead-in followed by text ("**Full Changelog**: https://…", "**Important**: …") is no heading
BOLD_HEADING = re.compile(r"^\*\*(?P<md>[^*\n]+?):?\*\*:?[ \t]*$", re.M)
# a bullet's kind as its prefix, "Fix: …" / "Bug fix: …" / "Bugfix: …" (Guzzle 6), for --prefixed
FIX_PREFIX = re.compile(r"^(?:bug ?fix(?:es)?|fix(?:e[sd])?)[ \t]*:", re.I)
BULLET = re.compile(r"^[-*] +(?P<text>.+(?:\n {2,}\S.*)*)", re.M)
# --mixed also reads a list indented two spaces, "  * Fix resize in JsonPath (#2995)" (kotlinx.serialization)
INDENTED_BULLET = re.compile(r"^ {0,2}[-*] +(?P<text>.+(?:\n {4,}\S.*)*)", re.M)
# a bullet that cites no PR itself: its indented paragraphs after blank lines, where towncrier (aiohttp) puts
# "*Related issues and pull requests on GitHub:* :issue:`N`."
# a commit a line cites: a commit URL (full SHA), else a short hash in parentheses or brackets ("(92e109c)")
COMMIT_URL = re.compile(r"/commits?/([0-9a-f]{7,40})\b")
COMMIT_HASH = re.compile(r"[(\[]([0-9a-f]{7,12})[)\]]")
# clog (--clog): a kind heading one level deeper ("#### Bug Fixes"), a bullet naming only its scope over nested items
# ("* **http1:**\n  * discard … (#4124) ([540fff9](…), closes [#4123](…))"), the issues a line closes
CLOG_HEADING = re.compile(r"^#{4} +(?P<md>.+)$", re.M)
SCOPE_ONLY = re.compile(r"^\*\*(?P<scope>[^*\n]+?):?\*\*:?[ \t]*$")
NESTED = re.compile(r"^ {2,}[-*] +(?P<text>.+(?:\n {4,}\S.*)*)", re.M)
CLOSES = re.compile(r",? *closes .*$", re.I | re.S)
FOLLOWING = re.compile(r"(?:[ \t]*\n)+ {2,}\S.*(?:\n(?:[ \t]*\n)* {2,}\S.*)*")


def fix_lines(release: dict, flat: bool = False, areas: bool = False, bold: bool = False,
              prefixed: bool = False, clog: bool = False, mixed: bool = False) -> list[tuple[str, str]]:
    """(heading, bullet text) of every bullet under a fix/bug heading of one release body. `flat` (notes that
    never have section headings, e.g. Pallets' CHANGES.rst): in a body without any heading, every bullet of a
    patch release (X.Y.Z, Z > 0: a bug-fix release by semver) and, in other releases, a bullet saying fix/bug.
    `areas` (headings that name areas, e.g. Black's "Stable style"): also a bullet saying fix/bug under any
    heading that is not a feature or mixed one. `bold`: a bold-only line is a heading too, when the body has no
    other. `prefixed`: only the bullets of a heading-less body whose kind prefix says fix/bug. `mixed`: under a mixed
    heading ("Bugfixes and improvements", kotlinx.serialization), a bullet saying fix/bug, and bullets indented two
    spaces (with `flat` too: monolog's heading-less `  * Fixed … (#N)` lists)."""
    body = release["body"] or ""
    marks = [(m.start(), (m["md"] or m["rst"]).strip()) for m in HEADING.finditer(body)] or \
        [(m.start(), m["md"].strip()) for m in COLON_HEADING.finditer(body)]
    if prefixed:
        return [] if marks else [("", " ".join(b["text"].split())) for b in BULLET.finditer(body)
                                 if FIX_PREFIX.match(b["text"])]
    if bold and not marks:
        marks = [(m.start(), m["md"].strip()) for m in BOLD_HEADING.finditer(body)]
    if clog and not marks:
        marks = [(m.start(), m["md"].strip()) for m in CLOG_HEADING.finditer(body)]
    if flat and not marks:
        patch = Version(release["name"]).micro > 0
        return [("", " ".join(b["text"].split())) for b in (INDENTED_BULLET if mixed else BULLET).finditer(body)
                if patch or FIX_WORD.search(b["text"])]
    found: list[tuple[str, str]] = []
    for bullet in (INDENTED_BULLET if mixed else BULLET).finditer(body):
        above = [title for start, title in marks if start < bullet.start()]
        if above and ((not MIXED_HEADING.search(above[-1]) and (
                FIX_HEADING.search(above[-1]) or (areas and FIX_WORD.search(bullet["text"])))) or (
                mixed and MIXED_HEADING.search(above[-1]) and FIX_WORD.search(bullet["text"]))):
            text = bullet["text"]
            if clog:
                found.extend((above[-1], line) for line in _clog_items(text))
                continue
            if not PR_REF.search(text) and (more := FOLLOWING.match(body, bullet.end())):
                text += more[0]
            found.append((above[-1], " ".join(text.split())))
    return found


def _clog_items(text: str) -> list[str]:
    """A clog bullet's lines: the items nested under a scope-only first line, each led by the scope, else the bullet;
    without the issues a line closes (they are not the PR that fixed it)."""
    first, _, rest = text.partition("\n")
    scope = SCOPE_ONLY.match(first.strip())
    items = [f"{scope['scope']}: {m['text']}" for m in NESTED.finditer(rest)] if scope else [text]
    return [" ".join(CLOSES.sub("", item).split()) for item in items]


def commits(text: str) -> set[str]:
    """The commits a line cites: the SHAs of its commit URLs, else its bracketed short hashes."""
    return set(COMMIT_URL.findall(text)) or set(COMMIT_HASH.findall(text))


def draw(data: dict, seed: int, flat: bool = False, areas: bool = False, by_commit: bool = False,
         bold: bool = False, prefixed: bool = False, clog: bool = False, mixed: bool = False) -> list[dict]:
    """Every drawable fix line in the seeded order, each with a customer version before the fix (`before`, None
    when the data holds no earlier release of its major line) and one at or after it (`after`). `by_commit`:
    the lines citing no PR and one commit instead (the pick names `commit`, not `pr`)."""
    releases = sorted(data["releases"], key=lambda r: Version(r["name"]))
    first: dict[int | str, str] = {}
    for release in releases:
        body = release["body"] or ""
        for ref in [*map(int, PR_REF.findall(body)), *COMMIT_URL.findall(body), *COMMIT_HASH.findall(body)]:
            first.setdefault(ref, release["name"])
    pool = []
    for release in releases:
        for heading, text in fix_lines(release, flat, areas, bold, prefixed, clog, mixed):
            numbers = set(map(int, PR_REF.findall(text)))
            shas = commits(text)
            if by_commit and not numbers and len(shas) == 1 and first[sha := shas.pop()] == release["name"]:
                pool.append({"fixed_in": release["name"], "commit": sha, "section": heading, "line": text})
            elif not by_commit and len(numbers) == 1 and str(n := numbers.pop()) in data["pulls"] \
                    and first[n] == release["name"]:
                pool.append({"fixed_in": release["name"], "pr": n, "section": heading, "line": text})
    rng = random.Random(seed)
    rng.shuffle(pool)
    names = [r["name"] for r in releases]
    for pick in pool:
        at, major = names.index(pick["fixed_in"]), Version(pick["fixed_in"]).major
        before = [v for v in names[max(0, at - 5):at] if Version(v).major == major]
        pick["before"] = rng.choice(before) if before else None
        pick["after"] = rng.choice([v for v in names[at:at + 5] if Version(v).major == major])
    return pool


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__, formatter_class=argparse.RawDescriptionHelpFormatter)
    parser.add_argument("data", type=Path, help="an <owner>__<name>.json.gz far_data.py wrote")
    parser.add_argument("--first", type=int, default=20, help="how many of the seeded order to list (default 20)")
    parser.add_argument("--seed", type=int, default=21)
    parser.add_argument("--flat", action="store_true",
                        help="the notes have no section headings (Pallets): draw from patch releases' bullets too")
    parser.add_argument("--areas", action="store_true",
                        help="headings name areas, not change kinds (Black): draw bullets saying fix/bug under them")
    parser.add_argument("--commits", action="store_true",
                        help="draw the fix lines that cite no PR but one commit (release-please), not PR lines")
    parser.add_argument("--bold", action="store_true",
                        help="a bold-only line (`**Fixes**`) is a heading in a body with no other (echo)")
    parser.add_argument("--prefixed", action="store_true",
                        help="draw the heading-less bullets whose kind prefix says fix (`* Fix: …`, Guzzle 6) instead")
    parser.add_argument("--clog", action="store_true",
                        help="clog's notes (hyper): `####` kind headings, scope-only bullets over nested items")
    parser.add_argument("--mixed", action="store_true",
                        help="also a bullet saying fix/bug under a mixed heading (`### Bugfixes and improvements`)")
    args = parser.parse_args()
    data = json.loads(gzip.decompress(args.data.read_bytes()))
    for pick in draw(data, args.seed, args.flat, args.areas, args.commits, args.bold, args.prefixed,
                     args.clog, args.mixed)[:args.first]:
        print(json.dumps(pick))


if __name__ == "__main__":
    main()
