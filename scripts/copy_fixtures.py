"""Copy the shared GitHub fixtures into tests/data, trimmed and gzipped.

Why: a fresh clone has no ../shared, so tests and cache.db.example must be
buildable from the repository alone. Pulls are kept when a release body
references them or when they close an issue (the link fast path needs those).
"""

from __future__ import annotations

import gzip
import json
import re
import shutil
import sys
from pathlib import Path

ROOT = Path(__file__).resolve().parent.parent
REF = re.compile(r"(?:#|/pull/|/issues/)(\d+)")


def trim(data: dict) -> dict:
    referenced: set[int] = set()
    for release in data["releases"]:
        referenced |= {int(n) for n in REF.findall(release.get("body") or "")}
    pulls = {
        key: pull
        for key, pull in data["pulls"].items()
        if int(key) in referenced or pull.get("closes_issues")
    }
    return {**data, "pulls": pulls}


def main(shared: Path) -> None:
    out = ROOT / "tests" / "data" / "github"
    out.mkdir(parents=True, exist_ok=True)
    for path in sorted((shared / "data" / "github").glob("*.json")):
        data = trim(json.loads(path.read_text()))
        target = out / (path.name + ".gz")
        target.write_bytes(gzip.compress(json.dumps(data, sort_keys=True).encode(), mtime=0))
        print(f"{target.relative_to(ROOT)}: {len(data['releases'])} releases, {len(data['pulls'])} pulls")
    eval_dir = ROOT / "tests" / "data" / "eval"
    eval_dir.mkdir(parents=True, exist_ok=True)
    shutil.copy(shared / "eval" / "cases.jsonl", eval_dir / "cases.jsonl")
    shutil.copy(shared / "eval" / "README.md", eval_dir / "README.md")


if __name__ == "__main__":
    main(Path(sys.argv[1]) if len(sys.argv) > 1 else ROOT.parent / "shared")
