"""`DataTurn`: the data a notebook turn answers from, as the runtime takes it.

``%%agent --data df`` and ``ChatWidget(data=...)`` both hand the front door
one of these (`TurnRequest.data`), so the data pipeline is assembled here
once: the data agent (its column chooser on the turn's model), then the
writer of the session (`writer_for`) with the turn's system prompt in its
instructions. The data package sits above the runtime, so the runtime only
calls `agent_for` (`agent_nb._runtime.front_door.TurnData`).
"""

from __future__ import annotations

from collections.abc import Mapping
from typing import TYPE_CHECKING, Any

if TYPE_CHECKING:
    from ..backends import Backend
    from ..data.agent import DataAgent

__all__ = ["DataTurn"]


class DataTurn:
    """DataFrames by name, and the question asked of them (None: the turn's message)."""

    def __init__(self, frames: Mapping[str, Any], question: str | None = None) -> None:
        from ..data.agent import DataAgent

        self.frames = dict(frames)
        self.question = question
        self._agents: dict[int, DataAgent] = {}
        DataAgent(data=self.frames)  # its checks raise TypeError in one line, now

    def data_agent(self, backend: Backend) -> DataAgent:
        """The data agent, its chooser on ``backend``; one per backend, so an answer
        computed before the turn (`DataAgent.answer`) is the one the turn uses."""
        from ..data.agent import DataAgent
        from ..data.choose import model_chooser

        agent = self._agents.get(id(backend))
        if agent is None:
            agent = DataAgent(
                data=self.frames, question=self.question, choose=model_chooser(backend)
            )
            self._agents[id(backend)] = agent
        return agent

    def agent_for(self, session_agent: Any, system: str | None, backend: Backend) -> Any:
        """The data pipeline: the data agent, then the session's writer."""
        from ..data.agent import writer_for

        return self.data_agent(backend).pipeline(writer_for(session_agent, system))
