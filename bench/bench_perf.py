"""Issue 23's table in one run: whole-process times as ratios, peak RSS of `wif ask`, optional A/B.

    python bench/bench_perf.py [--runs 9] [--against COMMIT] [--scale 20] [--skip-index | --index-only] [--cpu]

Every row runs whole processes (`python -m wif_action.cli …`) and reports the median of `--runs`, with
the A and B trees interleaved run by run (the same load for both). Rows:
- `python -c pass` (the unit of the first ratio);
- `wif ask`, a 100-release offline scan where nothing matches (the guard's maximum: the repository's stable
  release 100 before the newest, a problem made of words no note uses);
- `wif ask` with one release to scan, on a cache of 11 repositories and on one `--scale` times larger
  (copies of the fixtures under other names, built once into a temporary directory);
- `wif ask --help` over `wif --help`;
- `wif index` from empty, the 11 fixture repositories, against the in-process fake GitHub;
- `wif index --pulls recent --max-pulls 300` against the fake with 50 ms latency per request.
`--index-only` runs just the `wif index` from empty row, `--runs` times per tree (nothing else is built).
Peak RSS is the `wif ask` scan's maximum resident set (getrusage of the child). With `--against COMMIT` the
same commands also run from an export of that commit (`git archive`), for an A/B table; each tree answers from
its own cache.db.example (an older WIF refuses a newer schema) and from the same larger cache, which holds the
fixture repositories with their PR details (as the example does) and copies without, migrated by each tree's
indexer (with the term counts `wif index` stores, where the tree has them). Each tree's byte code is compiled
first (pip does so on install; with PYTHONDONTWRITEBYTECODE set every run would compile the sources).
"""

from __future__ import annotations

import argparse
import os
import shutil
import statistics
import subprocess
import sys
import tarfile
import tempfile
import time
from collections.abc import Callable
from pathlib import Path

ROOT = Path(__file__).resolve().parent.parent
sys.path.insert(0, str(ROOT))

from bench.fixture_cache import all_fixture_repos  # noqa: E402
from tests.fakes.github_server import FakeGitHub  # noqa: E402
from wif_action.run_records.tables import format_table  # noqa: E402

NOTHING_MATCHES = "Zorblax quuxification glimmers on a frobnicated wibble sprocket"


CPU = False  # --cpu: a row's time is the process's CPU time (user + system), not its wall time


def run_once(tree: Path, args: list[str], env: dict[str, str]) -> tuple[float, int]:
    """(ms, peak RSS in KB) of one `python -m wif_action.cli …` (or `-c pass`) process from `tree`: wall time,
    or with --cpu its CPU time (on a machine others load, wall time measures them as much as WIF)."""
    command = [sys.executable, *args] if args[:1] == ["-c"] else [sys.executable, "-m", "wif_action.cli", *args]
    started = time.perf_counter()
    process = subprocess.Popen(command, cwd=tree, env={**env, "PYTHONPATH": str(tree)},
                               stdout=subprocess.DEVNULL, stderr=subprocess.DEVNULL)
    _, status, usage = os.wait4(process.pid, 0)
    elapsed = (time.perf_counter() - started) * 1000
    process.returncode = os.waitstatus_to_exitcode(status)
    if CPU:
        elapsed = (usage.ru_utime + usage.ru_stime) * 1000
    return elapsed, usage.ru_maxrss


def medians(trees: list[Path], args: list[str] | Callable[[int], list[str]], env: dict[str, str], runs: int,
            prepare: Callable[[Path], None] | None = None) -> list[tuple[float, int]]:
    """Per tree: (median wall ms, max peak RSS KB), the trees interleaved run by run; `args` may depend on
    the tree's index (each tree reads the cache its own indexer migrated)."""
    times: list[list[float]] = [[] for _ in trees]
    rss = [0 for _ in trees]
    for _ in range(runs):
        for index, tree in enumerate(trees):
            if prepare:
                prepare(tree)
            elapsed, peak = run_once(tree, args(index) if callable(args) else args, env)
            times[index].append(elapsed)
            rss[index] = max(rss[index], peak)
    return [(statistics.median(t), r) for t, r in zip(times, rss, strict=True)]


def export(commit: str, into: Path) -> Path:
    """The tree of `commit` (git archive), its own cache.db.example included."""
    archive = into / "tree.tar"
    subprocess.run(["git", "archive", "--format=tar", "-o", str(archive), commit], cwd=ROOT, check=True)
    tree = into / f"at-{commit[:10]}"
    with tarfile.open(archive) as tar:
        tar.extractall(tree, filter="data")
    return tree


