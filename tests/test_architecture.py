"""ARCHITECTURE.md is drawn from the code: every module is named under its layer, and the imports agree.

The layer order is declared once, in ARCHITECTURE.md's "Modules, layer by layer" section (its `###`
headings, top to bottom); this test reads it and the imports of every module (parsed with `ast`,
function-level and TYPE_CHECKING imports included) and checks: the map names exactly the modules that
exist, no import cycle, and no import from a lower layer up to a higher one.
"""

from __future__ import annotations

import ast
import re
from functools import cache
from pathlib import Path

ROOT = Path(__file__).resolve().parent.parent
PACKAGES = ("wif_action", "indexer")
SECTION = "## Modules, layer by layer"
BULLET = re.compile(r"^- `((?:wif_action|indexer)/[^`]+\.py)`")


def module_name(path: str) -> str:
    parts = path.removesuffix(".py").split("/")
    return ".".join(parts[:-1] if parts[-1] == "__init__" else parts)


def tree_modules() -> dict[str, Path]:
    """Every module under the packages, by dotted name; an empty `__init__.py` is only a package marker."""
    found = {}
    for package in PACKAGES:
        for path in sorted((ROOT / package).rglob("*.py")):
            if path.name == "__init__.py" and not path.read_text().strip():
                continue
            found[module_name(path.relative_to(ROOT).as_posix())] = path
    return found


def mapped_layers() -> tuple[list[str], dict[str, int]]:
    """The layer headings in order, and each module the map names → its layer's index."""
    text = (ROOT / "ARCHITECTURE.md").read_text()
    assert SECTION in text, f"ARCHITECTURE.md has no '{SECTION}' section"
    section = text.split(SECTION, 1)[1].split("\n## ", 1)[0]
    layers: list[str] = []
    named: dict[str, int] = {}
    for line in section.splitlines():
        if line.startswith("### "):
            layers.append(line[4:].strip())
        elif match := BULLET.match(line):
            assert layers, f"{match[1]} is named before the first layer heading"
            name = module_name(match[1])
            assert name not in named, f"{match[1]} is named twice in ARCHITECTURE.md"
            named[name] = len(layers) - 1
    return layers, named


def imports(modules: dict[str, Path]) -> set[tuple[str, str]]:
    """(importer, imported) for every import between the packages' modules."""
    def resolve(name: str) -> str | None:
        while name and name not in modules:
            name = name.rpartition(".")[0]
        return name or None

    edges = set()
    for name, path in modules.items():
        package = name if path.name == "__init__.py" else name.rpartition(".")[0]
        for node in ast.walk(ast.parse(path.read_text())):
            targets: list[str] = []
            if isinstance(node, ast.Import):
                targets = [alias.name for alias in node.names]
            elif isinstance(node, ast.ImportFrom):
                base = node.module or ""
                if node.level:
                    parent = package.split(".")[: len(package.split(".")) - node.level + 1]
                    base = ".".join([*parent, base] if base else parent)
                targets = [f"{base}.{alias.name}" if f"{base}.{alias.name}" in modules else base
                           for alias in node.names]
            for target in targets:
                found = resolve(target)
                if found and found != name:
                    edges.add((name, found))
    return edges


def cycles(nodes: list[str], edges: set[tuple[str, str]]) -> list[list[str]]:
    """The strongly connected components of more than one module (Tarjan)."""
    after: dict[str, list[str]] = {node: [] for node in nodes}
    for source, target in edges:
        after[source].append(target)
    index: dict[str, int] = {}
    low: dict[str, int] = {}
    stack: list[str] = []
    found: list[list[str]] = []

    def visit(node: str) -> None:
        index[node] = low[node] = len(index)
        stack.append(node)
        for target in after[node]:
            if target not in index:
                visit(target)
                low[node] = min(low[node], low[target])
            elif target in stack:
                low[node] = min(low[node], index[target])
        if low[node] == index[node]:
            component = []
            while True:
                top = stack.pop()
                component.append(top)
                if top == node:
                    break
            if len(component) > 1:
                found.append(sorted(component))

    for node in nodes:
        if node not in index:
            visit(node)
    return found


@cache
def project_imports() -> frozenset[tuple[str, str]]:
    """`imports` of the tree, parsed once per session (four tests read them; parsing every module is ~0.5 s)."""
    return frozenset(imports(tree_modules()))


def test_architecture_names_every_module_and_nothing_else() -> None:
    _layers, named = mapped_layers()
    modules = tree_modules()
    missing = sorted(set(modules) - set(named))
    stale = sorted(set(named) - set(modules))
    assert not missing, f"name these modules under their layer in ARCHITECTURE.md '{SECTION}': {missing}"
    assert not stale, f"ARCHITECTURE.md names modules that do not exist: {stale}"


def test_no_import_cycle() -> None:
    assert cycles(sorted(tree_modules()), set(project_imports())) == []


def test_imports_only_go_down_the_layers() -> None:
    layers, named = mapped_layers()
    upward = sorted(f"{source} ({layers[named[source]]}) imports {target} ({layers[named[target]]})"
                    for source, target in project_imports()
                    if source in named and target in named and named[target] < named[source])
    assert upward == []


def test_the_indexer_stands_alone() -> None:
    """The indexer is a library of its own: nothing in it imports the action."""
    assert sorted(edge for edge in project_imports()
                  if edge[0].startswith("indexer") and edge[1].startswith("wif_action")) == []


def test_the_checks_catch_what_they_claim_to() -> None:
    """The checker itself: a cycle is found, and `from package import module` points at the module."""
    assert cycles(["a", "b", "c"], {("a", "b"), ("b", "a"), ("b", "c")}) == [["a", "b"]]
    edges = project_imports()
    assert ("wif_action.engines.offline.judge", "wif_action.engines.offline.scoring") in edges
    assert ("wif_action.engines.offline.judge", "wif_action.engines.offline") not in edges
    assert ("wif_action.workflow", "wif_action.subtasks.scan_release_notes") in edges


def test_the_map_names_every_migration_a_run_records_reader_may_lack() -> None:
    """ARCHITECTURE.md's schema line says which run-records migrations `wif runs` copes without; m003_top_commit
    was added to `reader_optional` while the map still named m002 alone."""
    from wif_action.run_records.schema import MIGRATIONS

    line = next(line for line in (ROOT / "ARCHITECTURE.md").read_text().splitlines() if "run_records/schema.py" in line
                and "reader_optional" in line)
    assert MIGRATIONS.reader_optional
    for name in MIGRATIONS.reader_optional:
        assert f"`{name.split('_')[0]}`" in line, (name, line)
