"""The data answer's table and chart are stored with the turn and reach every view.

Through the real seams: a `DataAgent` pipeline on a runner with the
ScriptedBackend, the memory store and a SQLite file (read back by a second
runner, as another kernel would), the widget's transcript protocol, and a
`ChatWidget(data=...)` on a recording comm (as in tests/jupyter/test_widget.py).
"""

from __future__ import annotations

import json
import pathlib
from typing import Any

import pandas as pd
import pytest

from agent_nb import AgentRunner, DataAgent, TextMessage
from agent_nb._core.codec import event_from_dict, event_to_dict
from agent_nb._jupyter.widget.data_view import chart_module_source
from agent_nb._jupyter.widget.protocol import entries_from_events, parse_from_js
from agent_nb._jupyter.widget.static_view import static_bundle
from agent_nb.backends import ScriptedBackend
from agent_nb.data.chart import TABLE_MIME, VIEW_CHART_MIME
from agent_nb.stores import SQLiteStore
from tests.fixtures_runtime import RunnerFactory
from tests.jupyter import test_widget as widget_tests
from tests.jupyter.test_widget import WidgetFactory, send_and_wait, wait_for

recording_comms = widget_tests.recording_comms
open_widget = widget_tests.open_widget

QUESTION = "Which region has the highest total revenue?"
SENTENCE = "North has the highest total revenue (33)."


def sales() -> pd.DataFrame:
    return pd.DataFrame(
        {"region": ["North", "South", "East", "West"] * 3, "revenue": [11.0, 7.8, 9.8, 8.5] * 3}
    )


def ask_in(runner: AgentRunner, scripted: ScriptedBackend, session_id: str = "d") -> None:
    scripted.enqueue(SENTENCE)
    agent = DataAgent(data={"sales": sales()}).pipeline()
    runner.get_or_create_session(session_id).run(QUESTION, agent=agent)


def data_message(events: list[Any]) -> TextMessage:
    (message,) = [e for e in events if isinstance(e, TextMessage) and e.attachments]
    return message


def check_data_entry(entry: dict[str, Any]) -> None:
    assert entry["kind"] == "data" and entry["author"] == "data_agent"
    assert entry["plan"] == "plan: rank sum revenue by region top 1"
    totals = sales().groupby("region")["revenue"].sum().sort_values(ascending=False)
    table = entry["table"]
    assert table["columns"] == ["region", "total revenue"]
    assert [r[0] for r in table["rows"]] == list(totals.index)
    assert [r[1] for r in table["rows"]] == pytest.approx(list(totals.values))
    chart = entry["chart"]
    assert chart["mark"]["type"] == "bar"
    (values,) = chart["datasets"].values()  # computed values, inline: nothing to load
    assert [v["region"] for v in values] == list(totals.index)
    assert "url" not in json.dumps(chart["data"])


def test_the_table_and_chart_are_stored_with_the_turn_and_never_sent_to_the_model(
    runner: AgentRunner, scripted: ScriptedBackend
) -> None:
    ask_in(runner, scripted)
    history = runner.get_or_create_session("d").history
    message = data_message(history)
    assert message.text == "" and set(message.attachments) >= {TABLE_MIME, VIEW_CHART_MIME}
    json.dumps(dict(message.attachments), allow_nan=False)
    (writer_request,) = scripted.requests
    sent = json.dumps([c.text for c in writer_request.contents]) + writer_request.system_instruction
    assert "datasets" not in sent and "dataresource" not in sent
    entries = entries_from_events(history)
    assert [e["kind"] for e in entries] == ["user", "data", "model", "turn"]
    check_data_entry(entries[1])  # type: ignore[arg-type]


def test_a_second_runner_on_the_same_sqlite_file_reads_the_chart_back(
    tmp_path: pathlib.Path, scripted: ScriptedBackend, make_runner: RunnerFactory
) -> None:
    path = tmp_path / "chat.sqlite"
    first = make_runner(model=scripted, store=SQLiteStore(path))
    ask_in(first, scripted, "stored")
    written = data_message(first.get_or_create_session("stored").history)
    other = make_runner(model=ScriptedBackend(), store=SQLiteStore(path))  # another kernel
    read = data_message(other.get_or_create_session("stored").history)
    assert read == written and read.attachments == written.attachments
    entries = entries_from_events(other.get_or_create_session("stored").history)
    check_data_entry(next(e for e in entries if e["kind"] == "data"))  # type: ignore[arg-type]


