"""``%%agent`` and ``%agent``: the notebook's conversation surface.

Both magics work on the kernel-scoped runner (`get_runner()`), so a session
started in a cell is the same object a `ChatWidget` shows. Two decisions shape
this module:

* **Re-running a cell replaces its turn.** A notebook is edited and re-run,
  not appended to like a chat log, so the second run of a cell first rewinds
  the session to just before that cell's earlier turn (later turns go too,
  since they answered a conversation that no longer exists). Nothing is
  deleted: the replaced turns move to a new branch, and the note says which
  and how to switch back (``%agent switch ID N``). Cells are
  known by the Jupyter ``cellId`` the front end puts in the execute request,
  which IPython hands to ``pre_run_cell`` listeners. Without one (terminal,
  old front ends) there is nothing to match, so turns are appended.
* **Bad input never reaches the model.** Options, session id, interpolated
  names, ``--data`` names, the output variable, sampling values and the model
  are all checked before anything is rewound or sent, and every problem is a
  one-line `UsageError` rather than a traceback.

A kernel interrupt cancels the turn; the cell keeps what was generated, marks
it interrupted and ends with a one-line note (`TurnInterruptedError`, shown
without a label or traceback) that still fails the cell, so "Run all" stops there.
"""

from __future__ import annotations

import contextlib
import dataclasses
import keyword
import shlex
from collections.abc import Callable
from typing import Any

from IPython.core.displaypub import DisplayPublisher
from IPython.core.error import UsageError
from IPython.core.magic import Magics, cell_magic, line_magic, magics_class
from IPython.core.magic_arguments import argument, magic_arguments
from traitlets import Bool, Enum, Float, Int, TraitError, Unicode, observe, validate

from ..._core.fences import first_code_block, opens_a_block
from ..._core.ids import check_session_id, is_single_turn_id
from ..._core.numbers import check_int, check_real, check_repeats
from ..._core.render import safe_markdown
from ..._core.tokens import TextCounter, text_counter
from ..._core.types import MAX_TEMPERATURE
from ..._core.window import omitted_line
from ..._runtime.kernel_runner import get_runner, set_runner
from ..._runtime.options import TurnOptions
from ..._runtime.runner import DEFAULT_MODEL, AgentRunner
from ...backends import Backend
from ...data import DataAgent
from ...data.agent import writer_for
from ...errors import SessionBusyError, StoreError, TurnInterruptedError
from ...stores import resolve_store
from ..front_end import batch_run
from ..prompts.cell_context import cells_context, recent_cells
from ..prompts.data_summary import summarize
from ..prompts.interpolate import Interpolated, interpolate, references
from ..prompts.last_error import LastError, error_from_result
from ..staleness import Input, Staleness
from ..turn_origins import OTHER_KERNEL, WIDGET, follow_store, origin_of
from ..turn_settings import turn_options
from . import config_guard
from .commands import Commands
from .data_cell import attach, lookup_data, prepare_answer, show_answer
from .explain import explain
from .store_switch import check_move, move_sessions
from .stream import DisplaySink, TerminalSink, drive
from .structured import schema_from_namespace
from .usage import usage_errors

__all__ = [
    "CELLS_HOLDER",
    "AgentMagics",
    "interpolate",
    "load_ipython_extension",
    "unload_ipython_extension",
]

CELLS_HOLDER = "%%agent cells"
"""How ``%agent sessions`` names the cells that use a session."""


def _is_dataframe(value: object) -> bool:
    """Checked without importing pandas: a notebook that never used it has no DataFrame."""
    import sys

    pandas = sys.modules.get("pandas")
    return pandas is not None and isinstance(value, pandas.DataFrame)


