"""``%agent explain``: ask the model why the last failing cell failed.

It is a ``%%agent`` turn whose message is built from the error rather than
typed: the same session (default or named), the same streaming, rewind on
re-run and interrupt handling, so a follow-up ``%%agent`` cell can ask "and
how else could I fix it?" in the same conversation. The prompt itself is
built (and bounded, in the turn's model's tokens) in
`agent_nb._jupyter.prompts.last_error`.

`explain` is a function handed what it uses by `AgentMagics`: the shell, the
error on record, the budget, the ``%%agent`` defaults, the token counter of
the model a set of options picks, and the magics' send path.
"""

from __future__ import annotations

from collections.abc import Callable
from typing import Any

from IPython.core.magic_arguments import MagicArgumentParser

from ..._core.tokens import TextCounter
from ..prompts.last_error import LastError, error_from_sys, explain_prompt

__all__ = ["explain"]


def explain(
    argv: list[str],
    *,
    shell: Any,
    last_error: LastError | None,
    budget_tokens: int,
    turn_defaults: Callable[[], Any],
    counter: Callable[[Any], TextCounter],
    send: Callable[[Any, str], None],
) -> None:
    """Run ``%agent explain [ID] [-m SPEC] [--max-tokens N]`` (``argv`` after ``explain``).

    ``turn_defaults()`` gives the ``%%agent`` options with their defaults,
    ``counter(options)`` counts tokens as the model those options pick, and
    ``send(options, message)`` runs the turn.
    """
    parser = MagicArgumentParser(prog="%agent explain", add_help=False)
    parser.add_argument("session", nargs="?")
    parser.add_argument("-m", "--model")
    parser.add_argument("--max-tokens", type=int)
    options = parser.parse_args(argv)
    cell_numbers: dict[str, int] = getattr(shell.compile, "_filename_map", {})
    last = last_error or error_from_sys(cell_numbers, shell.history_manager.input_hist_raw)
    if last is None:  # nothing went wrong: a note, not an error
        print(
            "no error to explain yet: %agent explain explains the last cell that raised "
            "an exception in this kernel"
        )
        return
    # Every other %%agent option keeps its default (session, streaming, rewind...).
    args = turn_defaults()
    args.session, args.model, args.max_tokens = (options.session, options.model, options.max_tokens)
    where = f" in In [{last.execution_count}]" if last.execution_count else ""
    print(f"explaining {last.summary}{where}")
    send(args, explain_prompt(last, cell_numbers, budget_tokens, counter(args)))
