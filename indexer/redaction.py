"""The one redactor: keeps secrets out of everything WIF writes.

Run records, answers, outputs, job logs and error messages can all carry a token
(pasted into a Slack message, echoed by an upstream in an error). Everything
written passes through a `Redactor`: the configured secrets' exact values (so a
token of any shape is caught; the password of a configured URL, `URL_ENV`, too) and
anything shaped like a GitHub, OpenAI or Slack token, an Authorization header or a
URL's password (`https://user:pw@host`). The indexer and the action use this one module.
"""

from __future__ import annotations

import logging
import os
import re
import sys
import urllib.parse
from collections.abc import Mapping
from typing import Any

SECRET_ENV = ("GITHUB_TOKEN", "GH_TOKEN", "OPENAI_API_KEY", "SLACK_BOT_TOKEN", "SLACK_APP_TOKEN",
              "SLACK_SIGNING_SECRET")
# URLs WIF (or the HTTP clients under it) connects through: a password in one (`https://user:pw@proxy/v1`) is a
# secret too, by value, in whatever form an error quotes it.
URL_ENV = ("OPENAI_BASE_URL", "GITHUB_API_URL", "SLACK_API_URL", "HTTPS_PROXY", "HTTP_PROXY", "ALL_PROXY",
           "https_proxy", "http_proxy", "all_proxy")
MARK = "[redacted]"
_MIN_SECRET_LEN = 6  # shorter env values would redact ordinary words
# Each token shape with the strings a match must contain: a text without them skips that regex (most release notes
# contain none, and the indexer redacts every release body: 0.3 s of CPU for the 11 fixture repositories otherwise).
_PATTERNS = (
    (re.compile(r"\bgh[pousr]_[A-Za-z0-9_]{10,}"), ("gh", "_")),
    (re.compile(r"\bgithub_pat_[A-Za-z0-9_]{10,}"), ("github_pat_",)),
    (re.compile(r"\bv1\.[0-9a-f]{40}\b"), ("v1.",)),  # GitHub App installation tokens
    # OpenAI-style keys, also as servers echo them masked ("sk-abc1****wxyz")
    (re.compile(r"\b(?:sk|rk|pk)-(?=[A-Za-z0-9_*\-]*[\d*])[A-Za-z0-9_*\-]{6,}"), ("k-",)),
    (re.compile(r"\bxox[abposr]-[A-Za-z0-9\-]{6,}"), ("xox",)),
)
# a credential after a scheme word; the digit lookahead spares prose like "token expiration"
_BEARER = re.compile(r"\b(Bearer|Basic|token)\s+(?=[A-Za-z0-9._~+/=\-]*\d)[A-Za-z0-9._~+/=\-]{6,}", re.IGNORECASE)
_BEARER_WORDS = ("bearer", "basic", "token")
# what follows a scheme word in prose, never a credential: a protocol or release version ("basic HTTP/1.1 response",
# "token v2.1.0"), which release notes quote and the digit lookahead alone would blank
_VERSION_SHAPE = re.compile(r"(?:[A-Za-z]+/)?v?\d+(?:\.\d+)+|[A-Za-z]+/v?\d+")
_AUTH_HEADER = re.compile(r"(?im)\b((?:proxy-)?authorization\s*[:=]\s*)[^\r\n,;]+")
# the password of a URL's user info ("https://bob:pw@proxy.example"), whatever URL a message quotes
_URL_PASSWORD = re.compile(r"(?i)\b([a-z][a-z0-9+.-]*://[^\s/@:]*:)[^\s/@]+@")
# the only characters IGNORECASE matches to a letter of those words that `str.lower` does not turn into it
_CASE_EXCEPTIONS = ("\u0130", "\u0131", "\u017f")  # İ, ı (i), ſ (s)


def scheme_credential(match: re.Match[str]) -> str:
    """`_BEARER`'s replacement: the scheme word and the mark, unless what follows it is a version (prose)."""
    credential = match.group(0)[len(match.group(1)):].strip()
    return match.group(0) if _VERSION_SHAPE.fullmatch(credential) else f"{match.group(1)} {MARK}"


