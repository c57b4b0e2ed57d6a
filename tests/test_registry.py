"""The SDK registry: the names support engineers type resolve to one repository, or to a clarification."""

from __future__ import annotations

import json
import re
import sqlite3
from pathlib import Path

import pytest

from indexer.registry import MAX_ERROR_CHARS, RegistryError, fold_case, load_registry

ROOT = Path(__file__).resolve().parent.parent


@pytest.fixture(scope="module")
def registry():
    return load_registry()


@pytest.mark.parametrize(
    ("typed", "repo"),
    [
        ("iOS", "getsentry/sentry-cocoa"),
        ("sentry-cocoa", "getsentry/sentry-cocoa"),
        ("@sentry/nextjs", "getsentry/sentry-javascript"),
        ("@sentry/browser", "getsentry/sentry-javascript"),
        ("RN", "getsentry/sentry-react-native"),
        ("React Native", "getsentry/sentry-react-native"),
        ("Android", "getsentry/sentry-java"),
        ("sentry-python", "getsentry/sentry-python"),
        ("getsentry/sentry-ruby", "getsentry/sentry-ruby"),
    ],
)
def test_aliases(registry, typed: str, repo: str) -> None:
    assert registry.lookup(typed) == repo


def test_ambiguous_name_asks_instead_of_guessing(registry) -> None:
    assert registry.lookup("sentry") is None
    choices = registry.choices("sentry")
    assert len(choices) > 1 and "getsentry/sentry-java" in choices


def test_unknown_name(registry) -> None:
    assert registry.lookup("cobol") is None
    assert registry.lookup("") is None
    assert registry.choices("cobol") == []


def test_cached_repositories_are_known_by_slug_name_and_name_in_prose() -> None:
    registry = load_registry()
    registry.add_repositories(["acme/widget-sdk", "encode/httpx"])
    assert {registry.lookup(name) for name in ("acme/widget-sdk", "widget-sdk", "Widget SDK")} == {"acme/widget-sdk"}
    assert registry.lookup("httpx") == "encode/httpx" and registry.lookup("widget") is None
    assert ("widget sdk", "acme/widget-sdk") in registry.find_in_text("Customer on Widget SDK 1.2.0")


def test_free_text_prefers_the_longest_name(registry) -> None:
    found = dict(registry.find_in_text("Our React Native app (@sentry/react-native 5.1) crashes on start"))
    assert found["react native"] == "getsentry/sentry-react-native"
    assert next(iter(found)) == "@sentry/react-native"


def test_packaged_registry_covers_the_fixture_repositories(registry, github_repos) -> None:
    assert set(github_repos) <= set(registry.repositories)


def test_user_registry_short_form(tmp_path) -> None:
    path = tmp_path / "registry.json"
    path.write_text(json.dumps({"repositories": {
        "acme/widget-sdk": {"aliases": ["Widget", "widget-js"], "slack_group_id": "S123"},
        "acme/other": None,
    }}))
    registry = load_registry(path)
    assert registry.lookup("widget") == "acme/widget-sdk"
    assert registry.lookup("widget-js") == "acme/widget-sdk"
    assert registry.lookup("widget-sdk") == "acme/widget-sdk"
    assert registry.lookup("acme/other") == "acme/other"
    assert registry.maintainers("acme/widget-sdk")["slack_group_id"] == "S123"
    assert set(registry.repositories) == {"acme/widget-sdk", "acme/other"}


@pytest.mark.parametrize(
    "content",
    ["not json", "[]", '{"repositories": []}', '{"repositories": {"not a slug": {}}}'],
)
def test_malformed_registry(tmp_path, content: str) -> None:
    path = tmp_path / "registry.json"
    path.write_text(content)
    with pytest.raises(RegistryError):
        load_registry(path)


@pytest.mark.parametrize(("repositories", "said"), [
    ({"acme/sdk": "acme"}, "'acme/sdk' must map to an object"),
    ({"acme/sdk": ["acme"]}, "'acme/sdk' must map to an object"),
    ({"acme/sdk": {"aliases": "acme"}}, "'aliases' of acme/sdk must be a list of names"),
    ({"acme/sdk": {"aliases": [1, None]}}, "'aliases' of acme/sdk must be a list of names"),
    ({"acme/sdk": {"aliases": [""]}}, "'aliases' of acme/sdk must be a list of names"),
    ({"acme/sdk": {"slack_group_id": 5}}, "'slack_group_id' of acme/sdk must be a string"),
    ({"acme/sdk": {"github_team": ["acme/team"]}}, "'github_team' of acme/sdk must be a string"),
])
def test_a_repository_entry_of_the_wrong_type_is_named(tmp_path, repositories, said) -> None:
    """Each was a ValueError or AttributeError (a traceback from `wif index --registry`), a string of aliases
    read letter by letter ("acme" → a, c, m, e), or a group id that failed later, while the answer was delivered."""
    path = tmp_path / "registry.json"
    path.write_text(json.dumps({"repositories": repositories}))
    with pytest.raises(RegistryError, match=re.escape(said)):
        load_registry(path)


@pytest.mark.parametrize(("tables", "said"), [
    ({"aliases": ["acme"]}, "'aliases' must be an object of name → owner/repo"),
    ({"sdks": {"sentry.acme": 5}}, "'sdks' must be an object of name → owner/repo"),
    ({"ambiguous": {"acme": "acme/sdk"}}, "'ambiguous' must be an object of name → a list of owner/repo"),
    ({"ambiguous": ["acme"]}, "'ambiguous' must be an object of name → a list of owner/repo"),
])
def test_a_top_level_table_of_the_wrong_type_is_named(tmp_path, tables, said) -> None:
    path = tmp_path / "registry.json"
    path.write_text(json.dumps({"repositories": {"acme/sdk": {"aliases": ["acme"]}}, **tables}))
    with pytest.raises(RegistryError, match=re.escape(said)):
        load_registry(path)


