"""The ``%%agent`` line: its options (IPython's ``magic_arguments``) and their parsing.

The options are declared once, here, as one decorator (`cell_options`) that
the cell magic wears, so ``%%agent?`` shows their help; `parse` reads a
line with the same parser. A parse error is one line (`UsageError`), never
argparse's exit.
"""

from __future__ import annotations

import argparse
import keyword
import shlex
from collections.abc import Callable
from typing import Any, TypeVar

from IPython.core.error import UsageError
from IPython.core.magic_arguments import argument, magic_arguments

__all__ = ["CELL_HELP", "cell_options", "check_output_name", "parse", "tool_names"]

CELL_HELP = """Send the cell to a model and stream the reply into the output.

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
``var.parsed``). ``--tools files`` offers the tools of the MCP server
added as ``files`` (``%agent mcp add``); a tool that only reads runs at
once, any other waits for your approval.

Examples::

    %%agent
    Explain {topic} in one sentence.

    %%agent review -s "You are a terse reviewer." --data df -o answer
    What stands out in this table?

    %%agent --cells 3 --outputs --code
    Plot the column I computed above as a histogram.

    %%agent --choice "yes|no|unsure" -o verdict
    Is this table sorted by date?

    %%agent --tools files
    What does syllabus.md say about week 2?
"""
"""``%%agent?``: what the cell magic does; the options' help follows it."""

_F = TypeVar("_F", bound=Callable[..., Any])

_OPTIONS = (
    argument("session", nargs="?", help="Session id (default: AgentMagics.default_session)."),
    argument("--new", action="store_true", help="Delete the session's history first."),
    argument("--once", action="store_true", help="A single turn on a hidden, temporary session."),
    argument("-m", "--model", help="Model spec for this turn, e.g. mlx:smollm2-135m."),
    argument("-s", "--system", help="System instructions for this turn."),
    argument("-t", "--temperature", type=float, help="Sampling temperature, 0 (greedy) to 2."),
    argument(
        "--max-tokens",
        type=int,
        help="Cap on generated tokens (a reply cut off there is marked).",
    ),
    argument(
        "--context",
        choices=["window", "error"],
        help="Past the model's window: leave the oldest turns out (window) or fail "
        "(error); default AgentMagics.context_policy.",
    ),
    argument(
        "--fresh",
        action="store_true",
        help="Ask the model even if this exact request was answered before (no replay; "
        "AgentMagics.replay = False turns replay off for every cell).",
    ),
    argument("-o", "--output", metavar="VAR", help="Store the Reply in this variable."),
    argument(
        "--tools",
        metavar="NAME[,NAME]",
        help="Give the model the tools of these MCP servers (added with %%agent mcp add, "
        "or AgentMagics.mcp_servers) for this turn.",
    ),
    argument(
        "--tool-choice",
        metavar="CHOICE",
        help="auto (the model decides), required (some tool), none, or a tool's name: "
        "the first model call must call it, under the grammar; after the tools ran the "
        "model answers freely. A small model may not call a tool on its own.",
    ),
    argument(
        "--schema",
        metavar="NAME",
        help="Reply as JSON matching NAME, a pydantic BaseModel class or a JSON-schema "
        'dict in the notebook, or a JSON schema written out (\'{"type": "number"}\'); '
        "shows the parsed value (-o VAR: VAR.parsed).",
    ),
    argument(
        "--choice",
        metavar='"A|B|C"',
        help='Reply with exactly one of these strings, e.g. --choice "yes|no|unsure".',
    ),
    argument(
        "--data",
        nargs="+",
        action="extend",
        default=[],
        metavar="VAR",
        help="DataFrames, or data where it lives: a Parquet/CSV path or glob, a DuckDB "
        "relation or connection (with --table), an Ibis table, a database URL (with --table). "
        "The data agent answers from them (see --data-mode; "
        "'df[\"col\"]' is one column). Other objects (array, any object): a summary attached "
        "within AgentMagics.data_budget tokens, counted by the model's tokenizer where it has one.",
    ),
    argument(
        "--table",
        metavar="NAME",
        help="With --data: the table to ask about in a database URL "
        '(--data "postgresql://reader@host/db" --table sales) or a DuckDB connection variable.',
    ),
    argument(
        "--data-context",
        metavar="VAR|FILE",
        help="The user's words for --data tables: a dict variable or a YAML file, e.g. "
        "{'TOEFL Score': 'English test score', 'Origin=USA': 'American'} "
        "(column descriptions, value synonyms); df.attrs['context'] works too.",
    ),
    argument(
        "--data-mode",
        choices=["insights", "summary"],
        help="DataFrames in --data: insights (data agent, default "
        "AgentMagics.data_mode) or summary (attached to the message).",
    ),
    argument(
        "--data-wording",
        choices=["computed", "model"],
        help="A data answer's words: computed (the computed sentence, at once; default "
        "AgentMagics.data_wording) or model (the model words it, checked against the result).",
    ),
    argument(
        "--format",
        choices=["markdown", "text", "code"],
        default="markdown",
        help="markdown (default), text, or code (only the fenced code blocks).",
    ),
    argument(
        "--code",
        action="store_true",
        help="Put the reply's first code block into a new cell below (never run).",
    ),
    argument(
        "--cells",
        type=int,
        metavar="N",
        help="Send the code of the last N executed cells (In [n]) as context.",
    ),
    argument(
        "--outputs",
        action="store_true",
        help="With --cells: their text outputs too (printed text, results, errors).",
    ),
    argument("--raw", action="store_true", help="Send the cell as typed: no {name} interpolation."),
)


def cell_options(func: _F) -> _F:
    """Declare the ``%%agent`` options on ``func`` (as stacked ``@argument`` lines
    would), with `CELL_HELP` as its help."""
    func.__doc__ = CELL_HELP
    for option in reversed(_OPTIONS):
        func = option(func)
    decorated: _F = magic_arguments(name="%agent")(func)
    return decorated


@cell_options
def _line(line: str, cell: str) -> None:
    """The parser's holder."""


_PARSER: argparse.ArgumentParser = _line.parser  # type: ignore[attr-defined]


def parse(line: str) -> argparse.Namespace:
    """The options of a ``%%agent`` line; a bad one raises a one-line `UsageError`."""
    try:
        argv = shlex.split(line)
    except ValueError as exc:  # unbalanced quotes
        raise UsageError(f"cannot parse %%agent options: {exc}") from None
    # IPython's parser raises UsageError with argparse's one-line message.
    return _PARSER.parse_args(argv)


def check_output_name(name: str | None) -> None:
    """``-o VAR`` must name a Python variable."""
    if name and (not name.isidentifier() or keyword.iskeyword(name)):
        raise UsageError(f"-o needs a Python variable name, got {name!r}")


def tool_names(value: str | None) -> list[str]:
    """``--tools a,b``: the server names, in order, each once."""
    if not value:
        return []
    names = [n.strip() for n in value.split(",")]
    if not all(names):
        raise UsageError(f"--tools takes server names separated by commas, got {value!r}")
    return list(dict.fromkeys(names))
