"""The installed version of WIF (`project.version` of pyproject.toml), for `wif --version` and
`wif_action.__version__`. Read from package metadata on demand, so importing WIF stays cheap."""

from __future__ import annotations

from importlib.metadata import PackageNotFoundError, version


def installed_version() -> str:
    """The version pip installed; "unknown" when running from a tree that was never installed."""
    try:
        return version("wif")
    except PackageNotFoundError:
        return "unknown"
