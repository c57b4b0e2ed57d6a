"""The lexicon's tables agree with each other, and no judge vocabulary lives outside them.

The line between judge vocabulary and structure: a word list, synonym, symptom, platform, verb or cue phrase
(a regex alternating English words) is vocabulary and lives in `wif_action/lexicon/lexicon.toml`, or — the words of
change kinds the release-note parser shares with the judge (section headings, commit types, fix verbs) — in the
lower layer's `indexer/data/words.toml`. Regexes that read structure — URLs, versions, code identifiers, markdown,
GitHub references, delivery's sanitising — are not, and stay beside their code. The indexer is checked like the
judge: its word lists and heading words are data too.
"""

from __future__ import annotations

import ast
import re
import tomllib
from pathlib import Path

import pytest

from indexer import words as indexer_words
from indexer.release_notes import classify_bullet, classify_heading
from wif_action import lexicon
from wif_action.lexicon.stemmer import stem
from wif_action.lexicon.terms import analyse
from wif_action.platforms import named_platforms

ROOT = Path(__file__).resolve().parent.parent
# Modules whose regexes read structure, not meaning (see the module docstring), by path prefix. Not `indexer/`:
# its words are data (indexer/data/words.toml); its format grammar is listed in GRAMMAR / NOT_VOCABULARY.
STRUCTURE = ("wif_action/delivery/", "wif_action/lexicon/", "wif_action/tools/", "wif_action/run_records/",
             "wif_action/commands/", "wif_action/cli.py", "wif_action/slack_app.py",
             "wif_action/slack_manifest.py", "wif_action/slack_payload.py", "wif_action/slack_jobs.py",
             "wif_action/slack_http.py")
# Regex syntax between the words of a cue phrase ("\bcrash(?:es)?\b|\bhangs?\b|\bfreez(?:e|ing)\b"), taken out
# before looking for words alternated.
_REGEX_SYNTAX = re.compile(r"\\[bBsSwWdDAZ]|\(\?(?::|<?[=!]|P?<\w+>)|[()?*+^$]|\{\d*,?\d*\}|\[[^\]]*\]")
_ALTERNATED_WORDS = re.compile(r"(?<![\w\\])[a-z]{3,}(?:\|[a-z]{3,}){2,}(?!\w)")


def _english_alternation(source: str) -> bool:
    """Three English words alternated in a regex source, whatever syntax sits between them ("secs?|seconds?")."""
    return bool(_ALTERNATED_WORDS.search(_REGEX_SYNTAX.sub("", source)))


@pytest.fixture(autouse=True)
def packaged_lexicon():
    lexicon.use(None)
    yield
    lexicon.use(None)


def test_every_symptom_family_has_a_symptom_and_every_synonym_folds_onto_a_symptom() -> None:
    terms = {symptom.term for symptom in lexicon.symptoms()}
    assert set(lexicon.synonyms().values()) <= terms
    assert {term for family in lexicon.symptom_families() for term in family} == terms
    assert lexicon.remedy_terms() <= terms and lexicon.says_what_terms() <= terms


def test_no_word_folds_onto_two_symptoms() -> None:
    seen: dict[str, str] = {}
    for symptom in lexicon.symptoms():
        for word in symptom.words:
            key = stem(word) if word.isalpha() else word
            assert seen.setdefault(key, symptom.name) == symptom.name, f"{word!r} is in {seen[key]} and {symptom.name}"


def test_a_symptom_word_reads_as_its_symptom_through_the_tokeniser() -> None:
    """What the table says is what analysis does: every spelling yields the symptom's folded term."""
    for symptom in lexicon.symptoms():
        for word in symptom.words:
            keys = {term.key for term in analyse(word)}
            assert symptom.term in keys, (word, keys)
        assert lexicon.symptom_names()[symptom.term] == symptom.name


def test_symptom_words_are_not_stopwords() -> None:
    for symptom in lexicon.symptoms():
        for word in (symptom.name, *symptom.words):
            assert word not in lexicon.stopwords(), word


def test_a_short_form_or_equivalent_folds_onto_a_word_that_folds_no_further() -> None:
    """`[abbreviation]` and `[equivalent]` map a word onto the word it means, once: no chains, no word in both, no
    stopword on either side, and no word that is also a symptom's spelling (a symptom folds at half weight, these
    at full)."""
    tables = [lexicon.data().get(name, {}) for name in ("abbreviation", "equivalent")]
    assert not set(tables[0]) & set(tables[1])
    symptom_words = {stem(word) for symptom in lexicon.symptoms() for word in (symptom.name, *symptom.words)}
    for word, meant in [item for table in tables for item in table.items()]:
        assert word == word.lower().strip() and meant == meant.lower().strip() and word.isalpha(), word
        assert stem(meant) not in lexicon.equivalents(), f"{meant!r} folds further"
        assert word not in lexicon.stopwords() and meant not in lexicon.stopwords(), word
        assert stem(word) not in symptom_words and stem(meant) not in symptom_words, word
        assert {t.key for t in analyse(word)} == {t.key for t in analyse(meant)}, word


def test_switching_an_equivalent_off_changes_the_analysis() -> None:
    assert {t.key for t in analyse("a recursive lock")} == {t.key for t in analyse("a recursive mutex")}
    tables = lexicon.data()
    del tables["equivalent"]["mutex"]
    lexicon.use(tables)
    assert {t.key for t in analyse("a recursive lock")} != {t.key for t in analyse("a recursive mutex")}


def _keys(text: str) -> set[str]:
    return {t.key for t in analyse(text)}


