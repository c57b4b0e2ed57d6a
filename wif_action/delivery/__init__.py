"""Delivery: how an answer reaches people (Slack, a GitHub issue comment, the Actions job).

Why a separate layer: the analysis must never depend on a chat being reachable.
Everything here turns delivery failures into skipped steps, never into errors.
"""
