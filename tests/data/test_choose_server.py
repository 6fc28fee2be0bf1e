"""The bigger-model path, real: the data turn's chooser on the OpenAI-compatible backend
against a real ``mlx_lm.server`` on 127.0.0.1 serving the embedded model."""

from __future__ import annotations

import pandas as pd

from agent_nb import AgentRunner
from agent_nb._runtime.options import TurnOptions
from agent_nb.data.pipeline import data_turn
from tests.fixtures_server import MlxServer


def test_the_chooser_asks_a_real_server_and_the_words_stand_when_it_cannot_comply(
    mlx_server: MlxServer,
) -> None:
    runner = AgentRunner(model=mlx_server.spec())
    try:
        scores = pd.DataFrame({
            "player": ["ann", "bob", "cy"], "points": [3.0, 9.0, 5.0], "fouls": [4.0, 1.0, 2.0],
        })  # fmt: skip
        turn = data_turn({"games": scores}, "Who did best?", base=runner.agent)
        assert turn.answer.open  # the words left the measure open: the model is asked
        reply = runner.get_or_create_session("s").run(
            "Who did best?",
            turn_options=TurnOptions(agent=turn.pipeline, config=None),
        )
        final = turn.final_answer()
        # the embedded model on mlx_lm.server ignores response_format: the backend refuses
        # its prose, and the word matcher's plan answers, saying so
        assert final.value in ("bob", "ann")
        assert any("model" in r for r in final.reasons)
        assert reply.finish_reason in ("stop", "length")
        steps = [s.agent for s in runner.get_or_create_session("s").trace().steps]
        assert "data_chooser" in steps  # the call went through the runtime, to the server
    finally:
        runner.shutdown()