# Each `[equivalent]` entry, the note and problem it joins, and what they share with it and without it.
EQUIVALENTS = [
    # "Finish transaction on drop" is about requests that do not "complete normally".
    ("finish", "fix(http): Finish transaction on drop", "only requests that complete normally produce a transaction",
     {"transact", "complet"}, {"transact"}),
    # "Handling of array values fixed for AxiosHeaders": values "merged into one string instead of a list".
    ("array", "Handling of array values fixed", "merged into one comma-separated string instead of a list",
     {"list"}, set()),
    # Acknowledgements discarded on disconnection: a "confirmation callback" never called once the connection drops.
    ("acknowledge", "discard acknowledgements upon disconnection",
     "waiting for the server to confirm a message, our confirmation callback is never called", {"confirm"}, set()),
    # Porter leaves a short stem's "-er" on: "Wrapper" never met "wraps" without the entry.
    ("wrapper", "`Rack::Lint::Wrapper` correctly handles `respond_to?`",
     "the server wraps the app in Rack's conformance checker", {"rack", "wrap"}, {"rack"}),
    # ... nor "watcher" "watch": a file watcher that never reruns a task is watch mode's business.
    ("watcher", "Watch mode (`--watch`) now always runs the task", "without that setting the watcher reruns the build",
     {"watch"}, set()),
    # What may be retried is retryable: "isredirect/retryable" is about a request that "retries" (Porter: "retryabl").
    ("retryable", "Ensure a Request accounts correctly for isredirect/retryable.",
     "the streamed body stays empty when the request retries", {"request", "retri"}, {"request"}),
    # British spellings: a customer's "colours" and "parenthesised" are the notes' "color" and "parenthesized".
    ("colour", "Fixed truecolor to eight bit color conversion", "hex colours are shown as different colours",
     {"color"}, set()),
    ("parenthesise", "Fix `# fmt: skip` being ignored in nested `if` expressions with parenthesized `in` clauses",
     "the skip comment on a parenthesised membership test", {"skip", "ignor", "parenthes"}, {"skip", "ignor"}),
    # Ruby's `rescue` is what a customer of any language calls catching an exception.
    ("rescue", "#2478: Fix rescue_from with invalid response - @ericproulx.",
     "our catch-all error handler returns plain text instead of a proper response", {"respons", "catch"}, {"respons"}),
]


@pytest.mark.parametrize(("entry", "note", "problem", "shared", "without"), EQUIVALENTS,
                         ids=[row[0] for row in EQUIVALENTS])
def test_an_equivalent_joins_what_a_note_and_a_problem_say_in_other_words(
        entry: str, note: str, problem: str, shared: set[str], without: set[str]) -> None:
    """A note and a problem that name one idea in different words share it only through the `[equivalent]` entry."""
    assert _keys(note) & _keys(problem) == shared
    tables = lexicon.data()
    del tables["equivalent"][entry]
    lexicon.use(tables)
    assert _keys(note) & _keys(problem) == without


def test_a_repeated_value_is_a_duplicate() -> None:
    """"use append for repeat trailers" fixes a trailer the customer sees "twice" (lexicon `[[symptom]]` duplicate,
    word "repeat"); without the word the two share only "trailer"."""
    note, problem = "http1: use append for repeat trailers", "a response carries the same trailer field twice"
    duplicate = lexicon.synonyms()[stem("twice")]
    assert _keys(note) & _keys(problem) == {"trailer", duplicate}
    tables = lexicon.data()
    record = next(r for r in tables["symptom"] if r["name"] == "duplicate")
    record["words"] = [w for w in record["words"] if w != "repeat"]
    lexicon.use(tables)
    assert _keys(note) & _keys(problem) == {"trailer"}


def test_a_segfault_signal_is_a_crash() -> None:
    """"crashes when players quit the game (SIGSEGV during shutdown)" and "Fixed occasional crash on exit" name one
    kind of failure: SIGSEGV is the signal the crash ends in (lexicon `[[symptom]]` crash, word "sigsegv"), so a
    question that names only the signal asks a crash; without the word it asks no kind of failure."""
    crash = lexicon.synonyms()[stem("exc_bad_access")]
    assert crash in _keys("the game dies with SIGSEGV during shutdown") & _keys("Fixed occasional crash on exit")
    tables = lexicon.data()
    record = next(r for r in tables["symptom"] if r["name"] == "crash")
    record["words"] = [w for w in record["words"] if w != "sigsegv"]
    lexicon.use(tables)
    assert crash not in _keys("the game dies with SIGSEGV during shutdown")


def test_the_platform_table_is_sane() -> None:
    names = [platform.name for platform in lexicon.platforms()]
    assert len(names) == len(set(names))
    words = [word for platform in lexicon.platforms() for word in platform.words]
    assert len(words) == len(set(words)), "a platform word names two platforms"
    assert all(word == word.lower().strip() and word for word in words)
    for platform in lexicon.platforms():
        assert platform.name in platform.words or platform.name == "web"
        for word in platform.words:
            if word != "web":  # "web" is a platform only in a platform phrase ("on web")
                assert named_platforms(f"It crashes on {word}.") == {platform.name}, word


def test_word_lists_are_lower_case_and_patterns_compile() -> None:
    for name in lexicon.word_list_names():
        for word in lexicon.words(name):
            assert word == word.lower().strip() and word, (name, word)
    for name in lexicon.pattern_names():
        assert lexicon.pattern(name).pattern  # compiles, placeholders expanded
        assert "<<" not in lexicon.source(name), name


def test_a_pattern_is_built_from_the_tables() -> None:
    """Patterns embed word lists by name: editing the table changes the regex."""
    assert lexicon.pattern("fix_headline").match("Handled a crash")
    tables = lexicon.data()
    tables["words"]["fix_verbs"] = [verb for verb in tables["words"]["fix_verbs"] if not verb.startswith("handle")]
    lexicon.use(tables)
    assert not lexicon.pattern("fix_headline").match("Handled a crash")
    assert lexicon.pattern("fix_headline").match("fix(ui): Handled a crash")  # the commit prefix still says fix


def test_switching_a_synonym_off_changes_the_analysis() -> None:
    assert "hang" in {term.key for term in analyse("the app froze, it is frozen")}
    tables = lexicon.data()
    for record in tables["symptom"]:
        record["words"] = [word for word in record["words"] if word != "frozen"]
    lexicon.use(tables)
    assert "hang" not in {term.key for term in analyse("it is frozen")}


def test_a_runtimes_or_protocols_version_is_one_term_and_the_sdks_own_version_is_not() -> None:
    """"Elixir 1.19", "HTTP/2", "lang/Elixir-1.19.0" keep their number as one term (lexicon `versioned_names`):
    "elixir" alone is in every note of an Elixir SDK, "Elixir 1.19" in the one fix for it. A package's own version
    ("sentry-elixir 10.7.1") stays noise, and the table decides which words qualify ("OTP 25": not one of them)."""
    def versioned(text: str) -> set[str]:
        return {term.key for term in analyse(text) if any(c.isdigit() for c in term.key) and " " in term.key}

    assert versioned("On Elixir 1.19 a crash reaches Sentry as a message") == {"elixir 1.19"}
    assert versioned("compatible with the translation format of Elixir 1.19.2") == {"elixir 1.19"}
    assert versioned("disable HTTP/2 and ALPN") == {"http 2"}
    assert versioned("Fix regexes on lang/Elixir 1.18 and Elixir-1.18.0") == {"elixir 1.18"}
    assert versioned("iOS 17 only, OTP 25") == set()  # not one of `versioned_names`
    assert versioned("sentry-elixir 10.7.1 with Elixir") == set()
    assert versioned("HTTP 500 errors") == {"http 500", "500 error"}  # a status code stays the ordinary bigram
    tables = lexicon.data()
    tables["words"]["versioned_names"] = []
    lexicon.use(tables)
    assert versioned("On Elixir 1.19 a crash, disable HTTP/2") == set()


