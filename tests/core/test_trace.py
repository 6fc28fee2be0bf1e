"""`InvocationTrace`: its text lines, and the dict stored with a turn."""

from __future__ import annotations

from agent_nb._core.trace import AgentStep, InvocationTrace
from agent_nb._core.types import Usage


def trace() -> InvocationTrace:
    return InvocationTrace(
        "inv1",
        (
            AgentStep("facts", "code", writes={"temp:insights": "Facts:\n- one\n- two", "n": "2"}),
            AgentStep("writer", "model", reads=("temp:insights", "user:name"),
                      usage=Usage(prompt_tokens=9, cached_tokens=4, generated_tokens=3)),
        ),
    )  # fmt: skip


def test_a_multi_line_value_stays_indented_under_its_key() -> None:
    assert "\n".join(trace().lines()).splitlines() == [
        "invocation inv1",
        "  facts [code]",
        "    temp: wrote temp:insights = Facts:",
        "      - one",
        "      - two",
        "    session: wrote n = 2",
        "  writer [model] (fed 9, reused 4, generated 3 tokens)",
        "    temp: read temp:insights",
        "    user: read user:name",
    ]


def test_the_stored_dict_reads_back_as_the_same_trace() -> None:
    again = InvocationTrace.from_dict(trace().to_dict())
    assert again.lines() == trace().lines()
    assert again.to_dict() == trace().to_dict()
    assert again.shows_anything
    assert not InvocationTrace("x", (AgentStep("solo", "model"),)).shows_anything