# The fixture repositories with their PR details (as cache.db.example holds them, so the one-release question
# reads its PR from the cache at both sizes, not from GitHub at one), and SCALE-1 copies of each without.
_BUILD = """
import sys
from bench.fixture_cache import add_repository, all_fixture_repos
from indexer.schema import open_cache
scale, fixtures = int(sys.argv[2]), all_fixture_repos()
pairs = [(r, r) for r in fixtures] + [(r, f"copies/{r.split('/')[1]}-{n}") for n in range(1, scale) for r in fixtures]
db = open_cache(sys.argv[1], create=True)
for copy, (source, slug) in enumerate(pairs):
    add_repository(db, source, slug, id_offset=copy * 10_000_000_000, pulls=source == slug)
db.conn.close()
"""
# Each tree's indexer migrates the file and, when the tree has them, stores the term counts `wif index` stores.
_MIGRATE = """
import sys
from indexer.schema import open_cache
db = open_cache(sys.argv[1], create=True)
try:
    from wif_action.tools.term_index import refresh
except ImportError:
    refresh = None
if refresh is not None:
    refresh(db.conn)
db.close()
"""


def in_tree(tree: Path, code: str, *argv: str) -> None:
    subprocess.run([sys.executable, "-c", code, *argv], cwd=tree, env={**os.environ, "PYTHONPATH": str(tree)},
                   check=True, capture_output=True)


def per_tree(trees: list[Path], bases: list[Path], work: Path) -> list[Path]:
    """A copy of each tree's `base` for that tree, migrated by its indexer (its own indexes, nothing it cannot
    read)."""
    copies = []
    for index, (tree, base) in enumerate(zip(trees, bases, strict=True)):
        copy = work / f"{base.stem}-{index}.db"
        shutil.copy(base, copy)
        in_tree(tree, _MIGRATE, str(copy))
        copies.append(copy)
    return copies


def scan_question(db: Path) -> list[str]:
    import sqlite3

    conn = sqlite3.connect(db)
    repo = conn.execute("select s.slug from releases r join repositories s on s.id = r.repo_id where r.stable = 1 "
                        "group by s.slug order by count(*) desc limit 1").fetchone()[0]
    versions = [row[0] for row in conn.execute(
        "select r.version from releases r join repositories s on s.id = r.repo_id where s.slug = ? and r.stable = 1 "
        "order by r.version_key desc", [repo])]
    conn.close()
    return ["--repo", repo, "--version", versions[100], "--problem", NOTHING_MATCHES]


def one_release_question(db: Path) -> list[str]:
    import sqlite3

    conn = sqlite3.connect(db)
    versions = [row[0] for row in conn.execute(
        "select r.version from releases r join repositories s on s.id = r.repo_id "
        "where s.slug = 'getsentry/sentry-cocoa' and r.stable = 1 order by r.version_key desc limit 2")]
    conn.close()
    return ["--repo", "getsentry/sentry-cocoa", "--version", versions[1], "--problem",
            "WatchdogTermination issues have empty tags (e.g. OS)"]


def ask_args(db: Path, question: list[str]) -> list[str]:
    return ["ask", "--db", str(db), "--engine", "offline", "--quiet", "--json", *question]


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--runs", type=int, default=9, help="runs per row and tree (median; default 9)")
    parser.add_argument("--against", metavar="COMMIT", help="also run the tree of COMMIT (A/B)")
    parser.add_argument("--scale", type=int, default=20, help="the larger cache is SCALE × 11 repositories")
    parser.add_argument("--skip-index", action="store_true", help="leave out the two `wif index` rows")
    parser.add_argument("--index-only", action="store_true",
                        help="only `wif index` from empty, --runs times per tree (no cache is built)")
    parser.add_argument("--cpu", action="store_true",
                        help="time each process by its CPU time (user + system) instead of its wall time")
    args = parser.parse_args()
    global CPU
    CPU = args.cpu
    with tempfile.TemporaryDirectory() as tmp, FakeGitHub() as fake:
        work = Path(tmp)
        trees = [ROOT] + ([export(args.against, work)] if args.against else [])
        names = ["this tree"] + ([args.against] if args.against else [])
        env = {**os.environ, "GITHUB_API_URL": fake.url, "WIF_DEADLINE": "120"}
        env.pop("OPENAI_API_KEY", None)
        if args.index_only:
            _compile(trees)
            rows = [_index_row(trees, env, args.runs, work, fake)]
            header = ["row"] + [f"{name} {'CPU s' if CPU else 's'}" for name in names]
            print(format_table(header, rows))
            return
        print(f"building a {args.scale}× cache ({args.scale * 11} repositories)…", file=sys.stderr)
        in_tree(trees[-1], _BUILD, str(work / "large.db"), str(args.scale))  # by the oldest tree: all read it
        small = per_tree(trees, [tree / "cache.db.example" for tree in trees], work)
        large = per_tree(trees, [work / "large.db" for _ in trees], work)
        _compile(trees)
        rows = _rows(trees, env, args, small, large, work, fake)
    header = ["row"] + [f"{name} {unit}" for name in names for unit in ("CPU ms" if CPU else "ms", "ratio")]
    print(format_table(header, rows))