LONG = ["x" * 40] * 200  # a wrong value of 8,000 characters and more


@pytest.mark.parametrize("data", [
    {"repositories": {"acme/sdk": {"aliases": [*LONG, 1]}}},
    {"repositories": {"acme/sdk": {"ships": {"acme/core": "x" * 8000}}}},
    {"repositories": {"acme/sdk": {"packages": [1, *LONG]}}},
    {"repositories": {"acme/sdk": {"ecosystems": {"npm": LONG}}}},
    {"repositories": {"acme/sdk": {"package": "x" * 8000}}},
    {"repositories": {"acme/sdk": {"bundles": {"Core": "x" * 8000}}}},
    {"repositories": {"x" * 8000: {}}},
    {"repositories": {}, "ambiguous": {"acme": "x" * 8000}},
])
def test_a_refusal_quotes_at_most_the_start_of_a_long_wrong_value(tmp_path, data) -> None:
    """Every check's message is cut in one place (`RegistryError`): a wrong value may be a whole table, and the
    message is one line of a log or a Slack reply. 'ships', 'packages', 'ecosystems', 'package', 'bundles' and a
    bad slug quoted all of it."""
    path = tmp_path / "registry.json"
    path.write_text(json.dumps(data))
    with pytest.raises(RegistryError) as raised:
        load_registry(path)
    assert str(raised.value).startswith("SDK registry") and len(str(raised.value)) <= MAX_ERROR_CHARS


def test_wif_index_and_ask_say_what_is_wrong_with_the_registry_in_one_line(tmp_path, capsys, monkeypatch) -> None:
    from wif_action.cli import main

    monkeypatch.setenv("GITHUB_API_URL", "http://127.0.0.1:9")  # nothing may be requested; never the internet

    path = tmp_path / "registry.json"
    path.write_text(json.dumps({"repositories": {"acme/sdk": {"aliases": [1]}}}))
    cache = tmp_path / "cache.db"
    cache.write_bytes((ROOT / "cache.db.example").read_bytes())
    before = cache.read_bytes()
    for argv in (["index", "--db", str(cache), "--registry", str(path), "--all"],
                 ["ask", "--db", str(cache), "--registry", str(path), "--message", "acme 1.0 x"]):
        assert main(argv) == 2
        err = capsys.readouterr().err
        assert err.count("\n") == 1 and "'aliases' of acme/sdk must be a list of names" in err, err
    assert cache.read_bytes() == before


def test_missing_registry_file(tmp_path) -> None:
    with pytest.raises(RegistryError, match="Cannot read"):
        load_registry(tmp_path / "nope.json")


def test_fold_case_lowers_each_character_in_place() -> None:
    """Offsets into the folded text are offsets into the text: one character each, even where str.lower() would
    give two ("İ") or read the context (a word-final "Σ" → "ς"); ASCII lowers as usual."""
    assert fold_case("Sentry-Cocoa 8.0 FIX") == "sentry-cocoa 8.0 fix"
    assert fold_case("İOS ΟΔΟΣ Sentry") == "İos οδοσ sentry"
    assert fold_case("") == ""


def _regex_of_every_alias(registry) -> re.Pattern:
    """The matcher `find_in_text` used before: one regex alternating every alias, longest first."""
    names = sorted((a for a in registry.aliases if len(a) >= 2), key=len, reverse=True)
    return re.compile(rf"(?<![\w@/.-])({'|'.join(re.escape(name) for name in names)})(?![\w-]|\.\w)")


@pytest.mark.slow  # every line of the example cache against two registries: ~6 s
def test_names_in_text_are_found_exactly_where_one_regex_of_every_alias_finds_them(example_cache_path) -> None:
    """Every release-note line of the example cache, the eval cases' questions and edge cases, with the packaged
    registry and with it plus 220 cached repositories (names as prose, slugs, names inside other names)."""
    conn = sqlite3.connect(example_cache_path)
    texts = [row[0] for row in conn.execute("select text from entries")]
    slugs = [row[0] for row in conn.execute("select slug from repositories")]
    conn.close()
    for line in (ROOT / "tests" / "data" / "eval" / "cases.jsonl").read_text().splitlines():
        case = json.loads(line) if line.strip() else {}
        texts += [str(case.get(field) or "") for field in ("sdk", "problem", "message")]
    texts += ["RN 0.72 on iOS", "@sentry/react-native@5.1", "sentry-cocoa.framework", "react-native-x",
              "go", "Go.", "sentry_python", "Sentry React Native SDK", "getsentry/sentry-cocoa#12", "İOS ios",
              "x/sentry-java", "android-ndk", "sentry-java.", "sentry-java.x", "", "a", "sentry-cocoa"]
    larger = load_registry()
    larger.add_repositories(slugs + [f"copies/{slug.split('/')[1]}-{n}" for n in range(1, 20) for slug in slugs])
    for registry in (load_registry(), larger):
        pattern = _regex_of_every_alias(registry)
        differing = [text for text in texts if list(registry._names_in(fold_case(text)))
                     != [(match.start(1), match.group(1)) for match in pattern.finditer(fold_case(text))]]
        assert not differing, differing[:3]
        assert sum(1 for text in texts if registry.find_in_text(text)) > 1000
