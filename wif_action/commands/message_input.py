"""`--message -`: the request text from standard input.

Why: a support thread pasted whole can exceed the shell's argument limit (a 2 MB paste does), and
`pbpaste | wif ask --message -` keeps quotes and `$(…)` in the text away from the shell entirely.
"""

from __future__ import annotations

import sys
from typing import BinaryIO

MESSAGE_HELP_SUFFIX = "; `-` reads it from standard input (for long pastes)"
MAX_STDIN_BYTES = 16 * 1024 * 1024  # a support thread pasted whole is a few MB; `yes |` must not fill the memory


class MessageInputError(ValueError):
    """`--message -` with nothing on standard input, or more than MAX_STDIN_BYTES."""


def message_text(value: str | None, stdin: BinaryIO | None = None) -> str | None:
    """The --message value, or all of standard input when it is `-` (bytes that are not UTF-8 are
    replaced, never fatal; at most MAX_STDIN_BYTES are read, more is refused); a terminal gets a one-line hint
    so the wait is not mistaken for a hang."""
    if value != "-":
        return value
    stream = stdin if stdin is not None else sys.stdin.buffer
    if stream.isatty():
        print("reading the message from standard input; end it with Ctrl-D", file=sys.stderr)
    data = stream.read(MAX_STDIN_BYTES + 1)
    if len(data) > MAX_STDIN_BYTES:
        raise MessageInputError(f"--message -: standard input is over {MAX_STDIN_BYTES // 2**20} MiB; pipe in the "
                                "question and the thread around it, not a whole log")
    text = data.decode("utf-8", errors="replace")
    if not text.strip():
        raise MessageInputError("--message -: standard input was empty (pipe the message in, or give it as text)")
    return text