def test_a_game_engines_version_is_one_term_like_a_runtimes() -> None:
    """"Unity 6" is the engine the customer's game is built with, as "Elixir 1.19" is the runtime: the note fixing
    it names that version ("fix: IL2CPP in Unity 6"), while "unity" alone is in every note of a Unity SDK and the
    customer's SDK version ("sentry-unity 2.0.4") stays noise."""
    def versioned(text: str) -> set[str]:
        return {term.key for term in analyse(text) if any(c.isdigit() for c in term.key) and " " in term.key
                and not term.key.startswith("il2cpp")}

    assert versioned("their IL2CPP build on Unity 6 now crashes") == versioned("fix: IL2CPP in Unity 6") \
        == {"uniti 6"}
    assert versioned("Unity 2022.3 builds") == {"uniti 2022.3"}
    assert versioned("They are on sentry-unity 2.0.4") == set()


def test_an_operating_systems_release_is_one_term_like_a_runtimes() -> None:
    """"Windows 7" is the system the customer runs on, versioned like a runtime: the note restoring it names that
    release ("Restore compatibility with Windows 7") while "windows" alone is in every Windows line; "Windows 10 is
    fine" names another release, not the same term."""
    def versioned(text: str) -> set[str]:
        return {term.key for term in analyse(text) if any(c.isdigit() for c in term.key) and " " in term.key}

    assert versioned("the build tool no longer starts on our Windows 7 machines") \
        == versioned("Restore compatibility with Windows 7 (#13905, @nojb)") == {"window 7"}
    assert versioned("Windows 10 is fine") == {"window 10"}


def test_a_duration_is_one_term_in_seconds_whatever_its_unit() -> None:
    """"timeout to 30s instead of 300s" and "run for 300 seconds" share the 300 s the customer measured; "5 min"
    and "300000ms" are the same duration. A measurement that is no duration ("10m", "50%") stays noise."""
    def keys(text: str) -> set[str]:
        return {term.key for term in analyse(text)}

    assert "300s" in keys("Fixed default deadline timeout to 30s instead of 300s") & keys("run for 300 seconds")
    assert {"300s", "1500ms"} <= keys("waits 5 min, or 300000ms, or 1500 ms") and "300000ms" not in keys("300000ms")
    assert not any(char.isdigit() for key in keys("10m further, 50% faster, 2x smaller") for char in key)
    tables = lexicon.data()  # the units are the lexicon's `[duration_unit]`: one taken out is no duration
    del tables["duration_unit"]["min"]
    lexicon.use(tables)
    assert "300s" not in keys("waits 5 min") and "300s" in keys("waits 5 minutes")


def test_a_spelled_out_duration_reads_as_its_seconds_and_keeps_its_unit_word() -> None:
    """"stay open for up to five minutes" names the "300s" of "deadline timeout to 30s instead of 300s" (lexicon
    `[number_word]`), and "honor Retry-After delays up to two minutes" still names the "minute" of "a bit more than
    a minute". Without the table, the spelled number is no duration."""
    def keys(text: str) -> set[str]:
        return {term.key for term in analyse(text)}

    note = keys("Fixed default deadline timeout to 30s instead of 300s")
    assert {"300s", "30s"} <= note & keys("transactions stay open for up to five minutes, instead of 30 seconds")
    assert {"120s", "minut"} <= keys("honor Retry-After delays up to two minutes") & (keys("over a minute") | {"120s"})
    assert "30s" in keys("a thirty seconds wait") and "18000s" in keys("Five Hours later")
    assert {"5s", "60s", "1200s"} <= keys("a five-second wait, sixty seconds, a twenty-minute job")
    assert not any(key[0].isdigit() for key in keys("the second time, one more, five items"))
    tables = lexicon.data()
    del tables["number_word"]
    lexicon.use(tables)
    assert "300s" not in keys("stay open for up to five minutes")


def test_a_compound_ordinal_is_no_duration() -> None:
    """"the thirty-second release" is the 32nd, not 30 s (lexicon `ordinal_units`): a tens word before "second"
    reads as no duration, while "thirty seconds", "one second" and "a fifteen-second wait" still do."""
    def keys(text: str) -> set[str]:
        return {term.key for term in analyse(text)}

    assert not any(key.endswith("s") and key[0].isdigit() for key in
                   keys("the thirty-second release, its twenty second beta and the Forty-Second patch"))
    assert {"30s", "1s", "15s"} <= keys("thirty seconds, one second, a fifteen-second wait")
    tables = lexicon.data()
    tables["words"]["ordinal_units"] = []
    lexicon.use(tables)
    assert "30s" in keys("the thirty-second release")


def test_a_duration_below_a_second_is_one_term_however_it_is_written() -> None:
    """"Timeouts configured as fractions of a second" and "options now also work with sub second values" name one
    thing (lexicon `pattern.subsecond`); "second" alone is a stopword, so without the pattern they share nothing."""
    def keys(text: str) -> set[str]:
        return {term.key for term in analyse(text)}

    note = keys("Fix the `http_timeout` option, which now also works with sub second values")
    assert "subsecond" in note & keys("Timeouts configured as fractions of a second are not honored")
    assert all("subsecond" in keys(text) for text in ("sub-second delays", "Subsecond intervals", "under a second"))
    assert "sub" in note and "subsecond" not in keys("the second attempt, a subset of sub-packages")
    tables = lexicon.data()
    tables["pattern"]["subsecond"]["re"] = "(?!)"
    lexicon.use(tables)
    assert "subsecond" not in keys("Timeouts configured as fractions of a second are not honored")


