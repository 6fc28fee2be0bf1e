"""`kernel_settings`: the kernel's ``%config AgentMagics.*`` as a turn asks for them.

A cell or widget does not build its turn's options: it hands the runner what
it was asked and this snapshot, in a `TurnRequest`, and the runner resolves
both (`agent_nb._runtime.turn_settings`, one rule for both surfaces). The
settings are read at each turn, so a ``%config`` line applies to the next
message.
"""

from __future__ import annotations

from typing import Any

from .._runtime.face import KernelSettings

__all__ = ["kernel_settings"]


def kernel_settings(magics: Any = None) -> KernelSettings | None:
    """The turn settings of ``magics`` (an `AgentMagics`), else of the loaded
    extension's; None without IPython or the extension (a widget in a plain shell)."""
    if magics is None:
        try:
            from IPython import get_ipython
        except ImportError:
            return None
        shell = get_ipython()
        if shell is None:
            return None
        magics = shell.magics_manager.registry.get("AgentMagics")
        if magics is None:
            return None
    return KernelSettings(
        default_model=magics.default_model,
        system_prompt=magics.system_prompt,
        max_tokens=magics.max_tokens,
        temperature=magics.temperature,
        repetition_stop=magics.repetition_stop,
        context_policy=magics.context_policy,
        replay=bool(getattr(magics, "replay", True)),
        approve_tools=getattr(magics, "approve_tools", "ask"),
    )
