"""The ``%agent COMMAND`` subcommands: inspect and manage the kernel's sessions.

Read-only commands never create a session: asking for the history of an id
that does not exist is an error listing the ids that do, not a silent new
empty session. Every id is shown escaped, since ids come from user input.
"""

from __future__ import annotations

import html
import json
import pathlib
import shlex
import time
from collections.abc import Callable
from typing import TYPE_CHECKING, Any, TypeVar

from IPython.core.error import UsageError
from IPython.core.magic_arguments import MagicArgumentParser

from ..._core.ids import check_session_id
from ..._core.numbers import byte_size
from ..._core.render import safe_markdown
from ..._runtime.face import (
    DEFAULT_TIMEOUT,
    AgentRunner,
    SessionInfo,
    follow_store,
    get_runner,
    replay_cache,
    servers_of,
)
from ..export import (
    EXPORT_FORMATS,
    branches_lines,
    session_json,
    session_markdown,
    tree_markdown,
)
from .mcp_commands import mcp_command
from .usage import usage_errors

if TYPE_CHECKING:
    from ..._runtime.face import AgentSession

__all__ = ["COMMANDS", "COMMANDS_HELP", "Commands", "sessions_html", "with_commands_help"]

_F = TypeVar("_F", bound=Callable[..., Any])

COMMANDS_HELP = """Manage agent sessions: ``%agent COMMAND [ARGS]``.

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
    mcp add NAME -- COMMAND ARGS...  |  mcp add NAME URL
                             start an MCP server (it runs with the kernel's rights);
                             %%agent --tools NAME offers its tools
    mcp list | mcp remove NAME
                             the MCP servers, their state and tools; stop one
    approve [ID] [--call CALL_ID]
                             run the tool calls the session's turn waits on, go on
    deny [ID] [--call CALL_ID]
                             refuse them ("denied by the user"); the model goes on

ID defaults to AgentMagics.default_session. Send messages with ``%%agent``.
"""
"""``%agent?``: the commands."""


def with_commands_help(func: _F) -> _F:
    """Give the ``%agent`` line magic `COMMANDS_HELP` as its help."""
    func.__doc__ = COMMANDS_HELP
    return func


COMMANDS = (
    "sessions",
    "history",
    "branches",
    "switch",
    "state",
    "trace",
    "delete",
    "clear",
    "model",
    "export",
    "widget",
    "memory",
    "explain",
    "mcp",
    "approve",
    "deny",
)


def replay_summary(stats: dict[str, Any]) -> str:
    """ "replay cache: 12 answers, 48.1 KB of 64.0 MB; 7 replayed in this kernel" """
    entries = stats["entries"]
    line = (
        f"replay cache: {entries} answer{'s' * (entries != 1)}, "
        f"{byte_size(stats['bytes'])} of {byte_size(stats['budget'])}; {stats['hits']} "
        f"replayed in this kernel ({stats['path']})"
    )
    if stats["error"]:
        line += f"; last problem: {stats['error']}"
    return line


def _and_checkpoints(size: int) -> str:
    return f" and {byte_size(size)} of KV checkpoints" if size else ""


def _when(timestamp: float) -> str:
    return time.strftime("%Y-%m-%d %H:%M:%S", time.localtime(timestamp)) if timestamp else ""


def _context(info: SessionInfo) -> str:
    """ "used / window" tokens of the latest request ("" before the first turn)."""
    if info.context_tokens is None:
        return ""
    window = f"{info.context_window:,}" if info.context_window else "?"
    return f"{info.context_tokens:,} / {window}"


def sessions_html(infos: list[SessionInfo], stored_only: list[str]) -> str:
    """An HTML table; every value is escaped (ids come from user input)."""
    columns = ("id", "turns", "tokens", "context", "KV bytes", "last used", "status", "held by")
    head = "".join(f"<th>{h}</th>" for h in columns)
    rows = []
    for info in infos:
        status = "evicting" if info.evicting else "busy" if info.busy else "idle"
        cells = (
            info.id,
            info.turns,
            info.tokens,
            _context(info),
            byte_size(info.kv_bytes),
            _when(info.last_used),
            status,
            ", ".join(info.holders),
        )
        rows.append("".join(f"<td>{html.escape(str(c))}</td>" for c in cells))
    for session_id in stored_only:
        blanks = (session_id, "", "", "", "", "", "stored (not loaded)", "")
        rows.append("".join(f"<td>{html.escape(c)}</td>" for c in blanks))
    body = "".join(f"<tr>{r}</tr>" for r in rows)
    return f"<table><thead><tr>{head}</tr></thead><tbody>{body}</tbody></table>"