@pytest.mark.parametrize(("name", "question", "note", "term", "not_it"), [
    ("restart", "crashes are no longer reported after the game closes and re-initialises the SDK",
     "Reporting crashes when restarting the SDK", "restart", "the initial value is set again"),
    ("restart", "we shut Sentry down and init it again when the player changes a setting",
     "Reporting crashes when restarting the SDK", "restart", "initialization options, again"),
    ("bit_width_type", "Logging a 32-bit float in JSON prints a long inexact number",
     "JSON: Fix inaccurate precision when encoding float32.", "float32", "a 32-bit build of the float library"),
    ("dimensions", "some events come with a broken screenshot attachment: a 0x0 image that won't open",
     "Don't send screenshots with either width or height of 0", "width", "EXC_BAD_ACCESS at 0x0 in the image loader"),
    ("app_exit", "On Android the game sometimes crashes while it is closing.",
     "Fixed occasional crash on exit on Android", "exit", "the app crashes when closing the file it wrote"),
    ("hang", "the first error captured on a page freezes the browser tab for a second",
     "Replace regex with string check in stack parser to prevent main thread blocking", "hang",
     "a blocklist of URLs"),
    ("subresource_integrity", "With Next.js Subresource Integrity enabled the browser refuses the scripts",
     "Skip build modification when SRI is enabled", "sri", "data integrity of the resource"),
    ("sensitive_data", "Sentry events from Phoenix requests contain sensitive data: the password hash",
     "(plug) Broader scrubbing", "scrub", "a case-sensitive data source name"),
    ("full_cpu", "later launches have an SDK thread stuck at 100% CPU reading the file",
     "Fix infinite loop in `sentrycrashfu_readBytesFromFD` when `read()` returns EOF", "infinit loop",
     "CPU usage dropped by 100 percent"),
    ("cut_off", "an SDK thread reads the half-written file; the file on disk is probably cut off",
     "returns EOF on a truncated file", "truncat", "we cut offline support"),
    ("hang", "Whenever the first error happens on a page the UI locks up for 1-2 s",
     "prevent main thread blocking", "hang", "the lock is held while the queue fills up"),
    ("network_error", "new issues like Net::OpenTimeout and Errno::ECONNREFUSED from inside the gem",
     "Network errors raised in `Sentry::HTTPTransport` will no longer be reported", "network error",
     "a network request raised an error"),
    ("precision", "zap.Float32 shows up in our JSON logs as `\"ratio\":0.10000000149011612`",
     "JSON: Fix inaccurate precision when encoding float32.", "precis", "upgrading from 1.2.3 to 1.20.10"),
    ("ascii_escape", "print_json shows names like `Jos\\u00e9` and every Japanese string as escapes",
     "Fix mismatching default value of parameter `ensure_ascii`", "ascii", "a \\user\\docs path on Windows"),
    ("ampersand", "in the generated CSS the `&` inside the nested url() is replaced by the class name",
     "Fixed a parsing issue with `&` within nested functions", "ampersand", "Features & fixes, R&D"),
    ("carriage_return", "the spot is `try:\\` followed by a bare CR (`\\r`) and then a comment line",
     "Fix crash when formatting a `\\` followed by a `\\r` followed by a comment", "carriag return",
     "a \\raw string"),
    ("es_module", "Loading the library from a native ES module in Node fails",
     "Fixed importing in Node ESM", "esm", "the module's ES2015 build"),
    ("update_notice", "Is the update check broken?",
     "Fix update nagger never showing when a newer version is available", "notifi",
     "Can you tell me if a newer version fixes it?"),
    ("update_notice", "The CLI never tells us that a newer version exists", "Fix update nagger never showing",
     "notifi", "after the update the check fails"),
    ("color_256", "On terminals limited to 256 colours the shades differ",
     "Fixed truecolor to eight bit color conversion", "8bit", "a 256 MB color buffer"),
    ("true_color", "hex colours look right on a true-colour terminal", "Fixed truecolor to eight bit color conversion",
     "truecolor", "a true statement about colour"),
    ("versioned_acronym", "Set environment from SentryOptions if none persisted in ANRv2",
     "ANR events reported at the next app start", "anr", "the uv2 build of ANRV2X"),
    ("redirect_status", "their gateway answered one request with a `307` to a different host",
     "security: prevent Bedrock bearer credential disclosure across redirects", "redirect",
     "Fix the crash of #307 in 3.0.7"),
    ("gives_up", "every time a client gives up on a slow request we log a bad gateway error",
     "Avoid context canceled errors", "cancel", "we had to give up support for Python 3.7"),
    ("client_abort", "when the client aborts while retries are going on we get the last failed response",
     "Fix for retry cancellation", "cancel", "the process aborts when worker threads exit"),
    ("wraps_around", "a JSON number too large for the target integer type silently wraps around",
     "Fix numeric overflow in JsonLexer", "overflow", "Fix the iterator on array-wrapped inputs"),
    ("msvc", "Compiling the JSON library at Visual Studio's highest warning level produces warnings",
     "Fix some warnings with the Microsoft compiler", "msvc", "a Visual Studio Code extension"),
    ("msvc", "the build fails with Visual C++ 2019", "Fix compiling without CMake with MSVC", "msvc",
     "a visual studio code workspace, a visual effect"),
    ("size_compared", "Is there a newer version that ships a smaller build?",
     "Use a minified and optimized bundle to reduce the SDK size", "size", "a small build step"),
    ("open_files", "after a day the workers log `too many open files`",
     "Fix the UDP socket leak caused by frequent DNS queries", "leak",
     "Fix a bug where Kong fails to start when the ulimit setting (open files) is low"),
    ("package_manager", "our `pnpm install` fails in the postinstall step; a colleague on Yarn berry sees it too",
     "This change ensures the postinstall script remains compatible with package managers other than `npm`",
     "packag manag", "the CLI's npm package fails to install"),
])
def test_a_phrase_also_reads_as_the_term_a_note_writes(name: str, question: str, note: str, term: str,
                                                        not_it: str) -> None:
    """A customer's phrase and a note's word for one thing meet on one term (lexicon `pattern.<name>`, its
    `reads`): restarting, a number type by its width, a picture's W×H, an app closing, a frozen app, an
    abbreviation. A like-worded phrase that means something else reads as no such term, and without the pattern
    the question has no such term."""
    def keys(text: str) -> set[str]:
        return {t.key for t in analyse(text)}

    assert term in keys(question) & keys(note)
    assert term not in keys(not_it)
    tables = lexicon.data()
    tables["pattern"][name]["re"] = "(?!)"
    lexicon.use(tables)
    assert term not in keys(question)


