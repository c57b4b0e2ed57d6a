"""A fake GitHub REST API serving the recorded fixtures in ``tests/data/github``.

It answers exactly the calls PyGithub 2.10 makes for WIF (see ``FakeGitHub`` for the list),
with GitHub's pagination ``Link`` headers, strong ``ETag`` / ``If-None-Match`` → 304,
``X-RateLimit-*`` headers and rate-limit exhaustion. Every absolute URL in a body or header
is built from the request's ``Host`` header, so PyGithub's same-host assertion holds.

Containment model behind ``GET /repos/{o}/{r}/compare/{base}...{head}``
------------------------------------------------------------------------
Each release tag is a point in time (``published_at``); a merge commit sits at its PR's
``merged_at``. "Main line" = the newest *stable* major released at a given moment.

* release R contains PR P's merge commit iff ``P.merged_at <= R.published_at`` and either
  P's number is referenced (``#N`` or ``/pull/N``) in the body of R or of an earlier release
  of R's major, or ``R.major >= newest stable major at P.merged_at`` (R's line had not yet
  diverged from main when P merged). So a v9 backport published after 10.x does not contain
  fixes merged to main after 10.0.0 unless a v9 changelog names them.
* a tag is *on main* iff its major >= the newest stable major at its publish time.
* tag H contains tag B iff B is not later than H and (same major, or B is on main and
  ``H.major >= B.major``).
* a commit (or the default branch) contains a tag iff the tag is not later and is on main;
  it contains any commit that is not later.

``status`` is ``identical`` (same ref), ``ahead`` (head contains base), ``behind`` (base
contains head) or ``diverged`` (neither, e.g. a backport line).
"""

from __future__ import annotations

import base64
import bisect
import copy
import functools
import gzip
import hashlib
import itertools
import json
import math
import re
import time
from collections import defaultdict
from dataclasses import dataclass, field
from datetime import UTC, datetime
from pathlib import Path
from typing import Any
from urllib.parse import unquote, urlencode

from packaging.version import InvalidVersion, Version

from indexer.versions import parse_tag

from .http_base import FakeServer, HTTPError, Request, Response

__all__ = ["DATA_DIR", "FakeGitHub", "available_repos", "fixture_path", "load_repo_fixture"]

DATA_DIR = Path(__file__).parent.parent / "data" / "github"

REACTIONS = frozenset({"+1", "-1", "laugh", "confused", "heart", "hooray", "rocket", "eyes"})
_DOCS = "https://docs.github.com/rest"
_NOT_FOUND = {"message": "Not Found", "documentation_url": _DOCS, "status": "404"}
_REPO = r"/repos/(?P<o>[^/]+)/(?P<r>[^/]+)"
_PR_REF = re.compile(r"(?:#|/pull/|/issues/)(\d+)\b")
_VERSION_MAJOR = re.compile(r"(\d+)(?:\.\d+)+")


def fixture_path(repo: str, data_dir: Path | None = None) -> Path:
    """Path of the gzip fixture for ``owner/name`` (``owner__name.json.gz``)."""
    owner, name = repo.split("/", 1)
    return (data_dir or DATA_DIR) / f"{owner}__{name}.json.gz"


@functools.lru_cache(maxsize=32)
def _fixture_text(path: Path) -> bytes:
    return gzip.decompress(path.read_bytes())


def load_repo_fixture(repo: str, data_dir: Path | None = None) -> dict[str, Any]:
    """Load one repo fixture (a fresh dict each call; the decompressed bytes are cached)."""
    return json.loads(_fixture_text(fixture_path(repo, data_dir)))


def available_repos(data_dir: Path | None = None) -> list[str]:
    """``owner/name`` of every fixture file in ``data_dir``."""
    return sorted(
        p.name.removesuffix(".json.gz").replace("__", "/", 1) for p in (data_dir or DATA_DIR).glob("*.json.gz")
    )


def _ts(value: str | None) -> float:
    """ISO-8601 timestamp → epoch seconds; None/empty → +inf (never happened)."""
    if not value:
        return math.inf
    return datetime.fromisoformat(value.replace("Z", "+00:00")).timestamp()


def _iso(epoch: float) -> str:
    return datetime.fromtimestamp(epoch, UTC).strftime("%Y-%m-%dT%H:%M:%SZ")


def _now() -> str:
    return _iso(time.time())


def _major(tag: str) -> int:
    """Major version of a tag like ``8.52.0``, ``v2.1``, ``sentry-cocoa@8.52.0``; -1 if none."""
    tail = tag.rsplit("@", 1)[-1].rsplit("/", 1)[-1]
    m = _VERSION_MAJOR.search(tail) or re.search(r"(\d+)", tail)
    return int(m.group(1)) if m else -1


def _stable_id(*parts: object) -> int:
    digest = hashlib.sha1(":".join(map(str, parts)).encode()).hexdigest()
    return int(digest[:8], 16) % 900_000_000 + 100_000_000


def _fake_sha(*parts: object) -> str:
    return hashlib.sha1(":".join(map(str, parts)).encode()).hexdigest()


def _user(login: str, type_: str = "User") -> dict[str, Any]:
    return {"login": login, "id": _stable_id("user", login), "type": type_}


@dataclass(frozen=True)
class _Ref:
    kind: str  # "tag" | "commit" | "branch"
    key: str  # tag name, sha, or branch name
    time: float
    major: int = -1
    number: int | None = None  # PR number for commits


@dataclass
class _Index:
    """Derived lookups over one repo's releases and pulls (rebuilt after each mutation)."""

    by_tag: dict[str, dict[str, Any]]
    by_sha: dict[str, dict[str, Any]]
    tag_by_sha: dict[str, str]
    closers: dict[int, list[dict[str, Any]]]
    stable_times: list[float]
    stable_max_major: list[int]
    first_ref: dict[tuple[int, int], float]
    merged_times: list[float]

    def newest_major_at(self, t: float) -> int:
        i = bisect.bisect_right(self.stable_times, t)
        return self.stable_max_major[i - 1] if i else -1


