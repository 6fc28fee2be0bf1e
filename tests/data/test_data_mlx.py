"""End to end on the embedded model: the reply states the truth, worded by the model
or replaced by the template; never a wrong number."""

from __future__ import annotations

import pytest

from agent_nb import Agent, AgentRunner, DataAgent, GenerationConfig
from agent_nb.data.agent import check_reply
from agent_nb.data.evidence import REPLACED, check_sentence
from tests.data.questions import QUESTIONS

pytestmark = pytest.mark.mlx
pytest.importorskip("vega_datasets")

_PICKED = (
    "Which origin has the highest Miles_per_Gallon?",
    "How many Adelie penguins are there?",
    "How did MSFT's price change over time?",
    "What is the most common weather?",
)


@pytest.mark.parametrize("text", _PICKED)
def test_the_reply_is_true_to_the_result(mlx_runner: AgentRunner, text: str) -> None:
    q = next(q for q in QUESTIONS if q.text == text)
    agent = DataAgent(data={q.table: q.frame()})
    writer = Agent(
        "writer", DataAgent.WRITER_INSTRUCTIONS, config=GenerationConfig(max_tokens=40),
        after_model_callback=check_reply,
    )  # fmt: skip
    reply = mlx_runner.run_single_turn(q.text, agent=agent.pipeline(writer))
    sentence = reply.text.split("\n\n")[0]
    assert check_sentence(sentence, agent.answer(q.text).reference) is None, reply.text
    name, _ = q.truth(q.frame())
    if name is not None:
        assert str(name) in sentence
    if REPLACED.split("{")[0] in reply.text:
        assert sentence == agent.answer(q.text).sentence