def test_the_header_a_proxy_forwards_the_client_address_in_reads_as_its_ip() -> None:
    """A note naming the header a proxy forwards the client's address in (`X-Forwarded-For`, `X-Real-IP`) names the
    customer's "end user's IP" (lexicon `pattern.forwarded_ip`); a note forwarding other headers does not, nor the
    header without the pattern."""
    def keys(text: str) -> set[str]:
        return {t.key for t in analyse(text)}

    question = "behind a load balancer all events show its internal IP instead of the end user's IP"
    note = "SentryTunnelMiddleware overwrites the X-Forwarded-For header"
    assert "ip" in keys(question) & keys(note)
    assert "ip" in keys("Respect X-Real-IP behind proxies")
    assert "ip" not in keys("Forward the request headers for tunnels")
    tables = lexicon.data()
    tables["pattern"]["forwarded_ip"]["re"] = "(?!)"
    lexicon.use(tables)
    assert "ip" not in keys(note)


@pytest.mark.parametrize(("table", "word", "key", "question", "note"), [
    ("abbreviation", "dist", "distribut", "ignores the release and distribution we configured for it",
     "Support custom `dist` and `release`"),
    ("abbreviation", "param", "paramet", "nested parameter types are not reachable through the namespace",
     "Fixed nested service param exports in the Stripe namespace"),
    ("equivalent", "superfluous", "extra", "prints an extra empty line above the table",
     "Fixed superfluous space above Markdown tables"),
])
def test_a_short_form_or_another_word_reads_as_the_word(table: str, word: str, key: str, question: str,
                                                        note: str) -> None:
    """A note's short form or other word for the customer's word names it (`[abbreviation]`, `[equivalent]`);
    without the entry the two do not share it."""
    def keys(text: str) -> set[str]:
        return {t.key for t in analyse(text)}

    assert key in keys(question) & keys(note)
    tables = lexicon.data()
    del tables[table][word]
    lexicon.use(tables)
    assert key not in keys(note)


def test_a_name_spelled_out_in_a_question_also_reads_as_its_acronym(monkeypatch: pytest.MonkeyPatch) -> None:
    """"Setting Content-Security-Policy directives … has no effect" is what "Fix setting CSP header options" fixed:
    a name of three or more capitalised words in the question also counts as its initials (`terms.acronyms`).
    Two words do not ("Session Replay" is no "sr"), nor a note's own words (its acronym is a word of it already),
    and without the rule the question names no "csp"."""
    from wif_action.lexicon import question_terms as terms

    problem = "Setting Content-Security-Policy directives through the response has no effect"
    assert "csp" in terms.query_terms(problem) and "csp" in {t.key for t in analyse("Fix setting CSP options")}
    spelled = "the X-Forwarded-For header, an Application Not Responding"
    assert {t.key for t in terms.acronyms(spelled)} >= {"xff", "anr"}
    assert terms.acronyms("Session Replay masks") == []
    assert "csp" not in {t.key for t in analyse("Content-Security-Policy")}
    monkeypatch.setattr(terms, "acronyms", lambda text: [])
    assert "csp" not in terms.query_terms(problem)


def test_an_abbreviation_reads_as_its_word_on_both_sides() -> None:
    """"(deps) Remove rewrite from optional deps" and "breaks dependency resolution" share the dependencies (lexicon
    `[abbreviation]`); without the entry "deps" is a word of its own."""
    def keys(text: str) -> set[str]:
        return {term.key for term in analyse(text)}

    assert "depend" in keys("(deps) Remove rewrite from optional deps") & keys("breaks dependency resolution")
    tables = lexicon.data()
    del tables["abbreviation"]["deps"]
    lexicon.use(tables)
    assert "depend" not in keys("(deps) Remove rewrite from optional deps")


def test_weights_and_section_weights_are_numbers() -> None:
    assert all(isinstance(value, int | float) for value in lexicon.data()["weight"].values())
    assert lexicon.section_weights()["fix"] == 1.0


# The judge's modules (where a weight could hide as a constant): the offline engine, the analysis of a question
# and of names, the engine-independent checks.
JUDGE = ("wif_action/engines/offline/", "wif_action/lexicon/names.py", "wif_action/lexicon/terms.py",
         "wif_action/lexicon/cleaning.py", "wif_action/lexicon/control_case.py", "wif_action/lexicon/question_terms.py",
         "wif_action/question.py", "wif_action/objections.py", "wif_action/platforms.py", "wif_action/direction.py",
         "wif_action/problem_kind.py", "wif_action/candidate_order.py")


def _numeric_constant(value: ast.AST) -> bool:
    """A number (or arithmetic on numbers), or a copy of a lexicon weight taken at import (`lexicon.weight(…)`)."""
    if isinstance(value, ast.Constant):
        return isinstance(value.value, int | float) and not isinstance(value.value, bool)
    if isinstance(value, ast.BinOp | ast.UnaryOp):
        return any(_numeric_constant(node) for node in ast.iter_child_nodes(value))
    return any(isinstance(node, ast.Attribute) and node.attr in ("weight", "section_weights")
               for node in ast.walk(value))


def _weight_constants(path: Path) -> list[str]:
    """Module-level numeric constants (a dataclass field's default, `scale: float = 1.0`, is data, not a weight)."""
    tree = ast.parse(path.read_text(encoding="utf-8"))
    module_level = ast.Module(body=[node for node in tree.body if not isinstance(node, ast.ClassDef)], type_ignores=[])
    return [name for name, value in _constants(module_level)
            if _numeric_constant(value) and not name.startswith("MAX_")]


def test_the_judges_weights_live_in_one_table() -> None:
    """Every numeric weight or judgement limit is lexicon.toml [weight], read where used: no module of the judge
    keeps one as a constant (nor a copy taken at import, which `lexicon.use()` and calibration would not reach).
    Bounds on work — input sizes, `MAX_*` — stay beside their code."""
    offenders = [f"{path.relative_to(ROOT).as_posix()}: {name}" for path in _python_files()
                 if path.relative_to(ROOT).as_posix().startswith(JUDGE) for name in _weight_constants(path)]
    assert not offenders, "numeric weights belong in lexicon.toml [weight]:\n" + "\n".join(offenders)


# Numbers of a formula or a bound, not weights: BM25's +0.5 smoothing (ranking.idf), the fitted model's feature caps
# (its coefficients were fitted on them) and the logistic's overflow guard (features.py).
NOT_A_WEIGHT = {("wif_action/engines/offline/ranking.py", 0.5), ("wif_action/engines/offline/features.py", 2.0),
                ("wif_action/engines/offline/features.py", 60.0)}


