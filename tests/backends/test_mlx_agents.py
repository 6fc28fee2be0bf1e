"""The 03 data pipeline and a two-agent session on the embedded model (short, greedy)."""

from __future__ import annotations

import pytest

from agent_nb import Agent, AgentRunner, DataAgent, GenerationConfig, SequentialAgent
from agent_nb._core.types import Usage
from agent_nb.data import WRITER_INSTRUCTIONS
from agent_nb.data.agent import check_reply
from tests.data.frames import sales_frame

pytestmark = pytest.mark.mlx

SHORT = GenerationConfig(max_tokens=16)
#: The two-agent tests check caches and prompts, not replies: a few tokens a turn do.
BRIEF = GenerationConfig(max_tokens=6)


@pytest.mark.parametrize(
    ("question", "pick"),
    [("Which region has the highest total revenue?", "idxmax"),
     ("Which region sold the least?", "idxmin")],
)  # fmt: skip
def test_data_pipeline_reply_names_the_region_asked_for(
    mlx_runner: AgentRunner, question: str, pick: str
) -> None:
    """The default writer (`WRITER_INSTRUCTIONS` and the sentence check, as ``%%agent
    --data`` uses them): the model's sentence, or the template where it was wrong."""
    sales = sales_frame()
    region = getattr(sales.groupby("region")["revenue"].sum(), pick)()
    writer = Agent(
        "writer", instructions=WRITER_INSTRUCTIONS, config=SHORT, after_model_callback=check_reply
    )
    pipeline = DataAgent(data={"sales": sales}).pipeline(writer)
    session = mlx_runner.get_or_create_session(f"sales-{pick}")
    reply = session.run(question, agent=pipeline)
    others = {"North", "South", "East", "West"} - {region}
    assert region in reply.text and not any(r in reply.text for r in others), reply.text
    assert session.state == {}


def test_each_agent_keeps_its_own_kv_prefix(mlx_runner: AgentRunner) -> None:
    tree = SequentialAgent(
        "pair",
        [Agent("first", "Answer briefly.", config=BRIEF),
         Agent("second", "Say it again in other words.", config=BRIEF)],
    )  # fmt: skip
    session = mlx_runner.get_or_create_session("pair")
    session.run("Name a colour.", agent=tree)
    second = session.run("Name a fruit.", agent=tree)
    steps = {s.agent: s.usage for s in session.trace().steps}  # type: ignore[union-attr]
    for usage in steps.values():
        # Turn 2 reuses the agent's own turn-1 prefix: only the new tokens are fed.
        assert usage.cached_tokens > 0 and usage.context_tokens is not None
        # The context figure is the prompt plus what the model wrote after it.
        sent = usage.context_tokens - usage.generated_tokens
        assert usage.prompt_tokens + usage.cached_tokens == sent
    backend = mlx_runner.backend
    assert backend.cache_bytes("pair/first") > 0 and backend.cache_bytes("pair/second") > 0
    assert second.usage.prompt_tokens == sum(u.prompt_tokens for u in steps.values())
    mlx_runner.delete_session("pair")
    assert backend.cache_bytes("pair/first") == 0 and backend.cache_bytes("pair/second") == 0


def test_rewind_of_a_two_agent_turn_trims_each_agents_cache(mlx_runner: AgentRunner) -> None:
    """A rewind trims each agent's own cache (``session_id/agent``) to the kept
    history: the next turn sends the prompt a session without the rewound turn
    sends, reuses all that was kept and feeds only what is new."""

    def tree() -> SequentialAgent:
        return SequentialAgent(
            "pair",
            [Agent("first", "Answer briefly.", config=BRIEF),
             Agent("second", "Say it again in other words.", config=BRIEF)],
        )  # fmt: skip

    backend = mlx_runner.backend
    rewound = mlx_runner.get_or_create_session("rewound")
    rewound.run("Name a colour.", agent=tree())
    rewound.run("Name a fruit.", agent=tree())
    keys = {name: f"{rewound.id}/{name}" for name in ("first", "second")}
    held = {name: backend.cached_tokens(key) for name, key in keys.items()}  # type: ignore[attr-defined]
    rewound.rewind(rewound.invocations()[1])
    kept = {name: backend.cached_tokens(key) for name, key in keys.items()}  # type: ignore[attr-defined]
    for name in keys:
        assert 0 < len(kept[name]) < len(held[name]), name
        assert kept[name] == held[name][: len(kept[name])], name
    rewound.run("Name an animal.", agent=tree())
    after = {name: backend.cached_tokens(key) for name, key in keys.items()}  # type: ignore[attr-defined]

    fresh = mlx_runner.get_or_create_session("fresh")  # never had the fruit turn
    fresh.run("Name a colour.", agent=tree())
    fresh.run("Name an animal.", agent=tree())
    fresh_after = {n: backend.cached_tokens(f"fresh/{n}") for n in keys}  # type: ignore[attr-defined]

    def usage(session: object) -> dict[str, Usage]:
        return {s.agent: s.usage for s in session.trace().steps}  # type: ignore[attr-defined]

    mine, theirs = usage(rewound), usage(fresh)
    new_message = backend.count_text_tokens("Name an animal.")  # type: ignore[attr-defined]
    for name in keys:
        u, f = mine[name], theirs[name]
        assert u.context_tokens == f.context_tokens, name  # the same prompt, greedy
        sent = u.context_tokens - u.generated_tokens  # context = prompt + generated
        prompt = after[name][:sent]
        assert prompt == fresh_after[name][: f.context_tokens - f.generated_tokens], name
        assert u.cached_tokens == len(kept[name]) and prompt[: len(kept[name])] == kept[name]
        assert u.prompt_tokens == sent - len(kept[name])  # only what is new
        assert u.prompt_tokens <= f.prompt_tokens, name
    # The first agent's new tokens are the new message and its chat template, nothing else.
    assert mine["first"].prompt_tokens <= new_message + 10, mine["first"]
    # A switch back to the fruit branch trims each agent's cache the same way: to
    # the longest prefix the animal path it holds shares with the fruit path.
    rewound.switch_branch(2)
    switched = {name: backend.cached_tokens(key) for name, key in keys.items()}  # type: ignore[attr-defined]
    for name in keys:
        cut = len(switched[name])
        assert 0 < cut < len(after[name]), name
        assert switched[name] == after[name][:cut] == held[name][:cut], name
    rewound.run("Name a tree.", agent=tree())
    for name, step in usage(rewound).items():
        assert step.cached_tokens == len(switched[name]), name
