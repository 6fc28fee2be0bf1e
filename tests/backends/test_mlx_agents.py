"""The 03 data pipeline and a two-agent session on the embedded model (short, greedy)."""

from __future__ import annotations

import pytest

from agent_nb import Agent, AgentRunner, DataAgent, GenerationConfig, SequentialAgent
from tests.core.test_data_agent import sales_frame

pytestmark = pytest.mark.mlx

SHORT = GenerationConfig(max_tokens=16)


def test_data_pipeline_reply_names_the_best_region(mlx_runner: AgentRunner) -> None:
    sales = sales_frame()
    best = sales.groupby("region")["revenue"].sum().idxmax()
    writer = Agent("writer", instructions="{temp:insights}\n\nAnswer in one short sentence.",
                   config=SHORT)  # fmt: skip
    pipeline = DataAgent(data={"sales": sales}).pipeline(writer)
    session = mlx_runner.get_or_create_session("sales")
    reply = session.run("Which region has the highest total revenue?", agent=pipeline)
    assert best in reply.text
    assert session.state == {}


def test_each_agent_keeps_its_own_kv_prefix(mlx_runner: AgentRunner) -> None:
    tree = SequentialAgent(
        "pair",
        [Agent("first", "Answer briefly.", config=SHORT),
         Agent("second", "Say it again in other words.", config=SHORT)],
    )  # fmt: skip
    session = mlx_runner.get_or_create_session("pair")
    session.run("Name a colour.", agent=tree)
    second = session.run("Name a fruit.", agent=tree)
    steps = {s.agent: s.usage for s in session.trace().steps}  # type: ignore[union-attr]
    for usage in steps.values():
        # Turn 2 reuses the agent's own turn-1 prefix: only the new tokens are fed.
        assert usage.cached_tokens > 0 and usage.context_tokens is not None
        assert usage.prompt_tokens + usage.cached_tokens == usage.context_tokens
    backend = mlx_runner.backend
    assert backend.cache_bytes("pair/first") > 0 and backend.cache_bytes("pair/second") > 0
    assert second.usage.prompt_tokens == sum(u.prompt_tokens for u in steps.values())
    mlx_runner.delete_session("pair")
    assert backend.cache_bytes("pair/first") == 0 and backend.cache_bytes("pair/second") == 0