@dataclass
class _Repo:
    full_name: str
    releases: list[dict[str, Any]]
    pulls: dict[int, dict[str, Any]]
    issues: dict[int, dict[str, Any]] = field(default_factory=dict)
    withheld: list[dict[str, Any]] = field(default_factory=list)  # newest first: served under ## Unreleased
    _index: _Index | None = None

    @property
    def owner(self) -> str:
        return self.full_name.split("/", 1)[0]

    @property
    def name(self) -> str:
        return self.full_name.split("/", 1)[1]

    def touch(self) -> None:
        self._index = None

    def index(self) -> _Index:
        if self._index is None:
            self._index = self._build_index()
        return self._index

    def _build_index(self) -> _Index:
        by_tag = {r["tag_name"]: r for r in self.releases}
        tag_by_sha = {_fake_sha(self.full_name, "tag", t): t for t in by_tag}
        by_sha = {p["merge_commit_sha"]: p for p in self.pulls.values() if p.get("merge_commit_sha")}
        closers: dict[int, list[dict[str, Any]]] = defaultdict(list)
        for p in self.pulls.values():
            for issue in p.get("closes_issues") or []:
                closers[int(issue)].append(p)
        for lst in closers.values():
            lst.sort(key=lambda p: (_ts(p.get("merged_at")), p["number"]))
        stable = sorted(
            (_ts(r.get("published_at")), _major(r["tag_name"]))
            for r in self.releases
            if not r.get("draft") and not r.get("prerelease") and r.get("published_at")
        )
        running = list(itertools.accumulate((m for _, m in stable), max))
        first_ref: dict[tuple[int, int], float] = {}
        for r in self.releases:
            if r.get("draft"):
                continue
            t, major = _ts(r.get("published_at")), _major(r["tag_name"])
            for num in {int(n) for n in _PR_REF.findall(r.get("body") or "")}:
                key = (num, major)
                if t < first_ref.get(key, math.inf):
                    first_ref[key] = t
        merged = sorted(_ts(p.get("merged_at")) for p in self.pulls.values() if p.get("merged_at"))
        return _Index(
            by_tag=by_tag,
            by_sha=by_sha,
            tag_by_sha=tag_by_sha,
            closers=dict(closers),
            stable_times=[t for t, _ in stable],
            stable_max_major=running,
            first_ref=first_ref,
            merged_times=merged,
        )

    # ------------------------------------------------------------ containment
    def resolve(self, ref: str) -> _Ref | None:
        """A tag, a (prefix of a) merge-commit sha, or the default branch; None if unknown."""
        idx = self.index()
        ref = ref.removeprefix("refs/").removeprefix("tags/").removeprefix("heads/")
        rel = idx.by_tag.get(ref)
        if rel is not None and not rel.get("draft"):
            return _Ref("tag", ref, _ts(rel.get("published_at")), _major(ref))
        if ref in ("main", "HEAD"):
            return _Ref("branch", "main", math.inf)
        low = ref.lower()
        if re.fullmatch(r"[0-9a-f]{7,40}", low):
            shas = [low] if low in idx.by_sha or low in idx.tag_by_sha else []
            if not shas:
                shas = [s for s in itertools.chain(idx.by_sha, idx.tag_by_sha) if s.startswith(low)]
            if len(shas) == 1:
                sha = shas[0]
                if sha in idx.tag_by_sha:
                    return self.resolve(idx.tag_by_sha[sha])
                pull = idx.by_sha[sha]
                return _Ref("commit", sha, _ts(pull.get("merged_at")), number=int(pull["number"]))
        return None

    def tag_on_main(self, ref: _Ref) -> bool:
        return ref.major >= self.index().newest_major_at(ref.time)

    def contains(self, head: _Ref, base: _Ref) -> bool:
        """Does ``head`` contain ``base`` under the module's containment model?"""
        if base.time > head.time:
            return False
        idx = self.index()
        if head.kind == "tag":
            if base.kind == "commit":
                assert base.number is not None
                referenced = idx.first_ref.get((base.number, head.major), math.inf) <= head.time
                return referenced or head.major >= idx.newest_major_at(base.time)
            if base.kind == "tag":
                return base.major == head.major or (self.tag_on_main(base) and head.major >= base.major)
            return False
        # head is a main-line commit or the default branch
        return base.kind != "tag" or self.tag_on_main(base)

    def merged_between(self, lo: float, hi: float) -> int:
        times = self.index().merged_times
        return bisect.bisect_right(times, hi) - bisect.bisect_right(times, lo)

    def ref_sha(self, ref: _Ref) -> str:
        return (
            _fake_sha(self.full_name, "tag", ref.key)
            if ref.kind == "tag"
            else (ref.key if ref.kind == "commit" else _fake_sha(self.full_name, "branch", ref.key))
        )


