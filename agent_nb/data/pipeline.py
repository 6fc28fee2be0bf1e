"""The data turn, built in one place for the cell, the widget and the front door.

`data_turn` takes the frames, the question, the user's context and the
turn's options, and returns what the turn needs (`DataPipeline`): the data agent
(which asks the model for the whole plan inside the turn where the words
leave a choice open, `choose`), the answer computed now (so a table nothing
can be computed from fails in one line before anything is recorded), and
the pipeline the turn runs: the data agent, then the writer of the
session's agent. With ``structured`` (the turn's ``--schema`` or
``--choice``), the writer's reply is the constrained value; the plan's
result is its input and the sentence check stands aside (the value, not a
sentence, is the reply).
"""

from __future__ import annotations

import dataclasses
from collections.abc import Mapping
from typing import TYPE_CHECKING, Any

from .agent import DataAgent, writer_for

if TYPE_CHECKING:
    from .._runtime.agents import SequentialAgent
    from .answer import Answer

__all__ = ["DataPipeline", "data_turn"]


@dataclasses.dataclass(frozen=True)
class DataPipeline:
    """What a data turn needs (see the module docstring); ``answer`` is None when the
    question is the turn's message, not known yet (the chat widget)."""

    data_agent: DataAgent
    answer: Answer | None
    pipeline: SequentialAgent

    def final_answer(self) -> Answer | None:
        """The answer after the turn (the model may have filled the plan in it)."""
        if self.answer is None:
            return None
        return self.data_agent.answer(self.answer.question)


def data_turn(
    frames: Mapping[str, Any],
    question: str | None,
    *,
    context: Mapping[str, Any] | None = None,
    base: Any = None,
    system: str | None = None,
    structured: bool = False,
    choose: bool = True,
    agent: DataAgent | None = None,
    wording: str = "computed",
) -> DataPipeline:
    """The data turn over ``frames`` for ``question`` (None: the turn's message), see
    the module docstring. ``agent``: a data agent built earlier for the same frames
    and question, whose answer (computed before the turn) the turn reuses.

    Raises TypeError or ValueError, in one line, for data or a question nothing
    can be computed from.
    """
    # A constrained reply (--schema, --choice) is the model's value: it always has a writer.
    wording = "model" if structured else wording
    if agent is None:
        agent = DataAgent(
            data=frames, question=question, context=context, choose=choose, wording=wording
        )
    answer = agent.answer(question) if question else None
    if agent.wording == "computed" and not structured:
        from .._runtime.agents import SequentialAgent

        return DataPipeline(agent, answer, SequentialAgent("data_pipeline", [agent]))
    writer = writer_for(base, system, check=not structured)
    return DataPipeline(agent, answer, agent.pipeline(writer))
