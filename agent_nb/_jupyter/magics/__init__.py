"""``%%agent`` / ``%agent``: the magics, their sub-commands and streaming."""

from .agent_magics import AgentMagics, load_ipython_extension, unload_ipython_extension

__all__ = ["AgentMagics", "load_ipython_extension", "unload_ipython_extension"]
