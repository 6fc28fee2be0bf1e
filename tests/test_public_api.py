"""The public surface is pinned, and importing it stays light."""

from __future__ import annotations

import subprocess
import sys

import agent_nb
import agent_nb.backends
import agent_nb.errors
import agent_nb.stores


def test_top_level_names_are_pinned() -> None:
    assert set(agent_nb.__all__) == {
        "Agent", "AgentRunner", "AgentSession", "ChatWidget", "Content",
        "ConversationReference", "DataAgentContext", "Event", "EventStream", "FunctionCall",
        "FunctionResponse", "GenerateContentRequest", "GenerationConfig", "InlineContext",
        "Part", "Reply", "Role", "SessionInfo", "TextMessage", "ToolContext", "TurnComplete",
        "Usage", "get_runner", "load_ipython_extension", "set_runner",
        "unload_ipython_extension",
    }  # fmt: skip


def test_design_names_exist() -> None:
    for name in agent_nb.__all__:
        if name != "ChatWidget":  # needs anywidget; covered by the widget tests
            assert getattr(agent_nb, name) is not None


def test_error_tree() -> None:
    e = agent_nb.errors
    assert issubclass(e.InvalidSessionIdError, ValueError)
    for name in e.__all__:
        assert issubclass(getattr(e, name), e.AgentError)
    assert issubclass(e.ModelNotFoundError, e.BackendError)


def test_subpackages_pin_their_names() -> None:
    assert set(agent_nb.backends.__all__) >= {"Backend", "ScriptedBackend", "resolve_backend"}
    assert set(agent_nb.stores.__all__) >= {"SessionStore", "MemoryStore", "SQLiteStore"}


def test_import_is_light() -> None:
    code = (
        "import sys, agent_nb, agent_nb.backends, agent_nb.stores;"
        "heavy = [m for m in ('mlx', 'mlx_lm', 'openai', 'anywidget', 'ipywidgets', 'IPython',"
        " 'pandas', 'numpy', 'httpx') if m in sys.modules];"
        "print(','.join(heavy))"
    )
    out = subprocess.run([sys.executable, "-c", code], capture_output=True, text=True, check=True)
    assert out.stdout.strip() == ""
