"""WIF — Was It Fixed? The Action, the CLI and a small Python API.

    from wif_action import ask, open_cache

    answer = ask(open_cache("cache.db.example"), sdk="sentry-cocoa", version="8.48.0",
                 problem="WatchdogTermination issues have empty tags (e.g. OS)")
    print(answer.outcome, answer.message)

The API lives in `wif_action.api` and is loaded on first use, so `import wif_action` (and the
`wif` command, which imports this package) stays cheap.
"""

from __future__ import annotations

import importlib
from typing import TYPE_CHECKING, Any

if TYPE_CHECKING:
    from wif_action.api import Answer, Cache, CacheError, Engine, RegistryError, ask, open_cache

__all__ = ["Answer", "Cache", "CacheError", "Engine", "RegistryError", "__version__", "ask", "open_cache"]

_API = {"Answer", "Cache", "CacheError", "Engine", "RegistryError", "ask", "open_cache"}


def __getattr__(name: str) -> Any:
    """Lazy attributes: the API module (and its dependencies) load only when a name is used."""
    if name in _API:
        return getattr(importlib.import_module("wif_action.api"), name)
    if name == "__version__":
        from wif_action.version import installed_version

        return installed_version()
    raise AttributeError(f"module 'wif_action' has no attribute {name!r}")