class Redactor:
    """Replaces secrets in strings (and in nested JSON-like values) with `[redacted]`."""

    def __init__(self, env: Mapping[str, str] | None = None, extra: tuple[str, ...] = ()):
        source = os.environ if env is None else env
        values = [source.get(name, "") for name in SECRET_ENV] + _url_passwords(source) + list(extra)
        self._secrets = sorted({v.strip() for v in values if len(v.strip()) >= _MIN_SECRET_LEN}, key=len,
                               reverse=True)

    def text(self, value: str | None) -> str | None:
        if not value:
            return value
        for secret in self._secrets:
            value = value.replace(secret, MARK)
        lower = value.lower()
        exceptions = any(char in value for char in _CASE_EXCEPTIONS)
        if exceptions or "authorization" in lower:
            value = _AUTH_HEADER.sub(lambda m: m.group(1) + MARK, value)
        if "://" in value and "@" in value:
            value = _URL_PASSWORD.sub(lambda m: m.group(1) + MARK + "@", value)
        if exceptions or any(word in lower for word in _BEARER_WORDS):
            value = _BEARER.sub(scheme_credential, value)
        for pattern, needles in _PATTERNS:
            if all(needle in value for needle in needles):
                value = pattern.sub(MARK, value)
        return value

    def value(self, value: Any) -> Any:
        """Redact every string inside dicts, lists and tuples (keys too)."""
        if isinstance(value, str):
            return self.text(value)
        if isinstance(value, dict):
            return {self.text(str(k)): self.value(v) for k, v in value.items()}
        if isinstance(value, list | tuple):
            return [self.value(v) for v in value]
        return value


def shown_url(url: str) -> str:
    """A configured URL as a message shows it: without its user-info and query, where credentials are passed
    ("https://x-access-token:ghp_…@ghe.example/api/v3", "…?token=…"): a reader needs the host and path only."""
    try:
        parts = urllib.parse.urlsplit(url)
        host = parts.hostname or ""
        port = f":{parts.port}" if parts.port else ""
    except ValueError:  # a malformed URL (a bad port): its scheme and host as written, before any credential
        return url.split("@", 1)[-1].split("?", 1)[0]
    return urllib.parse.urlunsplit((parts.scheme, host + port, parts.path, "", ""))


def _url_passwords(env: Mapping[str, str]) -> list[str]:
    """The passwords in the URLs of `URL_ENV`, as written and decoded ("p%40ss" and "p@ss")."""
    found = []
    for name in URL_ENV:
        try:
            password = urllib.parse.urlsplit(env.get(name) or "").password
        except ValueError:  # a malformed URL (a bad port): no password to read
            continue
        if password:
            found += [password, urllib.parse.unquote(password)]
    return found


def redact(text: str, *secrets: str | None) -> str:
    """`text` with these secret values and every token-shaped string removed (no environment read)."""
    return Redactor({}, extra=tuple(secret for secret in secrets if secret)).text(text) or ""


class RedactingFormatter(logging.Formatter):
    """Log lines (tracebacks included) with the configured secrets and token shapes redacted."""

    def __init__(self) -> None:
        super().__init__("%(levelname)s %(name)s: %(message)s")
        self.redactor = Redactor(os.environ)

    def format(self, record: logging.LogRecord) -> str:
        return self.redactor.text(super().format(record)) or ""


def log_to_stderr_redacted() -> None:
    """Warnings and errors to stderr, secrets redacted (`wif` and `python -m indexer`)."""
    handler = logging.StreamHandler(sys.stderr)
    handler.setFormatter(RedactingFormatter())
    logging.basicConfig(level=logging.WARNING, handlers=[handler])  # a no-op where logging is set up
    # urllib3 warns on every retried attempt with a raw exception repr; WIF reports the outcome once, in words
    # (a skipped step, or the failure with its reason), so only its errors are shown.
    logging.getLogger("urllib3.connectionpool").setLevel(logging.ERROR)
