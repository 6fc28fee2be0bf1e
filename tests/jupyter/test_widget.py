"""ChatWidget, Python side: protocol, delta batching, close hooks, session sync.

The widget runs for real (anywidget + ipywidgets) on a real runner with the
ScriptedBackend. The only stand-in is the comm: `RecordingComm` is a
`comm.base_comm.BaseComm` whose ``publish_msg`` records instead of writing to
a kernel socket, installed through ``comm.create_comm`` (the hook a kernel
itself replaces). Front-end messages go in through ``comm.handle_msg`` and
``CommManager.comm_close``, the paths a kernel uses.
"""

from __future__ import annotations

import threading
import time
from collections.abc import Callable, Iterator
from typing import Any

import comm
import pytest
from comm.base_comm import BaseComm

from agent_nb import Agent, AgentRunner, GenerationConfig, get_runner, set_runner
from agent_nb._jupyter.widget.chat_widget import ChatWidget
from agent_nb._jupyter.widget.delta_batcher import DeltaBatcher
from agent_nb._jupyter.widget.protocol import DELTA_INTERVAL_S, entries_from_events, parse_from_js
from agent_nb.backends import ScriptedBackend, ToolCallChunk
from agent_nb.errors import InvalidSessionIdError
from tests.fixtures_runtime import RunnerFactory
from tests.waiting import wait_until


class RecordingComm(BaseComm):
    """A real Comm that keeps what it would publish: (monotonic time, type, data)."""

    def __init__(self, *args: Any, **kwargs: Any) -> None:
        self.published: list[tuple[float, str, dict[str, Any]]] = []
        self._published_lock = threading.Lock()
        super().__init__(*args, **kwargs)

    def publish_msg(
        self,
        msg_type: str,
        data: dict[str, Any] | None = None,
        metadata: dict[str, Any] | None = None,
        buffers: Any = None,
        **keys: Any,
    ) -> None:
        with self._published_lock:
            self.published.append((time.monotonic(), msg_type, dict(data or {})))

    def custom(self, kind: str | None = None) -> list[dict[str, Any]]:
        with self._published_lock:
            items = list(self.published)
        out = [d["content"] for _, t, d in items if d.get("method") == "custom"]
        return [m for m in out if kind is None or m["type"] == kind]

    def timed(self, kind: str) -> list[tuple[float, dict[str, Any]]]:
        with self._published_lock:
            items = list(self.published)
        return [
            (at, d["content"])
            for at, _, d in items
            if d.get("method") == "custom" and d["content"]["type"] == kind
        ]

    def states(self) -> list[dict[str, Any]]:
        with self._published_lock:
            return [d["state"] for _, _, d in self.published if d.get("method") == "update"]

    def from_frontend(self, content: dict[str, Any]) -> None:
        """Deliver a custom message as the kernel would."""
        self.handle_msg(
            {
                "content": {
                    "comm_id": self.comm_id,
                    "data": {"method": "custom", "content": content},
                },
                "buffers": [],
            }
        )


@pytest.fixture(autouse=True)
def recording_comms(monkeypatch: pytest.MonkeyPatch) -> None:
    monkeypatch.setattr(comm, "create_comm", RecordingComm)


def comm_of(widget: ChatWidget) -> RecordingComm:
    assert isinstance(widget.comm, RecordingComm)
    return widget.comm


def wait_for(predicate: Callable[[], Any], timeout: float = 10.0) -> Any:
    return wait_until(predicate, timeout=timeout)


def turn_done(c: RecordingComm, n: int = 1) -> Callable[[], bool]:
    return lambda: len(c.custom("turn_complete")) >= n


def send_and_wait(widget: ChatWidget, text: str, *, turns: int = 1) -> RecordingComm:
    """Send ``text`` as the front end would and wait for the widget's ``turns``-th turn end."""
    widget.send_message(text)
    c = comm_of(widget)
    wait_for(turn_done(c, turns))
    return c


WidgetFactory = Callable[..., ChatWidget]


@pytest.fixture
def open_widget() -> Iterator[WidgetFactory]:
    """``open_widget(...)`` takes `ChatWidget`'s arguments; each widget is closed after the test."""
    made: list[ChatWidget] = []

    def make(*args: Any, **kwargs: Any) -> ChatWidget:
        widget = ChatWidget(*args, **kwargs)
        made.append(widget)
        return widget

    yield make
    for widget in made:
        widget.close()


