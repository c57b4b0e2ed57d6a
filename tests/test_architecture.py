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
from itertools import pairwise
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
        tree = ast.parse(path.read_text())
        anchors = {id(argument) for node in ast.walk(tree) if isinstance(node, ast.Call)
                   and isinstance(node.func, ast.Attribute) and node.func.attr == "files" for argument in node.args}
        for node in ast.walk(tree):
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
            if isinstance(node, ast.Constant) and isinstance(node.value, str) and node.value in modules \
                    and id(node) not in anchors:  # `resources.files("wif_action")` reads data, not code
                targets = [node.value]  # `importlib.import_module("wif_action.api")`, SUBCOMMANDS' module names
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


OUTSIDE_THE_PRODUCT = re.compile(r"(bench|tests)(\.\w+)*")


def outside_imports(source: str) -> list[str]:
    """The bench/ or tests/ modules `source` imports: by statement, or by name (`import_module("bench.labelled")`)."""
    found = []
    for node in ast.walk(ast.parse(source)):
        if isinstance(node, ast.Import):
            found += [alias.name for alias in node.names]
        elif isinstance(node, ast.ImportFrom) and not node.level:
            found.append(node.module or "")
        elif isinstance(node, ast.Constant) and isinstance(node.value, str) and "." in node.value:
            found.append(node.value)
    return [name for name in found if OUTSIDE_THE_PRODUCT.fullmatch(name)]


def test_the_product_never_imports_the_bench_or_the_tests() -> None:
    """bench/ and tests/ import the product; the product (what ships) imports neither, not even lazily."""
    assert outside_imports('import bench.labelled\nfrom tests.fakes import x\nimport_module("bench.ablate")\n'
                           'import benchmark\n"see tests.md"') == ["bench.labelled", "tests.fakes", "bench.ablate"]
    assert [f"{name} imports {target}" for name, path in tree_modules().items()
            for target in outside_imports(path.read_text())] == []


def layer_table() -> list[tuple[str, str]]:
    """(layer, where) of each row of ARCHITECTURE.md's "## Layers" table, top to bottom."""
    text = (ROOT / "ARCHITECTURE.md").read_text().split("## Layers", 1)[1].split("\n## ", 1)[0]
    rows = [[cell.strip() for cell in line.strip().strip("|").split("|")] for line in text.splitlines()
            if line.startswith("|")]
    return [(row[0], row[1]) for row in rows[2:]]


def test_the_layer_table_is_the_module_lists_layers_in_order() -> None:
    """The one-page table at the top and the module list below it name the same layers in the same order (the
    table once put the engine-independent checks above the tools, the list below them), and each module the
    table's "Where" names by its path lives under that layer in the list."""
    layers, named = mapped_layers()
    table = layer_table()
    assert [layer for layer, _where in table] == layers
    modules = tree_modules()
    misplaced = []
    for at, (layer, where) in enumerate(table):
        for token in re.findall(r"`([\w/]+\.py)`", where):
            path = token if token.startswith(PACKAGES) else f"wif_action/{token}"
            name = module_name(path)
            if name in modules and named.get(name) != at:
                misplaced.append(f"{token} in the table's {layer} row")
    assert misplaced == []


def test_string_imports_are_edges() -> None:
    """`importlib.import_module` by name is an import like any other: the entry point's subcommands are edges."""
    assert ("wif_action.cli", "wif_action.commands.ask") in project_imports()
    assert ("wif_action", "wif_action.api") in project_imports()


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


# Who each port is for: a method no module of its users calls is shaped for someone else (issue 21: the cache
# port carried `term_statistics` for the offline engine alone; `Judge.summarize` was the OpenAI engine's own).
PORT_USERS = {
    "ReleaseCache": ("wif_action/subtasks/", "wif_action/workflow.py", "wif_action/rendering.py"),
    "GitHub": ("wif_action/subtasks/",),
    "Judge": ("wif_action/subtasks/", "wif_action/workflow.py"),
    "PullRequestCache": ("wif_action/tools/github.py", "wif_action/tools/deadline.py"),
    "TermStatistics": ("wif_action/engines/offline/",),
    "NoteStatistics": ("wif_action/engines/offline/",),
    "Progress": ("wif_action/workflow.py", "wif_action/subtasks/"),
}


def port_methods() -> dict[str, list[str]]:
    """Each Protocol class of ports.py → the methods and properties it declares itself."""
    tree = ast.parse((ROOT / "wif_action" / "ports.py").read_text())
    return {node.name: [item.name for item in node.body if isinstance(item, ast.FunctionDef)]
            for node in tree.body if isinstance(node, ast.ClassDef)
            and any(isinstance(base, ast.Name) and base.id == "Protocol" for base in node.bases)}


def test_every_port_method_is_called_by_the_ports_users() -> None:
    methods = port_methods()
    assert set(methods) == set(PORT_USERS), "name the users of each port in PORT_USERS"
    unused = []
    for port, names in methods.items():
        text = "\n".join(path.read_text() for path in sorted(ROOT.glob("wif_action/**/*.py"))
                         if path.relative_to(ROOT).as_posix().startswith(PORT_USERS[port]))
        unused += [f"{port}.{name}" for name in names if not re.search(rf"\.{name}\b", text)]
    assert unused == []


# Dotted names ARCHITECTURE.md cites that are not Python: the `[words]` table of indexer/data/words.toml.
NOT_CODE = {"words.fix_verbs"}


