"""``%%agent`` and ``%agent``: the notebook's conversation surface.

Both magics work on the kernel-scoped runner (`get_runner()`), so a session
started in a cell is the same object a `ChatWidget` shows. A cell is parse ->
request -> start -> render (docs/architecture.md, "The turn's path"): its
options are parsed (`args`) and its message composed (`compose`); a
`TurnRequest` names the turn the cell's re-run replaces (`rerun`) and goes
through the runner's front door (`AgentRunner.start_turn`), which holds the
turn policy; the stream is shown in the output (`cell_output`) and the cell
finishes (`finish`). The settings live in `config`. Bad input never reaches the model: options,
session id, interpolated names, ``--data`` names, the output variable,
sampling values and the model are all checked before anything is rewound or
sent, and every problem is a one-line `UsageError` rather than a traceback.

A kernel interrupt cancels the turn; the cell keeps what was generated, marks
it interrupted and ends with a one-line note (`TurnInterruptedError`, shown
without a label or traceback) that still fails the cell, so "Run all" stops there.
"""

from __future__ import annotations

import contextlib
import dataclasses
from collections.abc import Callable
from typing import Any

from IPython.core.magic import cell_magic, line_magic, magics_class

from ..._core.types import Rewound
from ..._runtime.face import AgentRunner, EventStream, TurnAsk, TurnRequest, get_runner
from ...errors import ContextWindowError
from ..data_question import DataQuestion
from ..holder_names import CELLS_HOLDER
from ..prompts.last_error import LastError, error_from_result
from ..staleness import Input, Staleness
from ..turn_settings import kernel_settings
from . import config_guard
from .approval_cell import answer_args, answer_turn, settle
from .args import cell_options, check_output_name, parse, tool_names
from .cell_output import Outcome, output_for, show_bundle, show_turn
from .commands import Commands, with_commands_help
from .compose import compose, variables
from .config import MagicsConfig
from .data_cell import prepare_answer, read_data_context
from .explain import explain
from .finish import end_cell, finish_cell, window_refusal
from .rerun import CellTurns, rerun_note
from .structured import schema_from_namespace
from .usage import usage_errors

__all__ = [
    "CELLS_HOLDER",
    "AgentMagics",
    "load_ipython_extension",
    "unload_ipython_extension",
]


