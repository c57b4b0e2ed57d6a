"""Print `name==floor` for the dependencies the LLM path is tested at (their `>=` floors in pyproject.toml).

Why: the declared floor must be the one CI installs, so .ci/run reads it from pyproject instead of a copy.
"""

from __future__ import annotations

import re
import sys
import tomllib
from pathlib import Path

TESTED_AT_FLOOR = ("openai", "pydantic")


def floor_pins(pyproject: Path) -> list[str]:
    dependencies = tomllib.loads(pyproject.read_text(encoding="utf-8"))["project"]["dependencies"]
    pins = []
    for name in TESTED_AT_FLOOR:
        spec = next((d for d in dependencies if re.match(rf"{name}\s*>=", d, re.IGNORECASE)), None)
        if spec is None:
            sys.exit(f"{name} has no '>=' floor in {pyproject}")
        pins.append(f"{name}=={spec.split('>=', 1)[1].split(',')[0].strip()}")
    return pins


if __name__ == "__main__":
    print(" ".join(floor_pins(Path(sys.argv[1] if len(sys.argv) > 1 else "pyproject.toml"))))