def _weight_literals(path: Path, relative: str) -> list[str]:
    """Fractional numbers written in a judge module's code, anywhere (`score += 3.0`, `return -4.0`,
    `max(x, 0.5)`): a weight written where it is used. 0.0 and 1.0 are an identity, not a weight."""
    return [f"{relative}:{node.lineno}: {node.value}" for node in ast.walk(ast.parse(path.read_text(encoding="utf-8")))
            if isinstance(node, ast.Constant) and type(node.value) is float and node.value not in (0.0, 1.0)
            and (relative, node.value) not in NOT_A_WEIGHT]


def test_no_judge_module_writes_a_weight_in_its_code() -> None:
    """A weight in a function body escapes the constant check above as easily as a module constant would
    escape `lexicon.use()`: every fractional number of the judge's code is a `[weight]` read by name."""
    offenders = [found for path in _python_files() if (relative := path.relative_to(ROOT).as_posix()).startswith(JUDGE)
                 for found in _weight_literals(path, relative)]
    assert not offenders, "numeric weights belong in lexicon.toml [weight]:\n" + "\n".join(offenders)


def test_the_weight_check_catches_a_constant_and_a_copy(tmp_path: Path) -> None:
    module = tmp_path / "judge.py"
    module.write_text('HEADLINE = 300\nK1 = lexicon.weight("k1")\nN = int(lexicon.weight("n"))\nMAX_CHARS = 10\n'
                      'FLAG = True\nNAME = "x"\n')
    assert _weight_constants(module) == ["HEADLINE", "K1", "N"]
    module.write_text("def score(x):\n    if x:\n        return -4.0\n    return max(x, 0.5) + 1.0 + 0.0\n")
    assert [line.split(": ")[1] for line in _weight_literals(module, "judge.py")] == ["4.0", "0.5"]


def _python_files() -> list[Path]:
    return [path for folder in ("wif_action", "indexer") for path in (ROOT / folder).rglob("*.py")]


def _judge_module(path: Path) -> bool:
    """Not structure, or one of the judge's modules inside the lexicon package (`lexicon/terms.py`, `names.py`, …)."""
    relative = path.relative_to(ROOT).as_posix()
    return not relative.startswith(STRUCTURE) or relative.startswith(JUDGE)


def _string_constants(tree: ast.AST) -> list[ast.Constant]:
    return [node for node in ast.walk(tree) if isinstance(node, ast.Constant) and isinstance(node.value, str)]


# Module constants that list names of the code, not words of the judge: the OpenAI prompt's block tags, the
# releases table's columns.
NOT_VOCABULARY = {("wif_action/engines/openai_engine.py", "_BLOCK_TAGS"), ("indexer/store.py", "_RELEASE_COLUMNS")}


def _constants(tree: ast.Module) -> list[tuple[str, ast.AST]]:
    """(name, value) of every module- and class-level assignment."""
    bodies = [tree.body] + [node.body for node in tree.body if isinstance(node, ast.ClassDef)]
    found = []
    for statement in (statement for body in bodies for statement in body):
        if isinstance(statement, ast.Assign | ast.AnnAssign) and statement.value is not None:
            targets = statement.targets if isinstance(statement, ast.Assign) else [statement.target]
            found += [(target.id, statement.value) for target in targets if isinstance(target, ast.Name)]
    return found


def _words_listed(value: ast.AST) -> list[str]:
    """The lower-case words a collection literal (or a call such as frozenset({...}) on one) lists."""
    items: list[ast.expr | None] = []
    for node in ast.walk(value):
        if isinstance(node, ast.Set | ast.List | ast.Tuple):
            items += node.elts
        elif isinstance(node, ast.Dict):
            items += node.keys
    return [item.value for item in items if isinstance(item, ast.Constant) and isinstance(item.value, str)
            and re.fullmatch(r"[a-z][a-z' -]{1,30}", item.value)]


# Collections of three or more words written in code that name things of the code, not words of the judge (by
# their first word): the engines, the `--json` keys, the confidence levels, HTTP auth schemes, Sphinx roles.
NAMES_OF_THE_CODE = {("wif_action/api.py", "auto"), ("wif_action/engines/__init__.py", "auto"),
                     ("wif_action/models.py", "outcome"), ("wif_action/engines/openai_engine.py", "customer"),
                     ("wif_action/engines/openai_engine.py", "high"), ("indexer/store.py", "id"),
                     ("indexer/redaction.py", "bearer"), ("indexer/release_notes/references.py", "pr")}


def _inline_word_lists(tree: ast.AST) -> list[tuple[int, list[str]]]:
    """(line, words) of every set, list or tuple literal anywhere — a function's `in ("crash", "hang", "freeze")`
    too — that holds three or more lower-case words."""
    found = []
    for node in ast.walk(tree):
        if isinstance(node, ast.Set | ast.List | ast.Tuple):
            words = [item.value for item in node.elts if isinstance(item, ast.Constant) and isinstance(item.value, str)
                     and re.fullmatch(r"[a-z][a-z' -]{1,30}", item.value)]
            if len(words) >= 3:
                found.append((node.lineno, words))
    return found


def test_no_judge_module_defines_a_word_list() -> None:
    """A module or class constant listing five or more lower-case words, outside the lexicon, is a word list; so
    is a collection of three or more written anywhere in the code (a function's membership test)."""
    offenders = []
    for path in filter(_judge_module, _python_files()):
        relative = path.relative_to(ROOT).as_posix()
        tree = ast.parse(path.read_text(encoding="utf-8"))
        for name, value in _constants(tree):
            words = _words_listed(value)
            if len(words) >= 5 and (relative, name) not in NOT_VOCABULARY:
                offenders.append(f"{relative}: {name} = {words[:5]}…")
        offenders += [f"{relative}:{line}: {words}" for line, words in _inline_word_lists(tree)
                      if (relative, words[0]) not in NAMES_OF_THE_CODE]
        text = path.read_text(encoding="utf-8")
        if re.search(r'_words\("""', text):
            offenders.append(f"{path.relative_to(ROOT)}: a triple-quoted word list")
    assert not offenders, "word lists belong in wif_action/lexicon/lexicon.toml:\n" + "\n".join(offenders)