# -- protocol -------------------------------------------------------------------


def test_parse_from_js_accepts_the_three_requests_and_names_them_on_error() -> None:
    assert parse_from_js({"type": "send", "text": "hi"}) == {"type": "send", "text": "hi"}
    assert parse_from_js({"type": "stop"}) == {"type": "stop"}
    assert parse_from_js({"type": "new_chat", "extra": 1}) == {"type": "new_chat"}
    assert parse_from_js({"type": "catch_up"}) == {"type": "catch_up"}
    assert parse_from_js({"type": "switch_branch", "branch": 2}) == {
        "type": "switch_branch",
        "branch": 2,
    }
    with pytest.raises(ValueError, match="'switch_branch', 'chart_module' or 'approval'"):
        parse_from_js({"type": "rm -rf"})
    with pytest.raises(ValueError, match="integer 'branch'"):
        parse_from_js({"type": "switch_branch", "branch": "2"})
    with pytest.raises(ValueError, match="string 'text'"):
        parse_from_js({"type": "send", "text": 3})
    with pytest.raises(ValueError, match="must be an object"):
        parse_from_js(["send"])


def test_fork_arrows_switch_branches_in_every_view(
    runner: AgentRunner, open_widget: WidgetFactory
) -> None:
    session = runner.get_or_create_session("forked")
    first = session.run("a story, please")
    session.run("and a sequel")
    one, two = open_widget(session, runner=runner), open_widget(session, runner=runner)
    assert one.forks == [] and two.forks == []
    assert session.rewind(first.invocation_id) == 2
    edited = session.run("a poem instead")
    for view in (one, two):
        wait_for(lambda v=view: v.forks)  # type: ignore[misc]
        assert view.forks == [{"invocation_id": edited.invocation_id, "position": 2,
                               "count": 2, "prev_branch": 2, "next_branch": None}]  # fmt: skip
    # The "‹" arrow of one view switches the session; both views follow.
    comm_of(one).from_frontend({"type": "switch_branch", "branch": 2})
    for view in (one, two):
        users = [e["text"] for e in view.transcript if e["kind"] == "user"]
        assert users == ["a story, please", "and a sequel"]
        assert view.forks[0]["position"] == 1 and view.forks[0]["next_branch"] == 1
    # A branch that does not exist is refused in the widget, nothing changes.
    comm_of(two).from_frontend({"type": "switch_branch", "branch": 9})
    assert "branches 1 to 2, not 9" in comm_of(two).custom("error")[-1]["message"]
    assert session.branch == 2


def test_bad_frontend_message_is_answered_with_an_error(
    runner: AgentRunner, open_widget: WidgetFactory
) -> None:
    w = open_widget("proto", runner=runner)
    comm_of(w).from_frontend({"type": "explode"})
    (error,) = comm_of(w).custom("error")
    assert "unknown widget message type 'explode'" in error["message"]


def test_transcript_entries_cover_user_tools_model_and_turn(
    scripted: ScriptedBackend, make_runner: RunnerFactory
) -> None:
    def add(a: int, b: int) -> int:
        """Add."""
        return a + b

    r = make_runner(Agent(tools=[add]), model=scripted)
    scripted.enqueue(ToolCallChunk("add", {"a": 2, "b": 3}, call_id="c1"), "It is 5.")
    s = r.get_or_create_session("tools")
    s.run("2+3?")
    entries = entries_from_events(s.history)
    assert [e["kind"] for e in entries] == ["user", "tool_call", "tool_result", "model", "turn"]
    assert entries[1]["args"] == {"a": 2, "b": 3}  # type: ignore[typeddict-item]
    assert entries[2]["response"] == {"result": 5}  # type: ignore[typeddict-item]
    assert entries[3]["text"] == "It is 5."  # type: ignore[typeddict-item]
    assert entries[4]["usage"]["generated_tokens"] == 4  # type: ignore[typeddict-item]


# -- streaming ---------------------------------------------------------------------


