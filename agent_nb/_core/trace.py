"""What each agent of one invocation read and wrote, for ``%agent trace`` and the widget.

``temp:`` state is never stored, so the only place that can show how one
agent handed data to the next is a trace the turn engine keeps while it runs.
A trace lives in memory with its session (the latest few invocations);
values are kept short (`VALUE_CHARS`) so a trace of a 10⁶-row data agent
stays small.
"""

from __future__ import annotations

import dataclasses
import json
from collections.abc import Mapping
from typing import Any

from .state import scope_of
from .types import Usage

__all__ = ["VALUE_CHARS", "AgentStep", "InvocationTrace", "short_value", "tool_label"]

VALUE_CHARS = 400
SCOPES = ("temp", "session", "user", "app")


def short_value(value: Any) -> str:
    text = value if isinstance(value, str) else json.dumps(value, default=str)
    return text if len(text) <= VALUE_CHARS else text[: VALUE_CHARS - 1] + "…"


def tool_label(name: str, server: str | None) -> str:
    """How a trace names a called tool: an MCP tool with its server beside it."""
    return f"{name} ({server})" if server else name


@dataclasses.dataclass(frozen=True)
class AgentStep:
    """One agent's part of an invocation."""

    agent: str
    kind: str  # "model", "code", "tool-agent", "merge"
    reads: tuple[str, ...] = ()
    writes: Mapping[str, str] = dataclasses.field(default_factory=dict)  # key -> short value
    usage: Usage = dataclasses.field(default_factory=Usage)
    error: str | None = None
    #: The tools it called, in order, each as `tool_label` gives it (an MCP
    #: tool with its server's name beside it).
    tools: tuple[str, ...] = ()

    @classmethod
    def of(
        cls,
        agent: str,
        kind: str,
        reads: set[str] | tuple[str, ...] = (),
        writes: Mapping[str, Any] | None = None,
        usage: Usage | None = None,
        error: str | None = None,
        tools: tuple[str, ...] | list[str] = (),
    ) -> AgentStep:
        """A step from what an agent read (any order) and wrote (full values, kept short)."""
        shorts = {k: short_value(v) for k, v in (writes or {}).items()}
        return cls(agent, kind, tuple(sorted(reads)), shorts, usage or Usage(), error, tuple(tools))

    def by_scope(self) -> dict[str, dict[str, Any]]:
        """``{"temp": {"read": [...], "wrote": {...}}, ...}`` for the scopes it touched."""
        out: dict[str, dict[str, Any]] = {}
        for key in self.reads:
            out.setdefault(scope_of(key), {"read": [], "wrote": {}})["read"].append(key)
        for key, value in self.writes.items():
            out.setdefault(scope_of(key), {"read": [], "wrote": {}})["wrote"][key] = value
        return {scope: out[scope] for scope in SCOPES if scope in out}

    @classmethod
    def from_dict(cls, data: Mapping[str, Any]) -> AgentStep:
        scopes = data.get("scopes") or {}
        return cls(
            agent=str(data["agent"]),
            kind=str(data["kind"]),
            reads=tuple(k for used in scopes.values() for k in used.get("read", ())),
            writes={k: v for used in scopes.values() for k, v in used.get("wrote", {}).items()},
            usage=Usage(
                prompt_tokens=int(data.get("prompt_tokens") or 0),
                cached_tokens=int(data.get("cached_tokens") or 0),
                generated_tokens=int(data.get("generated_tokens") or 0),
            ),
            error=data.get("error"),
            tools=tuple(str(t) for t in data.get("tools") or ()),
        )

    def to_dict(self) -> dict[str, Any]:
        out: dict[str, Any] = {
            "agent": self.agent,
            "kind": self.kind,
            "scopes": self.by_scope(),
            "prompt_tokens": self.usage.prompt_tokens,
            "cached_tokens": self.usage.cached_tokens,
            "generated_tokens": self.usage.generated_tokens,
            "error": self.error,
        }
        if self.tools:  # only where there are some: a stored trace without tools stays as it was
            out["tools"] = list(self.tools)
        return out


@dataclasses.dataclass(frozen=True)
class InvocationTrace:
    """The steps of one invocation, in the order they finished."""

    invocation_id: str
    steps: tuple[AgentStep, ...]

    def to_dict(self) -> dict[str, Any]:
        return {"invocation_id": self.invocation_id, "steps": [s.to_dict() for s in self.steps]}

    @classmethod
    def from_dict(cls, data: Mapping[str, Any]) -> InvocationTrace:
        """The trace `to_dict` wrote (a stored turn's): token counts and state use."""
        return cls(str(data["invocation_id"]), tuple(map(AgentStep.from_dict, data["steps"])))

    @property
    def shows_anything(self) -> bool:
        """More than one agent, or one that read or wrote state or called a tool
        (the trace names each tool's server): a single agent that did none of
        that has nothing the transcript does not say."""
        return len(self.steps) > 1 or any(s.reads or s.writes or s.tools for s in self.steps)

    def lines(self) -> list[str]:
        """The trace as plain text, agent by agent and scope by scope."""
        out = [f"invocation {self.invocation_id}"]
        for step in self.steps:
            usage = step.usage
            tokens = (
                f" (fed {usage.prompt_tokens}, reused {usage.cached_tokens}, "
                f"generated {usage.generated_tokens} tokens)"
                if step.kind == "model"
                else ""
            )
            out.append(f"  {step.agent} [{step.kind}]{tokens}")
            if step.tools:
                out.append(f"    called {', '.join(step.tools)}")
            scopes = step.by_scope()
            if not scopes:
                out.append("    (no state read or written)")
            for scope, used in scopes.items():
                if used["read"]:
                    out.append(f"    {scope}: read {', '.join(used['read'])}")
                for key, value in used["wrote"].items():
                    # A value's own lines stay indented under its key.
                    shown = value.replace("\n", "\n      ")
                    out.append(f"    {scope}: wrote {key} = {shown}")
            if step.error:
                out.append(f"    error: {step.error}")
        return out