# Grammar of other formats, not the judge's words: GitHub's closing keywords, pre-release labels of a version, the
# HTML tags a release body may hold, Sphinx's reference roles, GitHub's URL paths of a pull request or issue.
GRAMMAR = {("wif_action/subtasks/check_links.py", "close|fix|resolve"),
           ("wif_action/engines/offline/versions_in_text.py", "alpha|beta|rc|preview"),
           ("indexer/release_notes/references.py", "close[sd]?|fix(?:e[sd])?|resolve[sd]?"),
           ("indexer/release_notes/references.py", "</?(?:br|strong|em|b|i|u|code|kbd|sup|sub|span|div|p|a|img"),
           ("indexer/release_notes/references.py", ":(?P<role>pr|pull|issue|ghpull|ghissue|gh):"),
           ("indexer/release_notes/references.py", "/(pull|pulls|issues)/")}


def test_no_judge_module_writes_a_vocabulary_regex() -> None:
    """A string constant alternating three or more English words (`crash|hang|freeze`) outside the lexicon is a
    cue phrase or symptom regex written beside the code."""
    offenders = []
    for path in filter(_judge_module, _python_files()):
        for node in _string_constants(ast.parse(path.read_text(encoding="utf-8"))):
            relative = path.relative_to(ROOT).as_posix()
            if _english_alternation(node.value) and not any(
                    where == relative and words in node.value for where, words in GRAMMAR):
                offenders.append(f"{path.relative_to(ROOT)}:{node.lineno}: {node.value[:70]!r}")
    assert not offenders, "vocabulary regexes belong in wif_action/lexicon/lexicon.toml:\n" + "\n".join(offenders)


# Substring tests of the code's own: a cheap check before a structural regex runs (terms.clean: a URL needs "http",
# a GitHub reference "GH-").
PREFILTERS = {("wif_action/lexicon/cleaning.py", "http"), ("wif_action/lexicon/cleaning.py", "GH-")}


def _word_tests(tree: ast.AST) -> list[tuple[int, str]]:
    """(line, word) of every test of a text for a word written in code: `.startswith("un")`,
    `.endswith(("on ", "for "))`, `"sentry" in alias`."""
    found = []
    for node in ast.walk(tree):
        tested: list[ast.expr] = []
        if isinstance(node, ast.Call) and isinstance(node.func, ast.Attribute) \
                and node.func.attr in ("startswith", "endswith"):
            for argument in node.args:
                tested += argument.elts if isinstance(argument, ast.Tuple) else [argument]
        elif isinstance(node, ast.Compare) and any(isinstance(op, ast.In | ast.NotIn) for op in node.ops):
            tested.append(node.left)
        found += [(node.lineno, item.value) for item in tested if isinstance(item, ast.Constant)
                  and isinstance(item.value, str) and re.search(r"[A-Za-z]{2}", item.value)]
    return found


def test_no_judge_module_tests_a_text_for_a_word_in_code() -> None:
    """A prefix, suffix or substring test for a word (`alias.endswith(" sdk")`, `"sentry" in alias`) is a word
    list of one written beside the code: the judge's modules read such words from the lexicon."""
    offenders = [f"{relative}:{line}: {word!r}" for path in _python_files()
                 if (relative := path.relative_to(ROOT).as_posix()).startswith(JUDGE)
                 for line, word in _word_tests(ast.parse(path.read_text(encoding="utf-8")))
                 if (relative, word) not in PREFILTERS]
    assert not offenders, "words belong in wif_action/lexicon/lexicon.toml:\n" + "\n".join(offenders)


def _fix_lemmas(text: str) -> set[str]:
    """The fix verbs (by stem: "fixed" and "fix(?:es)?" are one) a word list or regex source names."""
    fix_stems = {stem(verb) for verb in lexicon.words("fix_verbs")}
    return {stem(word) for word in re.findall(r"[a-z]+", text.lower())} & fix_stems


def _second_fix_verb_lists() -> list[str]:
    """Word lists (the lexicon's and every list of indexer/data/words.toml), raw pattern sources and judge-module
    regexes that spell out two or more fix verbs."""
    found = [f"words.{name}" for name, listed in lexicon.data()["words"].items()
             if name != "fix_verbs" and len(_fix_lemmas(" ".join(listed))) >= 2]
    found += [f"indexer words.toml {name}" for name, listed in _indexer_word_lists()
              if name != "words.fix_verbs" and len(_fix_lemmas(" ".join(listed))) >= 2]
    for name, spec in lexicon.data()["pattern"].items():
        raw = spec["re"] if isinstance(spec["re"], str) else "".join(spec["re"])
        if len(_fix_lemmas(_RAW_PLACEHOLDER.sub(" ", raw))) >= 2:
            found.append(f"pattern.{name}")
    for path in filter(_judge_module, _python_files()):
        relative = path.relative_to(ROOT).as_posix()
        for node in _string_constants(ast.parse(path.read_text(encoding="utf-8"))):
            if "|" in node.value and len(_fix_lemmas(node.value)) >= 2 and not any(
                    where == relative and words in node.value for where, words in GRAMMAR):
                found.append(f"{relative}:{node.lineno}")
    return found


_RAW_PLACEHOLDER = re.compile(r"<<[\w:,]+>>")


def _indexer_word_lists(node: object = None, name: str = "") -> list[tuple[str, list[str]]]:
    """Every list of words in indexer/data/words.toml, named by its path ("bullet_word.strong.fix", "heading.3")."""
    node = indexer_words.tables() if node is None else node
    if isinstance(node, dict):
        return [found for key, value in node.items()
                for found in _indexer_word_lists(value, f"{name}.{key}".strip("."))]
    if isinstance(node, list) and all(isinstance(item, str) for item in node):
        return [(name, node)]
    if isinstance(node, list):
        return [found for at, item in enumerate(node) for found in _indexer_word_lists(item, f"{name}.{at}")]
    return []


def test_fix_verbs_have_one_home() -> None:
    """Every pattern naming fix verbs embeds `<<fix_verbs>>` (or a `<<fix_verbs:fix,resolve>>` selection) instead
    of spelling its own list; a word list may hold forms of one fix verb for its own purpose ("fix" is a
    stopword, "avoid" removes), never a second list of them."""
    assert not _second_fix_verb_lists(), "fix verbs belong in words.fix_verbs:\n" + "\n".join(_second_fix_verb_lists())


