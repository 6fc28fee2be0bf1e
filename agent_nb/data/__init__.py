"""The data agent: a question becomes a plan, pandas answers it, a writer words it.

A feature package above the runtime (docs/architecture.md): `DataAgent` is a
`CodeAgent` value, so the runtime runs it like any other agent and never
imports this package. `table` profiles a DataFrame (roles, words, values;
`profiles` keeps that once per table content),
`plan` turns a question into a typed `Plan` (lexically; `choose` asks the
model under a grammar where a slot stays open), `compute` runs it with pandas,
`check` holds the writer's sentence to the result, `chart` draws it (Altair,
vl-convert), `answer` ties them together; `insights` is the bounded list of
facts of ``focus=False``; `agent` holds `DataAgent` and its structured tools.
pandas is imported only inside
functions, when the agent runs: ``import agent_nb`` stays light, and
``agent_nb._core`` imports no pandas at all (an import-linter contract).
"""

from __future__ import annotations

from .agent import WRITER_INSTRUCTIONS, DataAgent

__all__ = ["WRITER_INSTRUCTIONS", "DataAgent"]
