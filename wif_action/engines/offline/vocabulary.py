"""Word lists of the offline engine: general language knowledge, not knowledge of any one SDK.

Kept apart from the code so they can be reviewed (and extended) on their own.
"""

from __future__ import annotations

from wif_action.engines.offline.stemmer import stem


def _words(text: str) -> frozenset[str]:
    return frozenset(text.split())


# Dropped on both sides: function words, conversation ("customer", "weird", "thanks") and words
# every support question and release note share ("fix", "issue", "sdk", "release").
STOPWORDS = _words("""
a about above after again against all almost already also although always am among an and another any
anybody anyone anything anyway anywhere are aren around as ask asked asking at away back be became
because become been before being below between both but by can cannot could couldn did didn do does
doesn doing don done down during each either else enough etc even ever every everything few for from
further get gets getting give given go goes going gone got gotten had has hasn have haven having he her
here hers herself him himself his how however i if in into is isn it its itself just keep keeps kind
know known last least less let lets like likely look looked looks lot lots made make makes many may
maybe me might mine more most much must my myself need needs neither never no nor not now of off often
oh ok okay on once one only onto or other others otherwise our ours ourselves out over own per perhaps
please pretty quite rather re really right said same say says see seeing seem seemed seems seen shall
she should shouldn since so some somehow someone something sometimes somewhere still such sure than that
the their theirs them themselves then there these they thing things this those though through thus to
together too toward towards try trying under unless until up upon us use used uses using very via want
wanted wants was wasn way we well were weren what whatever when whenever where whether which while who
whom whose why will with within without won would wouldn yes yet you your yours yourself hey hi hello
thanks thank team folks guys everyone anyone customer customers client clients user's question questions
wondering weird strange odd case cases today yesterday recently recent currently actually basically
apparently seemingly exactly bit little lot thousands hundreds dozens bunch sentry sdk sdks fix fixes
fixed fixing fixable bug bugs issue issues ticket problem problems release releases released newer later
latest older update updated upgrade upgraded upgrading regression known anything something happen
happens happened happening occur occurs occurred reproduce reproducible repro expected expect ve ll re
isn aren wasn didn doesn don won fine anymore went show shows showed shown showing found find finds
sound sounds example examples think thinks thought place nothing different differently inside full take
takes side middle real day days period arrive arrives arriving hit org behind every always occasional
occasionally two three four five first second third couple few several many lot lots entire entirely
whole weird maybe somewhere someone help thanks immediately regularly constantly suddenly randomly quite
pretty totally completely tried try tries works worked working work same similar
""")

# Common verbs and adjectives: kept (they can matter) but weak evidence on their own.
WEAK_WORDS = frozenset(stem(word) for word in _words("""
new old become becomes became get gets make makes take takes use used call called calls pass passes
passed walk walks reach reaches point pointed base based current existing stop stops stopped finish
finishes finished return returns returned read reads wait waiting receive received close closed end ends
start starts started run runs running set sets add added adds remove removed change changed changes keep
kept need needs load loads loaded level product service code library module true false value values part
number way time times good bad right wrong big small large long short high low full empty right left
proper properly correct correctly instead able possible available certain specific general various other
another given main real actual simple single multiple app apps application applications send sends sent
sending
"""))

# Symptom words that release notes and customers spell differently; folded onto one term (keys are stems).
SYNONYMS: dict[str, str] = {
    "exc_bad_access": "crash", "sigsegv": "crash", "sigabrt": "crash", "sigbus": "crash",
    "segfault": "crash", "sigill": "crash",
    "freez": "hang", "frozen": "hang", "stuck": "hang", "unrespons": "hang", "anr": "hang",
    "deadlock": "hang",
    "oom": "memori", "rss": "memori", "leak": "memori",
    "twice": "duplic", "doubl": "duplic",
    "skip": "ignor", "exclud": "ignor",
    "empti": "miss", "blank": "miss", "absent": "miss",
    "discard": "drop", "lost": "drop", "lose": "drop", "swallow": "drop", "filter": "drop",
}
# How a folded term reads in an answer's reason (the stems above are not words).
SYNONYM_NAMES = {"crash": "crash", "hang": "hang", "memori": "memory", "duplic": "duplicate", "ignor": "ignore",
                 "miss": "missing", "drop": "dropped"}

# Words whose own version people state: a number right after one ("Kotlin 2.1.0") is not the SDK version.
PLATFORM_WORDS = _words("""
kotlin java jdk jvm openjdk python cpython pypy node node.js nodejs deno bun ruby jruby php go golang
rust swift xcode ios ipados macos tvos watchos visionos android api agp gradle flutter dart .net dotnet
net c# mono unity unreal electron react next.js nextjs vue angular svelte django flask fastapi starlette
rails laravel symfony spring boot celery sidekiq gunicorn uvicorn typescript webpack vite chrome safari
firefox edge windows ubuntu debian alpine linux hermes expo cocoapods carthage maui blazor hono express
nestjs nuxt remix astro gatsby okhttp serilog nlog log4j2 logback openssl curl postgres mysql redis
kubernetes docker iphone ipad pixel samsung native
""")