def test_send_streams_deltas_then_entry_then_turn_complete_then_transcript(
    runner: AgentRunner, scripted: ScriptedBackend, open_widget: WidgetFactory
) -> None:
    reply = " ".join(f"token{i}" for i in range(60))
    scripted.enqueue(reply)
    scripted.token_delay = 0.002
    w = open_widget("stream", runner=runner)
    c = comm_of(w)
    c.from_frontend({"type": "send", "text": "hello"})
    wait_for(turn_done(c))
    kinds = [m["type"] for m in c.custom()]
    first_delta = kinds.index("delta")
    assert kinds[:first_delta] == ["entry"]  # the user message comes first
    assert kinds[-2:] == ["entry", "turn_complete"]  # final text, then the turn's end
    assert set(kinds[first_delta:-2]) == {"delta"}
    streamed = "".join(m["text"] for m in c.custom("delta"))
    model_entry = c.custom("entry")[-1]["entry"]
    assert streamed == model_entry["text"] == reply
    assert w.transcript[1]["text"] == reply
    assert c.states()[-1]["busy"] is False and len(c.states()[-1]["transcript"]) == 3
    done = c.custom("turn_complete")[0]
    assert done["finish_reason"] == "stop" and done["usage"]["generated_tokens"] == 60


def test_prompt_progress_reaches_the_front_end_before_the_first_delta(
    make_runner: RunnerFactory, open_widget: WidgetFactory
) -> None:
    slow = ScriptedBackend(["the answer"], token_delay=0.05, prefill_chunk=3)
    w = open_widget("reading", runner=make_runner(model=slow))
    c = comm_of(w)
    c.from_frontend({"type": "send", "text": "word " * 12})
    wait_for(turn_done(c))
    kinds = [m["type"] for m in c.custom()]
    assert "progress" in kinds and kinds.index("progress") < kinds.index("delta")
    assert "progress" not in kinds[kinds.index("delta") :]  # gone once text streams
    last = c.custom("progress")[-1]
    assert last["total"] == slow.count_tokens(slow.requests[-1])
    assert 0 < last["done"] < last["total"]
    assert all(e["kind"] != "progress" for e in w.transcript)  # never stored


def test_bundle_keeps_the_live_view_and_adds_the_transcript_as_text(
    runner: AgentRunner, scripted: ScriptedBackend, open_widget: WidgetFactory
) -> None:
    scripted.enqueue("<img src=x onerror=alert(1)> hi")
    w = open_widget("static", runner=runner)
    w.session.run("hello")
    data, _ = w._repr_mimebundle_()
    assert data["application/vnd.jupyter.widget-view+json"]["model_id"] == w.model_id
    assert data["text/plain"].startswith("ChatWidget: session 'static' (1 turn)")
    assert "assistant: <img src=x onerror=alert(1)> hi" in data["text/plain"]
    assert "&lt;img src=x onerror=alert(1)&gt; hi" in data["text/html"]
    assert "<img" not in data["text/html"]


def _rate_check(c: RecordingComm, reply: str, since: float) -> tuple[int, int]:
    """Check the batching; returns (delta count, most widget messages in any 1 s)."""
    timed = c.timed("delta")
    assert "".join(m["text"] for _, m in timed) == reply
    # At most one delta per interval (plus the final flush of the text block): counted
    # over the whole stream, since each send is timed here only after the batcher read
    # its clock, and a loaded machine delays some sends more than others (the exact
    # spacing is checked on the batcher's own clock in test_batcher_spacing_...).
    times = [at for at, _ in timed]
    assert len(times) <= (times[-1] - times[0]) / DELTA_INTERVAL_S + 2, len(times)
    # Everything the widget sent for the turn (entries, deltas, state), per second.
    sent = [at for at, kind, _ in c.published if kind == "comm_msg" and at >= since]
    busiest = max(sum(1 for t in sent if start <= t < start + 1.0) for start in sent)
    return len(timed), busiest


@pytest.mark.parametrize(
    ("tokens", "delay", "min_deltas"),
    [(5000, 0.0, 1), (800, 0.001, 5)],
    ids=["5000-tokens-full-speed", "800-tokens-paced"],
)
def test_streams_are_batched_to_at_most_40_messages_a_second(
    runner: AgentRunner,
    scripted: ScriptedBackend,
    open_widget: WidgetFactory,
    tokens: int,
    delay: float,
    min_deltas: int,
) -> None:
    reply = " ".join(f"t{i}" for i in range(tokens))
    scripted.enqueue(reply)
    scripted.token_delay = delay
    config = GenerationConfig(max_tokens=tokens + 100)
    w = open_widget(f"rate-{tokens}", runner=runner, config=config)
    c = comm_of(w)
    started = time.monotonic()
    w.send_message("go")
    wait_for(turn_done(c), timeout=60)
    count, busiest = _rate_check(c, reply, started)
    assert busiest <= 40, (count, busiest)
    assert count >= min_deltas  # a paced reply streams, not one lump at the end
    assert c.custom("entry")[-1]["entry"]["text"] == reply == w.transcript[1]["text"]