@magics_class
class AgentMagics(MagicsConfig):
    """``%%agent`` / ``%agent``; configure with ``%config AgentMagics.<trait> = ...``."""

    shell: Any  # IPython types it Optional; the registered instance always has one

    def __init__(self, shell: Any = None, **kwargs: Any) -> None:
        super().__init__(shell=shell, **kwargs)  # a configured store is installed here
        self.turns = CellTurns()
        self.last_error: LastError | None = None  # the latest failed cell, for %agent explain
        self._history_len: int | None = None  # input history length when this cell started
        self._commands = Commands(
            default_session=lambda: self.default_session,
            show=self._show,
            cells=self.turns.cells,
            model_changed=self._model_changed,
            explain=self._explain,
            mcp_timeout=lambda: self.mcp_timeout,
            answer=self._answer,
        )
        self.staleness = Staleness(shell)  # stale marks on answers whose inputs changed
        if shell is not None:
            shell.events.register("pre_run_cell", self._pre_run_cell)
            shell.events.register("post_run_cell", self._post_run_cell)

    def close(self) -> None:
        """Detach from the shell (``%unload_ext``)."""
        self.staleness.close()
        if self.shell is None:
            return
        hooks = (("pre_run_cell", self._pre_run_cell), ("post_run_cell", self._post_run_cell))
        for event, callback in hooks:
            with contextlib.suppress(ValueError):
                self.shell.events.unregister(event, callback)

    def _pre_run_cell(self, info: Any) -> None:
        self.turns.started(info, self.shell)
        self._history_len = len(self.shell.history_manager.input_hist_raw)
        self.staleness.pre_run_cell(info)

    def _post_run_cell(self, result: Any) -> None:
        self.turns.ended()
        self._history_len = None
        self.last_error = error_from_result(result) or self.last_error
        self.staleness.post_run_cell(result)  # marks answers whose inputs changed

    def _show(self, bundle: dict[str, str]) -> None:
        show_bundle(self.shell, bundle)

    # -- %%agent ------------------------------------------------------------

    @cell_options
    @cell_magic("agent")  # type: ignore[arg-type]  # IPython types only the bare form
    @usage_errors
    def agent_cell(self, line: str, cell: str) -> None:
        args = parse(line)
        check_output_name(args.output)
        runner = get_runner()
        request = self._request(args)
        count = _counter(runner, request, args)
        composed = compose(
            self.shell,
            cell,
            args,
            data_mode=self.data_mode,
            data_budget=self.data_budget,
            cells_budget=self.cells_budget,
            history_len=self._history_len,
            count=count,
        )
        data, answer = None, None
        if composed.frames:
            data = DataQuestion(
                composed.frames,
                composed.question,
                context=read_data_context(self.shell.user_ns, args.data_context),
                structured=bool(args.schema or args.choice),
                # a summary beside the tables is for the model to read: it words the reply
                wording="model" if composed.summarized else args.data_wording or self.data_wording,
            )
            answer = prepare_answer(data)
        inputs = self.staleness.inputs(
            names=variables(args.data),
            cells=list(composed.cells_read),
            references=composed.references,
        )
        request = dataclasses.replace(request, message=composed.text, data=data)
        self._send(runner, args, request, inputs=inputs, answer=answer)

    def _request(self, args: Any) -> TurnRequest:
        """The cell's turn as the runner's front door takes it, its message still to
        be composed: what the cell asked for and the kernel's settings now, both
        resolved by the runner (one rule with the widget's)."""
        session_id = None if args.once else (args.session or self.default_session)
        replaces = None
        if session_id is not None and self.on_rerun == "rewind":
            replaces = self.turns.earlier_turn(session_id)
        ask = TurnAsk(
            model=args.model,
            system=args.system,
            temperature=args.temperature,
            max_tokens=args.max_tokens,
            context_policy=args.context,
            output_schema=schema_from_namespace(args.schema, self.shell.user_ns),
            choice=args.choice,
            tool_choice=args.tool_choice,
            fresh=args.fresh,
        )
        return TurnRequest(
            "",
            session_id,
            replaces=replaces,
            new=args.new,
            holder=CELLS_HOLDER,
            tools=tuple(tool_names(args.tools)),  # the runner looks the names up
            ask=ask,
            settings=kernel_settings(self),
        )

    def _send(
        self,
        runner: AgentRunner,
        args: Any,
        request: TurnRequest,
        *,
        inputs: tuple[Input, ...] = (),
        answer: Any = None,
    ) -> None:
        """Start -> render: the cell's turn through the front door."""
        session_id, replaces = request.session_id, request.replaces
        try:
            stream = runner.start_turn(request)
        except ContextWindowError as exc:
            raise window_refusal(exc, args) or exc from None
        try:
            if args.new:
                print(f"started a new session {session_id!r}")
            # Started first, so the turn status widget (made here once per kernel)
            # costs no time to first token: the model is already reading the prompt.
            output = output_for(self.shell, args.format)
        except BaseException:  # Ctrl-C before show_turn watches: stop the turn, not leave it
            stream.cancel()
            raise

        def rewound(event: Rewound) -> None:
            later = list(event.turns[1:])
            self._show(rerun_note(str(session_id), later, event.moved_to, event.shared_state))

        on_rewound = rewound if replaces is not None else None
        outcome = show_turn(stream, output, self.stream_interval, on_rewound=on_rewound)
        if outcome.reply is not None and outcome.reply.awaiting_approval:
            started = outcome.invocation_id
            outcome = settle(self.shell, outcome, self._part_shower(args.format))
            outcome.invocation_id = outcome.invocation_id or started
        if outcome.invocation_id:
            self.staleness.watch(
                self.turns.cell_id, session_id or "", outcome.invocation_id, inputs, output.mark
            )
        if session_id is not None and outcome.invocation_id:
            self.turns.remember(session_id, outcome.invocation_id)
        finish_cell(self.shell, args, outcome, answer, session_id)

    def _part_shower(self, fmt: Any) -> Callable[[EventStream], Outcome]:
        """Shows one more part of a turn (after an approval) in an output of its own."""
        return lambda stream: show_turn(stream, output_for(self.shell, fmt), self.stream_interval)

    def _answer(self, argv: list[str], approved: bool) -> None:
        """``%agent approve|deny [ID] [--call CALL_ID]``: answer the calls a session's
        turn waits on and show the rest of the turn here."""
        session_id, call_id = answer_args(argv, approved, self.default_session)
        part = self._part_shower("markdown")
        outcome = settle(self.shell, part(answer_turn(session_id, call_id, approved)), part)
        end_cell(outcome, session_id)

    # -- %agent ---------------------------------------------------------------

    @line_magic("agent")  # type: ignore[arg-type]
    @with_commands_help
    def agent_line(self, line: str) -> Any:
        return self._commands.run(line)

    def _model_changed(self, spec: str) -> None:
        """``%agent model SPEC``: a set default_model follows the runner's new model."""
        if self.default_model:
            self.default_model = spec

    def _explain(self, argv: list[str]) -> None:
        runner = get_runner()
        explain(
            argv,
            shell=self.shell,
            last_error=self.last_error,
            budget_tokens=self.error_budget,
            turn_defaults=lambda: parse(""),
            counter=lambda args: _counter(runner, self._request(args), args),
            send=lambda args, message: self._send(
                runner, args, dataclasses.replace(self._request(args), message=message)
            ),
        )


def _counter(runner: AgentRunner, request: TurnRequest, args: Any) -> Callable[[str], int]:
    """The request's token counter (its options and model checked now, before the
    message is composed); a ``--max-tokens`` outside the window is a usage error."""
    try:
        return runner.token_counter(request)
    except ContextWindowError as exc:
        raise window_refusal(exc, args) or exc from None


def load_ipython_extension(ipython: Any) -> None:
    magics = AgentMagics(shell=ipython)
    get_runner()  # the kernel-scoped runner exists from here on (cheap: no model loads yet)
    ipython.register_magics(magics)
    if magics not in ipython.configurables:
        ipython.configurables.append(magics)
    config_guard.install(ipython, magics)  # a refused %config value fails the cell


def unload_ipython_extension(ipython: Any) -> None:
    config_guard.uninstall(ipython)
    manager = ipython.magics_manager
    magics = manager.registry.pop("AgentMagics", None)
    for kind in ("line", "cell"):
        func = manager.magics[kind].get("agent")
        if func is not None and getattr(func, "__self__", None) is magics:
            del manager.magics[kind]["agent"]
    if magics is not None:
        magics.close()
        if magics in ipython.configurables:
            ipython.configurables.remove(magics)