def test_a_second_fix_verb_list_fails_and_a_selection_follows_the_table() -> None:
    tables = lexicon.data()
    tables["pattern"]["upstream_fix"]["re"] = r"\b(?:fixed|resolved)\s+in\s+(?P<repo>[\w.-]+/[\w.-]+)#\d+"
    tables["words"]["closing"] = ["fixes", "prevents"]
    lexicon.use(tables)
    assert {"pattern.upstream_fix", "words.closing"} <= set(_second_fix_verb_lists())
    lexicon.use(None)
    assert lexicon.pattern("upstream_fix").search("Fixed upstream in getsentry/sentry-cocoa#12")
    assert not lexicon.pattern("upstream_fix").search("Squashed upstream in getsentry/sentry-cocoa#12")
    tables = lexicon.data()
    tables["words"]["fix_verbs"].append("squashed")
    tables["words"]["fix_verbs"].append("squash")
    tables["pattern"]["upstream_fix"]["re"] = tables["pattern"]["upstream_fix"]["re"].replace(
        "<<fix_verbs:fix,resolve>>", "<<fix_verbs:fix,resolve,squash>>")
    lexicon.use(tables)
    assert lexicon.pattern("upstream_fix").search("Squashed upstream in getsentry/sentry-cocoa#12")
    assert lexicon.selection("fix_verbs", "fix") == {"fix", "fixes", "fixed", "fixing"}


def test_the_words_of_change_kinds_have_one_home_both_layers_read() -> None:
    """indexer/data/words.toml is the one home of section headings, commit types and fix verbs: the judge's lexicon
    reads its `[words]` lists (lexicon.toml spells none of them again), every section it names is one of its
    `sections`, and the judge weighs exactly those sections."""
    from importlib import resources

    shared = indexer_words.tables()
    own = tomllib.loads(resources.files("wif_action.lexicon").joinpath("lexicon.toml").read_text(encoding="utf-8"))
    assert not set(shared["words"]) & set(own["words"]), "a word list in both files"
    for name, listed in shared["words"].items():
        assert lexicon.words(name) == frozenset(listed)
    sections = set(shared["sections"])
    named = {record["section"] for record in shared["heading"]} | set(shared["commit_type"])
    named |= {section for table in shared["bullet_word"].values() for section in table}
    assert named | set(shared["words"]["feature_sections"]) | set(shared["words"]["symptom_sections"]) \
        | set(shared["fix_type_overrides"]) <= sections
    assert set(lexicon.section_weights()) == sections


def test_the_parser_reads_its_words_from_the_data_file() -> None:
    """Every conventional-commit type and bullet word of words.toml classifies a bullet as its section, and every
    heading word a heading record lists classifies a heading as that record's section (or as an earlier record's
    that names it too: the first record wins)."""
    shared = indexer_words.tables()
    for section, kinds in shared["commit_type"].items():
        for kind in kinds:
            assert classify_bullet(f"{kind}(core): something") == section, kind
    for table in shared["bullet_word"].values():
        for section, listed in table.items():
            for word in listed:
                assert classify_bullet(f"{word.capitalize()} something") == section, word
    records = shared["heading"]
    for at, record in enumerate(records):
        for word in record["words"]:
            heading = word.strip("*")
            expected = {earlier["section"] for earlier in records[:at + 1]} | {"other"}  # "other": a mixed heading
            assert classify_heading(heading.title()) in expected, heading


def test_the_vocabulary_checks_catch_what_they_are_for() -> None:
    """The two checks above would flag a word list and a symptom regex (so they can fail)."""
    code = 'import re\nWORDS = frozenset({"crash", "hang", "freeze", "stuck", "frozen"})\n' \
           'CRASH = re.compile(r"\\b(?:crash|hang|freeze)\\b")\n'
    tree = ast.parse(code)
    assert next((name, len(_words_listed(value))) for name, value in _constants(tree)) == ("WORDS", 5)
    assert any(_english_alternation(node.value) for node in _string_constants(tree))
    evasive = ast.parse('def judged(word, alias):\n    if word in ("crash", "hang", "freeze"):\n        return 1\n'
                        '    return alias.endswith(" sdk") or "sentry" in alias\n'
                        'PATTERN = r"\\bcrash(?:es)?\\b|\\bhangs?\\b|\\bfreez(?:e|ing)\\b"\n')
    assert _inline_word_lists(evasive) == [(2, ["crash", "hang", "freeze"])]
    assert _word_tests(evasive) == [(4, " sdk"), (4, "sentry")]
    assert any(_english_alternation(node.value) for node in _string_constants(evasive))
    assert not _english_alternation(r"(?P<kind>pull|issues)/\d+") and not _english_alternation(r"v?\d+\.\d+")
    assert _judge_module(ROOT / "indexer" / "release_notes" / "sections.py")  # the indexer is checked too


def test_the_inner_capital_test_decides_as_the_old_quadratic_pattern_did() -> None:
    """`_is_camel` dropped the `{2,}` repeats that made it quadratic on a long lowercase word (a 50,000-character
    hostile message took seconds): over every short mix of lower, upper and other characters it must still
    decide exactly as the old pattern did."""
    import itertools
    import re

    from wif_action.lexicon.terms import _is_camel

    old = re.compile(r"[a-z]{2,}[A-Z]|[A-Z][a-z]+[A-Z]|[A-Z]{2,}[a-z]{2,}")
    for length in range(1, 8):
        for letters in itertools.product("aZ1", repeat=length):
            segment = "".join(letters)
            assert _is_camel(segment) == bool(old.search(segment)), segment
    assert _is_camel("a" * 50_000 + "B") and not _is_camel("a" * 50_000)


def test_every_cross_validation_grid_offers_the_shipped_value():
    """bench/crossval_offline.py chooses each threshold among its GRID's values, ties going to the shipped one: a
    grid that lacks the shipped value (relative_to_best 0.6 against a grid of 0.35 and 0.5, this round) reports
    the CV of settings nobody ships."""
    from bench.crossval_offline import GRID, settings, shipped

    missing = {target: values for target, values in GRID.items() if shipped(target) not in values}
    assert not missing, f"shipped value not in the grid: {missing}"
    for mode in lexicon.MODES:  # each mode varies its own table, its own shipped values among them
        grid = settings(mode)
        assert {target for setting in grid for target in setting} == {f"{mode}_weight.{t[7:]}" for t in GRID}
        assert {target: shipped(target) for target in grid[0]} in grid


def test_a_reading_patterns_hints_may_name_the_word_list_it_is_built_from() -> None:
    """`hints = "package_managers"`: the words of that list are the hints, so a name added to the list reaches both
    the pattern (`<<package_managers>>`) and its prefilter; a text naming only that new word is still read."""
    hints = {name: pieces for name, _reads, pieces in lexicon.reading_patterns()}
    assert set(hints["package_manager"]) == lexicon.words("package_managers")
