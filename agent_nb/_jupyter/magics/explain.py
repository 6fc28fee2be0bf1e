"""``%agent explain``: ask the model why the last failing cell failed.

It is a ``%%agent`` turn whose message is built from the error rather than
typed: the same session (default or named), the same streaming, rewind on
re-run and interrupt handling, so a follow-up ``%%agent`` cell can ask "and
how else could I fix it?" in the same conversation. The prompt itself is
built (and bounded) in `agent_nb._jupyter.last_error`.
"""

from __future__ import annotations

from typing import TYPE_CHECKING, Any

from IPython.core.magic_arguments import MagicArgumentParser

from ..prompts.last_error import LastError, error_from_sys, explain_prompt

__all__ = ["ExplainMixin"]


class ExplainMixin:
    """Mixed into `AgentMagics`; uses its shell, its error record and its turn path."""

    if TYPE_CHECKING:
        shell: Any
        last_error: LastError | None
        error_budget: int
        agent_cell: Any

        def _send(self, args: Any, message: str) -> None: ...

    def _cmd_explain(self, argv: list[str]) -> None:
        parser = MagicArgumentParser(prog="%agent explain", add_help=False)
        parser.add_argument("session", nargs="?")
        parser.add_argument("-m", "--model")
        parser.add_argument("--max-tokens", type=int)
        options = parser.parse_args(argv)
        cell_numbers: dict[str, int] = getattr(self.shell.compile, "_filename_map", {})
        last = self.last_error or error_from_sys(
            cell_numbers, self.shell.history_manager.input_hist_raw
        )
        if last is None:  # nothing went wrong: a note, not an error
            print(
                "no error to explain yet: %agent explain explains the last cell that raised "
                "an exception in this kernel"
            )
            return
        # Every other %%agent option keeps its default (session, streaming, rewind...).
        args = self.agent_cell.parser.parse_args([])
        args.session, args.model, args.max_tokens = (
            options.session, options.model, options.max_tokens
        )  # fmt: skip
        where = f" in In [{last.execution_count}]" if last.execution_count else ""
        print(f"explaining {last.summary}{where}")
        self._send(args, explain_prompt(last, cell_numbers, self.error_budget))
