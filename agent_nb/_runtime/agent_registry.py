"""`AgentRegistry`: the agents a runner knows by name (`DataAgentContext`, ``agent="name"``)."""

from __future__ import annotations

import threading

from ..errors import UnknownAgentError
from .agents import BaseAgent, check_agent

__all__ = ["AgentRegistry"]


class AgentRegistry:
    def __init__(self, default: BaseAgent) -> None:
        self._lock = threading.Lock()
        self._agents: dict[str, BaseAgent] = {default.name: default}

    def register(self, agent: BaseAgent) -> None:
        check_agent(agent)
        with self._lock:
            self._agents[agent.name] = agent

    def get(self, name: str) -> BaseAgent:
        with self._lock:
            agent = self._agents.get(name)
            if agent is not None:
                return agent
            known = sorted(self._agents)
        raise UnknownAgentError(
            f"no agent named {name!r}; registered: {known}. "
            "Call runner.register_agent(Agent(name=...)) first"
        )