@magics_class
class AgentMagics(Magics):
    """``%%agent`` / ``%agent``; configure with ``%config AgentMagics.<trait> = ...``."""

    shell: Any  # IPython types it Optional; the registered instance always has one

    default_session = Unicode(
        "default", help="Session a %%agent cell talks to when it names none."
    ).tag(config=True)
    default_model = Unicode(
        "",
        help="Model spec for %%agent cells without -m (e.g. 'mlx:smollm2-135m'); "
        "empty means the runner's model.",
    ).tag(config=True)
    system_prompt = Unicode(
        "", help="System instructions for %%agent turns without -s; empty means the agent's."
    ).tag(config=True)
    on_rerun = Enum(
        ["rewind", "append"],
        default_value="rewind",
        help="Re-running a cell: 'rewind' replaces its earlier turn (it and later "
        "ones move to a branch: %agent switch brings them back); 'append' adds a new "
        "turn after everything.",
    ).tag(config=True)
    replay = Bool(
        True,
        help="Answer a greedy (or seeded) turn identical to one answered before from the "
        "replay cache, at once (marked ↻ replayed); %%agent --fresh asks the model anyway.",
    ).tag(config=True)
    max_tokens = Int(512, min=1, help="Default cap on generated tokens per turn.").tag(config=True)
    temperature = Float(0.0, help="Default sampling temperature, 0 (greedy) to 2.").tag(config=True)
    repetition_stop = Int(
        3,
        help="End a reply once one span has come this many times in a row "
        "(finish reason 'repetition'); 0 never stops.",
    ).tag(config=True)
    stream_interval = Float(
        0.05, min=0.0, help="Seconds between output updates while streaming (0.05 = 20/s)."
    ).tag(config=True)
    context_policy = Enum(
        ["window", "error"],
        default_value="window",
        help="A conversation longer than the model's window: 'window' leaves the oldest "
        "whole turns out of what the model sees (history keeps them); 'error' stops "
        "with an error instead.",
    ).tag(config=True)
    data_budget = Int(
        600, min=40, help="Token budget shared by the --data summaries of one cell."
    ).tag(config=True)
    data_mode = Enum(
        ["insights", "summary"],
        default_value="insights",
        help="--data with DataFrames: 'insights' runs the data agent (the question becomes a "
        "plan that pandas runs; the model words the result, checked against it; a table and "
        "a chart follow); 'summary' attaches the bounded summary to the message. Other "
        "objects always get the summary.",
    ).tag(config=True)
    cells_budget = Int(
        800, min=40, help="Token budget shared by the cells that --cells N sends."
    ).tag(config=True)
    error_budget = Int(
        800, min=200, help="Token budget for the error that %agent explain sends."
    ).tag(config=True)
    store = Unicode(
        "",
        help="Session store for the kernel runner: '' keeps the current runner, "
        "'memory', 'sqlite:///path/to/sessions.db' (sessions survive restarts) or "
        "'postgresql://USER:PASSWORD@HOST/DB' (one database for many kernels and users).",
    ).tag(config=True)

    user_id = Unicode(
        "",
        help="The user_id of the kernel runner that AgentMagics.store installs ('' keeps the "
        "current one). On a shared store each person needs their own: user: state is per "
        "user_id. Set it with the store, e.g. in ipython_config.py.",
    ).tag(config=True)
    kv_checkpoints = Bool(
        True,
        help="Keep each session's KV cache on disk after its turns, so the first turn after "
        "a restart reads only the new tokens; only with a persistent store (AgentMagics.store"
        " = 'sqlite:///...'). False: no checkpoints (the files stay).",
    ).tag(config=True)
    kv_disk_budget = Int(
        None,
        allow_none=True,
        help="Bytes the KV checkpoints may take on disk (least recently used removed "
        "first); None: 2 GiB.",
    ).tag(config=True)

    #: The kernel runner `_install_runner` made. A class default: settings from
    #: ipython_config.py reach the observers during ``super().__init__``.
    _own_runner: AgentRunner | None = None

    def __init__(self, shell: Any = None, **kwargs: Any) -> None:
        super().__init__(shell=shell, **kwargs)  # a configured store is installed here
        # cellId -> (session id, invocation id of the cell's latest turn)
        self.cells: dict[str, tuple[str, str]] = {}
        self._cell_id: str | None = None
        self._run = 0
        self._cell_run: dict[str, int] = {}
        self.last_error: LastError | None = None  # the latest failed cell, for %agent explain
        self._history_len: int | None = None  # input history length when this cell started
        self._commands = Commands(
            default_session=lambda: self.default_session,
            show=self._show,
            cells=self.cells,
            model_changed=self._model_changed,
            explain=self._explain,
        )
        self.staleness = Staleness(shell)  # stale marks on answers whose inputs changed
        if shell is not None:
            shell.events.register("pre_run_cell", self._pre_run_cell)
            shell.events.register("post_run_cell", self._post_run_cell)

    # -- configuration ------------------------------------------------------

    @validate("store")
    def _check_store(self, proposal: Any) -> str:
        value: str = proposal["value"]
        if value in ("", "memory"):  # a memory store starts empty: nothing can clash
            return value
        try:
            target = resolve_store(value)  # its errors mask any password in the URL
        except StoreError as exc:
            raise TraitError(f"AgentMagics.store: {exc}") from None
        try:
            check_move(get_runner(), target)
        except ValueError as exc:
            raise TraitError(f"AgentMagics.store = {target!r}: {exc}") from None
        finally:
            target.close()
        return value

    @validate("temperature", "stream_interval")
    def _check_finite(self, proposal: Any) -> float:
        name = f"AgentMagics.{proposal['trait'].name}"
        high = MAX_TEMPERATURE if name.endswith("temperature") else None
        try:
            return check_real(name, proposal["value"], low=0, high=high)
        except (TypeError, ValueError) as exc:
            raise TraitError(str(exc)) from None

    @validate("repetition_stop")
    def _check_repeats(self, proposal: Any) -> int:
        try:
            return check_repeats(proposal["value"], "AgentMagics.repetition_stop")
        except (TypeError, ValueError) as exc:
            raise TraitError(str(exc)) from None

    @validate("kv_disk_budget")
    def _check_disk_budget(self, proposal: Any) -> int | None:
        if proposal["value"] is None:
            return None
        try:
            return check_int("AgentMagics.kv_disk_budget (bytes)", proposal["value"], low=0)
        except (TypeError, ValueError) as exc:
            raise TraitError(str(exc)) from None

    @observe("kv_checkpoints", "kv_disk_budget")
    def _kv_changed(self, change: Any) -> None:
        runner = get_runner()  # True follows the store: on only where sessions persist
        runner.kv_disk_budget = self.kv_disk_budget
        runner.kv_checkpoints = None if self.kv_checkpoints else False

    @observe("store")
    def _store_changed(self, change: Any) -> None:
        if change["new"]:
            self._install_runner()

    def _install_runner(self) -> None:
        """Make the kernel runner use ``store``, taking the live sessions along
        (see `store_switch`); only a runner made here is shut down."""
        current = get_runner()
        runner = AgentRunner(
            current.agent,
            store=self.store,
            model=self.default_model or current.model or DEFAULT_MODEL,
            user_id=self.user_id or current.user_id,
            app_name=current.app_name,
            kv_checkpoints=None if self.kv_checkpoints else False,
            kv_disk_budget=self.kv_disk_budget,
        )
        try:
            move_sessions(current, runner.store)
        except BaseException:
            runner.shutdown()
            raise
        previous = set_runner(runner)
        if previous is not None and previous is self._own_runner:
            previous.shutdown()
        self._own_runner = runner

    def close(self) -> None:
        """Detach from the shell (``%unload_ext``)."""
        self.staleness.close()
        if self.shell is None:
            return
        for event, callback in (("pre_run_cell", self._pre_run_cell),
                                ("post_run_cell", self._post_run_cell)):  # fmt: skip
            with contextlib.suppress(ValueError):
                self.shell.events.unregister(event, callback)

    # -- cell identity ------------------------------------------------------

    def _pre_run_cell(self, info: Any) -> None:
        self._run += 1
        self._cell_id = getattr(info, "cell_id", None) or self._parent_cell_id()
        self._history_len = len(self.shell.history_manager.input_hist_raw)
        self.staleness.pre_run_cell(info)

    def _post_run_cell(self, result: Any) -> None:
        # A %%agent call from outside any cell (a widget callback) is no cell's turn.
        self._cell_id = None
        self._history_len = None
        self.last_error = error_from_result(result) or self.last_error
        self.staleness.post_run_cell(result)  # marks answers whose inputs changed

    def _parent_cell_id(self) -> str | None:
        """ipykernel without ``cell_id`` support: read the request metadata."""
        kernel = getattr(self.shell, "kernel", None)
        try:
            cell_id = kernel.get_parent()["metadata"].get("cellId")  # type: ignore[union-attr]
        except Exception:
            return None
        return cell_id if isinstance(cell_id, str) else None

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

    @magic_arguments(name="%agent")
    @argument("session", nargs="?", help="Session id (default: AgentMagics.default_session).")
    @argument("--new", action="store_true", help="Delete the session's history first.")
    @argument("--once", action="store_true", help="A single turn on a hidden, temporary session.")
    @argument("-m", "--model", help="Model spec for this turn, e.g. mlx:smollm2-135m.")
    @argument("-s", "--system", help="System instructions for this turn.")
    @argument("-t", "--temperature", type=float, help="Sampling temperature, 0 (greedy) to 2.")
    @argument("--max-tokens", type=int,
              help="Cap on generated tokens (a reply cut off there is marked).")  # fmt: skip
    @argument("--context", choices=["window", "error"],
              help="Past the model's window: leave the oldest turns out (window) or fail "
              "(error); default AgentMagics.context_policy.")  # fmt: skip
    @argument("--fresh", action="store_true",
              help="Ask the model even if this exact request was answered before (no replay; "
              "AgentMagics.replay = False turns replay off for every cell).")  # fmt: skip
    @argument("-o", "--output", metavar="VAR", help="Store the Reply in this variable.")
    @argument("--schema", metavar="NAME",
              help="Reply as JSON matching NAME, a pydantic BaseModel class or a JSON-schema "
              "dict in the notebook; shows the parsed value (-o VAR: VAR.parsed).")  # fmt: skip
    @argument(
        "--choice",
        metavar='"A|B|C"',
        help='Reply with exactly one of these strings, e.g. --choice "yes|no|unsure".',
    )
    @argument(
        "--data", nargs="+", action="extend", default=[], metavar="VAR",
        help="DataFrames: the data agent answers from them (see --data-mode; "
        "'df[\"col\"]' is one column). Other objects (array, any object): a summary attached "
        "within AgentMagics.data_budget tokens, counted by the model's tokenizer where it has one.",
    )  # fmt: skip
    @argument("--data-mode", choices=["insights", "summary"],
              help="DataFrames in --data: insights (data agent, default "
              "AgentMagics.data_mode) or summary (attached to the message).")  # fmt: skip
    @argument("--format", choices=["markdown", "text", "code"], default="markdown",
              help="markdown (default), text, or code (only the fenced code blocks).")  # fmt: skip
    @argument(
        "--code",
        action="store_true",
        help="Put the reply's first code block into a new cell below (never run).",
    )
    @argument(
        "--cells",
        type=int,
        metavar="N",
        help="Send the code of the last N executed cells (In [n]) as context.",
    )
    @argument(
        "--outputs",
        action="store_true",
        help="With --cells: their text outputs too (printed text, results, errors).",
    )
    @argument("--raw", action="store_true",
              help="Send the cell as typed: no {name} interpolation.")  # fmt: skip
    @cell_magic("agent")  # type: ignore[arg-type]  # IPython types only the bare form
    @usage_errors
    def agent_cell(self, line: str, cell: str) -> None:
        """Send the cell to a model and stream the reply into the output.

        The cell body is the message. ``{name}``, ``{name.attr}``,
        ``{name[key]}`` and ``{name!r:spec}`` insert a notebook variable; any
        other braces (code, JSON) stay as typed. ``{{name}}`` is a literal
        ``{name}``; ``--raw`` sends the whole cell as typed. ``{In[3]}`` is the
        code of cell 3 and ``{Out[3]}`` its result. The session outlives the
        cell; re-running a cell replaces its earlier turn (see
        AgentMagics.on_rerun). Interrupt the kernel to stop a reply; the
        session stays usable.
        ``--cells N`` sends the last N executed cells as context (cut to
        AgentMagics.cells_budget tokens); ``--code`` puts the reply's first
        fenced code block into a new cell below, which you run yourself.
        ``%agent explain`` asks about the last error.
        When the conversation outgrows the model's context window, the oldest
        whole turns are left out of what the model sees (a line says so; history
        keeps them), or with ``--context error`` the turn fails before anything
        is sent. ``--schema NAME`` (a pydantic model class or JSON-schema dict)
        makes the reply JSON of that shape and shows the parsed value;
        ``--choice "yes|no"`` makes it one of those strings (``-o var``:
        ``var.parsed``).

        Examples::

            %%agent
            Explain {topic} in one sentence.

            %%agent review -s "You are a terse reviewer." --data df -o answer
            What stands out in this table?

            %%agent --cells 3 --outputs --code
            Plot the column I computed above as a histogram.

            %%agent --choice "yes|no|unsure" -o verdict
            Is this table sorted by date?
        """
        args = self._parse(line)
        count = self._counter(args)  # budgets in the turn's model's tokens
        frames, summarized = self._split_data(args)
        message = self._message(cell, summarized, raw=args.raw, count=count)
        context = self._cells(args, count)
        agent, answer = None, None
        if frames:
            from ...data.choose import model_chooser

            question = interpolate(cell, self.shell.user_ns).text.strip() if not args.raw else cell
            data_agent = DataAgent(
                data=frames, question=question.strip(),
                choose=model_chooser(self._turn_backend(args)),
            )  # fmt: skip
            answer = prepare_answer(data_agent, question.strip())
            agent = self._data_pipeline(args, data_agent)
        read = recent_cells(self.shell, args.cells, before=self._history_len) if context else []
        inputs = self.staleness.inputs(names=args.data, cells=[n for n, _ in read],
                                       references=() if args.raw else references(cell))  # fmt: skip
        self._send(args, f"{context}\n\n{message}" if context else message, agent, inputs, answer)

    def _split_data(self, args: Any) -> tuple[dict[str, Any], dict[str, Any]]:
        """--data objects as (DataFrames for the data agent, objects to summarise)."""
        found = lookup_data(self.shell.user_ns, list(args.data))
        if (args.data_mode or self.data_mode) == "summary" or not found:
            return {}, found
        frames = {n: v for n, v in found.items() if _is_dataframe(v)}
        return frames, {n: v for n, v in found.items() if n not in frames}

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
        if args.output and (not args.output.isidentifier() or keyword.iskeyword(args.output)):
            raise UsageError(f"-o needs a Python variable name, got {args.output!r}")
        options = turn_options(
            self, model=args.model, system=args.system, temperature=args.temperature,
            max_tokens=args.max_tokens, context_policy=args.context, choice=args.choice,
            output_schema=schema_from_namespace(args.schema, self.shell.user_ns),
            fresh=args.fresh,
        )  # fmt: skip
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
        if self._rich_output():
            sink: DisplaySink | TerminalSink = DisplaySink(
                args.format, watch_kernel=self._widgets_render()
            )
        else:
            sink = TerminalSink()
        outcome = drive(stream, sink, self.stream_interval, waiting_for)
        if outcome.invocation_id:
            self.staleness.watch(self._cell_id, session_id, outcome.invocation_id, inputs,
                                 sink.mark)  # fmt: skip
        if not args.once and outcome.invocation_id:
            self._remember(session_id, outcome.invocation_id)
        if answer is not None and outcome.reply is not None and not outcome.interrupted:
            outcome.reply = attach(outcome.reply, answer, show_answer(answer))
        if args.output and outcome.reply is not None:
            self.shell.user_ns[args.output] = outcome.reply
        if args.code and outcome.reply is not None and not outcome.interrupted:
            self._next_cell(outcome.reply.text, args.output)
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

    def _parse(self, line: str) -> Any:
        try:
            argv = shlex.split(line)
        except ValueError as exc:  # unbalanced quotes
            raise UsageError(f"cannot parse %%agent options: {exc}") from None
        # The parser's error() raises UsageError with argparse's one-line message.
        return self.agent_cell.parser.parse_args(argv)

    def _message(
        self,
        cell: str,
        data: dict[str, Any],
        *,
        raw: bool = False,
        count: TextCounter,
    ) -> str:
        ns = self.shell.user_ns
        # A bad reference raises ValueError, which usage_errors turns into one line.
        filled = Interpolated(cell, ()) if raw else interpolate(cell, ns)
        text = filled.text.strip()
        if not text:
            raise UsageError("the cell is empty; write the message below the %%agent line")
        budget = self.data_budget // max(1, len(data))
        summaries = [summarize(name, obj, budget, count) for name, obj in data.items()]
        if filled.fields:  # never silent: say what the model gets instead of the braces
            print(f"interpolated: {', '.join(filled.fields)}")
        return "\n\n".join([text, *summaries])

    def _cells(self, args: Any, count: TextCounter) -> str:
        """The ``--cells N [--outputs]`` context, or ""."""
        if args.cells is None:
            if args.outputs:
                raise UsageError("--outputs goes with --cells N (the outputs of those cells)")
            return ""
        if args.cells < 1:
            raise UsageError(f"--cells needs a number of cells of at least 1, got {args.cells}")
        cells = recent_cells(self.shell, args.cells, before=self._history_len)
        if not cells:
            raise UsageError("--cells: no cell has run before this one in this kernel yet")
        return cells_context(
            self.shell, cells, outputs=args.outputs, budget_tokens=self.cells_budget, count=count
        )

    def _next_cell(self, reply: str, output: str | None) -> None:
        """``--code``: the first code block becomes the next cell (the front end inserts it)."""
        code = first_code_block(reply)
        if code is None:
            why = ("its code block was cut off before the closing fence (raise --max-tokens)"
                   if opens_a_block(reply) else "it has no fenced code block")  # fmt: skip
            print(f"--code: no cell was added: {why}")
            return
        if batch_run(self.shell):  # nbconvert, papermill: no front end to insert a cell
            where = (f"the reply is in {output} ({output}.text)" if output
                     else "add -o VAR to keep the reply in a variable")  # fmt: skip
            print(f"--code: no cell was added: nothing here can insert one (a batch run such "
                  f"as nbconvert or papermill); {where}")  # fmt: skip
            return
        self.shell.set_next_input(code, replace=False)
        print("--code: the reply's first code block is in a new cell below (not run)")

    def _start(
        self, runner: AgentRunner, session_id: str, message: str, new: bool, options: TurnOptions
    ) -> Any:
        """Rewind for a re-run cell (or start afresh with --new), then start the turn."""
        session = runner.get_or_create_session(session_id)
        # A widget closing on this session must leave the cells' conversation alone.
        runner.hold_session(session_id, CELLS_HOLDER)
        if session.busy:  # checked first: --new and a rewind must not cancel someone's turn
            raise SessionBusyError(
                f"session {session_id!r} is already running a turn (a widget or another "
                "thread); wait for it or stop it, or use another session"
            )
        follow_store(session)  # the note below counts another kernel's turns too
        earlier = self._earlier_turn(session_id)
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
            shared_writes = _shared_state_writes(session, set(moved))
            self._show(_rerun_note(session_id, list(moved[1:]), branch, shared_writes))
        return session.run_async(message, turn_options=options)

    def _earlier_turn(self, session_id: str) -> str | None:
        """The invocation to rewind to, or None (append)."""
        cell = self._cell_id
        if cell is None or self.on_rerun != "rewind":
            return None
        if self._cell_run.get(cell) == self._run:
            return None  # a second %%agent call within one cell execution appends
        previous = self.cells.get(cell)
        if previous is None or previous[0] != session_id:
            return None  # the cell now talks to another session: leave the old one alone
        return previous[1]

    def _remember(self, session_id: str, invocation_id: str) -> None:
        cell = self._cell_id
        if cell is None or self._cell_run.get(cell) == self._run:
            return
        self.cells[cell] = (session_id, invocation_id)
        self._cell_run[cell] = self._run

    # -- %agent ---------------------------------------------------------------

    @line_magic("agent")  # type: ignore[arg-type]
    def agent_line(self, line: str) -> Any:
        """Manage agent sessions: ``%agent COMMAND [ARGS]``.

        Commands::

            sessions                 table of sessions: id, turns, tokens, KV bytes, last used
            history [ID] [--all]     the conversation so far (--all: every branch)
            branches [ID]            the session's branches (a re-run cell makes one)
            switch ID BRANCH         make that branch the active conversation
            state [ID]               the session state (returned as a dict)
            delete ID                delete a session (history, state, KV cache)
            clear                    delete every session
            model [SPEC]             show or set the runner's model
            export [ID] [--format md|json] [--to FILE]
                                     the transcript as Markdown or JSON
            widget [ID]              a ChatWidget on the session
            memory                   model and KV-cache memory figures
            explain [ID] [-m SPEC] [--max-tokens N]
                                     ask the model why the last failing cell failed

        ID defaults to AgentMagics.default_session. Send messages with ``%%agent``.
        """
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
            turn_defaults=lambda: self.agent_cell.parser.parse_args([]),
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


