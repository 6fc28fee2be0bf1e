"""The names the notebook surfaces hold sessions by (`AgentRunner.hold_session`).

A *holder* is a surface that uses a session: ``%agent sessions`` lists them,
a closing widget leaves alone a session someone else holds, and the front
door notes each turn's holder as its origin (`agent_nb._runtime.origins`),
which the re-run note words here ("1 from the chat widget").
"""

from __future__ import annotations

from .._runtime.face import OTHER_KERNEL

__all__ = ["CELLS_HOLDER", "WIDGET", "origin_words", "widget_holder"]

CELLS_HOLDER = "%%agent cells"
"""How ``%agent sessions`` names the cells that use a session."""

WIDGET = "the chat widget"
_WIDGET_PREFIX = "ChatWidget "


def widget_holder(key: str) -> str:
    """A widget's holder name, e.g. ``"ChatWidget 1a2b3c4d"``."""
    return f"{_WIDGET_PREFIX}{key[:8]}"


def origin_words(origin: str | None) -> str | None:
    """Where a turn came from, as the re-run note says it; None for the cells."""
    if origin == OTHER_KERNEL:
        return OTHER_KERNEL
    if origin is not None and origin.startswith(_WIDGET_PREFIX):
        return WIDGET
    return None
