"""Approval before a tool acts (ADK's tool confirmation, ``require_confirmation``).

**Which calls wait.** A tool marked ``@tool(confirm=True)`` (an MCP tool that
its server does not mark ``readOnlyHint``; an `AgentTool` whose agent has
such a tool below it) needs approval. The policy, ``approve_tools``, says
what happens to it:

* ``"ask"`` (the default): the call waits for the user's answer;
* ``"read-only"``: the call is not run and nobody is asked; the model gets
  `READ_ONLY_DENIED` as the tool's result and goes on;
* ``"all"``: every tool runs without asking.

Tools that need no approval always run. The policy is the runner's
(``AgentRunner(approve_tools=...)``, ``runner.approve_tools = ...``; in a
notebook ``%config AgentMagics.approve_tools``), or a turn's own
(`TurnOptions.approve_tools`). Inside an approved `AgentTool` run, its
agent's tools run without asking again: the user approved that agent's work.

**The pause.** The waiting call is recorded first (a `FunctionCall` with
``needs_approval``, in the store, so a reload or another kernel sees it
waiting), then the turn's task waits on it in place, on the worker loop: no
model call is repeated, and a turn of several agents (a sequence, parallel
branches) resumes exactly where it stood. The part of the turn before the
pause ends its `EventStream`, and its `Reply` has ``awaiting_approval``.
``session.approve()`` / ``session.deny()`` answer (every waiting call, or
one by ``call_id``) and return the next part. An approved call runs the tool
with the recorded arguments; a denied one gets `DENIED` as its result, and
the model goes on. The turn keeps its session busy (and its store lease)
while it waits.

**Nothing dangles.** A stop (``session.cancel()``, the widget's Stop, a
closed widget, a kernel shutting down) cancels the waiting turn like any
running one: each waiting call is answered with `STOPPED_WAITING` and the
turn ends interrupted. A kernel killed outright leaves the call unanswered in
the store; the session's next turn answers it (`close_unfinished_turn`).
"""

from __future__ import annotations

import asyncio
from collections.abc import Callable
from typing import Literal, TypeAlias

from .._core.tools import Tool
from .._core.types import FunctionCall

__all__ = [
    "APPROVE_TOOLS",
    "ApprovalPolicy",
    "Approvals",
    "Decision",
    "check_approve_tools",
    "decide",
    "waiting_refusal",
]

ApprovalPolicy: TypeAlias = Literal["ask", "read-only", "all"]
APPROVE_TOOLS: tuple[ApprovalPolicy, ...] = ("ask", "read-only", "all")
Decision: TypeAlias = Literal["run", "ask", "deny"]


def check_approve_tools(value: object) -> ApprovalPolicy:
    if value not in APPROVE_TOOLS:
        raise ValueError(
            "approve_tools must be 'ask' (tools that need approval wait for it), "
            "'read-only' (they are not run) or 'all' (every tool runs without asking), "
            f"got {value!r}"
        )
    return value


def waiting_refusal(session_id: str) -> str:
    """Why a session whose turn waits for approval takes no new turn, and what to do."""
    return (
        f"session {session_id!r} has a tool call waiting for approval; answer it with "
        f"session.approve() or session.deny() (in a notebook: %agent approve {session_id} / "
        f"%agent deny {session_id}), or stop the turn with session.cancel()"
    )


def decide(tool: Tool, policy: ApprovalPolicy, *, approved_run: bool = False) -> Decision:
    """What happens to a call of ``tool`` (``approved_run``: inside an approved AgentTool)."""
    if not tool.confirm or policy == "all" or approved_run:
        return "run"
    return "ask" if policy == "ask" else "deny"


class Approvals:
    """The calls of one turn that wait for an answer.

    Everything but `shown` runs on the worker loop. ``on_pause(calls)`` ends
    the current part of the turn (its reply lists ``calls``); it is called
    once per part: calls that start waiting in the same loop pass (parallel
    branches) pause together, and one that starts waiting before anyone took
    the next part (`answer`) joins the pause already made.
    """

    def __init__(self, on_pause: Callable[[tuple[FunctionCall, ...]], None]) -> None:
        self._on_pause = on_pause
        self._waiting: dict[str, tuple[FunctionCall, asyncio.Future[bool]]] = {}
        #: Calls recorded as waiting whose task has not reached `ask` yet (`expect`),
        #: and the answers given to them meanwhile: a view shows the buttons as soon
        #: as the call is recorded, and a click may come before the task waits.
        self._expected: dict[str, FunctionCall] = {}
        self._early: dict[str, bool] = {}
        self._stopped: set[str] = set()
        self._due: asyncio.Handle | None = None
        self._part_taken = True  # someone waits on the current part (run, then answer)
        #: The calls waiting when the turn last paused or was answered: a snapshot
        #: any thread may read (``session.awaiting_approval``).
        self.shown: tuple[FunctionCall, ...] = ()

    def waiting(self) -> tuple[FunctionCall, ...]:
        return tuple(call for call, answer in self._waiting.values() if not answer.done())

    def unanswered(self, call_id: str) -> bool:
        """The call waited and was never answered (it waits, or its turn was stopped)."""
        entry = self._waiting.get(call_id)
        return call_id in self._stopped or (entry is not None and not entry[1].done())

    def expect(self, call: FunctionCall) -> None:
        """``call`` is recorded as waiting; its task asks next (an answer that comes
        first is kept for it)."""
        self._expected[call.call_id] = call

    async def ask(self, call: FunctionCall) -> bool:
        """Wait for the user's answer to ``call`` (already recorded); True: approved."""
        self._expected.pop(call.call_id, None)
        if call.call_id in self._early:  # answered between its record and now
            return self._early.pop(call.call_id)
        loop = asyncio.get_running_loop()
        answer: asyncio.Future[bool] = loop.create_future()
        self._waiting[call.call_id] = (call, answer)
        if self._due is None:
            self._due = loop.call_soon(self._pause)
        try:
            return await answer
        finally:
            if answer.cancelled() or not answer.done():  # stopped while the call waited
                self._stopped.add(call.call_id)
            self._waiting.pop(call.call_id, None)

    def _pause(self) -> None:
        self._due = None
        waiting = self.waiting()
        self.shown = waiting
        if waiting and self._part_taken:
            self._part_taken = False
            self._on_pause(waiting)

    def answer(self, approved: bool, call_id: str | None, session_id: str) -> None:
        """Answer every waiting call, or the one ``call_id`` names. Raises ValueError,
        answering nothing, when nothing waits or ``call_id`` is not waiting."""
        if self._due is not None:  # a pause was due: the part before it ends first
            self._due.cancel()
            self._pause()
        waiting = self.waiting()
        expected = [c for c in self._expected.values() if c.call_id not in self._early]
        if not waiting and not expected:
            raise ValueError(f"session {session_id!r} has no tool call waiting for approval")
        chosen = [c for c in (*waiting, *expected) if call_id is None or c.call_id == call_id]
        if not chosen:
            ids = ", ".join(f"{c.call_id!r} ({c.name})" for c in (*waiting, *expected))
            raise ValueError(f"call_id {call_id!r} is not waiting for approval; waiting: {ids}")
        for call in chosen:
            if call.call_id in self._waiting:
                self._waiting[call.call_id][1].set_result(approved)
            else:
                self._early[call.call_id] = approved
        self._part_taken = True
        self.shown = self.waiting()

    def pause_if_waiting(self) -> None:
        """Calls still wait after an answer: the part just taken ends at once."""
        if self.waiting():
            self._pause()