def test_rows_without_attachments_stay_byte_for_byte() -> None:
    row = {
        "id": "e1", "invocation_id": "i1", "author": "assistant", "timestamp": 1.5,
        "state_delta": {}, "branch": None, "escalate": False, "text": "hi",
        "is_partial": False, "interrupted": False, "kind": "text",
    }  # fmt: skip
    event = event_from_dict(row)
    assert isinstance(event, TextMessage) and event.attachments == {}
    again = event_to_dict(event)
    assert again == row
    assert json.dumps(again, separators=(",", ":")) == json.dumps(row, separators=(",", ":"))


def test_attachments_must_be_json() -> None:
    with pytest.raises(TypeError, match="JSON"):
        TextMessage(text="", attachments={"text/plain": float("nan")})
    with pytest.raises(TypeError, match="JSON"):
        TextMessage(text="", attachments={"text/plain": object()})
    source = {"text/plain": ["a"]}
    message = TextMessage(text="", attachments=source)
    source["text/plain"].append("b")  # the caller's dict cannot rewrite history
    assert message.attachments == {"text/plain": ["a"]}


def test_a_chat_widget_with_data_answers_shows_and_serves_the_chart(
    runner: AgentRunner, scripted: ScriptedBackend, open_widget: WidgetFactory
) -> None:
    w = open_widget("data-chat", runner=runner, data={"sales": sales()})
    c = send_and_wait(w, QUESTION)
    live = [m["entry"] for m in c.custom("entry")]
    # the computed sentence is the reply, with its chart, at once: no model call
    assert [e["kind"] for e in live] == ["user", "data"]
    check_data_entry(live[1])
    assert live[1]["text"] == SENTENCE and scripted.requests == []
    entries = wait_for(lambda: w.transcript if w.transcript[-1]["kind"] == "turn" else None)
    check_data_entry(next(e for e in entries if e["kind"] == "data"))
    # The view asks for the chart module once; the answer is the vega-embed bundle.
    assert parse_from_js({"type": "chart_module", "id": "r1"}) == {
        "type": "chart_module",
        "id": "r1",
    }
    c.from_frontend({"type": "chart_module", "id": "r1"})
    (reply,) = wait_for(lambda: c.custom("chart_module"))
    assert reply["id"] == "r1" and reply["error"] is None
    assert reply["source"] == chart_module_source() and "vega" in reply["source"][:100_000]
    # Where no widget renders: the table as text, the chart as vl-convert's SVG.
    page = static_bundle(w.session)
    assert "total revenue" in page["text/plain"] and "North" in page["text/plain"]
    assert "<svg" in page["text/html"]


def test_a_chat_widget_refuses_bad_data_at_once(
    runner: AgentRunner, open_widget: WidgetFactory
) -> None:
    with pytest.raises(TypeError, match="DataFrame"):
        open_widget("bad-data", runner=runner, data={"sales": [1, 2]})


def test_a_chat_widget_takes_the_users_words_for_its_tables(
    runner: AgentRunner, scripted: ScriptedBackend, open_widget: WidgetFactory
) -> None:
    """``data_context=`` is what ``--data-context`` is to a cell: "the faithful customers"
    cannot be placed without it, and with it the word names a column's value."""
    frame = sales().assign(segment=["loyal", "new", "new"] * 4)
    plain = open_widget("no-context", runner=runner, data={"sales": frame})
    c = send_and_wait(plain, "What is the total revenue of the faithful customers?")
    said = [m["entry"] for m in c.custom("entry")][-1]["text"]
    assert said.startswith("No answer:") and "`data_context=` in the chat widget" in said
    told = open_widget(
        "with-context",
        runner=runner,
        data={"sales": frame},
        data_context={"segment=loyal": "faithful"},
    )
    c = send_and_wait(told, "What is the total revenue of the faithful customers?")
    said = [m["entry"] for m in c.custom("entry")][-1]["text"]
    truth = frame[frame.segment == "loyal"].revenue.sum()
    assert f"{truth:g}" in said and not said.startswith("No answer")
    assert scripted.requests == []
    with pytest.raises(ValueError, match="data_context= takes a dict"):
        open_widget("bad-context", runner=runner, data={"sales": frame}, data_context=[1])
    with pytest.raises(ValueError, match="pass data= too"):
        open_widget("context-alone", runner=runner, data_context={"a": "b"})
