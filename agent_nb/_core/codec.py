"""Events to and from plain JSON-able dicts (stores, export, the widget)."""

from __future__ import annotations

import dataclasses
from typing import Any

from .types import Event, FunctionCall, FunctionResponse, TextMessage, TurnComplete, Usage

__all__ = ["event_from_dict", "event_to_dict"]

_KINDS: dict[str, type[Event]] = {
    "text": TextMessage,
    "function_call": FunctionCall,
    "function_response": FunctionResponse,
    "turn_complete": TurnComplete,
}
_KIND_OF = {cls: kind for kind, cls in _KINDS.items()}


def event_to_dict(event: Event) -> dict[str, Any]:
    data = {f.name: getattr(event, f.name) for f in dataclasses.fields(event)}
    data["state_delta"] = dict(event.state_delta)
    if isinstance(event, TurnComplete):
        data["usage"] = event.usage.as_dict()
    for key in ("args", "response", "attachments"):
        if key in data:
            data[key] = dict(data[key])
    if "attachments" in data and not data["attachments"]:
        # Only where there are some: other rows stay byte for byte as before it existed
        del data["attachments"]
    if "server" in data and data["server"] is None:
        del data["server"]  # the same for a Python tool's call (no server)
    if "needs_approval" in data and not data["needs_approval"]:
        del data["needs_approval"]  # the same: only on calls that waited for approval
    data["kind"] = _KIND_OF[type(event)]
    return data


def event_from_dict(data: dict[str, Any]) -> Event:
    data = dict(data)
    try:
        cls = _KINDS[data.pop("kind")]
    except KeyError as exc:
        raise ValueError(f"not an agent_nb event (kind must be one of {sorted(_KINDS)})") from exc
    if cls is TurnComplete:
        data["usage"] = Usage.from_dict(data.get("usage"))
    return cls(**data)
