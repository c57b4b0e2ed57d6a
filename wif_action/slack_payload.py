"""The shape of a Slack payload that WIF (and Bolt before it) reads, checked before anyone reads it.

Why: a signed body may still carry a field of another JSON type than Slack sends (`"channel": "C1"` for
`{"id": "C1"}`, `"inputs": null`, `"authorizations": "x"`). Bolt and the listeners call `.get` on what should
be an object, so such a body was a 500 with an AttributeError in the log, or, where `str()` was applied, a
dispatch to the channel "['C1']". A field is checked where it is read: Bolt reads `user`, `channel`, `team`
and `enterprise` (a string or an object) in every object it descends into; WIF reads its own fields by path.
Absent or null passes, unless the request cannot be answered without it (`REQUIRED`).
"""

from __future__ import annotations

from collections.abc import Mapping
from typing import Any

FIELDS = ("sdk", "version", "problem", "links")  # the step's optional inputs, passed on to wif.yml as they are
FUNCTION_INPUTS = ("message", "channel_id", "message_ts", *FIELDS)
TEXT, OBJECT, LIST = (str,), (dict,), (list,)

# What Bolt reads in the payload and in every object below it that it descends into (request/internals.py)
NAMED = ("user", "channel", "team", "enterprise")  # a string (an id) or an object with an id
DESCENDED = ("event", "message", "previous_message", "item", "assistant_thread", "view", "function_data")
# What WIF and Bolt read by path (the kinds WIF answers); `user` is an object in a shortcut, a string in an event
SHAPES: dict[str, tuple[type, ...]] = {
    "type": TEXT, "callback_id": TEXT, "trigger_id": TEXT, "team_id": TEXT, "api_app_id": TEXT, "event_id": TEXT,
    "enterprise_id": TEXT, "user_id": TEXT, "channel_id": TEXT, "thread_ts": TEXT, "function_execution_id": TEXT,
    "authorizations": LIST,
    "event.type": TEXT, "event.function": OBJECT, "event.function.callback_id": TEXT, "event.inputs": OBJECT,
    "event.function_execution_id": TEXT, "event.bot_access_token": TEXT, "event.user_team": TEXT,
    **{f"event.inputs.{name}": TEXT for name in FUNCTION_INPUTS},
}
SHORTCUT_SHAPES: dict[str, tuple[type, ...]] = {
    "user": OBJECT, "user.id": TEXT, "channel": OBJECT, "channel.id": TEXT, "team": OBJECT,
    "message.text": TEXT, "message.ts": TEXT, "message.thread_ts": TEXT,
}
# What a request of each kind cannot be answered without (the shortcut's notice goes to this user in this channel)
REQUIRED: dict[str, tuple[str, ...]] = {
    "message_action": ("channel.id", "user.id", "message.ts"),
    "function_executed": ("event.function_execution_id", "event.inputs"),
    "event_callback": ("event",),
}
_NAMES = {dict: "an object", str: "a string", list: "a list", bool: "true or false", int: "a number",
          float: "a number", type(None): "null"}


def payload_problem(payload: Any) -> str | None:
    """What is wrong with the payload's shape, in one line; None when WIF can read it."""
    if not isinstance(payload, Mapping):
        return f"the payload is {_kind(payload)}, not an object"
    kind = kind_of(payload)
    shapes = {**SHAPES, **(SHORTCUT_SHAPES if kind == "message_action" else {})}
    problem = _descend(payload, "") or next(filter(None, (_wrong(payload, path, types)
                                                          for path, types in shapes.items())), None)
    if problem:
        return problem
    missing = [f"`{path}`" for path in REQUIRED.get(kind, ()) if _at(payload, path)[1] in (None, "")]
    return f"a {kind} without {', '.join(missing)}" if missing else None


def text_at(payload: Mapping[str, Any], path: str) -> str:
    """The string at `path`, or "" when absent or of another type (a checked payload has no other type)."""
    value = _at(payload, path)[1]
    return value if isinstance(value, str) else ""


def kind_of(payload: Mapping[str, Any]) -> str:
    """`function_executed` for a workflow step's event, else the payload's `type` ("message_action", …)."""
    if text_at(payload, "event.type") == "function_executed":
        return "function_executed"
    return text_at(payload, "type")


def _descend(value: Mapping[str, Any], where: str) -> str | None:
    """Bolt's reads: `NAMED` fields a string or an object, `DESCENDED` ones objects, at every level it goes."""
    for key in NAMED:
        if value.get(key) is not None and not isinstance(value[key], (str, Mapping)):
            return f"`{where}{key}` is {_kind(value[key])}, not a string or an object"
    for key in DESCENDED:
        inner = value.get(key)
        if inner is not None and not isinstance(inner, Mapping):
            return f"`{where}{key}` is {_kind(inner)}, not an object"
        if inner is not None and (problem := _descend(inner, f"{where}{key}.")):
            return problem
    granted = value.get("authorizations") if not where else None
    for index, entry in enumerate(granted if isinstance(granted, list) else []):
        if not isinstance(entry, Mapping):
            return f"`authorizations[{index}]` is {_kind(entry)}, not an object"
        if problem := _descend(entry, f"authorizations[{index}]."):
            return problem
    return None


def _wrong(payload: Mapping[str, Any], path: str, types: tuple[type, ...]) -> str | None:
    found, value = _at(payload, path)
    if not found or value is None or isinstance(value, types):
        return None
    return f"`{path}` is {_kind(value)}, not {' or '.join(_NAMES[each] for each in types)}"


def _at(payload: Mapping[str, Any], path: str) -> tuple[bool, Any]:
    """(present, value) at a dotted path; not present when a parent is absent or not an object."""
    value: Any = payload
    for key in path.split("."):
        if not isinstance(value, Mapping) or key not in value:
            return False, None
        value = value[key]
    return True, value


def _kind(value: Any) -> str:
    return _NAMES.get(type(value), type(value).__name__)