def test_batcher_spacing_and_invocation_switch() -> None:
    """Drive the batcher with its own clock and timer seams."""
    now = [0.0]
    sent: list[tuple[float, dict[str, Any]]] = []
    timers: list[tuple[float, Callable[[], None]]] = []
    b = DeltaBatcher(
        lambda m: sent.append((now[0], dict(m))),
        schedule=lambda delay, fn: timers.append((now[0] + delay, fn)),
        clock=lambda: now[0],
    )
    b.add("a", "x")  # first chunk goes at once
    now[0] = 0.010
    b.add("a", "y")
    now[0] = 0.020
    b.add("a", "z")
    assert [m["text"] for _, m in sent] == ["x"] and len(timers) == 1
    due, fire = timers.pop()
    assert due == pytest.approx(0.030)
    now[0] = due
    fire()
    assert [m["text"] for _, m in sent] == ["x", "yz"]
    now[0] = 0.040
    b.add("a", "1")
    b.add("b", "2")  # a new turn flushes the old one's text first
    assert [(m["invocation_id"], m["text"]) for _, m in sent[2:]] == [("a", "1")]
    b.flush()
    assert [(m["invocation_id"], m["text"]) for _, m in sent[3:]] == [("b", "2")]
    b.flush()  # nothing pending: nothing sent
    assert len(sent) == 4


# -- stop, new chat, errors -----------------------------------------------------------


def start_long_turn(
    make: WidgetFactory, runner: AgentRunner, scripted: ScriptedBackend, session_id: str
) -> ChatWidget:
    """A widget (from ``make``) whose front end sent a message that takes ~10 s to
    answer, now streaming."""
    scripted.enqueue(" ".join(["word"] * 500))
    scripted.token_delay = 0.02
    w = make(session_id, runner=runner)
    comm_of(w).from_frontend({"type": "send", "text": "long please"})
    wait_for(lambda: comm_of(w).custom("delta"))
    return w


def test_stop_from_frontend_cancels_the_turn(
    runner: AgentRunner, scripted: ScriptedBackend, open_widget: WidgetFactory
) -> None:
    """Stop ends the ~10 s turn early (how soon: benchmarks/bench_stop.py)."""
    w = start_long_turn(open_widget, runner, scripted, "stop")
    c = comm_of(w)
    c.from_frontend({"type": "stop"})
    wait_for(turn_done(c), timeout=30)
    done = c.custom("turn_complete")[0]
    assert done["interrupted"] and done["finish_reason"] == "cancelled"
    assert w.transcript[1]["interrupted"] is True
    streamed = "".join(m["text"] for m in c.custom("delta"))
    assert streamed == w.transcript[1]["text"]
    c.from_frontend({"type": "send", "text": "again"})  # the next message works
    wait_for(turn_done(c, 2))
    assert w.transcript[-2]["text"] == "You said: again"


def test_a_view_opened_mid_turn_catches_up(
    runner: AgentRunner, scripted: ScriptedBackend, open_widget: WidgetFactory
) -> None:
    w = start_long_turn(open_widget, runner, scripted, "late-view")
    c = comm_of(w)
    wait_for(lambda: len(c.custom("delta")) >= 3)
    c.from_frontend({"type": "catch_up"})  # what a view rendered now sends
    (snapshot,) = c.custom("snapshot")
    streamed_before = "".join(
        m["text"] for m in c.custom()[: c.custom().index(snapshot)] if m["type"] == "delta"
    )
    # The snapshot holds exactly what streamed so far; the user's message is in
    # the transcript already, before the turn ends.
    assert snapshot["text"] == streamed_before and snapshot["text"].startswith("word word")
    assert [e["kind"] for e in c.states()[-1]["transcript"]] == ["user"]
    assert w.busy
    w.stop()
    wait_for(turn_done(c))
    after = c.custom()[c.custom().index(snapshot) + 1 :]
    streamed_after = "".join(m["text"] for m in after if m["type"] == "delta")
    assert snapshot["text"] + streamed_after == w.transcript[1]["text"]
    c.from_frontend({"type": "catch_up"})  # when idle: just the transcript again
    assert len(c.custom("snapshot")) == 1


