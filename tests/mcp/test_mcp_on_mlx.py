"""MCP tools under the grammar on the embedded model: with ``tool_choice="required"`` the
model's arguments match the server's own JSON schema every time, and the server accepts
them (greedy calls, several prompts)."""

from __future__ import annotations

import contextlib
import shlex
import sys

import jsonschema
import pytest
from IPython.core.interactiveshell import InteractiveShell

from agent_nb import (
    Agent,
    AgentRunner,
    FunctionCall,
    FunctionResponse,
    GenerationConfig,
    set_runner,
)
from agent_nb.errors import MaxTurnsExceededError
from tests.fixtures_magics import run

from .conftest import DEMO, ToolsetFactory

DEMO_LINE = f"{shlex.quote(sys.executable)} {shlex.quote(str(DEMO))}"

pytestmark = [pytest.mark.mlx]

PROMPTS = [
    "What is 2 plus 3?",
    "Add 10 and 32.",
    "What is the mean of 4, 8 and 15?",
]


def test_required_calls_to_mcp_tools_have_valid_arguments(
    mlx_runner: AgentRunner, demo_stdio: ToolsetFactory
) -> None:
    toolset = demo_stdio(tool_filter=["add", "stats"])
    # One round: the forced call and its result are what is checked, not a second reply.
    agent = Agent(
        tools=[toolset], tool_choice="required", max_turns=1,
        config=GenerationConfig(max_tokens=40, temperature=0.0),
    )  # fmt: skip
    schemas = {t.name: t.spec.parameters for t in toolset.start()}
    for number, prompt in enumerate(PROMPTS):
        session = mlx_runner.get_or_create_session(f"p{number}")
        with contextlib.suppress(MaxTurnsExceededError):
            session.run(prompt, agent=agent)
        calls = [e for e in session.history if isinstance(e, FunctionCall)]
        assert calls, f"no tool call for {prompt!r}"
        for call in calls:
            assert call.server == "demo"
            jsonschema.validate(dict(call.args), schemas[call.name])
        for response in (e for e in session.history if isinstance(e, FunctionResponse)):
            assert "error" not in response.response, (prompt, response.response)


def test_a_cell_forces_the_first_call_on_the_embedded_model(
    shell: InteractiveShell, mlx_runner: AgentRunner
) -> None:
    """Round 5: with ``--tools`` alone the embedded model invented answers; naming the
    tool with ``--tool-choice`` makes its first step a call the server accepts (the
    grammar writes the server's own argument schema), as docs/mcp.md shows."""
    previous = set_runner(mlx_runner)
    try:
        result, cap = run(shell, f"%agent mcp add calc -- {DEMO_LINE}")
        assert result.success, cap.stderr
        result, cap = run(
            shell, "%%agent --tools calc --tool-choice add --max-tokens 40\nWhat is 19 plus 23?"
        )
        assert result.success, cap.stderr
        history = mlx_runner.get_or_create_session("default").history
        calls = [e for e in history if isinstance(e, FunctionCall)]
        assert [(c.name, c.server) for c in calls[:1]] == [("add", "calc")]
        [first, *_] = [e for e in history if isinstance(e, FunctionResponse)]
        assert "error" not in first.response and isinstance(first.response["result"], int)
    finally:
        set_runner(previous)