@cache
def defined_names(path: Path) -> frozenset[str]:
    """What a module defines or imports at any level: functions, classes, assigned names and attributes."""
    found: set[str] = set()
    for node in ast.walk(ast.parse(path.read_text())):
        if isinstance(node, ast.FunctionDef | ast.AsyncFunctionDef | ast.ClassDef):
            found.add(node.name)
        elif isinstance(node, ast.Assign | ast.AnnAssign):
            for target in node.targets if isinstance(node, ast.Assign) else [node.target]:
                found |= {n.id for n in ast.walk(target) if isinstance(n, ast.Name)}
                found |= {n.attr for n in ast.walk(target) if isinstance(n, ast.Attribute)}
        elif isinstance(node, ast.ImportFrom):
            found |= {alias.asname or alias.name for alias in node.names}
    return frozenset(found)


def stale_references(text: str) -> list[str]:
    """Each `module.name` in `text` (backticked; `a.b.c` read pair by pair) whose module, by its file's name, defines
    no such name and has no such submodule."""
    by_name: dict[str, list[Path]] = {}
    for path in tree_modules().values():
        by_name.setdefault(path.parent.name if path.name == "__init__.py" else path.stem, []).append(path)
    stale = []
    for token in re.findall(r"`([A-Za-z_][\w.]*\.\w+)(?:\([^`]*\))?`", text):
        parts = token.split(".")
        if token in NOT_CODE or parts[-1] in ("py", "toml", "md", "json", "yml"):
            continue
        for module, name in pairwise(parts):
            paths = by_name.get(module, [])
            if paths and not any(name in defined_names(path) or (path.parent / name).is_dir()
                                 or (path.parent / f"{name}.py").is_file() for path in paths):
                stale.append(token)
    return stale


def test_every_name_the_map_cites_is_in_the_code() -> None:
    """ARCHITECTURE.md points at functions by name (`indexing._page_settled`, `candidate_order.older_rivals`): a
    renamed or deleted one leaves the map pointing nowhere."""
    assert stale_references("`scoring.no_such_rule` and `indexing._page_settled` and `lexicon.toml`") == \
        ["scoring.no_such_rule"]
    assert stale_references((ROOT / "ARCHITECTURE.md").read_text()) == []


# The classes and factories that make an engine or a client, and the modules allowed to call them: the composition
# root, the engine choice it calls, and each client's own module (the SDK client inside a tool, the indexer's
# per-thread PyGithub clients through the one factory).
BUILDERS = {"OfflineJudge", "OpenAIJudge", "LLMClient", "SlackClient", "GitHubClient", "CachedPullRequests",
            "ReleaseSource", "Github", "WebClient", "CappedWebClient", "OpenAI", "build_github", "web_client"}
MAY_BUILD = {"wif_action.app": BUILDERS, "wif_action.engines": {"OfflineJudge", "OpenAIJudge"},
             "wif_action.tools.llm": {"OpenAI"}, "wif_action.tools.slack": {"CappedWebClient", "web_client"},
             "indexer.github_client": {"Github"}, "indexer.github_source": {"build_github"}}


def built_here(source: str) -> set[str]:
    """The engines and clients `source` constructs (a call of one of BUILDERS, by name or attribute)."""
    calls = [node.func for node in ast.walk(ast.parse(source)) if isinstance(node, ast.Call)]
    return {name for func in calls
            if (name := func.id if isinstance(func, ast.Name) else func.attr if isinstance(func, ast.Attribute)
                else None) in BUILDERS}


def test_only_the_composition_root_builds_engines_and_clients() -> None:
    """A command that builds an engine itself (`OfflineJudge(None, registry)` in the Action's on-the-spot indexing)
    is a second composition root: the judge it gets is not the one `app.py` would give."""
    assert built_here("judge = engines.OfflineJudge(None, registry)\nclient = web_client(token)\n") == \
        {"OfflineJudge", "web_client"}
    found = {name: sorted(built - MAY_BUILD.get(name, set())) for name, path in tree_modules().items()
             if (built := built_here(path.read_text()))}
    assert {name: built for name, built in found.items() if built} == {}


# Small modules, short functions (BRIEF): a function longer than this is split where it reads as two things; a
# module longer than MAX_MODULE_LINES is split where its parts have their own reason (indexer/indexing.py was 777
# lines: the pass, and what the cache holds, which PR details to fetch, the report, CHANGELOG sections).
MAX_FUNCTION_LINES = 60
MAX_MODULE_LINES = 600
# The release cache's first migration is the schema as one SQL script: one statement per table, read top to bottom.
LONG_ON_PURPOSE = {"indexer.schema.m001_release_cache"}


def test_functions_are_short_and_modules_small() -> None:
    long_functions, long_modules = [], []
    for name, path in tree_modules().items():
        text = path.read_text()
        if len(text.splitlines()) > MAX_MODULE_LINES:
            long_modules.append(f"{name} ({len(text.splitlines())} lines)")
        for node in ast.walk(ast.parse(text)):
            if isinstance(node, ast.FunctionDef | ast.AsyncFunctionDef) and f"{name}.{node.name}" not in \
                    LONG_ON_PURPOSE and (length := node.end_lineno - node.lineno + 1) > MAX_FUNCTION_LINES:
                long_functions.append(f"{name}.{node.name} ({length} lines)")
    assert long_functions == [] and long_modules == []