def _rerun_note(
    session_id: str, later: list[str], branch: int, shared_writes: bool
) -> dict[str, str]:
    """ "↺ re-run: this cell's turn and 2 later turns (1 from the chat widget) moved to ..."

    A bundle, not a print: a stream output shows Markdown's backticks as they
    are and breaks long lines mid-word; Markdown wraps between words.
    """
    moved = "this cell's turn"
    if later:
        moved += f" and {len(later)} later turn{'s' * (len(later) != 1)}"
        origins = [origin_of(t) for t in later]
        named = [f"{origins.count(o)} from {o}" for o in (WIDGET, OTHER_KERNEL) if o in origins]
        if named:
            moved += f" ({', '.join(named)})"
    command = f"%agent switch {session_id} {branch}"
    head = f"↺ re-run: {moved} moved to branch {branch}"
    plain = f"{head}; {command} brings them back"
    markdown = f"{safe_markdown(head)}; `{command}` brings them back"
    if shared_writes:
        shared = (
            "(their user:/app: state changes stay: that state is shared with other "
            "sessions, so a branch does not own it)"
        )
        plain += f"\n  {shared}"
        markdown += f"  \n{safe_markdown(shared)}"
    return {"text/markdown": markdown, "text/plain": plain}


def _shared_state_writes(session: Any, turns: set[str]) -> bool:
    return any(
        key.startswith(("user:", "app:"))
        for node in session.tree()
        if node.invocation_id in turns
        for event in node.events
        for key in event.state_delta
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
