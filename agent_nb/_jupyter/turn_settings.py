"""`turn_options`: the settings of a notebook turn, for cells and widgets alike.

A ``%%agent`` cell and a `ChatWidget` in the same kernel must run a turn the
same way, so both build its `TurnOptions` here, and nowhere else.

The kernel's ``%config AgentMagics.*`` settings are read at each turn (a
``%config`` line applies to the next message) from the `AgentMagics` the
loaded extension registered. Its generation settings (``max_tokens``,
``temperature``, ``repetition_stop``) are only *defaults*: the agent's own
config comes before them and what the cell or widget set explicitly before
both, field by field (`TurnOptions.config_for` applies that order to every
agent of the tree). ``default_model``, ``system_prompt`` and
``context_policy`` apply as the cell's ``-m``, ``-s`` and ``--context`` do
when those are not given; ``approve_tools`` is the turn's approval policy
(`agent_nb._runtime.approval`). Without the extension loaded (a widget in a plain
shell) only the agent's settings and the explicit values apply.

Structure is set here too: ``output_schema`` (the cell's ``--schema``: a
pydantic model class or a JSON-schema dict) or ``choice`` (``--choice
"yes|no|unsure"``: the reply is one of those strings, a JSON schema
``{"enum": [...]}``), and ``tool_choice``; they apply to the session's own
agent, as ``-s`` does.
"""

from __future__ import annotations

from typing import Any, Protocol

from .._core.types import GenerationConfig
from .._core.window import ContextPolicy, check_policy
from .._runtime.face import TurnOptions, check_approve_tools, set_fields
from ..backends import Backend

__all__ = ["KernelSettings", "choice_schema", "turn_options"]

_UNSET = GenerationConfig()


class KernelSettings(Protocol):
    """What a turn reads from `AgentMagics` (the traits of the same names)."""

    default_model: str
    system_prompt: str
    max_tokens: int
    temperature: float
    repetition_stop: int
    context_policy: str  # a traitlets Enum of the ContextPolicy values
    replay: bool
    approve_tools: str  # a traitlets Enum of the approval policies


def _loaded_settings() -> KernelSettings | None:
    """The `AgentMagics` of the loaded extension, or None (no IPython, not loaded)."""
    try:
        from IPython import get_ipython
    except ImportError:
        return None
    shell = get_ipython()
    if shell is None:
        return None
    found: KernelSettings | None = shell.magics_manager.registry.get("AgentMagics")
    return found


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


def turn_options(
    kernel: KernelSettings | None = None,
    *,
    model: str | Backend | None = None,
    system: str | None = None,
    temperature: float | None = None,
    max_tokens: int | None = None,
    config: GenerationConfig | None = None,
    context_policy: ContextPolicy | None = None,
    output_schema: Any = None,
    choice: str | None = None,
    tool_choice: str | None = None,
    fresh: bool = False,
) -> TurnOptions:
    """The `TurnOptions` of a notebook turn (see the module docstring).

    ``kernel``: the `AgentMagics` whose settings are the defaults; None looks
    up the loaded extension's. The other arguments are what the surface set
    explicitly, None meaning not set: the cell's ``-m``, ``-s``, ``-t``,
    ``--max-tokens``, ``--context``, or the widget's ``model=`` and
    ``config=`` (of which the fields that differ from `GenerationConfig`'s
    defaults count as set; ``-t`` / ``--max-tokens`` win over it). Bad values
    raise ValueError here, before the turn starts.
    """
    if choice is not None:
        if output_schema is not None:
            raise ValueError("--schema and --choice both set the reply's shape: give one")
        output_schema = choice_schema(choice)
    settings = kernel if kernel is not None else _loaded_settings()
    overrides = set_fields(config) if config is not None else {}
    explicit = {"temperature": temperature, "max_tokens": max_tokens}
    overrides.update({name: value for name, value in explicit.items() if value is not None})
    defaults: dict[str, Any] = {}
    approve_tools = None  # the runner's (`agent_nb._runtime.approval`)
    # Replay (agent_nb._runtime.replay) is on for notebook turns; --fresh and
    # AgentMagics.replay = False turn it off (AGENT_NB_REPLAY=0 everywhere).
    replay = not fresh and (settings is None or bool(getattr(settings, "replay", True)))
    if settings is not None:
        model = model or settings.default_model or None
        system = system if system is not None else (settings.system_prompt or None)
        context_policy = context_policy or check_policy(settings.context_policy)
        approve_tools = check_approve_tools(getattr(settings, "approve_tools", "ask"))
        defaults = {
            "max_tokens": settings.max_tokens,
            "temperature": settings.temperature,
            "repetition_stop": settings.repetition_stop,
        }
    options = TurnOptions(
        model=model,
        system=system,
        context_policy=context_policy,
        output_schema=output_schema,
        tool_choice=tool_choice,
        overrides=overrides,
        defaults=defaults,
        replay=replay,
        approve_tools=approve_tools,
    )
    options.config_for(_UNSET)  # every value checked now (-t 9 fails the cell, not the turn)
    return options
