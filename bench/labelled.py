"""The labelled (in-sample) pool every quality script reads: public cases, the holdout, and bench/data/near.

Why one home: leave-one-repository-out CV can only settle a rule honestly with enough repositories, so labelled
repositories are added over time as files in bench/data/near (`<owner>__<name>.json.gz` built by
bench/far_data.py, `<owner>__<name>.cases.jsonl`, `<owner>__<name>.registry.json`). quality_report.py,
crossval_offline.py, ablate.py, fit_confidence.py, fixture_cache.py and verify_cases.py all take their cases,
fixtures, cache and registry from here, so a new near repository counts everywhere at once. The far holdout
(bench/data/far) is never part of it.

Near fixtures sit beside tests/data/github's in one directory of links (the fake GitHub and the cache builder
read one directory); near registries are laid over the packaged registry (a user registry replaces the packaged
one, which would forget the 11 fixture repositories and every `bundles` declaration): an alias the packaged
registry already maps keeps its meaning, and when the near files add nothing the packaged registry is used as is.
"""

from __future__ import annotations

import atexit
import json
import shutil
import sys
import tempfile
from functools import cache
from importlib import resources
from pathlib import Path

ROOT = Path(__file__).resolve().parent.parent
if str(ROOT) not in sys.path:
    sys.path.insert(0, str(ROOT))

from tests.fakes.github_server import DATA_DIR  # noqa: E402

PUBLIC = ROOT / "tests" / "data" / "eval" / "cases.jsonl"
HOLDOUT = ROOT / "bench" / "data" / "holdout_cases.jsonl"
NEAR = ROOT / "bench" / "data" / "near"
FIXTURE_SUFFIX = ".json.gz"


def near_case_files(near: Path = NEAR) -> list[Path]:
    """Every near repository's cases file, in name order."""
    return sorted(near.glob("*.cases.jsonl"))


def case_files(*, with_near: bool = True) -> list[Path]:
    """The labelled pool's case files: public, holdout, then each near repository's."""
    return [PUBLIC, HOLDOUT, *(near_case_files() if with_near else [])]


def near_repos(near: Path = NEAR) -> list[str]:
    """`owner/name` of every near repository with release data."""
    return sorted(p.name.removesuffix(FIXTURE_SUFFIX).replace("__", "/", 1) for p in near.glob(f"*{FIXTURE_SUFFIX}"))


def _temporary_dir(prefix: str) -> Path:
    path = Path(tempfile.mkdtemp(prefix=prefix))
    atexit.register(shutil.rmtree, path, True)
    return path


@cache
def fixture_dir(with_near: bool = True) -> Path:
    """One directory holding (links to) tests/data/github's fixtures and the near ones: what FakeGitHub and
    fixture_cache.build_cache read. tests/data/github itself when there is no near data."""
    near = sorted(NEAR.glob(f"*{FIXTURE_SUFFIX}")) if with_near else []
    if not near:
        return DATA_DIR
    clash = {p.name for p in near} & {p.name for p in DATA_DIR.glob(f"*{FIXTURE_SUFFIX}")}
    if clash:
        raise SystemExit(f"bench/data/near repeats fixture repositories of tests/data/github: {sorted(clash)}")
    merged = _temporary_dir("wif-labelled-fixtures-")
    for source in [*DATA_DIR.glob(f"*{FIXTURE_SUFFIX}"), *near]:
        (merged / source.name).symlink_to(source.resolve())
    return merged


def merged_registry(near: Path = NEAR) -> dict | None:
    """The packaged registry with the near registries' repositories and aliases laid over it; None when they add
    nothing (then the tools run with the packaged registry, exactly as shipped)."""
    data = json.loads(resources.files("indexer").joinpath("data/registry.json").read_text())
    known = {alias.strip().lower() for alias in data.get("aliases", {})}
    repositories = data.setdefault("repositories", {})
    changed = False
    for path in sorted(near.glob("*.registry.json")):
        for slug, info in json.loads(path.read_text())["repositories"].items():
            entry = repositories.setdefault(slug, {})
            changed |= entry == {}
            aliases = entry.setdefault("aliases", [])
            for alias in (info or {}).get("aliases", []):
                if " ".join(alias.lower().split()) not in known and alias not in aliases:
                    aliases.append(alias)
                    changed = True
    return data if changed else None


@cache
def registry_file(with_near: bool = True) -> Path | None:
    """A registry file for `AppConfig.registry` / `--registry`: the merged one, or None for the packaged one."""
    data = merged_registry() if with_near else None
    if data is None:
        return None
    path = _temporary_dir("wif-labelled-registry-") / "registry.json"
    path.write_text(json.dumps(data))
    return path


@cache
def labelled_db(with_near: bool = True) -> Path:
    """A release cache of every labelled repository (fixtures + near), built once per process through
    indexer.store as `bench/fixture_cache.py` does; cache.db.example when there is no near data."""
    directory = fixture_dir(with_near)
    if directory == DATA_DIR:
        return ROOT / "cache.db.example"
    from bench.fixture_cache import all_fixture_repos, build_cache
    path = _temporary_dir("wif-labelled-cache-") / "cache.db"
    build_cache(path, [(repo, repo) for repo in all_fixture_repos(directory)], data_dir=directory)
    return path
