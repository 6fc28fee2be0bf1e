"""``%%agent`` and ``%agent``: the notebook's conversation surface.

Both magics work on the kernel-scoped runner (`get_runner()`), so a session
started in a cell is the same object a `ChatWidget` shows. A cell is parsed
(`args`), its message composed (`compose`), its turn started (rewinding the
cell's earlier turn, `rerun`) and streamed into the output (`stream`); the
settings live in `config`. Bad input never reaches the model: options,
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

from IPython.core.displaypub import DisplayPublisher
from IPython.core.error import UsageError
from IPython.core.magic import cell_magic, line_magic, magics_class

from ..._core.approvals import waiting_line
from ..._core.ids import check_session_id, is_single_turn_id
from ..._core.tokens import TextCounter, text_counter
from ..._core.window import omitted_line
from ..._runtime.kernel_runner import get_runner
from ..._runtime.options import TurnOptions
from ..._runtime.runner import AgentRunner
from ..._runtime.stream import EventStream
from ...backends import Backend
from ...data import DataAgent
from ...data.agent import writer_for
from ...errors import SessionBusyError, TurnInterruptedError
from ..front_end import batch_run
from ..prompts.last_error import LastError, error_from_result
from ..staleness import Input, Staleness
from ..turn_origins import follow_store
from ..turn_settings import turn_options
from . import config_guard
from .approval_cell import answer_args, answer_turn, settle
from .args import cell_options, check_output_name, parse
from .code_cell import next_cell
from .commands import Commands, with_commands_help
from .compose import compose
from .config import MagicsConfig
from .data_cell import attach, prepare_answer, show_answer
from .explain import explain
from .rerun import CellTurns, rerun_note, shared_state_writes
from .stream import DisplaySink, Outcome, TerminalSink, drive
from .structured import schema_from_namespace
from .usage import usage_errors

__all__ = [
    "CELLS_HOLDER",
    "AgentMagics",
    "load_ipython_extension",
    "unload_ipython_extension",
]

CELLS_HOLDER = "%%agent cells"
"""How ``%agent sessions`` names the cells that use a session."""


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

    def _rich_output(self) -> bool:
        """False in a terminal, whose publisher can only print text/plain."""
        return type(self.shell.display_pub) is not DisplayPublisher

    def _widgets_render(self) -> bool:
        """A kernel's front end may render widgets: not a plain IPython shell, nor a
        batch run (nbconvert, papermill), which no one watches."""
        return getattr(self.shell, "kernel", None) is not None and not batch_run(self.shell)

    def _show(self, bundle: dict[str, str]) -> None:
        """A MIME bundle into the output (a terminal prints its text/plain)."""
        if self._rich_output():
            from IPython.display import display

            display(bundle, raw=True)
        else:
            print(bundle["text/plain"])

    # -- %%agent ------------------------------------------------------------

    @cell_options
    @cell_magic("agent")  # type: ignore[arg-type]  # IPython types only the bare form
    @usage_errors
    def agent_cell(self, line: str, cell: str) -> None:
        args = parse(line)
        count = self._counter(args)  # budgets in the turn's model's tokens
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
        agent, answer = None, None
        if composed.frames:
            from ...data.choose import model_chooser

            data_agent = DataAgent(
                data=composed.frames,
                question=composed.question,
                choose=model_chooser(self._turn_backend(args)),
            )
            answer = prepare_answer(data_agent, composed.question)
            agent = self._data_pipeline(args, data_agent)
        inputs = self.staleness.inputs(
            names=args.data, cells=list(composed.cells_read), references=composed.references
        )
        self._send(args, composed.text, agent, inputs, answer)

    def _data_pipeline(self, args: Any, data_agent: DataAgent) -> Any:
        """The data agent, then the writer of the cell's session (`writer_for`);
        ``-s`` / AgentMagics.system_prompt join its instructions."""
        runner = get_runner()
        base = runner.agent
        if not args.once:
            base = runner.get_or_create_session(args.session or self.default_session).agent
        system = args.system if args.system is not None else self.system_prompt
        return data_agent.pipeline(writer_for(base, system))

    def _turn_backend(self, args: Any) -> Backend:
        """The model the turn will run on; a bad spec fails here, not mid-turn."""
        runner = get_runner()
        return runner.check_model(args.model or self.default_model or runner.model)

    def _counter(self, args: Any) -> TextCounter:
        """Tokens as the turn's model counts them (its tokenizer, else the estimate)."""
        return text_counter(self._turn_backend(args).count_text_tokens)

    def _send(
        self,
        args: Any,
        message: str,
        agent: Any = None,
        inputs: tuple[Input, ...] = (),
        answer: Any = None,
    ) -> None:
        """Check the options, start the turn (rewinding a re-run cell) and stream it."""
        runner = get_runner()
        session_id = args.session or self.default_session
        check_output_name(args.output)
        options = turn_options(
            self,
            model=args.model,
            system=args.system,
            temperature=args.temperature,
            max_tokens=args.max_tokens,
            context_policy=args.context,
            choice=args.choice,
            output_schema=schema_from_namespace(args.schema, self.shell.user_ns),
            fresh=args.fresh,
        )
        if not args.once:
            check_session_id(session_id)
        backend = self._turn_backend(args)
        _check_max_tokens(args.max_tokens, backend)
        waiting_for = _waiting_note(runner, backend)
        if agent is not None:  # the data pipeline: -s is already in the writer's instructions
            options = dataclasses.replace(options, agent=agent, system=None)
        if args.once:
            stream = runner.run_single_turn_async(message, turn_options=options)
        else:
            stream = self._start(runner, session_id, message, args.new, options)
        # Started first, so the turn status widget (made here once per kernel)
        # costs no time to first token: the model is already reading the prompt.
        sink = self._sink(args.format)
        outcome = drive(stream, sink, self.stream_interval, waiting_for)
        if outcome.reply is not None and outcome.reply.awaiting_approval:
            started = outcome.invocation_id
            outcome = settle(self.shell, outcome, self._part_driver(args.format))
            outcome.invocation_id = outcome.invocation_id or started
        if outcome.invocation_id:
            self.staleness.watch(
                self.turns.cell_id, session_id, outcome.invocation_id, inputs, sink.mark
            )
        if not args.once and outcome.invocation_id:
            self.turns.remember(session_id, outcome.invocation_id)
        if answer is not None and outcome.reply is not None and not outcome.interrupted:
            outcome.reply = attach(outcome.reply, answer, show_answer(answer))
        if args.output and outcome.reply is not None:
            self.shell.user_ns[args.output] = outcome.reply
        if args.code and outcome.reply is not None and not outcome.interrupted:
            next_cell(self.shell, outcome.reply.text, args.output)
        if outcome.reply is not None and outcome.reply.usage.omitted_turns:  # context window
            usage = outcome.reply.usage
            print(omitted_line(usage.omitted_turns, usage.context_window))
        if outcome.error is not None:
            raise UsageError(f"the turn failed: {type(outcome.error).__name__}: {outcome.error}")
        if outcome.interrupted:
            where = "a temporary session" if args.once else f"session {session_id!r}"
            raise TurnInterruptedError(
                f"⏹ interrupted; the partial reply is kept in {where}, which is ready"
            )

    def _sink(self, fmt: Any) -> DisplaySink | TerminalSink:
        if self._rich_output():
            return DisplaySink(fmt, watch_kernel=self._widgets_render())
        return TerminalSink()

    def _part_driver(self, fmt: Any) -> Callable[[EventStream], Outcome]:
        """Streams one more part of a turn (after an approval) into an output of its own."""
        return lambda stream: drive(stream, self._sink(fmt), self.stream_interval)

    def _answer(self, argv: list[str], approved: bool) -> None:
        """``%agent approve|deny [ID] [--call CALL_ID]``: answer the calls a session's
        turn waits on and stream the rest of the turn here."""
        session_id, call_id = answer_args(argv, approved, self.default_session)
        part = self._part_driver("markdown")
        outcome = settle(self.shell, part(answer_turn(session_id, call_id, approved)), part)
        if outcome.error is not None:
            raise UsageError(f"the turn failed: {type(outcome.error).__name__}: {outcome.error}")
        if outcome.interrupted:
            raise TurnInterruptedError(
                f"⏹ interrupted; the partial reply is kept in session {session_id!r}, "
                "which is ready"
            )

    def _start(
        self, runner: AgentRunner, session_id: str, message: str, new: bool, options: TurnOptions
    ) -> Any:
        """Rewind for a re-run cell (or start afresh with --new), then start the turn."""
        session = runner.get_or_create_session(session_id)
        # A widget closing on this session must leave the cells' conversation alone.
        runner.hold_session(session_id, CELLS_HOLDER)
        if session.awaiting_approval:
            raise SessionBusyError(waiting_line(session_id, session.awaiting_approval))
        if session.busy:  # checked first: --new and a rewind must not cancel someone's turn
            raise SessionBusyError(
                f"session {session_id!r} is already running a turn (a widget or another "
                "thread); wait for it or stop it, or use another session"
            )
        follow_store(session)  # the note below counts another kernel's turns too
        earlier = self.turns.earlier_turn(session_id) if self.on_rerun == "rewind" else None
        if new:
            runner.delete_session(session_id)
            session = runner.get_or_create_session(session_id)
            runner.hold_session(session_id, CELLS_HOLDER)
            print(f"started a new session {session_id!r}")
        elif earlier is not None and earlier in session.invocations():
            branch = session.rewind(earlier)
            # What the new branch holds, read after the rewind: the rewind starts from
            # the latest stored path, which may hold more than this kernel had seen.
            moved = session.branches()[branch - 1].own_turns
            shared_writes = shared_state_writes(session, set(moved))
            self._show(rerun_note(session_id, list(moved[1:]), branch, shared_writes))
        return session.run_async(message, turn_options=options)

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
        explain(
            argv,
            shell=self.shell,
            last_error=self.last_error,
            budget_tokens=self.error_budget,
            turn_defaults=lambda: parse(""),
            counter=self._counter,
            send=self._send,
        )


def _check_max_tokens(max_tokens: int | None, backend: Backend) -> None:
    """``--max-tokens`` beyond the model's window is refused with the options, as
    ``-5`` is, not as a failed turn (the window is read from the model's files)."""
    if max_tokens is None:
        return
    window = get_runner().worker.submit(backend.resolve_context_window()).result()
    if window is not None and max_tokens > window:
        raise UsageError(
            f"--max-tokens must be between 1 and the model's context window ({window:,} "
            f"tokens for {backend.spec}), got {max_tokens:,}; nothing was sent or recorded"
        )


def _waiting_note(runner: AgentRunner, backend: Any) -> Callable[[], str]:
    """What a new turn waits for: the turns already running on a one-at-a-time model."""
    if not backend.one_turn_at_a_time:
        return lambda: ""
    ahead = [s.id for s in runner.sessions(include_hidden=True) if s.busy]

    def note() -> str:
        busy = {s.id for s in runner.sessions(include_hidden=True) if s.busy}
        names = ["a --once turn" if is_single_turn_id(i) else repr(i) for i in ahead if i in busy]
        if not names:
            return ""
        return f"waiting for session {', '.join(names)} to finish its turn on the model"

    return note


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
