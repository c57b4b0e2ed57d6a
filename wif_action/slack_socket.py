"""Socket Mode: each envelope's payload checked (`slack_payload`) before Bolt's adapter reads it.

Why: the adapter builds Bolt's request before any listener runs, and that reads `authorizations[0]`, `team`,
`enterprise` as objects; a payload with `"authorizations": "x"` raised AttributeError inside slack_bolt
(`request/internals.extract_is_enterprise_install`), which slack_sdk logged with a traceback, and the envelope was
never acknowledged, so Slack sent it again. HTTP mode refuses such a body in `slack_http.RequestGuard`; this is the
same refusal for Socket Mode: one log line, the envelope acknowledged (the same payload can never be answered).
"""

from __future__ import annotations

import logging

from slack_bolt.adapter.socket_mode import SocketModeHandler
from slack_sdk.socket_mode.client import BaseSocketModeClient
from slack_sdk.socket_mode.request import SocketModeRequest
from slack_sdk.socket_mode.response import SocketModeResponse

from wif_action.slack_payload import payload_problem

log = logging.getLogger("wif.slack")


class GuardedSocketModeHandler(SocketModeHandler):
    """Bolt's Socket Mode handler behind WIF's payload check; an unexpected error is one line, as in HTTP mode."""

    def handle(self, client: BaseSocketModeClient, req: SocketModeRequest) -> None:
        problem = payload_problem(req.payload)
        if problem:
            log.warning("slack request refused: %s", problem)
            client.send_socket_mode_response(SocketModeResponse(envelope_id=req.envelope_id))
            return
        try:
            super().handle(client, req)  # type: ignore[arg-type]
        except Exception as error:  # a bug in a listener: one line, never a traceback; Slack sends it again
            log.error("slack request failed: %s", type(error).__name__)