def _compile(trees: list[Path]) -> None:
    for tree in trees:  # byte code compiled once, as pip does for an installed package
        subprocess.run([sys.executable, "-m", "compileall", "-q", "wif_action", "indexer"], cwd=tree,
                       check=True, stdout=subprocess.DEVNULL)


def _index_row(trees: list[Path], env: dict[str, str], runs: int, work: Path, fake: FakeGitHub) -> list[object]:
    """`wif index` from empty over the 11 fixture repositories: the median seconds of each tree."""
    fake.rate_limit_limit = fake.rate_limit_remaining = 10**9
    repos = [arg for repo in all_fixture_repos() for arg in ("--repo", repo)]
    target = work / "index.db"

    def empty(_tree: Path) -> None:
        for suffix in ("", "-wal", "-shm"):
            Path(f"{target}{suffix}").unlink(missing_ok=True)

    index = medians(trees, ["index", "--db", str(target), *repos], env, runs, prepare=empty)
    return ["wif index from empty, 11 repositories (s)", *(round(i[0] / 1000, 2) for i in index)]


def _rows(trees: list[Path], env: dict[str, str], args: argparse.Namespace, small: list[Path], large: list[Path],
          work: Path, fake: FakeGitHub) -> list[list[object]]:
    runs = args.runs
    for tree in trees:  # warm byte-code caches
        run_once(tree, ["--help"], env)
    python = medians(trees, ["-c", "pass"], env, runs)
    scan_q, one_q = scan_question(small[0]), one_release_question(small[0])
    scan = medians(trees, lambda i: ask_args(small[i], scan_q), env, runs)
    one_small = medians(trees, lambda i: ask_args(small[i], one_q), env, runs)
    one_large = medians(trees, lambda i: ask_args(large[i], one_q), env, runs)
    top_help = medians(trees, ["--help"], env, runs)
    ask_help = medians(trees, ["ask", "--help"], env, runs)
    rows: list[list[object]] = []

    def row(label: str, values: list[float], ratios: list[float] | None) -> None:
        rows.append([label] + [cell for index, value in enumerate(values)
                               for cell in (round(value, 1), f"{ratios[index]:.2f}×" if ratios else "")])

    row("python -c pass", [p[0] for p in python], [1.0 for _ in python])
    row("wif ask, 100-release scan, nothing matches (÷ python)", [s[0] for s in scan],
        [s[0] / p[0] for s, p in zip(scan, python, strict=True)])
    row(f"wif ask, one release, {args.scale}× cache (÷ 1×)", [b[0] for b in one_large],
        [b[0] / s[0] for b, s in zip(one_large, one_small, strict=True)])
    row("wif ask --help (÷ wif --help)", [a[0] for a in ask_help],
        [a[0] / t[0] for a, t in zip(ask_help, top_help, strict=True)])
    rows.append(["wif ask peak RSS (MB)"] + [c for s in scan for c in (round(s[1] / 1024, 1), "")])
    if not args.skip_index:
        index = _index_row(trees, env, max(3, runs // 3), work, fake)
        rows.append([index[0]] + [cell for value in index[1:] for cell in (value, "")])
        target = work / "index.db"

        def empty(_tree: Path) -> None:
            for suffix in ("", "-wal", "-shm"):
                Path(f"{target}{suffix}").unlink(missing_ok=True)

        fake.add_fault("GET", r"/pulls/\d+$", status=None, delay=0.05, times=None)  # 50 ms per PR request
        pulls = medians(trees, ["index", "--db", str(target), "--repo", "getsentry/sentry-cocoa", "--pulls",
                                "recent", "--max-pulls", "300"], env, 1, prepare=empty)
        fake.clear_faults()
        row("wif index --pulls recent, 300 PRs, 50 ms latency (s)", [p[0] / 1000 for p in pulls], None)
    return rows


if __name__ == "__main__":
    main()
