"""The data agent: pandas computes a table's facts, a writer agent words them.

A feature package above the runtime (DESIGN.md §1): `DataAgent` is a
`CodeAgent` value built from `agent_nb._core`, so the runtime runs it like any
other agent and never imports this package. `insights` computes the bounded
facts, `relevance` picks the one that answers the turn's question, `agent`
holds `DataAgent` and its structured tools. pandas is imported only inside
functions, when the agent runs: ``import agent_nb`` stays light, and
``agent_nb._core`` imports no pandas at all (an import-linter contract).
"""

from __future__ import annotations

from .agent import WRITER_INSTRUCTIONS, DataAgent

__all__ = ["WRITER_INSTRUCTIONS", "DataAgent"]
