"""`DataQuestion`: the data a notebook turn answers from, as the runtime takes it.

``%%agent --data df`` and ``ChatWidget(data=...)`` both hand the front door
one of these (`TurnRequest.data`); the pipeline itself is assembled by one
function of the data package (`agent_nb.data.pipeline.data_turn`): the data
agent (which asks the turn's model for the whole plan, inside the turn, where
the words leave a choice open), then the writer of the session with the
turn's system prompt in its instructions. The data package sits above the
runtime, so the runtime only calls `agent_for`
(`agent_nb._runtime.front_door.DataSource`).
"""

from __future__ import annotations

from collections.abc import Mapping
from typing import TYPE_CHECKING, Any

if TYPE_CHECKING:
    from ..backends import Backend
    from ..data.agent import DataAgent
    from ..data.answer import Answer

__all__ = ["DataQuestion"]


class DataQuestion:
    """DataFrames by name, and the question asked of them (None: the turn's message).

    ``context``: the user's words for the tables (`agent_nb.data.context`);
    ``structured``: the reply is a constrained value (``--schema``, ``--choice``);
    ``follow_names``: a name the notebook rebinds to another DataFrame is read
    anew at each turn (the chat widget).
    """

    def __init__(
        self,
        frames: Mapping[str, Any],
        question: str | None = None,
        *,
        context: Mapping[str, Any] | None = None,
        structured: bool = False,
        follow_names: bool = False,
        wording: str = "computed",
    ) -> None:
        from ..data.agent import DataAgent

        self.frames = dict(frames)
        self.question = question
        self.context = context
        self.structured = structured
        # a constrained reply (--schema, --choice) is the model's value: it has a writer
        self.wording = "model" if structured else wording
        self.follow_names = follow_names
        self._agent: DataAgent | None = None
        self._ran = False
        # its checks (the frames, the wording) raise in one line, now
        DataAgent(data=self.frames, wording=wording)

    def answer(self) -> Answer | None:
        """The answer, computed now (a cell's question), else None."""
        if not self.question:
            return None
        return self.data_agent().answer(self.question)

    def final_answer(self) -> Answer | None:
        """The answer after the turn (the model may have filled the plan in it)."""
        return self.answer()

    def data_agent(self, backend: Backend | None = None) -> DataAgent:
        """This turn's data agent: the answer computed before the turn (a cell's
        check) and the one after it (`final_answer`) come from the agent the turn
        ran. ``backend`` is unused: the chooser runs inside the turn, on its model."""
        if self._agent is None:
            self._agent = self._new()
        return self._agent

    def _new(self) -> DataAgent:
        from ..data.agent import DataAgent

        self._ran = False
        frames = _current(self.frames) if self.follow_names else self.frames
        return DataAgent(
            data=frames, question=self.question, context=self.context, wording=self.wording
        )

    def agent_for(self, session_agent: Any, system: str | None, backend: Backend) -> Any:
        """The data pipeline (`agent_nb.data.pipeline.data_turn`)."""
        from ..data.pipeline import data_turn

        # Each turn reads the frames anew (a widget's DataFrame may have changed
        # since its last turn); only a cell's answer computed before its turn is
        # the agent that turn runs.
        if self._agent is None or self._ran:
            self._agent = self._new()
        self._ran = True
        agent = self._agent
        return data_turn(
            agent.data,
            self.question,
            context=self.context,
            base=session_agent,
            system=system,
            structured=self.structured,
            agent=agent,
            wording=self.wording,
        ).pipeline


def _current(data: Mapping[str, Any]) -> dict[str, Any]:
    """``data`` with each name the notebook has rebound to another DataFrame read anew
    (``ChatWidget(data={"cars": cars})``, then ``cars = ...``)."""
    from IPython import get_ipython

    shell = get_ipython()
    ns = shell.user_ns if shell is not None else {}
    out = dict(data)
    for name, frame in data.items():
        now = ns.get(name)
        if now is not frame and type(now).__name__ == "DataFrame" and hasattr(now, "columns"):
            out[name] = now
    return out
