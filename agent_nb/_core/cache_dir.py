"""`cache_root`: the one folder agent_nb keeps caches in (converted models, KV
checkpoints, the replay cache)."""

from __future__ import annotations

import os
import pathlib

__all__ = ["cache_root"]


def cache_root() -> pathlib.Path:
    """``$AGENT_NB_CACHE_DIR``, else ``$XDG_CACHE_HOME/agent_nb``, else ``~/.cache/agent_nb``."""
    explicit = os.environ.get("AGENT_NB_CACHE_DIR")
    if explicit:
        return pathlib.Path(explicit).expanduser()
    xdg = os.environ.get("XDG_CACHE_HOME")
    base = pathlib.Path(xdg).expanduser() if xdg else pathlib.Path.home() / ".cache"
    return base / "agent_nb"
