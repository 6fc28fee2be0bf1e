"""The public surface is pinned, and importing it stays light."""

from __future__ import annotations

import subprocess
import sys

import pytest

import agent_nb
import agent_nb.backends
import agent_nb.errors
import agent_nb.stores


def test_top_level_names_are_pinned() -> None:
    assert set(agent_nb.__all__) == {
        "Agent", "AgentRunner", "AgentSession", "ChatWidget", "Content",
        "ConversationReference", "DataAgentContext", "Event", "EventStream", "FunctionCall",
        "FunctionResponse", "GenerateContentRequest", "GenerationConfig", "InlineContext",
        "McpToolset", "Part", "Reply", "Role", "SessionInfo", "TextMessage", "ToolContext",
        "TurnComplete", "TurnRequest",
        "SequentialAgent", "ParallelAgent", "LoopAgent", "AgentTool", "CodeAgent", "DataAgent",
        "AgentStep", "InvocationTrace", "BaseAgent", "CallbackContext", "ReadonlyContext",
        "exit_loop", "Usage", "get_runner", "load_ipython_extension", "set_runner", "tool",
        "unload_ipython_extension",
    }  # fmt: skip


def test_each_name_is_the_object_it_names() -> None:
    """Not merely "something": the class or function of that very name."""
    named = {name: getattr(getattr(agent_nb, name), "__name__", None) for name in agent_nb.__all__}
    assert named == {name: name for name in agent_nb.__all__}


def test_error_tree() -> None:
    e = agent_nb.errors
    assert issubclass(e.InvalidSessionIdError, ValueError)
    for name in e.__all__:
        assert issubclass(getattr(e, name), e.AgentError)
    assert issubclass(e.ModelNotFoundError, e.BackendError)


def test_subpackages_pin_their_names() -> None:
    assert set(agent_nb.backends.__all__) == {
        "KNOWN_SPECS", "Backend", "CancelToken", "Chunk", "Finish", "PrefillProgress",
        "ScriptedBackend", "TextDelta", "ToolCallChunk", "check_spec", "resolve_backend",
    }  # fmt: skip
    assert set(agent_nb.stores.__all__) == {
        "SessionStore", "SessionRecord", "MemoryStore", "SQLiteStore", "DatabaseStore",
        "LeaseOwner", "DEFAULT_LEASE_S", "resolve_store",
    }  # fmt: skip
    assert agent_nb.stores.SQLiteStore.__name__ == "SQLiteStore"
    assert "SQLiteStore" in dir(agent_nb.stores) and "ChatWidget" in dir(agent_nb)
    assert "DatabaseStore" in dir(agent_nb.stores)


@pytest.mark.slow  # a fresh interpreter
def test_import_is_light() -> None:
    code = (
        "import sys, agent_nb, agent_nb.backends, agent_nb.stores;"
        "heavy = [m for m in ('mlx', 'mlx_lm', 'openai', 'anywidget', 'ipywidgets', 'IPython',"
        " 'pandas', 'numpy', 'httpx', 'mcp', 'anyio', 'ibis', 'duckdb', 'pyspark', 'sqlalchemy')"
        " if m in sys.modules];"
        "print(','.join(heavy))"
    )
    out = subprocess.run([sys.executable, "-c", code], capture_output=True, text=True, check=True)
    assert out.stdout.strip() == ""