def test_send_while_busy_reports_the_busy_error(
    runner: AgentRunner, scripted: ScriptedBackend, open_widget: WidgetFactory
) -> None:
    w = start_long_turn(open_widget, runner, scripted, "busy")
    c = comm_of(w)
    assert w.busy
    w.send_message("second")
    (error,) = c.custom("error")
    assert "already running a turn" in error["message"]
    w.send_message("   ")
    w.stop()
    wait_for(turn_done(c))


def test_new_chat_switches_to_a_fresh_session_and_keeps_the_old(
    runner: AgentRunner, open_widget: WidgetFactory
) -> None:
    # The README pattern: cells talk in a session, a widget opens on it, New chat.
    runner.get_or_create_session("old-chat").run("from a cell")
    w = open_widget("old-chat", runner=runner)  # evict_on_close=True, the default
    c = comm_of(w)
    w.send_message("hi")
    wait_for(turn_done(c))
    old = w.session
    c.from_frontend({"type": "new_chat"})
    assert w.session_id != "old-chat" and w.session_id.startswith("chat-")
    assert w.transcript == [] and c.states()[-1]["session_id"] == w.session_id
    # The old conversation is untouched, listed, and still usable by its other users.
    time.sleep(0.2)  # an eviction, had one been dispatched, would have run by now
    assert not old.closed and "old-chat" in [s.id for s in runner.sessions()]
    assert runner.get_or_create_session("old-chat") is old
    assert [e["text"] for e in entries_from_events(old.history) if "text" in e] == [
        "from a cell",
        "You said: from a cell",
        "hi",
        "You said: hi",
    ]
    assert old.run("still here").text == "You said: still here"
    # Events of the old session no longer reach the widget.
    assert w.transcript == []


# -- close hooks ------------------------------------------------------------------------


def test_close_evicts_the_session_unless_told_not_to(runner: AgentRunner) -> None:
    w = ChatWidget("closing", runner=runner)
    send_and_wait(w, "hi")
    session = w.session
    w.close()
    assert session.closed and w.comm is None
    wait_for(lambda: "closing" not in [s.id for s in runner.sessions()])

    keep = ChatWidget("keeping", runner=runner, evict_on_close=False)
    keep.close()
    assert not keep.session_closed
    assert "keeping" in [s.id for s in runner.sessions()]


def test_frontend_closing_the_comm_evicts_the_session(runner: AgentRunner) -> None:
    w = ChatWidget("fe-close", runner=runner)
    session = w.session
    c = comm_of(w)
    # What the kernel does on a comm_close from the front end (stream/ident unused).
    close_msg: Any = {"content": {"comm_id": c.comm_id}}
    comm.get_comm_manager().comm_close(None, "", close_msg)  # type: ignore[arg-type]
    assert session.closed and w.comm is None
    wait_for(lambda: "fe-close" not in [s.id for s in runner.sessions()])


def test_close_during_a_turn_cancels_it(runner: AgentRunner, scripted: ScriptedBackend) -> None:
    w = start_long_turn(ChatWidget, runner, scripted, "close-busy")
    w.close()
    wait_for(lambda: "close-busy" not in [s.id for s in runner.sessions()], timeout=3)


# -- shared sessions ---------------------------------------------------------------------


def test_two_widgets_and_plain_code_share_one_session(
    runner: AgentRunner, scripted: ScriptedBackend, open_widget: WidgetFactory
) -> None:
    scripted.token_delay = 0.001
    a = open_widget("shared", runner=runner)
    b = open_widget(runner.get_or_create_session("shared"), evict_on_close=False)
    assert a.session is b.session
    runner.get_or_create_session("shared").run("from a cell")  # as %%agent would
    wait_for(turn_done(comm_of(a)))
    wait_for(turn_done(comm_of(b)))
    a.send_message("from widget a")
    wait_for(turn_done(comm_of(b), 2))
    for w in (a, b):
        c = comm_of(w)
        assert "".join(m["text"] for m in c.custom("delta")) == (
            "You said: from a cell" + "You said: from widget a"
        )
        assert [e["kind"] for e in w.transcript] == ["user", "model", "turn"] * 2
    assert a.transcript == b.transcript


def test_reexecuting_a_named_widget_keeps_history(
    runner: AgentRunner, open_widget: WidgetFactory
) -> None:
    first = open_widget("named", runner=runner)
    send_and_wait(first, "remember me")
    second = open_widget("named", runner=runner)
    assert second.session is first.session
    assert second.transcript[0]["text"] == "remember me"


