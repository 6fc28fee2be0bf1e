"""`turn_options`: the settings of a notebook turn, for cells and widgets alike.

A ``%%agent`` cell and a `ChatWidget` in the same kernel must run a turn the
same way, so neither builds its `TurnOptions`: each hands the runner what it
was asked (`TurnAsk`: the cell's flags, the widget's ``model=`` and
``config=``) and the kernel's settings as they are at that turn
(`KernelSettings`, a snapshot of ``%config AgentMagics.*``, which
`agent_nb._jupyter.turn_settings.kernel_settings` takes), in a `TurnRequest`;
the front door resolves them here, and nowhere else.

The kernel's generation settings (``max_tokens``, ``temperature``,
``repetition_stop``) are only *defaults*: the agent's own config comes before
them and what the cell or widget set explicitly before both, field by field
(`TurnOptions.config_for` applies that order to every agent of the tree).
``default_model``, ``system_prompt`` and ``context_policy`` apply as the
cell's ``-m``, ``-s`` and ``--context`` do when those are not given;
``approve_tools`` is the turn's approval policy (`approval`). Without the
extension loaded (a widget in a plain shell) there is no snapshot: only the
agent's settings and the explicit values apply.

Structure is set here too: ``output_schema`` (the cell's ``--schema``: a
pydantic model class or a JSON-schema dict) or ``choice`` (``--choice
"yes|no|unsure"``: the reply is one of those strings, a JSON schema
``{"enum": [...]}``), and ``tool_choice``; they apply to the session's own
agent, as ``-s`` does.
"""

from __future__ import annotations

import dataclasses
from typing import Any

from .._core.types import GenerationConfig
from .._core.window import ContextPolicy, check_policy
from ..backends import Backend
from .approval import check_approve_tools
from .options import TurnOptions, set_fields

__all__ = ["KernelSettings", "TurnAsk", "choice_schema", "turn_options"]

_UNSET = GenerationConfig()


@dataclasses.dataclass(frozen=True)
class KernelSettings:
    """The kernel's ``%config AgentMagics.*`` turn settings, as they were when a turn
    was asked for (a ``%config`` line applies to the next message)."""

    default_model: str
    system_prompt: str
    max_tokens: int
    temperature: float
    repetition_stop: int
    context_policy: str
    replay: bool
    approve_tools: str


@dataclasses.dataclass(frozen=True)
class TurnAsk:
    """What a cell or widget set explicitly for one turn; None: not set.

    ``config``: the widget's `GenerationConfig`, of which the fields that differ
    from the defaults count as set (``temperature`` / ``max_tokens`` win over it).
    """

    model: str | Backend | None = None
    system: str | None = None
    temperature: float | None = None
    max_tokens: int | None = None
    config: GenerationConfig | None = None
    context_policy: ContextPolicy | None = None
    output_schema: Any = None
    choice: str | None = None
    tool_choice: str | None = None
    #: ``--fresh``: no replay for this turn.
    fresh: bool = False

    def model_in(self, settings: KernelSettings | None) -> str | Backend | None:
        """The turn's model spec: this ask's, else the kernel's default, else None
        (the runner's model)."""
        return self.model or (settings.default_model if settings is not None else None) or None


def choice_schema(choice: str) -> dict[str, Any]:
    """``"yes|no|unsure"`` as the JSON schema of one of those strings; `ValueError`
    says what is allowed."""
    options = list(dict.fromkeys(part.strip() for part in choice.split("|")))
    if len(options) < 2 or not all(options):
        raise ValueError(
            f"--choice needs two or more non-empty options separated by '|', e.g. "
            f'--choice "yes|no|unsure"; got {choice!r}'
        )
    return {"enum": options}


def turn_options(settings: KernelSettings | None, ask: TurnAsk) -> TurnOptions:
    """The `TurnOptions` of a notebook turn (see the module docstring). Bad values
    raise ValueError here, before the turn starts."""
    output_schema = ask.output_schema
    if ask.choice is not None:
        if output_schema is not None:
            raise ValueError("--schema and --choice both set the reply's shape: give one")
        output_schema = choice_schema(ask.choice)
    overrides = set_fields(ask.config) if ask.config is not None else {}
    explicit = {"temperature": ask.temperature, "max_tokens": ask.max_tokens}
    overrides.update({name: value for name, value in explicit.items() if value is not None})
    system, context_policy = ask.system, ask.context_policy
    defaults: dict[str, Any] = {}
    approve_tools = None  # the runner's (`approval`)
    # Replay (`replay`) is on for notebook turns; --fresh and AgentMagics.replay
    # = False turn it off (AGENT_NB_REPLAY=0 everywhere).
    replay = not ask.fresh and (settings is None or settings.replay)
    if settings is not None:
        system = system if system is not None else (settings.system_prompt or None)
        context_policy = context_policy or check_policy(settings.context_policy)
        approve_tools = check_approve_tools(settings.approve_tools)
        defaults = {
            "max_tokens": settings.max_tokens,
            "temperature": settings.temperature,
            "repetition_stop": settings.repetition_stop,
        }
    options = TurnOptions(
        model=ask.model_in(settings),
        system=system,
        context_policy=context_policy,
        output_schema=output_schema,
        tool_choice=ask.tool_choice,
        overrides=overrides,
        defaults=defaults,
        replay=replay,
        approve_tools=approve_tools,
    )
    options.config_for(_UNSET)  # every value checked now (-t 9 fails the cell, not the turn)
    return options
