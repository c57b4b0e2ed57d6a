"""Generate indexer/data/registry.json from getsentry/sentry-release-registry data.

Usage: python scripts/build_registry.py [../shared/data/sentry-sdk-registry.json]

Aliases are the names people type: SDK ids, package names (the part of the
`canonical` id after the ecosystem prefix), repository names, and a
hand-written list of platform words. An alias that points at two repositories
is kept under `ambiguous` so the resolver can ask instead of guessing.
"""

from __future__ import annotations

import json
import sys
from collections import defaultdict
from pathlib import Path

ROOT = Path(__file__).resolve().parent.parent
PLATFORM_ALIASES = {
    "getsentry/sentry-cocoa": ["iOS", "Cocoa", "Swift", "macOS", "tvOS", "watchOS", "visionOS", "sentry-cocoa",
                               "Cocoa SDK", "iOS SDK", "Sentry Cocoa", "SentrySwift", "Objective-C"],
    "getsentry/sentry-java": ["Android", "Java", "Kotlin", "sentry-android", "Spring", "Spring Boot", "io.sentry",
                              "Android SDK", "Java SDK", "Logback", "Log4j2", "OkHttp"],
    "getsentry/sentry-python": ["Python", "sentry-sdk", "sentry_sdk", "Django", "Flask", "FastAPI", "Celery",
                                "Python SDK", "Starlette"],
    "getsentry/sentry-javascript": ["JavaScript", "JS", "Node", "Node.js", "NodeJS", "Browser", "Next.js", "NextJS",
                                    "React", "Vue", "Angular", "Svelte", "SvelteKit", "Remix", "Nuxt", "Astro",
                                    "Ember", "Gatsby", "Deno", "Bun", "Cloudflare", "NestJS", "Hono",
                                    "AWS Lambda", "JavaScript SDK", "TypeScript"],
    "getsentry/sentry-react-native": ["React Native", "RN", "react-native", "RN SDK", "Expo"],
    "getsentry/sentry-dart": ["Flutter", "Dart", "sentry_flutter", "sentry-flutter", "Flutter SDK", "Dart SDK"],
    "getsentry/sentry-dotnet": [".NET", "dotnet", "C#", "CSharp", "ASP.NET", "ASP.NET Core", "MAUI", "Serilog",
                                "NLog", "Blazor", "Sentry.NET", ".NET SDK"],
    "getsentry/sentry-unity": ["Unity"],
    "getsentry/sentry-ruby": ["Ruby", "Rails", "Ruby on Rails", "Sidekiq", "Resque", "sentry-raven"],
    "getsentry/sentry-php": ["PHP", "sentry/sentry", "PHP SDK"],
    "getsentry/sentry-laravel": ["Laravel"],
    "getsentry/sentry-symfony": ["Symfony"],
    "getsentry/sentry-go": ["Go", "Golang", "sentry-go"],
    "getsentry/sentry-rust": ["Rust", "sentry-rust"],
    "getsentry/sentry-elixir": ["Elixir", "Phoenix"],
    "getsentry/sentry-native": ["Native", "sentry-native", "C/C++", "C++", "Crashpad", "Breakpad"],
    "getsentry/sentry-unreal": ["Unreal", "Unreal Engine", "UE4", "UE5"],
    "getsentry/sentry-godot": ["Godot"],
    "getsentry/sentry-kotlin-multiplatform": ["KMP", "Kotlin Multiplatform"],
    "getsentry/sentry-electron": ["Electron"],
    "getsentry/sentry-capacitor": ["Capacitor", "Ionic"],
    "getsentry/sentry-cordova": ["Cordova"],
    "getsentry/sentry-powershell": ["PowerShell"],
}
# Repositories outside the Sentry registry that the shipped example cache holds.
EXTRA_REPOSITORIES = {
    "openai/openai-python": ["openai", "openai-python", "openai python", "OpenAI Python SDK"],
    "pydantic/pydantic": ["pydantic"],
}

# Sentry tools that SDKs ship inside them: the repository is known (its aliases) because a fix in it reaches the
# SDK's customers through the SDK's bump lines ("Bump CLI from v2.39.1 to v2.41.1"), and customers ask about it.
BUNDLED_TOOLS = {
    "getsentry/sentry-cli": ["sentry-cli", "@sentry/cli", "Sentry CLI"],
}

