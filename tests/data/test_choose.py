"""Where the words leave a choice open, the turn's model fills the whole plan, under a
grammar of this table's schema, through the runtime (inside the data turn)."""

from __future__ import annotations

from typing import Any

import pandas as pd

from agent_nb import AgentRunner
from agent_nb._runtime.options import TurnOptions
from agent_nb.backends import ScriptedBackend
from agent_nb.data.choose import CHOOSER_NAME, plan_from_reply, plan_schema
from agent_nb.data.pipeline import data_turn
from agent_nb.data.table import profile


def _scores() -> pd.DataFrame:
    return pd.DataFrame({
        "player": ["ann", "bob", "cy"], "points": [3.0, 9.0, 5.0], "fouls": [4.0, 1.0, 2.0],
        "team": ["x", "y", "x"],
    })  # fmt: skip


def _ask(runner: AgentRunner, question: str) -> tuple[object, object]:
    turn = data_turn({"games": _scores()}, question, base=runner.agent)
    reply = runner.get_or_create_session("s").run(
        question, turn_options=TurnOptions(agent=turn.pipeline)
    )
    return turn, reply


def _branches(schema: dict[str, Any]) -> dict[str, dict[str, Any]]:
    return {b["properties"]["op"]["const"]: b for b in schema["anyOf"]}


def test_the_schema_holds_this_tables_columns_by_role_and_the_language() -> None:
    branches = _branches(plan_schema(profile("games", _scores())))
    props = branches["aggregate"]["properties"]
    assert props["measure"]["enum"] == ["points", "fouls", None]
    rank = branches["rank"]["properties"]
    assert "player" in rank["group_by"]["enum"] and "points" not in rank["group_by"]["enum"]
    assert {"aggregate", "rank", "extreme", "distinct", "correlation"} <= set(branches)
    assert {"<", ">=", "contains", "missing"} <= set(
        props["filters"]["items"]["properties"]["op"]["enum"]
    )
    assert {"enum": ["x", "y"]} in props["filters"]["items"]["properties"]["value"]["anyOf"]


def test_each_operation_requires_the_parts_it_cannot_run_without() -> None:
    """The grammar has no correlation without its two columns, no ranking without its
    groups (the cells that failed with an AssertionError), and a reply that leaves
    them out anyway is refused, not run."""
    table = profile("games", _scores())
    branches = _branches(plan_schema(table))
    corr = branches["correlation"]
    assert {"measure", "other"} <= set(corr["required"])
    assert None not in corr["properties"]["measure"]["enum"]
    assert None not in corr["properties"]["other"]["enum"]
    assert None not in branches["rank"]["properties"]["group_by"]["enum"]
    assert "trend" not in branches  # no time column: no trend to choose
    for bad in (
        {"op": "correlation", "measure": None, "agg": "sum", "group_by": None, "filters": []},
        {"op": "correlation", "measure": "points", "filters": []},
        {"op": "rank", "measure": "points", "group_by": None, "filters": []},
    ):
        assert plan_from_reply(bad, table) is None
    good = plan_from_reply({"op": "correlation", "measure": "points", "other": "fouls"}, table)
    assert good is not None and good.other == "fouls"


def test_a_chosen_plan_without_its_parts_leaves_the_words_answer(
    scripted: ScriptedBackend, runner: AgentRunner
) -> None:
    scripted.enqueue(
        '{"op": "correlation", "measure": null, "agg": "sum", "group_by": null, '
        '"filters": [], "order": "desc", "k": 1}',
        "bob has the highest points (9).",
    )
    turn, reply = _ask(runner, "Who did best?")
    final = turn.final_answer()  # type: ignore[attr-defined]
    assert final.plan.op != "correlation" and final.value == "bob"
    assert "failed" not in reply.text  # type: ignore[attr-defined]


def test_the_model_fills_the_plan_inside_the_turn(
    scripted: ScriptedBackend, runner: AgentRunner
) -> None:
    scripted.enqueue(
        '{"op": "extreme", "measure": "fouls", "agg": "max", "group_by": "player", '
        '"filters": [], "order": "desc", "k": 1}',
        "ann has the highest fouls (4).",
    )
    turn, reply = _ask(runner, "Who did best?")
    chooser = scripted.requests[0]
    assert chooser.response_schema is not None
    extreme = _branches(chooser.response_schema)["extreme"]["properties"]
    assert extreme["measure"]["enum"] == ["points", "fouls"]
    final = turn.final_answer()  # type: ignore[attr-defined]
    assert final.plan.measure == "fouls" and final.value == "ann"
    assert any("the model filled the plan" in r for r in final.reasons)
    assert "ann" in reply.text  # type: ignore[attr-defined]
    # the chooser's call is the turn's own: its trace records it beside the writer's
    steps = [s.agent for s in runner.get_or_create_session("s").trace().steps]
    assert CHOOSER_NAME in steps


def test_an_unusable_plan_leaves_the_word_matchers_answer(
    scripted: ScriptedBackend, runner: AgentRunner
) -> None:
    scripted.enqueue("__import__('os')", "bob has the highest points (9).")  # never evaluated
    turn, _ = _ask(runner, "Who did best?")
    final = turn.final_answer()  # type: ignore[attr-defined]
    assert final.plan.measure == "points" and final.value == "bob"


def test_a_plan_naming_what_is_not_there_is_refused() -> None:
    table = profile("games", _scores())
    assert plan_from_reply({"op": "aggregate", "measure": "salary", "agg": "sum"}, table) is None
    assert plan_from_reply("not json", table) is None
    plan = plan_from_reply({"op": "aggregate", "measure": "points", "agg": "sum"}, table)
    assert plan is not None and plan.measure == "points"


def test_named_columns_need_no_model(scripted: ScriptedBackend, runner: AgentRunner) -> None:
    turn, reply = _ask(runner, "Who has the most points?")
    assert scripted.requests == []  # no chooser, and the computed sentence is the reply
    assert turn.final_answer().value == "bob"  # type: ignore[attr-defined]
    assert reply.text.startswith("bob has the highest points")  # type: ignore[attr-defined]
