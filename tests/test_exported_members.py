"""What a user can reach is what is documented (in the spirit of httpx's
``tests/test_exported_members.py``): every public module's ``__all__`` is
exactly its public members, and the members of `AgentSession` and
`AgentRunner` are pinned and each named in the README or the docs pages."""

from __future__ import annotations

import importlib
import inspect
import pathlib
import re
import types
import typing

import pytest

import agent_nb
from agent_nb import AgentRunner, AgentSession

ROOT = pathlib.Path(agent_nb.__file__).parents[1]
# The user documentation: the README and the pages of the docs site.
README = "\n".join(p.read_text() for p in [ROOT / "README.md", *sorted(ROOT.glob("docs/*.md"))])
PUBLIC_MODULES = [
    "agent_nb",
    "agent_nb.errors",
    "agent_nb.backends",
    "agent_nb.backends.mlx",
    "agent_nb.backends.openai",
    "agent_nb.stores",
]

SESSION_API = {
    "agent", "approve", "approve_async", "awaiting_approval", "deny", "deny_async",
    "branch", "branches", "busy", "cancel", "close", "closed", "delete", "forks",
    "get_history", "history", "id", "invocations", "last_model", "refresh", "rewind", "run",
    "run_async",
    "runner", "state", "subscribe", "switch_branch", "trace", "tree", "turns", "user_id",
}  # fmt: skip
RUNNER_API = {
    "agent", "app_name", "approve_tools", "backend", "backend_for", "chat", "check_model",
    "clear_all_sessions",
    "close_session", "delete_session", "generate_content_async", "get_agent",
    "get_or_create_session", "hold_session", "is_shut_down", "kv_checkpoints", "kv_disk_budget",
    "kv_disk_bytes", "memory", "model", "model_label",
    "register_agent", "release_session", "session_holders", "rewind_session",
    "run_single_turn", "run_single_turn_async",
    "sessions", "shutdown", "start_turn", "store", "stored_session_ids", "token_counter",
    "trim_memory", "user_id",
    "wait",
    "worker",
}  # fmt: skip


def _members(module: types.ModuleType) -> set[str]:
    """Public names defined by ``module`` or its private submodules (not re-imported
    helpers such as ``typing.Any`` or another public module's errors)."""
    names = set()
    for name in dir(module):
        if name.startswith("_"):
            continue
        value = getattr(module, name)
        if inspect.ismodule(value):
            continue
        if name in ("annotations", "TYPE_CHECKING") or (name in dir(typing)):
            continue  # typing helpers, not members
        home = getattr(value, "__module__", None)
        if (
            isinstance(home, str)
            and home not in ("typing", "types")
            and not home.startswith(module.__name__)
        ):
            continue  # re-imported from another public module (an error class, say)
        names.add(name)
    return names


@pytest.mark.parametrize("name", PUBLIC_MODULES)
def test_all_is_exactly_the_public_members(name: str) -> None:
    module = importlib.import_module(name)
    assert sorted(module.__all__) == sorted(_members(module))


def test_the_check_sees_an_unexported_member() -> None:
    module = types.ModuleType("agent_nb.fake")
    module.__all__ = ["a"]  # type: ignore[attr-defined]
    module.a = 1  # type: ignore[attr-defined]
    module.b = 2  # type: ignore[attr-defined]
    assert _members(module) == {"a", "b"}


@pytest.mark.parametrize(("cls", "api"), [(AgentSession, SESSION_API), (AgentRunner, RUNNER_API)])
def test_the_public_members_are_the_documented_ones(cls: type, api: set[str]) -> None:
    assert {n for n in dir(cls) if not n.startswith("_")} == api
    undocumented = sorted(n for n in api if not re.search(rf"[.`]{n}\b", README))
    assert undocumented == []


def test_a_session_offers_no_runtime_internals() -> None:
    """`session.release()` once blanked a history; nothing like it is reachable now."""
    runner = AgentRunner(model="scripted")
    try:
        session = runner.get_or_create_session("s")
        for name in ("release", "record_event", "finish_turn", "mark_closed", "join", "window",
                     "last_options"):  # fmt: skip
            assert not hasattr(session, name)
        with pytest.raises(AttributeError):
            session.window = None  # type: ignore[attr-defined]
    finally:
        runner.shutdown()
