"""The kernel's ``%config AgentMagics.*`` settings, as a widget turn takes them.

A widget turn should behave like a ``%%agent`` cell in the same kernel: the
same token cap, temperature, system prompt, model and context policy. They
are read at each turn (a ``%config`` line applies to the next message), from
the `AgentMagics` instance the loaded extension registered; without the
extension loaded the agent's own settings apply. The widget's ``config=`` and
``model=`` arguments override them.
"""

from __future__ import annotations

import dataclasses
from typing import Any

from ..._core.types import GenerationConfig
from ...backends import Backend

__all__ = ["TurnSettings", "kernel_settings"]


@dataclasses.dataclass(frozen=True)
class TurnSettings:
    """Keyword arguments for `AgentSession.run_async`; None means the agent's own."""

    model: str | Backend | None = None
    system: str | None = None
    config: GenerationConfig | None = None
    context_policy: str | None = None

    def options(self) -> dict[str, Any]:
        return {f.name: getattr(self, f.name) for f in dataclasses.fields(self)}


def _loaded_magics() -> Any:
    try:
        from IPython import get_ipython
    except ImportError:
        return None
    shell = get_ipython()
    if shell is None:
        return None
    return shell.magics_manager.registry.get("AgentMagics")


def kernel_settings(
    *, model: str | Backend | None = None, config: GenerationConfig | None = None
) -> TurnSettings:
    """What the next widget turn runs with: ``model`` / ``config`` when given, else
    the loaded extension's settings, else the agent's."""
    magics = _loaded_magics()
    if magics is None:
        return TurnSettings(model=model, config=config)
    return TurnSettings(
        model=model or magics.default_model or None,
        system=magics.system_prompt or None,
        config=config
        or GenerationConfig(temperature=magics.temperature, max_tokens=magics.max_tokens),
        context_policy=magics.context_policy,
    )
