"""`MagicsConfig`: the ``%config AgentMagics.*`` settings and the checks on them.

The settings are traitlets on the magics' base class, so ``%config
AgentMagics.max_tokens = 256`` and ``ipython_config.py`` reach them. A value
that would fail a later turn is refused at once (a `TraitError`, which
`config_guard` turns into a failed cell). ``store``, ``user_id`` and the KV
settings act on the kernel runner when they change.
"""

from __future__ import annotations

from typing import Any

from IPython.core.magic import Magics
from traitlets import Bool, Dict, Enum, Float, Int, TraitError, Unicode, observe, validate

from ..._core.numbers import check_int, check_real, check_repeats
from ..._core.types import MAX_TEMPERATURE
from ..._runtime.face import (
    DEFAULT_MODEL,
    DEFAULT_TIMEOUT,
    AgentRunner,
    get_runner,
    servers_from_config,
    servers_of,
    set_runner,
)
from ...errors import StoreError
from ...stores import resolve_store
from .store_switch import check_move, move_sessions

__all__ = ["MagicsConfig"]


class MagicsConfig(Magics):
    """The settings of `AgentMagics` (its base class: ``%config AgentMagics.<trait>``)."""

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
    data_wording = Enum(
        ["computed", "model"],
        default_value="computed",
        help="--data answers: 'computed' replies with the computed sentence at once (no "
        "model call to word it); 'model' has the model word it, checked against the result "
        "(the computed sentence replaces a wording that does not hold).",
    ).tag(config=True)
    cells_budget = Int(
        800, min=40, help="Token budget shared by the cells that --cells N sends."
    ).tag(config=True)
    error_budget = Int(
        800, min=200, help="Token budget for the error that %agent explain sends."
    ).tag(config=True)
    approve_tools = Enum(
        ["ask", "read-only", "all"],
        default_value="ask",
        help="Tools that need approval (@tool(confirm=True), MCP tools not marked "
        "readOnlyHint): 'ask' pauses the turn at the call until it is approved or denied "
        "(the cell asks, or %agent approve / %agent deny; the widget's buttons); "
        "'read-only' never runs them (the model is told so) and asks nobody; 'all' runs "
        "every tool without asking. Tools that need no approval always run.",
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

    mcp_servers = Dict(
        help="MCP servers by name, in the mcpServers format of Claude Desktop and VS Code: "
        "{'files': {'command': 'npx', 'args': [...], 'env': {...}}, 'search': {'url': "
        "'http://127.0.0.1:8000/mcp', 'headers': {...}}}. Each starts on first use "
        "(%%agent --tools NAME) and runs with the kernel's rights; %agent mcp list shows them.",
    ).tag(config=True)
    mcp_timeout = Float(
        DEFAULT_TIMEOUT,
        help="Seconds an MCP server has to answer each tool call (servers added from now on).",
    ).tag(config=True)

    #: The kernel runner `_install_runner` made. A class default: settings from
    #: ipython_config.py reach the observers during ``super().__init__``.
    _own_runner: AgentRunner | None = None

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

    @validate("mcp_servers")
    def _check_mcp_servers(self, proposal: Any) -> dict[str, Any]:
        try:
            servers_from_config(proposal["value"], timeout=self.mcp_timeout)
        except (TypeError, ValueError) as exc:
            raise TraitError(f"AgentMagics.mcp_servers: {exc}") from None
        return dict(proposal["value"])

    @validate("mcp_timeout")
    def _check_mcp_timeout(self, proposal: Any) -> float:
        try:
            return check_real("AgentMagics.mcp_timeout", proposal["value"], low=0, low_open=True)
        except (TypeError, ValueError) as exc:
            raise TraitError(str(exc)) from None

    @observe("mcp_servers")
    def _mcp_servers_changed(self, change: Any) -> None:
        """The configured servers join the kernel runner's, to start on first use."""
        servers = servers_of(get_runner())
        for toolset in servers_from_config(self.mcp_servers, timeout=self.mcp_timeout):
            servers.add(toolset, start=False)

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
        for toolset in servers_of(current):  # the MCP servers go along (restarted on use)
            servers_of(runner).add(toolset, start=False)
        previous = set_runner(runner)
        if previous is not None and previous is self._own_runner:
            previous.shutdown()
        self._own_runner = runner
