"""ADK-style scoped state: one flat dict, scope chosen by key prefix.

No prefix: this session. ``user:``: every session of the same user.
``app:``: every session of the runner's app. ``temp:``: this invocation only,
never stored. Values must survive a JSON round trip, because the SQLite store
keeps them as JSON and a value that only works in memory would break on resume.

Deleting a key (``del state[key]``, ``state.pop(key)``) is recorded as ADK
records it: a ``None`` for that key in the event's delta. Applying a delta
(`apply_delta`) removes keys whose new value is ``None``, so a deletion
replays the same way in every store; setting a value to ``None`` therefore
also removes the key.
"""

from __future__ import annotations

import copy
import json
import re
from collections.abc import Iterator, Mapping, MutableMapping
from dataclasses import dataclass, field
from typing import Any

from ..errors import MissingStateKeyError

__all__ = [
    "APP_PREFIX",
    "TEMP_PREFIX",
    "USER_PREFIX",
    "ScopedDelta",
    "State",
    "apply_delta",
    "check_json_value",
    "check_state_key",
    "render_instructions",
    "scope_of",
    "split_delta",
    "template_keys",
]

APP_PREFIX = "app:"
USER_PREFIX = "user:"
TEMP_PREFIX = "temp:"


def check_json_value(key: str, value: Any) -> None:
    if not isinstance(key, str):
        raise TypeError(f"state keys must be str, got {type(key).__name__}")
    try:
        json.dumps(value, allow_nan=False)
    except (TypeError, ValueError) as exc:
        raise TypeError(
            f"state[{key!r}] must be JSON-serialisable (str, int, float, bool, None, "
            f"list, dict with str keys); got {type(value).__name__}: {exc}"
        ) from None


def scope_of(key: str) -> str:
    """``"temp"``, ``"user"``, ``"app"`` or ``"session"``: where a key's value lives."""
    for prefix in (TEMP_PREFIX, USER_PREFIX, APP_PREFIX):
        if key.startswith(prefix):
            return prefix[:-1]
    return "session"


def check_state_key(what: str, key: object) -> str:
    """A key an agent writes by name (``output_key``): an identifier, maybe prefixed."""
    if not isinstance(key, str) or not _KEY.match(key):
        raise ValueError(
            f"{what} must be a state key: a Python identifier, optionally prefixed with "
            f"temp:, user: or app: (e.g. 'temp:draft'); got {key!r}"
        )
    return key


@dataclass
class ScopedDelta:
    app: dict[str, Any] = field(default_factory=dict)
    user: dict[str, Any] = field(default_factory=dict)
    session: dict[str, Any] = field(default_factory=dict)


def split_delta(delta: Mapping[str, Any]) -> ScopedDelta:
    """Split a delta by prefix (prefixes stripped); ``temp:`` keys are dropped."""
    out = ScopedDelta()
    for key, value in delta.items():
        if key.startswith(TEMP_PREFIX):
            continue
        if key.startswith(APP_PREFIX):
            out.app[key[len(APP_PREFIX) :]] = value
        elif key.startswith(USER_PREFIX):
            out.user[key[len(USER_PREFIX) :]] = value
        else:
            out.session[key] = value
    return out


def apply_delta(state: dict[str, Any], delta: Mapping[str, Any]) -> dict[str, Any]:
    """Apply ``delta`` to ``state`` in place (a ``None`` value deletes the key)."""
    for key, value in delta.items():
        if value is None:
            state.pop(key, None)
        else:
            state[key] = copy.deepcopy(value)
    return state


def merge_scopes(
    app: Mapping[str, Any], user: Mapping[str, Any], session: Mapping[str, Any]
) -> dict[str, Any]:
    merged = dict(session)
    merged.update({APP_PREFIX + k: v for k, v in app.items()})
    merged.update({USER_PREFIX + k: v for k, v in user.items()})
    return copy.deepcopy(merged)


class State(MutableMapping[str, Any]):
    """State as a tool sees it: committed values overlaid by this turn's delta.

    Writes are validated, land in ``delta`` (recorded with the tool's response
    event) and are visible to later reads in the same turn, ``temp:`` included.
    Reads return deep copies so a tool cannot mutate history by accident.
    """

    def __init__(
        self,
        committed: Mapping[str, Any],
        delta: dict[str, Any],
        reads: set[str] | None = None,
    ) -> None:
        self._committed = committed
        self.delta = delta
        self.reads = reads  # keys looked up (for the invocation trace), when given

    def __getitem__(self, key: str) -> Any:
        if self.reads is not None:
            self.reads.add(key)
        if key in self.delta:
            if self.delta[key] is None:  # deleted (or set to None) in this turn
                raise KeyError(key)
            return copy.deepcopy(self.delta[key])
        return copy.deepcopy(self._committed[key])

    def __setitem__(self, key: str, value: Any) -> None:
        check_json_value(key, value)
        self.delta[key] = copy.deepcopy(value)

    def __delitem__(self, key: str) -> None:
        if key not in self:
            raise KeyError(key)
        self.delta[key] = None  # ADK's way to record a deletion in the event's delta

    def __iter__(self) -> Iterator[str]:
        yield from (k for k in self._committed if self.delta.get(k, ...) is not None)
        yield from (k for k, v in self.delta.items() if k not in self._committed and v is not None)

    def __len__(self) -> int:
        return sum(1 for _ in self)

    def to_dict(self) -> dict[str, Any]:
        return apply_delta(copy.deepcopy(dict(self._committed)), self.delta)


_PLACEHOLDER = re.compile(r"\{+([^{}]*)\}+")
_KEY = re.compile(r"^((app|user|temp):)?[A-Za-z_][A-Za-z0-9_]*$")


def template_keys(template: str) -> list[str]:
    """The state keys ``template`` refers to (``{key}``, ``{temp:key?}``), in order."""
    keys: list[str] = []
    for match in _PLACEHOLDER.finditer(template):
        whole = match.group(0)
        if whole.startswith("{{") or whole.endswith("}}"):
            continue
        name = match.group(1).strip().rstrip("?")
        if _KEY.match(name) and name not in keys:
            keys.append(name)
    return keys


def render_instructions(template: str, state: Mapping[str, Any]) -> str:
    """Fill ``{key}`` / ``{user:key}`` / ``{key?}`` from state, as ADK does.

    Braces around anything that is not a state key name are left untouched,
    so JSON examples in instructions survive. A missing key without ``?``
    raises `MissingStateKeyError` (a KeyError) naming the key.
    """

    def fill(match: re.Match[str]) -> str:
        whole = match.group(0)
        if whole.startswith("{{") or whole.endswith("}}"):
            return whole
        name = match.group(1).strip()
        optional = name.endswith("?")
        name = name.rstrip("?")
        if not _KEY.match(name):
            return whole
        if name in state:
            return str(state[name])
        if optional:
            return ""
        raise MissingStateKeyError(
            f"agent instructions use {{{name}}} but state has no {name!r}; set it with "
            f"state_delta={{{name!r}: ...}} or write {{{name}?}} to make it optional"
        )

    return _PLACEHOLDER.sub(fill, template)
