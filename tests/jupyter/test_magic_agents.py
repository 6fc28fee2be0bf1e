"""``%%agent --data df`` runs the data agent; ``%agent trace`` shows what each agent did."""

from __future__ import annotations

import pandas as pd
from IPython.core.interactiveshell import InteractiveShell
from IPython.utils.capture import capture_output

from agent_nb import TextMessage, get_runner
from agent_nb.backends import ScriptedBackend
from tests.fixtures_magics import run


def regions() -> pd.DataFrame:
    return pd.DataFrame(
        {"region": ["North", "South", "North", "West"], "revenue": [10.0, 3.0, 5.0, 7.0]}
    )


def test_data_cell_sends_computed_facts_to_the_writer(
    shell: InteractiveShell, backend: ScriptedBackend
) -> None:
    shell.user_ns["df"] = regions()
    backend.enqueue("North sold most.")
    line = '%%agent -s "Be brief." --data df --data-wording model\nWhich region sold most?'
    result, cap = run(shell, line)
    assert result.success, cap.stderr
    request = backend.requests[-1]
    system = request.system_instruction
    # The plan's result is all the writer reads: no table, no other group.
    assert "- North has the highest total revenue (15).\n" in system
    assert "South" not in system
    assert system.endswith("Be brief.")
    assert request.contents[-1].text == "Which region sold most?"  # no summary attached
    history = get_runner().get_or_create_session("default").history
    # The data agent's message holds no text, only the table and chart it shows
    assert [e.author for e in history if isinstance(e, TextMessage)] == [
        "user", "data_agent", "assistant",
    ]  # fmt: skip
    assert [bool(e.attachments) for e in history if isinstance(e, TextMessage)] == [
        False, True, False,
    ]  # fmt: skip
    assert get_runner().get_or_create_session("default").state == {}  # temp: not stored
    with capture_output() as cap:
        shell.run_line_magic("agent", "trace")
    assert "data_agent [code]" in cap.stdout
    assert "temp: wrote temp:insights = Facts about df" in cap.stdout
    assert "assistant [model]" in cap.stdout and "temp: read temp:insights" in cap.stdout
    assert "temp:data_plan" in cap.stdout  # the trace shows the plan


def test_a_wrong_sentence_is_replaced_and_the_reply_carries_data_and_chart(
    shell: InteractiveShell, backend: ScriptedBackend
) -> None:
    shell.user_ns["df"] = regions()
    backend.enqueue("West sold most, 7 in all.")  # the wrong region and number
    run(shell, "%config AgentMagics.data_wording = 'model'")  # the writer's path
    result, cap = run(shell, "%%agent --data df -o reply\nWhich region has the highest revenue?")
    assert result.success, cap.stderr
    reply = shell.user_ns["reply"]
    assert reply.text.startswith("North has the highest total revenue (15).")
    assert "wording was replaced" in reply.text and "West" not in reply.text
    assert list(reply.data["total revenue"]) == [15.0, 7.0, 3.0]
    assert reply.chart is not None and reply.chart.to_dict()["mark"]["type"] == "bar"
    assert "plan: rank sum revenue by region" in cap.stdout
    backend.enqueue("North has the highest revenue, 15.")
    run(shell, "%%agent --data df -o reply\nWhich region has the highest revenue?")
    assert shell.user_ns["reply"].text == "North has the highest revenue, 15."  # true: kept


def test_bad_tables_fail_in_one_line_and_record_nothing(
    shell: InteractiveShell, backend: ScriptedBackend
) -> None:
    shell.user_ns.update(empty=pd.DataFrame({"a": []}), nan=pd.DataFrame({"a": [None, None]}))
    for name, why in (("empty", "empty is empty"), ("nan", "holds no values")):
        result, _ = run(shell, f"%%agent --data {name}\nWhat is the total a?")
        assert not result.success and why in str(result.error_in_exec)
    assert not get_runner().get_or_create_session("default").history
    assert backend.requests == []


def test_a_column_subscript_keeps_its_quotes(
    shell: InteractiveShell, backend: ScriptedBackend
) -> None:
    shell.user_ns["df"] = regions()
    result, _ = run(shell, '%%agent --data df["nope"]\nTotal?')
    assert 'unknown variable(s) df["nope"]' in str(result.error_in_exec)
    result, cap = run(shell, '%%agent --data df["revenue"] -o reply\nWhat is the total revenue?')
    assert result.success, cap.stderr
    assert shell.user_ns["reply"].text == "25 is the total revenue."


def test_summary_mode_and_non_frames_keep_the_attached_summary(
    shell: InteractiveShell, backend: ScriptedBackend
) -> None:
    shell.user_ns.update(df=regions(), items=[1, 2, 3])
    run(shell, "%%agent --data df --data-mode summary\nWhat is this?")
    assert backend.requests[-1].contents[-1].text.startswith("What is this?\n\nData `df`")
    run(shell, "%%agent --data df items\nAnd these?")
    last = backend.requests[-1]
    assert "Data `items` (list)" in last.contents[-1].text  # not a DataFrame: summarised
    assert "Facts about df" in last.system_instruction


def test_trace_of_a_one_agent_turn(shell: InteractiveShell, backend: ScriptedBackend) -> None:
    result, _ = run(shell, "%%agent\nhello")
    assert result.success
    with capture_output() as cap:
        shell.run_line_magic("agent", "trace")
    assert "assistant [model]" in cap.stdout