def _sessions_text(infos: list[SessionInfo], stored_only: list[str]) -> str:
    lines = [f"{'id':24} {'turns':>5} {'tokens':>7} {'context':>15} {'KV':>9}  last used"]
    for i in infos:
        lines.append(
            f"{i.id:24} {i.turns:5} {i.tokens:7} {_context(i):>15} "
            f"{byte_size(i.kv_bytes):>9}  {_when(i.last_used)}"
            + (f"  held by {', '.join(i.holders)}" if i.holders else "")
        )
    lines += [f"{s:24} (stored, not loaded)" for s in stored_only]
    return "\n".join(lines)


class Commands:
    """The ``%agent`` subcommands, given what they need by `AgentMagics`:

    * ``default_session``: the session an id-less command means (read at each call);
    * ``show``: puts a MIME bundle into the cell output (or prints its text);
    * ``cells``: the magics' cell map (cellId -> session, invocation), which
      ``delete`` and ``clear`` keep in step;
    * ``model_changed``: told the spec ``%agent model SPEC`` set;
    * ``explain``: runs ``%agent explain`` (a turn, so the magics own it);
    * ``answer``: runs ``%agent approve`` (True) / ``deny`` (False), which stream
      the rest of a turn, so the magics own them too.
    * ``mcp_timeout``: the seconds an MCP call may take (``AgentMagics.mcp_timeout``).
    """

    def __init__(
        self,
        *,
        default_session: Callable[[], str],
        show: Callable[[dict[str, str]], None],
        cells: dict[str, tuple[str, str]],
        model_changed: Callable[[str], None],
        explain: Callable[[list[str]], None],
        answer: Callable[[list[str], bool], None],
        mcp_timeout: Callable[[], float] = lambda: DEFAULT_TIMEOUT,
    ) -> None:
        self._mcp_timeout = mcp_timeout
        self._default_session = default_session
        self._show = show
        self._cells = cells
        self._model_changed = model_changed
        self._handlers: dict[str, Callable[[list[str]], Any]] = {
            "sessions": self._sessions,
            "history": self._history,
            "branches": self._branches,
            "switch": self._switch,
            "state": self._state,
            "trace": self._trace,
            "delete": self._delete,
            "clear": self._clear,
            "model": self._model,
            "export": self._export,
            "widget": self._widget,
            "memory": self._memory,
            "explain": explain,
            "mcp": self._mcp,
            "approve": lambda argv: answer(argv, True),
            "deny": lambda argv: answer(argv, False),
        }

    @usage_errors
    def run(self, line: str) -> Any:
        try:
            argv = shlex.split(line)
        except ValueError as exc:
            raise UsageError(f"cannot parse %agent arguments: {exc}") from None
        if not argv:
            raise UsageError(f"%agent needs a command: {', '.join(COMMANDS)} (see %agent?)")
        command, rest = argv[0], argv[1:]
        if command not in COMMANDS:
            raise UsageError(
                f"unknown %agent command {command!r}; use one of: {', '.join(COMMANDS)}. "
                "Send a message with %%agent"
            )
        return self._handlers[command](rest)

    def _mcp(self, args: list[str]) -> None:
        mcp_command(args, servers_of(get_runner()), timeout=self._mcp_timeout)

    # -- helpers --------------------------------------------------------------

    def _known_ids(self, runner: AgentRunner) -> list[str]:
        ids = {i.id for i in runner.sessions()} | set(runner.stored_session_ids())
        return sorted(ids)

    def _existing(self, runner: AgentRunner, args: list[str], command: str) -> AgentSession:
        """The session named by ``args`` (or the default); never creates one."""
        if len(args) > 1:
            raise UsageError(f"%agent {command} takes at most one session id, got {args}")
        session_id = args[0] if args else self._default_session()
        check_session_id(session_id)
        known = self._known_ids(runner)
        if session_id not in known:
            listing = ", ".join(map(repr, known)) or "none yet; run a %%agent cell first"
            raise UsageError(f"no session {session_id!r}; sessions: {listing}")
        session = runner.get_or_create_session(session_id)
        follow_store(session)  # another kernel on the store may have moved it
        return session

    # -- commands ---------------------------------------------------------------

    def _sessions(self, args: list[str]) -> None:
        if args:
            raise UsageError("%agent sessions takes no arguments")
        runner = get_runner()
        for info in runner.sessions():
            if not (info.closed or info.evicting):
                follow_store(runner.get_or_create_session(info.id))
        infos = sorted(runner.sessions(), key=lambda i: i.id)
        live = {i.id for i in infos}
        stored_only = [s for s in sorted(runner.stored_session_ids()) if s not in live]
        if not infos and not stored_only:
            print("No sessions yet; start one with %%agent.")
        else:
            self._show(
                {
                    "text/html": sessions_html(infos, stored_only),
                    "text/plain": _sessions_text(infos, stored_only),
                }
            )
        print(replay_summary(replay_cache().stats()))

    def _history(self, args: list[str]) -> None:
        every = "--all" in args
        rest = [a for a in args if a != "--all"]
        if any(a.startswith("-") for a in rest):
            raise UsageError("usage: %agent history [ID] [--all] (--all: every branch)")
        session = self._existing(get_runner(), rest, "history")
        text = tree_markdown(session, level=4) if every else session_markdown(session, level=4)
        self._show({"text/markdown": safe_markdown(text), "text/plain": text})

    def _branches(self, args: list[str]) -> None:
        session = self._existing(get_runner(), args, "branches")
        text = "\n".join([f"Branches of session {session.id}:", "", *branches_lines(session)])
        self._show({"text/markdown": safe_markdown(text), "text/plain": text})

    def _switch(self, args: list[str]) -> None:
        if len(args) != 2:
            raise UsageError("usage: %agent switch ID BRANCH (see %agent branches ID)")
        session = self._existing(get_runner(), args[:1], "switch")
        count = len(session.branches())
        try:
            number = int(args[1])
        except ValueError:
            raise UsageError(
                f"BRANCH is a branch number from 1 to {count}, got {args[1]!r}"
            ) from None
        before = session.branch
        session.switch_branch(number)  # ValueError / SessionBusyError: see usage_errors
        turns = len(session.invocations())
        kept = f"; branch {before} is kept" if before != number else ""
        print(
            f"session {session.id!r} is on branch {number} ({turns} turn{'s' * (turns != 1)}){kept}"
        )

    def _state(self, args: list[str]) -> dict[str, Any]:
        return self._existing(get_runner(), args, "state").state

    def _trace(self, args: list[str]) -> None:
        """What each agent of the session's latest turn read and wrote (temp:, session,
        user:, app:); plain text, as model text is never rendered as HTML."""
        session = self._existing(get_runner(), args, "trace")
        trace = session.trace()
        if trace is None:
            print(
                f"no trace for session {session.id!r}: no turn yet, or its latest turn "
                "was one agent that read and wrote no state"
            )
            return
        print("\n".join(trace.lines()))

    def _delete(self, args: list[str]) -> None:
        if len(args) != 1:
            raise UsageError("usage: %agent delete ID (use %agent clear to delete every session)")
        runner = get_runner()
        session = self._existing(runner, args, "delete")
        on_disk = runner.kv_disk_bytes().get(session.id, 0)
        runner.delete_session(session.id)
        for cell, (session_id, _) in list(self._cells.items()):
            if session_id == session.id:
                del self._cells[cell]
        print(f"deleted session {session.id!r}{_and_checkpoints(on_disk)}")

    def _clear(self, args: list[str]) -> None:
        if args:
            raise UsageError("%agent clear takes no arguments; it deletes every session")
        runner = get_runner()
        count = len(self._known_ids(runner))
        on_disk = sum(runner.kv_disk_bytes().values())
        runner.clear_all_sessions()
        self._cells.clear()
        print(f"deleted {count} session{'s' * (count != 1)}{_and_checkpoints(on_disk)}")

    def _model(self, args: list[str]) -> None:
        runner = get_runner()
        if len(args) > 1:
            raise UsageError("usage: %agent model [SPEC]")
        if args:
            runner.model = args[0]
            self._model_changed(args[0])
        print(f"model: {runner.model_label}")

    def _export(self, args: list[str]) -> None:
        parser = MagicArgumentParser(prog="%agent export", add_help=False)
        parser.add_argument("session", nargs="?")
        parser.add_argument("--format", choices=EXPORT_FORMATS, default="md")
        parser.add_argument("--to", metavar="FILE")
        options = parser.parse_args(args)
        runner = get_runner()
        ids = [options.session] if options.session else []
        session = self._existing(runner, ids, "export")
        text = session_json(session) if options.format == "json" else session_markdown(session)
        if options.to is None:
            self._show({"text/plain": text})
            return
        try:
            pathlib.Path(options.to).expanduser().write_text(text, encoding="utf-8")
        except OSError as exc:
            raise UsageError(f"cannot write {options.to!r}: {exc.strerror or exc}") from None
        print(f"exported session {session.id!r} ({len(session.history)} events) to {options.to}")

    def _widget(self, args: list[str]) -> Any:
        if len(args) > 1:
            raise UsageError("usage: %agent widget [ID]")
        session_id = args[0] if args else self._default_session()
        check_session_id(session_id)
        try:
            from ..widget.chat_widget import ChatWidget
        except ModuleNotFoundError as exc:
            if exc.name == "anywidget":
                raise UsageError("the chat widget needs anywidget: pip install anywidget") from None
            raise
        # The session belongs to the %%agent cells too: closing this view must
        # not evict it. (A missing JS bundle raises FrontendNotBuiltError.)
        return ChatWidget(session=session_id, evict_on_close=False)

    def _memory(self, args: list[str]) -> None:
        if args:
            raise UsageError("%agent memory takes no arguments")
        figures = get_runner().memory()
        self._show({"text/plain": json.dumps(figures, indent=2, default=repr)})
