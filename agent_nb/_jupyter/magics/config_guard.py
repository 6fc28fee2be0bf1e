"""``%config AgentMagics.NAME = value`` fails the cell when the value is refused.

IPython's ``%config`` catches whatever a configurable raises and only logs it
(``ERROR:root:...``): the cell succeeds, Run All goes on, and later turns run
on the setting still in force -- a user who set a SQLite store believes they
are saving when they are not. So while the extension is loaded the shell's
``%config`` is wrapped: an assignment to ``AgentMagics`` is applied to the
magics directly, and a refused value (or a name that is no setting) raises a
`UsageError` that says what is allowed and which value stays. Every other
use goes to IPython's own magic, unchanged.
"""

from __future__ import annotations

import difflib
import re
from typing import Any

from IPython.core.error import UsageError
from traitlets import TraitError
from traitlets.config import Config

__all__ = ["install", "uninstall"]

_ASSIGNMENT = re.compile(r"^\s*AgentMagics\.(\w+)\s*=(?!=)")


def _shown(name: str, value: Any) -> str:
    if name == "store" and not value:  # '' keeps the runner's store: say which that is
        from ..._runtime.face import get_runner
        from ...stores import MemoryStore

        store = get_runner().store
        return "'memory'" if isinstance(store, MemoryStore) else f"{store!r}"
    return repr(value)


def _unknown(magics: Any, name: str) -> UsageError:
    names = sorted(magics.trait_names(config=True))
    close = difflib.get_close_matches(name, names, n=1)
    hint = f" Did you mean AgentMagics.{close[0]}?" if close else ""
    return UsageError(
        f"AgentMagics has no setting {name!r}.{hint} Its settings: {', '.join(names)} "
        "(`%config AgentMagics` lists them with their values)."
    )


def _guarded(shell: Any, magics: Any, original: Any) -> Any:
    def config(line: str) -> Any:
        match = _ASSIGNMENT.match(line)
        if match is None:
            return original(line)
        name = match.group(1)
        if not magics.has_trait(name) or not magics.trait_metadata(name, "config"):
            raise _unknown(magics, name)
        cfg = Config()
        # As IPython's %config does: the value is Python, evaluated in the user's namespace.
        exec("cfg." + line.strip(), shell.user_ns, {"cfg": cfg})
        before = getattr(magics, name)
        try:
            magics.update_config(cfg)
        except TraitError as exc:
            message = str(exc).rstrip(".")
            raise UsageError(
                f"{message}. AgentMagics.{name} stays {_shown(name, before)}."
            ) from None
        return None

    config.__doc__ = original.__doc__
    config.agent_nb_original = original  # type: ignore[attr-defined]
    return config


def install(shell: Any, magics: Any) -> None:
    """Wrap the shell's ``%config`` (once) so refused ``AgentMagics`` values fail the cell."""
    line_magics = shell.magics_manager.magics["line"]
    original = line_magics.get("config")
    if original is None or hasattr(original, "agent_nb_original"):
        return
    # IPython may register %config lazily, as a proxy that looks the name up again
    # at each call: it would find this wrapper and call itself.
    resolve = getattr(original, "_resolve", None)
    if resolve is not None:
        original = resolve()
    line_magics["config"] = _guarded(shell, magics, original)


def uninstall(shell: Any) -> None:
    """Give the shell its own ``%config`` back (``%unload_ext agent_nb``)."""
    line_magics = shell.magics_manager.magics["line"]
    current = line_magics.get("config")
    original = getattr(current, "agent_nb_original", None)
    if original is not None:
        line_magics["config"] = original