def test_session_closed_elsewhere_is_shown_then_reopened_on_send(
    runner: AgentRunner, open_widget: WidgetFactory
) -> None:
    w = open_widget("elsewhere", runner=runner)
    send_and_wait(w, "one")
    runner.delete_session("elsewhere")
    assert w.session_closed
    send_and_wait(w, "two", turns=2)
    assert not w.session.closed and w.session.id == "elsewhere"
    assert [e["kind"] for e in w.transcript] == ["user", "model", "turn"]


# -- construction -----------------------------------------------------------------------


def test_session_argument_forms(
    runner: AgentRunner, open_widget: WidgetFactory, make_runner: RunnerFactory
) -> None:
    fresh = open_widget(runner=runner)
    assert fresh.session_id.startswith("chat-") and fresh.model_label == "scripted"
    with pytest.raises(InvalidSessionIdError, match="1 to 128 characters"):
        ChatWidget("no spaces allowed", runner=runner)
    with pytest.raises(TypeError, match="session id string or an AgentSession"):
        ChatWidget(42, runner=runner)  # type: ignore[arg-type]
    other = make_runner(model=ScriptedBackend())
    with pytest.raises(ValueError, match="another runner"):
        ChatWidget(other.get_or_create_session("x"), runner=runner)


def test_default_runner_is_the_kernel_runner(
    runner: AgentRunner, open_widget: WidgetFactory
) -> None:
    previous = set_runner(runner)
    try:
        w = open_widget("default-runner")
        assert w.runner is get_runner() is runner
    finally:
        if previous is not None:
            set_runner(previous)


# -- context window --------------------------------------------------------------


def test_footer_data_carries_the_window_and_a_too_big_message_is_reported(
    open_widget: WidgetFactory, make_runner: RunnerFactory
) -> None:
    runner = make_runner(model=ScriptedBackend(context_window=60))
    w = open_widget("windowed", runner=runner, config=GenerationConfig(max_tokens=4))
    c = comm_of(w)
    for i in range(8):
        c.from_frontend({"type": "send", "text": f"question {i} about the data frame"})
        wait_for(turn_done(c, i + 1))
    usage = c.custom("turn_complete")[-1]["usage"]
    assert usage["context_window"] == 60 and 0 < usage["context_tokens"] <= 56
    assert usage["window_note"].endswith("no longer fit the 60-token window; they stay in history")
    assert c.custom("turn_complete")[0]["usage"]["window_note"] is None
    # A message too big for the window records nothing, so only this says so.
    c.from_frontend({"type": "send", "text": "word " * 70})
    error = wait_for(lambda: c.custom("error"))[0]
    assert error["message"].startswith("the current message needs")
    assert len(c.custom("turn_complete")) == 8 and not w.busy


def test_a_turn_behind_another_sessions_turn_says_what_it_waits_for(
    make_runner: RunnerFactory, open_widget: WidgetFactory
) -> None:
    """On a model that answers one turn at a time the widget shows the cell's words
    for the wait, until its turn starts; a view opened meanwhile is told too."""
    model = ScriptedBackend(
        [" ".join(["word"] * 40), "mine"], token_delay=0.02, one_turn_at_a_time=True
    )
    runner = make_runner(model=model)
    ahead = open_widget("ahead", runner=runner)
    comm_of(ahead).from_frontend({"type": "send", "text": "a long one"})
    wait_for(lambda: comm_of(ahead).custom("delta"))
    w = open_widget("behind", runner=runner)
    c = comm_of(w)
    c.from_frontend({"type": "send", "text": "hello"})
    wait_for(lambda: c.custom("waiting"))
    c.from_frontend({"type": "catch_up"})  # a view opened while it waits
    wait_for(turn_done(c))
    note = "waiting for session 'ahead' to finish its turn on the model"
    assert [m["note"] for m in c.custom("waiting")] == [note, note, ""]
    kinds = [m["type"] for m in c.custom()]
    assert kinds.index("snapshot") < len(kinds) - 1 - kinds[::-1].index("waiting")
    last_wait = len(kinds) - 1 - kinds[::-1].index("waiting")
    assert last_wait < kinds.index("delta")  # cleared before its first token
    assert not comm_of(ahead).custom("waiting")  # nothing was ahead of it
    assert w.transcript[-2]["text"] == "mine"
    assert all(e["kind"] != "waiting" for e in w.transcript)  # never stored
