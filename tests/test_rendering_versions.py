"""How a version or tag is written in an answer.

Why: a workspace tags each crate (`tokio-1.51.3`); the answer read "releases after vtokio-1.51.3".
"""

from __future__ import annotations

from wif_action.rendering import _v


def test_a_bare_version_gets_a_v_and_a_tag_is_shown_as_is() -> None:
    assert _v("8.1.0") == "v8.1.0"
    assert _v("v2.0.0") == "v2.0.0"
    assert _v("tokio-1.51.3") == "tokio-1.51.3"
    assert _v("sentry-cocoa@8.1.0") == "sentry-cocoa@8.1.0"
    assert _v(None) == "?"