# What each Sentry hybrid SDK bundles, by the names its notes' bump lines use ("Bump Cocoa SDK from v8.13.0 to
# v8.14.2", "Bump Android SDK …", "Bump Sentry .NET SDK …"): a fix in a bundled SDK reaches their customers
# through the host release whose bump brings it in. Checked against the notes in ../shared/data/github.
COCOA, JAVA, NATIVE = "getsentry/sentry-cocoa", "getsentry/sentry-java", "getsentry/sentry-native"
JAVASCRIPT, DOTNET = "getsentry/sentry-javascript", "getsentry/sentry-dotnet"
CLI = "getsentry/sentry-cli"
MOBILE = {"Cocoa": COCOA, "Android": JAVA, "Java": JAVA, "Native": NATIVE}
HYBRID_BUNDLES = {
    "getsentry/sentry-react-native": {**MOBILE, "JavaScript": JAVASCRIPT},
    "getsentry/sentry-dart": {**MOBILE, "JavaScript": JAVASCRIPT},
    "getsentry/sentry-dotnet": MOBILE,
    "getsentry/sentry-java": {"Native": NATIVE},
    "getsentry/sentry-unity": {**MOBILE, ".NET": DOTNET},
    "getsentry/sentry-unreal": MOBILE,
    "getsentry/sentry-godot": MOBILE,
    "getsentry/sentry-kotlin-multiplatform": {"Cocoa": COCOA, "Android": JAVA, "Java": JAVA},
    "getsentry/sentry-capacitor": {**MOBILE, "JavaScript": JAVASCRIPT},
    "getsentry/sentry-cordova": {**MOBILE, "JavaScript": JAVASCRIPT},
    # its automated bumps name the JavaScript SDKs "Sentry SDKs" ("Update Sentry SDKs to v10.34.0", 7.6.0 on)
    "getsentry/sentry-electron": {"JavaScript": JAVASCRIPT, "Native": NATIVE, "Sentry": JAVASCRIPT},
    # the Gradle plugin runs the sentry-cli binary it ships and auto-installs the Android SDK version it names
    # ("Bump CLI from v3.6.1 to v3.6.2", "Bump Android SDK from v8.52.0 to v8.53.0"); the Dart plugin downloads
    # the sentry-cli release it pins ("Bump CLI from v2.39.1 to v2.41.1")
    "getsentry/sentry-android-gradle-plugin": {"CLI": CLI, "Android": JAVA},
    "getsentry/sentry-dart-plugin": {"CLI": CLI},
}

# The packages of a bundled SDK's monorepo that its notes' scopes name ("fix(profiling-node): …"), beyond those the
# release registry lists (which leaves out internal and add-on packages): with the names the registry has, what a
# scope must be to count as one of its packages (indexer/registry.Registry.package_names).
BUNDLED_PACKAGES = {
    JAVASCRIPT: ["@sentry/browser-utils", "@sentry/core", "@sentry/feedback", "@sentry/node-native",
                 "@sentry/opentelemetry", "@sentry/profiling-node", "@sentry/replay", "@sentry/replay-canvas",
                 "@sentry/types", "@sentry/utils", "@sentry/pino-transport"],
}

# Which packages of a bundled JavaScript SDK each hybrid ships (its package.json's @sentry/* dependencies and theirs):
# a bundled release line scoped to another package ("fix(nextjs): …") cannot reach its customers, and is not
# followed (wif_action/subtasks/bundled_sdks.py). A hybrid that does not say ships every package.
_JS_CORE = ["@sentry/core", "@sentry/browser", "@sentry/browser-utils", "@sentry/replay", "@sentry/replay-canvas",
            "@sentry/feedback", "@sentry/types", "@sentry/utils", "@sentry/wasm"]
HYBRID_SHIPS = {
    # @sentry/electron runs @sentry/browser in renderers and @sentry/node (with node-core, opentelemetry) in main
    "getsentry/sentry-electron": {JAVASCRIPT: [*_JS_CORE, "@sentry/node", "@sentry/node-core",
                                               "@sentry/opentelemetry"]},
    # @sentry/react-native builds on @sentry/react
    "getsentry/sentry-react-native": {JAVASCRIPT: [*_JS_CORE, "@sentry/react"]},
    # @sentry/capacitor runs beside the sibling SDK of the app's framework, at the version its bump names
    "getsentry/sentry-capacitor": {JAVASCRIPT: [*_JS_CORE, "@sentry/angular", "@sentry/angular-ivy", "@sentry/react",
                                                "@sentry/vue", "@sentry/svelte", "@sentry/nuxt"]},
    "getsentry/sentry-cordova": {JAVASCRIPT: _JS_CORE},
    # sentry_flutter on the web loads the browser SDK
    "getsentry/sentry-dart": {JAVASCRIPT: _JS_CORE},
}

