"""`TurnOptions`: how one turn runs, whichever surface started it.

A cell, a widget and a plain ``session.run_async`` call all hand the turn one
of these. The generation settings of a turn come from three places, and the
order is fixed here, once, so every surface runs a turn the same way:

1. ``overrides``: what the cell or widget set explicitly (``--max-tokens``,
   ``-t``, the widget's ``config=``), field by field;
2. the agent's own `GenerationConfig`: each field it sets to something other
   than the class default;
3. ``defaults``: the kernel's ``%config AgentMagics.*`` settings.

A whole ``config=`` given to ``run_async`` replaces all three (the Python
API's explicit request).
"""

from __future__ import annotations

import dataclasses
from collections.abc import Mapping
from typing import Any

from .._core.types import GenerationConfig, check_tool_choice
from .._core.window import ContextPolicy
from ..backends import Backend
from ..backends.structured import checked_schema
from .approval import ApprovalPolicy, check_approve_tools

__all__ = ["TurnOptions", "set_fields"]

_DEFAULT = GenerationConfig()
_FIELDS = frozenset(f.name for f in dataclasses.fields(GenerationConfig))


def set_fields(config: GenerationConfig) -> dict[str, Any]:
    """The fields ``config`` sets explicitly: those that differ from the class default.
    The one reading of "set" (a widget's ``config=``, an agent's own config)."""
    return {
        name: getattr(config, name)
        for name in _FIELDS
        if getattr(config, name) != getattr(_DEFAULT, name)
    }


def _check_fields(what: str, values: Mapping[str, Any]) -> dict[str, Any]:
    unknown = sorted(set(values) - _FIELDS)
    if unknown:
        raise ValueError(
            f"{what} names unknown generation settings {unknown}; allowed: {sorted(_FIELDS)}"
        )
    return dict(values)


@dataclasses.dataclass(frozen=True)
class TurnOptions:
    """Per-turn settings (the magic's ``-m``, ``-s``, ``-t``, ``--max-tokens``)."""

    model: str | Backend | None = None
    system: str | None = None
    config: GenerationConfig | None = None  # a whole config: wins over everything
    agent: Any = None  # an agent (any kind) for this turn; the agents sit above options
    context_policy: ContextPolicy | None = None  # None: the agent's
    # For the session's own agent, as ``system``: None keeps the agent's.
    output_schema: Any = None  # a pydantic model class or JSON-schema dict; held as a Schema
    tool_choice: str | None = None  # "auto" | "required" | "none" | a tool's name
    overrides: Mapping[str, Any] = dataclasses.field(default_factory=dict)
    defaults: Mapping[str, Any] = dataclasses.field(default_factory=dict)
    #: Answer a call identical to one answered before from the replay cache
    #: (`agent_nb._runtime.replay`); notebook turns turn it on, the Python API does not.
    replay: bool = False
    #: What a tool that needs approval does in this turn (`agent_nb._runtime.approval`);
    #: None: the runner's ``approve_tools``.
    approve_tools: ApprovalPolicy | None = None

    def __post_init__(self) -> None:
        if self.approve_tools is not None:
            check_approve_tools(self.approve_tools)
        object.__setattr__(self, "overrides", _check_fields("overrides", self.overrides))
        object.__setattr__(self, "defaults", _check_fields("defaults", self.defaults))
        object.__setattr__(
            self, "output_schema", checked_schema("output_schema", self.output_schema)
        )
        if self.tool_choice is not None:
            check_tool_choice(self.tool_choice, None)  # the tools are the agent's, later

    def config_for(self, own: GenerationConfig) -> GenerationConfig:
        """The settings a model call of an agent whose config is ``own`` runs with."""
        if self.config is not None:
            return self.config
        chosen = dict(self.defaults)
        chosen.update(set_fields(own))
        chosen.update(self.overrides)
        if not chosen:
            return own
        return GenerationConfig(**chosen)