class FakeGitHub(FakeServer):
    """Fake GitHub REST API over the fixtures in ``data_dir`` (default :data:`DATA_DIR`).

    Endpoints (names as counted in ``.requests``):
    ``GET /repos/{o}/{r}``, ``GET /repos/{o}/{r}/releases`` (paginated),
    ``GET /repos/{o}/{r}/releases/latest``, ``GET /repos/{o}/{r}/releases/tags/{tag}``,
    ``GET /repos/{o}/{r}/releases/{id}``, ``GET /repos/{o}/{r}/pulls/{n}``,
    ``GET /repos/{o}/{r}/issues/{n}``, ``GET /repos/{o}/{r}/issues/{n}/timeline`` (paginated),
    ``GET /repos/{o}/{r}/compare/{basehead}``, ``GET /repos/{o}/{r}/contents/{path}``,
    ``GET /rate_limit``, ``GET|POST /repos/{o}/{r}/issues/{n}/comments``,
    ``GET|PATCH /repos/{o}/{r}/issues/comments/{id}``,
    ``POST /repos/{o}/{r}/issues/comments/{id}/reactions``,
    ``POST /repos/{o}/{r}/issues/{n}/reactions``, ``GET /repos/{o}/{r}/actions/workflows/{file}``,
    ``POST /repos/{o}/{r}/actions/workflows/{file}/dispatches``.

    Repos load lazily on first request; ``repos`` restricts which fixtures are visible.
    Repo names are matched case-insensitively; state is keyed by the canonical name.
    """

    def __init__(
        self,
        data_dir: Path | str | None = None,
        repos: list[str] | tuple[str, ...] | set[str] | None = None,
        per_page_max: int = 100,
        token: str | None = None,
    ) -> None:
        super().__init__()
        self.data_dir = Path(data_dir) if data_dir else DATA_DIR
        self.allowed = {r.lower() for r in repos} if repos is not None else None
        self.per_page_max = per_page_max
        self.token = token
        # rate limiting (core resource)
        self.rate_limit_limit = 5000
        self.rate_limit_remaining = 5000
        self.rate_limit_reset = int(time.time()) + 3600
        # delivery state
        self.bot_login = "wif-bot[bot]"
        self.comments: dict[tuple[str, int], list[dict[str, Any]]] = defaultdict(list)
        self.reactions: list[dict[str, Any]] = []
        self.dispatches: list[dict[str, Any]] = []
        self.workflow_files: set[str] | None = None  # None: any workflow file exists
        self.max_dispatch_inputs = 10
        self.changelog_files: set[str] = {"CHANGELOG.md"}
        self.contents_max_bytes: int | None = 1_000_000  # GitHub's contents-API limit for base64
        self.raw_contents = True  # answer `Accept: application/vnd.github.raw…` with the file itself
        # repo (lower-case) → the default branch's CHANGELOG.md as served (str or bytes); None: no such file
        self.default_changelogs: dict[str, str | bytes | None] = {}
        self._repos: dict[str, _Repo] = {}
        self._ids = itertools.count(1_000_001)
        self._run_ids = itertools.count(123)
        self._comment_index: dict[int, tuple[str, int, dict[str, Any]]] = {}
        self._register()

    # ================================================================ test API
    def repo(self, repo: str) -> _Repo:
        """Loaded state of ``repo`` (raises KeyError if it is not available)."""
        with self._lock:
            state = self._lookup(repo)
            if state is None:
                raise KeyError(repo)
            return state

    def add_repo(
        self,
        repo: str,
        releases: list[dict[str, Any]] | None = None,
        pulls: list[dict[str, Any]] | dict[Any, dict[str, Any]] | None = None,
    ) -> None:
        """Create (or replace) a synthetic repo; releases newest first, pulls need ``number``."""
        with self._lock:
            state = _Repo(repo, [], {})
            self._repos[repo.lower()] = state
            for rel in reversed(releases or []):
                state.releases.insert(0, self._complete_release(state, rel))
            values = pulls.values() if isinstance(pulls, dict) else (pulls or [])
            for pull in values:
                self._store_pull(state, pull)
            state.touch()

    def add_pull(self, repo: str, pull: dict[str, Any]) -> dict[str, Any]:
        """Add or replace a PR (``number`` required; other fields get plausible defaults)."""
        with self._lock:
            state = self._require(repo)
            stored = self._store_pull(state, pull)
            state.touch()
            return stored

    def add_release(self, repo: str, release: dict[str, Any]) -> dict[str, Any]:
        """Prepend a release (newest first); ``tag_name`` required, the rest defaulted."""
        with self._lock:
            state = self._require(repo)
            rel = self._complete_release(state, release)
            state.releases.insert(0, rel)
            state.touch()
            return rel

    def edit_release(self, repo: str, tag: str, **fields: Any) -> dict[str, Any]:
        """Update fields (e.g. ``body=...``) of the release tagged ``tag``."""
        with self._lock:
            state = self._require(repo)
            rel = self._release(state, tag)
            rel.update(fields)
            state.touch()
            return rel

    def remove_release(self, repo: str, tag: str) -> None:
        """Delete the release tagged ``tag``."""
        with self._lock:
            state = self._require(repo)
            state.releases.remove(self._release(state, tag))
            state.touch()

    def withhold_newest(self, repo: str, count: int) -> list[dict[str, Any]]:
        """The eval cases' `unreleased_newest` convention: the newest `count` stable releases leave
        /releases, /releases/latest and /releases/tags/…, and their notes (headings one level down) are
        served under `## Unreleased` at the top of the default branch's CHANGELOG.md. Returns them."""
        with self._lock:
            state = self._require(repo)
            stable = [r for r in state.releases if _is_stable_release(r)]
            newest = sorted(stable, key=_release_order, reverse=True)[:count]
            for rel in newest:
                state.releases.remove(rel)
            state.withheld = newest + state.withheld
            state.touch()
            return newest

    def publish_withheld(self, repo: str) -> None:
        """The withheld releases ship: back in /releases, and the Unreleased section is gone."""
        with self._lock:
            state = self._require(repo)
            for rel in reversed(state.withheld):
                state.releases.insert(0, rel)
            state.withheld = []
            state.touch()

    def set_default_changelog(self, repo: str, content: str | bytes | None) -> None:
        """Serve `content` as CHANGELOG.md on the default branch (None: the branch has no such file)."""
        with self._lock:
            self.default_changelogs[self._require(repo).full_name.lower()] = content

    def set_body_empty(self, repo: str, tag: str) -> None:
        """Blank the body of the release tagged ``tag``."""
        self.edit_release(repo, tag, body="")

    def add_issue(
        self,
        repo: str,
        number: int,
        title: str | None = None,
        body: str = "",
        state: str = "closed",
        closed_by_pr: int | None = None,
        cross_referenced_prs: list[int] | None = None,
        state_reason: str | None = None,
        user: str = "reporter",
        labels: list[str] | None = None,
        created_at: str | None = None,
        closed_at: str | None = None,
    ) -> dict[str, Any]:
        """Add an explicit issue; it overrides PRs and issues synthesized from ``closes_issues``.

        Its timeline gets a ``cross-referenced`` event for each PR in ``cross_referenced_prs``
        and ``closed_by_pr``, and (if closed) a ``closed`` event whose ``commit_id`` is the
        closing PR's merge sha (None when closed without a PR).
        """
        with self._lock:
            st = self._require(repo)
            closer = st.pulls.get(closed_by_pr) if closed_by_pr is not None else None
            if closed_at is None and state == "closed":
                closed_at = (closer or {}).get("merged_at") or _now()
            issue = {
                "number": number,
                "title": title if title is not None else f"Issue {number}",
                "body": body,
                "state": state,
                "state_reason": state_reason or ("completed" if state == "closed" else None),
                "closed_by_pr": closed_by_pr,
                "cross_referenced_prs": list(cross_referenced_prs or []),
                "user": user,
                "labels": list(labels or []),
                "created_at": created_at or closed_at or _now(),
                "closed_at": closed_at if state == "closed" else None,
            }
            st.issues[number] = issue
            return issue

    def add_comment(
        self,
        repo: str,
        issue: int,
        body: str,
        user: str = "octocat",
        user_type: str = "User",
        author_association: str = "MEMBER",
    ) -> dict[str, Any]:
        """Seed a comment (e.g. a human's ``/wif ...`` command) on an issue."""
        with self._lock:
            state = self._require(repo)
            return self._new_comment(state, issue, body, "http://127.0.0.1", user, user_type, author_association)

    # ============================================================== internals
    def _lookup(self, repo: str) -> _Repo | None:
        key = repo.lower()
        if key in self._repos:
            return self._repos[key]
        if self.allowed is not None and key not in self.allowed:
            return None
        for name in available_repos(self.data_dir):
            if name.lower() == key:
                data = load_repo_fixture(name, self.data_dir)
                state = _Repo(data.get("repo") or name, data.get("releases", []), {})
                for pull in data.get("pulls", {}).values():
                    state.pulls[int(pull["number"])] = pull
                self._repos[key] = state
                return state
        return None

    def _require(self, repo: str) -> _Repo:
        state = self._lookup(repo)
        if state is None:
            raise KeyError(f"unknown repo {repo!r}: not in repos=..., no fixture; use add_repo() first")
        return state

    @staticmethod
    def _release(state: _Repo, tag: str) -> dict[str, Any]:
        for rel in state.releases:
            if rel["tag_name"] == tag:
                return rel
        raise KeyError(f"{state.full_name}: no release {tag!r}")

    def _complete_release(self, state: _Repo, release: dict[str, Any]) -> dict[str, Any]:
        tag = release["tag_name"]
        rel = {
            "id": _stable_id(state.full_name, "release", tag),
            "tag_name": tag,
            "name": tag,
            "draft": False,
            "prerelease": False,
            "published_at": _now(),
            "html_url": f"https://github.com/{state.full_name}/releases/tag/{tag}",
            "body": "",
        }
        rel.update(release)
        return rel

    @staticmethod
    def _store_pull(state: _Repo, pull: dict[str, Any]) -> dict[str, Any]:
        n = int(pull["number"])
        merged_at = pull.get("merged_at", _now())
        stored = {
            "number": n,
            "title": f"PR {n}",
            "body": "",
            "state": "closed" if merged_at else "open",
            "merged": bool(merged_at),
            "merged_at": merged_at,
            "merge_commit_sha": _fake_sha(state.full_name, "pull", n) if merged_at else None,
            "html_url": f"https://github.com/{state.full_name}/pull/{n}",
            "closes_issues": [],
        }
        stored.update(pull)
        state.pulls[n] = stored
        return stored

    def _register(self) -> None:
        r = self.route
        r("GET", r"/rate_limit", "GET /rate_limit", self._h_rate_limit)
        r("GET", _REPO, "GET /repos/{o}/{r}", self._h_repo)
        r("GET", _REPO + r"/releases", "GET /repos/{o}/{r}/releases", self._h_releases)
        r("GET", _REPO + r"/releases/latest", "GET /repos/{o}/{r}/releases/latest", self._h_latest)
        r("GET", _REPO + r"/releases/tags/(?P<tag>.+)", "GET /repos/{o}/{r}/releases/tags/{tag}", self._h_tag)
        r("GET", _REPO + r"/releases/(?P<id>\d+)", "GET /repos/{o}/{r}/releases/{id}", self._h_release_id)
        r("GET", _REPO + r"/pulls/(?P<n>\d+)", "GET /repos/{o}/{r}/pulls/{n}", self._h_pull)
        r("GET", _REPO + r"/issues/(?P<n>\d+)", "GET /repos/{o}/{r}/issues/{n}", self._h_issue)
        r(
            "GET",
            _REPO + r"/issues/(?P<n>\d+)/timeline",
            "GET /repos/{o}/{r}/issues/{n}/timeline",
            self._h_timeline,
        )
        r(
            "GET",
            _REPO + r"/issues/(?P<n>\d+)/comments",
            "GET /repos/{o}/{r}/issues/{n}/comments",
            self._h_comments,
        )
        r(
            "POST",
            _REPO + r"/issues/(?P<n>\d+)/comments",
            "POST /repos/{o}/{r}/issues/{n}/comments",
            self._h_comment_new,
        )
        r(
            "POST",
            _REPO + r"/issues/(?P<n>\d+)/reactions",
            "POST /repos/{o}/{r}/issues/{n}/reactions",
            self._h_issue_reaction,
        )
        r(
            "GET",
            _REPO + r"/issues/comments/(?P<id>\d+)",
            "GET /repos/{o}/{r}/issues/comments/{id}",
            self._h_comment,
        )
        r(
            "PATCH",
            _REPO + r"/issues/comments/(?P<id>\d+)",
            "PATCH /repos/{o}/{r}/issues/comments/{id}",
            self._h_comment_edit,
        )
        r(
            "POST",
            _REPO + r"/issues/comments/(?P<id>\d+)/reactions",
            "POST /repos/{o}/{r}/issues/comments/{id}/reactions",
            self._h_comment_reaction,
        )
        r(
            "GET",
            _REPO + r"/compare/(?P<basehead>.+)",
            "GET /repos/{o}/{r}/compare/{basehead}",
            self._h_compare,
        )
        r("GET", _REPO + r"/contents/(?P<path>.+)", "GET /repos/{o}/{r}/contents/{path}", self._h_contents)
        r(
            "GET",
            _REPO + r"/actions/workflows/(?P<wf>[^/]+)",
            "GET /repos/{o}/{r}/actions/workflows/{file}",
            self._h_workflow,
        )
        r(
            "POST",
            _REPO + r"/actions/workflows/(?P<wf>[^/]+)/dispatches",
            "POST /repos/{o}/{r}/actions/workflows/{file}/dispatches",
            self._h_dispatch,
        )

    # ------------------------------------------------------------------ hooks
    def default_fault_body(self, status: int) -> Any:
        """GitHub-shaped error body for injected faults."""
        return {
            "message": f"Injected fault (HTTP {status})",
            "documentation_url": _DOCS,
            "status": str(status),
        }

    def not_found(self, req: Request) -> Response:
        """GitHub's 404 body."""
        return Response(404, dict(_NOT_FOUND))

    def before_route(self, req: Request) -> Response | None:
        """Token check (401) and primary rate limit exhaustion (403)."""
        if self.token is not None:
            auth = req.headers.get("authorization", "")
            if auth not in (f"token {self.token}", f"Bearer {self.token}"):
                return Response(401, {"message": "Bad credentials", "documentation_url": _DOCS, "status": "401"})
        if self.rate_limit_remaining <= 0 and req.path != "/rate_limit":
            return Response(
                403,
                {
                    "message": "API rate limit exceeded for installation ID 1. (But here's the good news: "
                    "Authenticated requests get a higher rate limit. Check out the documentation for more "
                    "details.)",
                    "documentation_url": "https://docs.github.com/rest/overview/rate-limits-for-the-rest-api",
                    "status": "403",
                },
            )
        return None

    def finalize(self, req: Request, resp: Response, faulted: bool) -> Response:
        """ETag / If-None-Match → 304, rate-limit accounting and ``X-RateLimit-*`` headers."""
        if req.method == "GET" and resp.status == 200 and (resp.raw is None or "ETag" in resp.headers) \
                and not faulted:
            etag = resp.headers.setdefault("ETag", '"' + hashlib.sha256(resp.payload()).hexdigest()[:40] + '"')
            wanted = {t.strip().removeprefix("W/") for t in req.headers.get("if-none-match", "").split(",")}
            if etag in wanted or "*" in wanted:
                resp = Response(304, None, {"ETag": etag})
        counted = not faulted and resp.status not in (304, 401) and req.path != "/rate_limit"
        if counted and self.rate_limit_remaining > 0:
            self.rate_limit_remaining -= 1
        remaining = max(0, self.rate_limit_remaining)
        for key, value in {
            "X-RateLimit-Limit": self.rate_limit_limit,
            "X-RateLimit-Remaining": remaining,
            "X-RateLimit-Reset": self.rate_limit_reset,
            "X-RateLimit-Used": self.rate_limit_limit - remaining,
            "X-RateLimit-Resource": "core",
            "X-GitHub-Api-Version-Selected": "2022-11-28",
        }.items():
            resp.headers.setdefault(key, str(value))
        return resp

    # --------------------------------------------------------------- helpers
    def _state(self, req: Request) -> _Repo:
        state = self._lookup(f"{req.params['o']}/{req.params['r']}")
        if state is None:
            raise HTTPError(404, dict(_NOT_FOUND))
        return state

    def _paginate(self, req: Request, items: list[Any], default: int = 30) -> Response:
        try:
            per_page = int(req.query.get("per_page", default))
        except ValueError:
            per_page = default
        per_page = max(1, min(per_page, self.per_page_max))
        try:
            page = max(1, int(req.query.get("page", 1)))
        except ValueError:
            page = 1
        last = max(1, math.ceil(len(items) / per_page))
        chunk = items[(page - 1) * per_page : page * per_page]

        def link(p: int, rel: str) -> str:
            query = [(k, v) for k, v in req.query_items]
            if any(k == "page" for k, _ in query):
                query = [(k, str(p) if k == "page" else v) for k, v in query]
            else:
                query.append(("page", str(p)))
            return f'<{req.base_url}{req.raw_path}?{urlencode(query)}>; rel="{rel}"'

        links = []
        if page > 1:
            links.append(link(min(page - 1, last), "prev"))
        if page < last:
            links.append(link(page + 1, "next"))
            links.append(link(last, "last"))
        if page > 1:
            links.append(link(1, "first"))
        headers = {"Link": ", ".join(links)} if links else {}
        return Response(200, chunk, headers)

    def _api(self, req: Request, state: _Repo, suffix: str = "") -> str:
        return f"{req.base_url}/repos/{state.full_name}{suffix}"

    def _release_json(self, req: Request, state: _Repo, rel: dict[str, Any]) -> dict[str, Any]:
        rid = rel["id"]
        return {
            "url": self._api(req, state, f"/releases/{rid}"),
            "assets_url": self._api(req, state, f"/releases/{rid}/assets"),
            "html_url": rel.get("html_url") or f"https://github.com/{state.full_name}/releases/tag/{rel['tag_name']}",
            "id": rid,
            "node_id": f"RE_{rid}",
            "tag_name": rel["tag_name"],
            "target_commitish": "main",
            "name": rel.get("name") or rel["tag_name"],
            "draft": bool(rel.get("draft")),
            "prerelease": bool(rel.get("prerelease")),
            "created_at": rel.get("created_at") or rel.get("published_at"),
            "published_at": rel.get("published_at"),
            "author": _user("github-actions[bot]", "Bot"),
            "assets": [],
            "body": rel.get("body") or "",
        }

    def _repository_json(self, req: Request, state: _Repo) -> dict[str, Any]:
        return {
            "id": _stable_id("repo", state.full_name),
            "node_id": f"R_{_stable_id('repo', state.full_name)}",
            "name": state.name,
            "full_name": state.full_name,
            "owner": _user(state.owner, "Organization"),
            "private": False,
            "html_url": f"https://github.com/{state.full_name}",
            "description": f"Fake copy of {state.full_name}",
            "fork": False,
            "url": self._api(req, state),
            "default_branch": "main",
            "archived": False,
            "disabled": False,
            "visibility": "public",
            "topics": [],
            "has_issues": True,
        }

    # ------------------------------------------------------------ handlers
    def _h_rate_limit(self, req: Request) -> Response:
        remaining = max(0, self.rate_limit_remaining)
        core = {
            "limit": self.rate_limit_limit,
            "remaining": remaining,
            "reset": self.rate_limit_reset,
            "used": self.rate_limit_limit - remaining,
            "resource": "core",
        }

        def res(name: str, limit: int) -> dict[str, Any]:
            return {
                "limit": limit,
                "remaining": limit,
                "reset": self.rate_limit_reset,
                "used": 0,
                "resource": name,
            }

        return Response(
            200,
            {
                "resources": {"core": core, "search": res("search", 30), "graphql": res("graphql", 5000)},
                "rate": dict(core),
            },
        )

    def _h_repo(self, req: Request) -> Response:
        return Response(200, self._repository_json(req, self._state(req)))

    def _h_releases(self, req: Request) -> Response:
        state = self._state(req)
        return self._paginate(req, [self._release_json(req, state, r) for r in state.releases])

    def _h_latest(self, req: Request) -> Response:
        state = self._state(req)
        stable = [r for r in state.releases if not r.get("draft") and not r.get("prerelease") and r.get("published_at")]
        if not stable:
            raise HTTPError(404, dict(_NOT_FOUND))
        newest = max(stable, key=lambda r: _ts(r["published_at"]))
        return Response(200, self._release_json(req, state, newest))

    def _h_tag(self, req: Request) -> Response:
        state = self._state(req)
        rel = state.index().by_tag.get(req.params["tag"])
        if rel is None:
            raise HTTPError(404, dict(_NOT_FOUND))
        return Response(200, self._release_json(req, state, rel))

    def _h_release_id(self, req: Request) -> Response:
        state = self._state(req)
        for rel in state.releases:
            if str(rel["id"]) == req.params["id"]:
                return Response(200, self._release_json(req, state, rel))
        raise HTTPError(404, dict(_NOT_FOUND))

    def _pull(self, req: Request, state: _Repo) -> dict[str, Any]:
        pull = state.pulls.get(int(req.params["n"]))
        if pull is None:
            raise HTTPError(404, dict(_NOT_FOUND))
        return pull

    def _h_pull(self, req: Request) -> Response:
        state = self._state(req)
        p = self._pull(req, state)
        n = int(p["number"])
        created = p.get("created_at") or p.get("merged_at") or "2020-01-01T00:00:00Z"
        return Response(
            200,
            {
                "url": self._api(req, state, f"/pulls/{n}"),
                "id": _stable_id(state.full_name, "pull", n),
                "node_id": f"PR_{n}",
                "html_url": p.get("html_url") or f"https://github.com/{state.full_name}/pull/{n}",
                "issue_url": self._api(req, state, f"/issues/{n}"),
                "number": n,
                "state": p.get("state", "closed"),
                "locked": False,
                "title": p.get("title", ""),
                "user": _user(p.get("user") or "contributor"),
                "body": p.get("body") or "",
                "labels": [{"name": name} for name in p.get("labels", [])],
                "created_at": created,
                "updated_at": p.get("merged_at") or created,
                "closed_at": p.get("closed_at") or p.get("merged_at"),
                "merged_at": p.get("merged_at"),
                "merge_commit_sha": p.get("merge_commit_sha"),
                "draft": False,
                "merged": bool(p.get("merged", p.get("merged_at"))),
                "base": {"ref": "main", "label": f"{state.owner}:main"},
                "head": {"ref": f"fix-{n}", "label": f"{state.owner}:fix-{n}"},
                "author_association": "MEMBER",
            },
        )

    def _issue_record(self, state: _Repo, n: int) -> dict[str, Any] | None:
        """Normalised issue/PR record or None: explicit issue > PR > synthesized closed issue."""
        if n in state.issues:
            rec = dict(state.issues[n])
            rec["kind"] = "issue"
            return rec
        pull = state.pulls.get(n)
        if pull is not None:
            return {
                "kind": "pull",
                "number": n,
                "title": pull.get("title", ""),
                "body": pull.get("body") or "",
                "state": pull.get("state", "closed"),
                "state_reason": None,
                "user": pull.get("user") or "contributor",
                "labels": list(pull.get("labels", [])),
                "created_at": pull.get("created_at") or pull.get("merged_at") or "2020-01-01T00:00:00Z",
                "closed_at": pull.get("closed_at") or pull.get("merged_at"),
                "pull": pull,
            }
        closers = state.index().closers.get(n)
        if closers:
            closed_at = closers[0].get("merged_at") or _now()
            return {
                "kind": "issue",
                "number": n,
                "title": f"Issue {n}",
                "body": "",
                "state": "closed",
                "state_reason": "completed",
                "user": "reporter",
                "labels": [],
                "created_at": _iso(_ts(closed_at) - 7 * 86400),
                "closed_at": closed_at,
                "closed_by_pr": closers[0]["number"],
                "cross_referenced_prs": [p["number"] for p in closers],
            }
        return None

    def _issue_json(self, req: Request, state: _Repo, rec: dict[str, Any]) -> dict[str, Any]:
        n = rec["number"]
        body: dict[str, Any] = {
            "url": self._api(req, state, f"/issues/{n}"),
            "repository_url": self._api(req, state),
            "comments_url": self._api(req, state, f"/issues/{n}/comments"),
            "id": _stable_id(state.full_name, "issue", n),
            "node_id": f"I_{n}",
            "number": n,
            "title": rec["title"],
            "user": _user(rec["user"]),
            "labels": [{"name": name} for name in rec["labels"]],
            "state": rec["state"],
            "state_reason": rec.get("state_reason"),
            "locked": False,
            "assignees": [],
            "comments": len(self.comments.get((state.full_name, n), [])),
            "created_at": rec["created_at"],
            "updated_at": rec.get("closed_at") or rec["created_at"],
            "closed_at": rec.get("closed_at"),
            "author_association": "NONE",
            "body": rec["body"],
            "html_url": f"https://github.com/{state.full_name}/issues/{n}",
        }
        if rec["kind"] == "pull":
            pull = rec["pull"]
            body["html_url"] = pull.get("html_url") or f"https://github.com/{state.full_name}/pull/{n}"
            body["pull_request"] = {
                "url": self._api(req, state, f"/pulls/{n}"),
                "html_url": body["html_url"],
                "merged_at": pull.get("merged_at"),
            }
        return body

    def _h_issue(self, req: Request) -> Response:
        state = self._state(req)
        rec = self._issue_record(state, int(req.params["n"]))
        if rec is None:
            raise HTTPError(404, dict(_NOT_FOUND))
        return Response(200, self._issue_json(req, state, rec))

    def _h_timeline(self, req: Request) -> Response:
        state = self._state(req)
        n = int(req.params["n"])
        rec = self._issue_record(state, n)
        if rec is None:
            raise HTTPError(404, dict(_NOT_FOUND))
        events: list[dict[str, Any]] = []
        if rec["kind"] == "issue":
            prs = list(rec.get("cross_referenced_prs") or [])
            closer_n = rec.get("closed_by_pr")
            if closer_n is not None and closer_n not in prs:
                prs.append(closer_n)
            for pr in prs:
                events.append(self._xref_event(req, state, int(pr)))
            if rec["state"] == "closed":
                closer = state.pulls.get(closer_n) if closer_n is not None else None
                sha = (closer or {}).get("merge_commit_sha")
                eid = _stable_id(state.full_name, "closed", n)
                events.append(
                    {
                        "id": eid,
                        "node_id": f"CE_{eid}",
                        "url": self._api(req, state, f"/issues/events/{eid}"),
                        "actor": _user((closer or {}).get("user") or "contributor"),
                        "event": "closed",
                        "commit_id": sha,
                        "commit_url": self._api(req, state, f"/commits/{sha}") if sha else None,
                        "created_at": rec.get("closed_at") or _now(),
                        "state_reason": rec.get("state_reason") or "completed",
                        "performed_via_github_app": None,
                    }
                )
            events.sort(key=lambda e: _ts(e["created_at"]))
        return self._paginate(req, events)

    def _xref_event(self, req: Request, state: _Repo, pr: int) -> dict[str, Any]:
        pull = state.pulls.get(pr) or {"number": pr, "title": f"PR {pr}", "state": "open", "merged_at": None}
        merged_at = pull.get("merged_at")
        created = _iso(_ts(merged_at) - 3600) if merged_at else "2020-01-01T00:00:00Z"
        html = pull.get("html_url") or f"https://github.com/{state.full_name}/pull/{pr}"
        return {
            "actor": _user(pull.get("user") or "contributor"),
            "event": "cross-referenced",
            "created_at": created,
            "updated_at": created,
            "source": {
                "type": "issue",
                "issue": {
                    "url": self._api(req, state, f"/issues/{pr}"),
                    "html_url": html,
                    "id": _stable_id(state.full_name, "issue", pr),
                    "number": pr,
                    "title": pull.get("title", ""),
                    "state": pull.get("state", "closed"),
                    "user": _user(pull.get("user") or "contributor"),
                    "pull_request": {
                        "url": self._api(req, state, f"/pulls/{pr}"),
                        "html_url": html,
                        "merged_at": merged_at,
                    },
                    "repository": {
                        "id": _stable_id("repo", state.full_name),
                        "name": state.name,
                        "full_name": state.full_name,
                        "owner": _user(state.owner, "Organization"),
                        "html_url": f"https://github.com/{state.full_name}",
                        "url": self._api(req, state),
                    },
                },
            },
        }

    def _h_compare(self, req: Request) -> Response:
        state = self._state(req)
        basehead = req.params["basehead"]
        if "..." not in basehead:
            raise HTTPError(404, dict(_NOT_FOUND))
        base_s, head_s = (unquote(x) for x in basehead.split("...", 1))
        base, head = state.resolve(base_s), state.resolve(head_s)
        if base is None or head is None:
            raise HTTPError(404, dict(_NOT_FOUND))
        if (base.kind, base.key) == (head.kind, head.key):
            status, ahead, behind = "identical", 0, 0
        elif state.contains(head, base):
            status, ahead, behind = "ahead", max(1, state.merged_between(base.time, head.time)), 0
        elif state.contains(base, head):
            status, ahead, behind = "behind", 0, max(1, state.merged_between(head.time, base.time))
        else:
            lo, hi = sorted((base.time, head.time))
            status, ahead, behind = "diverged", 1, max(1, state.merged_between(lo, hi))
        base_sha, head_sha = state.ref_sha(base), state.ref_sha(head)
        web = f"https://github.com/{state.full_name}"
        return Response(
            200,
            {
                "url": self._api(req, state, f"/compare/{basehead}"),
                "html_url": f"{web}/compare/{base_s}...{head_s}",
                "permalink_url": f"{web}/compare/{state.owner}:{base_sha[:7]}...{state.owner}:{head_sha[:7]}",
                "diff_url": f"{web}/compare/{base_s}...{head_s}.diff",
                "patch_url": f"{web}/compare/{base_s}...{head_s}.patch",
                "base_commit": {"sha": base_sha, "url": self._api(req, state, f"/commits/{base_sha}")},
                "merge_base_commit": {"sha": base_sha, "url": self._api(req, state, f"/commits/{base_sha}")},
                "status": status,
                "ahead_by": ahead,
                "behind_by": behind,
                "total_commits": ahead,
                "commits": [],
                "files": [],
            },
        )

    def _h_contents(self, req: Request) -> Response:
        state = self._state(req)
        path = req.params["path"]
        ref_name = req.query.get("ref") or "main"
        ref = state.resolve(ref_name)
        if ref is None:
            raise HTTPError(404, {"message": f"No commit found for the ref {ref_name}", "documentation_url": _DOCS})
        if path not in self.changelog_files:
            raise HTTPError(404, dict(_NOT_FOUND))
        data = self._default_changelog(state) if ref.kind == "branch" else self._changelog_at(state, ref)
        if self.raw_contents and "vnd.github.raw" in req.headers.get("accept", ""):
            blob = hashlib.sha1(b"blob %d\x00" % len(data) + data).hexdigest()
            return Response(200, raw=data, headers={"Content-Type": "text/plain; charset=utf-8",
                                                    "ETag": f'"{blob}"'})
        return self._contents_json(req, state, path, ref_name, data)

    def _default_changelog(self, state: _Repo) -> bytes:
        override = self.default_changelogs.get(state.full_name.lower(), "")
        if override is None:
            raise HTTPError(404, dict(_NOT_FOUND))
        if override:
            return override if isinstance(override, bytes) else override.encode("utf-8")
        text = "# Changelog\n\n"
        if state.withheld:
            text += "## Unreleased\n\n" + "".join(_heading_down(r.get("body") or "") + "\n\n" for r in state.withheld)
        published = self._changelog_at(state, _Ref("branch", "main", math.inf))
        return text.encode("utf-8") + published.removeprefix(b"# Changelog\n\n")

    def _changelog_at(self, state: _Repo, ref: _Ref) -> bytes:
        included = []
        for rel in state.releases:
            if rel.get("draft") or not rel.get("published_at"):
                continue
            point = _Ref("tag", rel["tag_name"], _ts(rel["published_at"]), _major(rel["tag_name"]))
            if ref.kind == "branch" or (ref.kind, ref.key) == ("tag", point.key) or state.contains(ref, point):
                included.append((point.time, rel))
        included.sort(key=lambda x: x[0], reverse=True)
        text = "# Changelog\n\n" + "".join(f"## {r['tag_name']}\n\n{r.get('body') or ''}\n\n" for _, r in included)
        return text.encode("utf-8")

    def _contents_json(self, req: Request, state: _Repo, path: str, ref_name: str, data: bytes) -> Response:
        sha = hashlib.sha1(b"blob %d\x00" % len(data) + data).hexdigest()
        too_big = self.contents_max_bytes is not None and len(data) > self.contents_max_bytes
        name = path.rsplit("/", 1)[-1]
        return Response(
            200,
            {
                "type": "file",
                "encoding": "none" if too_big else "base64",
                "size": len(data),
                "name": name,
                "path": path,
                "content": "" if too_big else base64.encodebytes(data).decode("ascii"),
                "sha": sha,
                "url": self._api(req, state, f"/contents/{path}?ref={ref_name}"),
                "html_url": f"https://github.com/{state.full_name}/blob/{ref_name}/{path}",
                "download_url": None,
            },
        )

    # ------------------------------------------------------------- delivery
    def _new_comment(
        self,
        state: _Repo,
        issue: int,
        body: str,
        base_url: str,
        login: str,
        user_type: str,
        association: str,
    ) -> dict[str, Any]:
        cid = next(self._ids)
        now = _now()
        comment = {
            "id": cid,
            "node_id": f"IC_{cid}",
            "url": f"{base_url}/repos/{state.full_name}/issues/comments/{cid}",
            "html_url": f"https://github.com/{state.full_name}/issues/{issue}#issuecomment-{cid}",
            "issue_url": f"{base_url}/repos/{state.full_name}/issues/{issue}",
            "body": body,
            "user": _user(login, user_type),
            "created_at": now,
            "updated_at": now,
            "author_association": association,
        }
        self.comments[(state.full_name, issue)].append(comment)
        self._comment_index[cid] = (state.full_name, issue, comment)
        return comment

    def _comment_out(self, req: Request, comment: dict[str, Any]) -> dict[str, Any]:
        """A copy with ``url`` / ``issue_url`` rebased onto the requesting host."""
        out = copy.deepcopy(comment)
        for key in ("url", "issue_url"):
            out[key] = req.base_url + "/repos/" + out[key].split("/repos/", 1)[1]
        return out

    def _h_comments(self, req: Request) -> Response:
        state = self._state(req)
        items = [self._comment_out(req, c) for c in self.comments.get((state.full_name, int(req.params["n"])), [])]
        return self._paginate(req, items)

    def _h_comment_new(self, req: Request) -> Response:
        state = self._state(req)
        body = (req.json or {}).get("body") if isinstance(req.json, dict) else None
        if not isinstance(body, str):
            raise HTTPError(422, {"message": 'Invalid request.\n\n"body" wasn\'t supplied.', "status": "422"})
        comment = self._new_comment(state, int(req.params["n"]), body, req.base_url, self.bot_login, "Bot", "NONE")
        return Response(201, self._comment_out(req, comment))

    def _comment_of(self, req: Request) -> dict[str, Any]:
        state = self._state(req)
        found = self._comment_index.get(int(req.params["id"]))
        if found is None or found[0] != state.full_name:
            raise HTTPError(404, dict(_NOT_FOUND))
        return found[2]

    def _h_comment(self, req: Request) -> Response:
        return Response(200, self._comment_out(req, self._comment_of(req)))

    def _h_comment_edit(self, req: Request) -> Response:
        comment = self._comment_of(req)
        body = req.json.get("body") if isinstance(req.json, dict) else None
        if not isinstance(body, str):
            raise HTTPError(422, {"message": 'Invalid request.\n\n"body" wasn\'t supplied.', "status": "422"})
        comment["body"] = body
        comment["updated_at"] = _now()
        return Response(200, self._comment_out(req, comment))

    def _react(self, req: Request, state: _Repo, comment_id: int | None, issue: int | None) -> Response:
        content = req.json.get("content") if isinstance(req.json, dict) else None
        if content not in REACTIONS:
            raise HTTPError(422, {"message": "Validation Failed", "errors": [{"field": "content"}], "status": "422"})
        for existing in self.reactions:
            if (existing["repo"], existing["comment_id"], existing["issue"], existing["content"]) == (
                state.full_name,
                comment_id,
                issue,
                content,
            ):
                return Response(200, existing["response"])
        rid = next(self._ids)
        response = {
            "id": rid,
            "node_id": f"REA_{rid}",
            "user": _user(self.bot_login, "Bot"),
            "content": content,
            "created_at": _now(),
        }
        self.reactions.append(
            {
                "repo": state.full_name,
                "comment_id": comment_id,
                "issue": issue,
                "content": content,
                "response": response,
            }
        )
        return Response(201, response)

    def _h_comment_reaction(self, req: Request) -> Response:
        comment = self._comment_of(req)
        return self._react(req, self._state(req), int(comment["id"]), None)

    def _h_issue_reaction(self, req: Request) -> Response:
        return self._react(req, self._state(req), None, int(req.params["n"]))

    def _workflow_file(self, req: Request) -> str:
        wf = req.params["wf"]
        if self.workflow_files is not None and wf not in self.workflow_files:
            raise HTTPError(404, dict(_NOT_FOUND))
        return wf

    def _h_workflow(self, req: Request) -> Response:
        state = self._state(req)
        wf = self._workflow_file(req)
        wid = _stable_id(state.full_name, "workflow", wf)
        return Response(
            200,
            {
                "id": wid,
                "node_id": f"W_{wid}",
                "name": wf.rsplit(".", 1)[0].upper(),
                "path": f".github/workflows/{wf}",
                "state": "active",
                "created_at": "2026-01-01T00:00:00Z",
                "updated_at": "2026-01-01T00:00:00Z",
                "url": self._api(req, state, f"/actions/workflows/{wf}"),
                "html_url": f"https://github.com/{state.full_name}/actions/workflows/{wf}",
                "badge_url": f"https://github.com/{state.full_name}/workflows/{wf}/badge.svg",
            },
        )

    def _h_dispatch(self, req: Request) -> Response:
        state = self._state(req)
        wf = self._workflow_file(req)
        data = req.json if isinstance(req.json, dict) else {}
        if not isinstance(data.get("ref"), str) or not data["ref"]:
            raise HTTPError(422, {"message": 'Invalid request.\n\n"ref" wasn\'t supplied.', "status": "422"})
        inputs = data.get("inputs") or {}
        if not isinstance(inputs, dict):
            raise HTTPError(422, {"message": "Invalid request.\n\nFor 'properties/inputs', is not an object."})
        if len(inputs) > self.max_dispatch_inputs:
            raise HTTPError(
                422,
                {
                    "message": f"you may only define up to {self.max_dispatch_inputs} `inputs`",
                    "status": "422",
                },
            )
        run_id = next(self._run_ids)
        record = {
            "repo": state.full_name,
            "workflow": wf,
            "ref": data["ref"],
            "inputs": dict(inputs),
            "return_run_details": bool(data.get("return_run_details")),
            "run_id": run_id,
        }
        self.dispatches.append(record)
        if record["return_run_details"]:
            return Response(
                200,
                {
                    "workflow_run_id": run_id,
                    "run_url": self._api(req, state, f"/actions/runs/{run_id}"),
                    "html_url": f"https://github.com/{state.full_name}/actions/runs/{run_id}",
                },
            )
        return Response(204)


def _tag_version(tag: str) -> Version:
    """The version a tag names, read as WIF reads it ("v1.2.3"; in a workspace "tokio-1.38.0",
    "@emotion/react@11.13.5"); a tag that names none fails as it did."""
    return parse_tag(tag) or Version(tag)


def _is_stable_release(rel: dict[str, Any]) -> bool:
    """Published, not a draft or pre-release, and a tag without a pre-release part."""
    if rel.get("draft") or rel.get("prerelease") or not rel.get("published_at"):
        return False
    try:
        return not _tag_version(str(rel["tag_name"])).is_prerelease
    except InvalidVersion:
        return False


def _release_order(rel: dict[str, Any]) -> tuple[Version, str]:
    return _tag_version(str(rel["tag_name"])), str(rel.get("published_at") or "")


def _heading_down(body: str) -> str:
    """Every Markdown heading one level down (`### Fixes` → `#### Fixes`), as notes nested in a section."""
    return re.sub(r"^(#{1,5})(?=[ \t])", r"#\1", body, flags=re.MULTILINE)