# Package names that are also everyday words in a support message.
GENERIC_WORDS = {"sdk", "agent"}


def package_aliases(canonical: str) -> list[str]:
    name = canonical.split(":", 1)[-1]
    names = [name]
    if ":" in name:  # maven group:artifact
        names.append(name.split(":", 1)[1])
    if name.startswith("sentry/") and name.count("/") == 1:  # composer vendor/package
        names.append(name.split("/", 1)[1])
    return names


# `canonical` prefixes that name where a package is published, not a package manager a message could name.
NOT_ECOSYSTEMS = {"github"}


def build(source: dict) -> dict:
    targets: dict[str, set[str]] = defaultdict(set)
    sdks = {}
    ecosystems: dict[str, set[str]] = defaultdict(set)
    for sdk_id, sdk in sorted(source["sdks"].items()):
        repo = sdk["repo"]
        sdks[sdk_id] = repo
        prefix = sdk["canonical"].split(":", 1)[0] if ":" in sdk["canonical"] else ""
        if prefix and prefix not in NOT_ECOSYSTEMS:
            ecosystems[repo].add(prefix)
        for alias in [sdk_id, repo, repo.split("/", 1)[1], *package_aliases(sdk["canonical"])]:
            targets[alias.lower()].add(repo)
    for repo, aliases in {**PLATFORM_ALIASES, **EXTRA_REPOSITORIES, **BUNDLED_TOOLS}.items():
        for alias in [repo, repo.split("/", 1)[1], *aliases]:
            targets[alias.lower()].add(repo)
    repos = sorted({*sdks.values(), *EXTRA_REPOSITORIES, *BUNDLED_TOOLS})
    for generic in GENERIC_WORDS:
        targets.pop(generic, None)
    return {
        "source": source.get("source", ""),
        "repositories": {repo: _repository(repo, ecosystems.get(repo, set())) for repo in repos},
        "sdks": sdks,
        "aliases": {alias: sorted(t)[0] for alias, t in sorted(targets.items()) if len(t) == 1},
        "ambiguous": {alias: sorted(t) for alias, t in sorted(targets.items()) if len(t) > 1},
    }


# Outside Sentry: what other repositories of the example cache ship inside them.
OTHER_BUNDLES = {"pydantic/pydantic": {"pydantic-core": "pydantic/pydantic-core"}}


def _repository(repo: str, ecosystems: set[str]) -> dict:
    """A repository's entry: contacts, what it bundles, and the package managers it publishes to (`ecosystems`,
    from the `canonical` ids' prefixes: "cargo" of cargo:sentry), which tell repositories sharing a package name
    apart when a message names the manager ("the sentry crate", `mix deps.get`)."""
    info: dict = {"slack_group_id": None, "github_team": None}
    if ecosystems:
        info["ecosystems"] = sorted(ecosystems)
    bundles = HYBRID_BUNDLES.get(repo) or OTHER_BUNDLES.get(repo)
    if bundles:
        info["bundles"] = dict(bundles)
    if repo in BUNDLED_PACKAGES:
        info["packages"] = sorted(BUNDLED_PACKAGES[repo])
    if repo in HYBRID_SHIPS:
        info["ships"] = {bundled: list(names) for bundled, names in HYBRID_SHIPS[repo].items()}
    return info


def main() -> None:
    source_path = Path(sys.argv[1]) if len(sys.argv) > 1 else ROOT.parent / "shared/data/sentry-sdk-registry.json"
    registry = build(json.loads(source_path.read_text()))
    target = ROOT / "indexer" / "data" / "registry.json"
    target.write_text(json.dumps(registry, indent=1, sort_keys=True, ensure_ascii=False) + "\n")
    print(f"{target.relative_to(ROOT)}: {len(registry['repositories'])} repositories, "
          f"{len(registry['aliases'])} aliases, {len(registry['ambiguous'])} ambiguous")


if __name__ == "__main__":
    main()
