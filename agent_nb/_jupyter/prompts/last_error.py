"""The kernel's last error, made into a bounded prompt for ``%agent explain``.

What a model needs to explain an error is what a person reads: the exception
and its message, the code of the cell that failed, and the frames of *the
user's own code*. The frames of the machinery that ran the cell (IPython,
ipykernel, asyncio) say nothing about the bug and cost a small model most of
its context, so they are left out; frames inside libraries (pandas, the
standard library) are folded into one line that names the packages, which
keeps the path from the user's call to the failing library visible.

The error comes from ``post_run_cell`` (the exception of the latest failed
cell, with the cell's code as typed); when the extension was loaded only
after the failure, IPython's ``sys.last_value`` stands in. A magic's own
``UsageError`` is never "the last error": it is already a one-line
explanation, and ``%agent explain`` failing must not hide the error the user
wants explained.
"""

from __future__ import annotations

import dataclasses
import linecache
import os
import sys
import sysconfig
import traceback
from collections.abc import Mapping
from typing import Any

from ..._core.tokens import CHARS_PER_TOKEN_CAP, TextCounter, estimate_text_tokens
from .trim import cut_middle, fit_middle

__all__ = ["LastError", "error_from_result", "error_from_sys", "explain_prompt"]

INSTRUCTIONS = (
    "My notebook cell failed with the Python error below. Explain the cause in plain "
    "words, then suggest a fix (show corrected code)."
)


@dataclasses.dataclass(frozen=True)
class LastError:
    """A failed cell: its exception, its code as typed and its execution count."""

    error: BaseException
    cell: str | None = None
    execution_count: int | None = None

    @property
    def summary(self) -> str:
        """``ZeroDivisionError: division by zero`` (first line of the message only)."""
        error = self.error
        text = error.msg if isinstance(error, SyntaxError) and error.msg else str(error)
        message = text.strip().splitlines()
        name = type(self.error).__name__
        return f"{name}: {message[0]}" if message else name


def _is_usage_error(error: BaseException) -> bool:
    from IPython.core.error import UsageError

    return isinstance(error, UsageError)


def error_from_result(result: Any) -> LastError | None:
    """The error of a cell's `ExecutionResult` (``post_run_cell``), if it failed."""
    if result is None:
        return None
    error = result.error_in_exec or result.error_before_exec
    if error is None or _is_usage_error(error):
        return None
    return LastError(error, result.info.raw_cell, result.execution_count)


def error_from_sys(cell_numbers: Mapping[str, int], inputs: list[str]) -> LastError | None:
    """IPython's record of the last traceback, for errors from before the extension loaded."""
    error = getattr(sys, "last_exc", None) or getattr(sys, "last_value", None)
    if not isinstance(error, BaseException) or _is_usage_error(error):
        return None
    files = [f.filename for f in traceback.extract_tb(error.__traceback__)]
    if isinstance(error, SyntaxError) and error.filename:
        files.append(error.filename)
    count = next((cell_numbers[f] for f in files if f in cell_numbers), None)
    cell = inputs[count] if count is not None and 0 < count < len(inputs) else None
    return LastError(error, cell, count)


def _library_roots() -> tuple[str, ...]:
    paths = sysconfig.get_paths()
    keys = ("stdlib", "platstdlib", "purelib", "platlib")
    roots = {os.path.realpath(paths[k]) for k in keys if k in paths}
    return tuple(sorted((os.path.join(r, "") for r in roots), key=len, reverse=True))


_ROOTS = _library_roots()


def _library_package(filename: str) -> str | None:
    """The package a library frame belongs to, or None for the user's own code."""
    if filename.startswith("<frozen "):
        return filename[len("<frozen ") : -1].split(".")[0]
    path = os.path.realpath(filename) if os.path.isabs(filename) else filename
    for marker in ("/site-packages/", "/dist-packages/"):
        if marker in path:
            return path.split(marker, 1)[1].split("/")[0].removesuffix(".py")
    for root in _ROOTS:
        if path.startswith(root):
            return path[len(root) :].split(os.sep)[0].removesuffix(".py")
    return None


def _label(filename: str, cell_numbers: Mapping[str, int]) -> str:
    number = cell_numbers.get(filename)
    return f"In [{number}]" if number is not None else filename


def _user_frames(error: BaseException, cell_numbers: Mapping[str, int]) -> list[str]:
    """Traceback lines for the user's frames; library runs folded, the cell runner dropped."""
    lines: list[str] = []
    folded: list[str] = []  # packages of the library frames since the last user frame
    seen_user_code = False

    def fold() -> None:
        if folded:
            n = len(folded)
            names = ", ".join(dict.fromkeys(folded))
            lines.append(f"  … {n} frame{'s' * (n != 1)} in {names} …")
            folded.clear()

    for frame in traceback.extract_tb(error.__traceback__):
        package = _library_package(frame.filename) if frame.filename not in cell_numbers else None
        if package is not None:
            if seen_user_code:  # frames before the first cell frame only ran the cell
                folded.append(package)
            continue
        seen_user_code = True
        fold()
        lines.append(
            f"  {_label(frame.filename, cell_numbers)}, line {frame.lineno}, in {frame.name}"
        )
        source = frame.line or linecache.getline(frame.filename, frame.lineno or 0)
        if source.strip():
            lines.append(f"    {source.strip()}")
    fold()
    return lines


def _exception_text(error: BaseException, cell_numbers: Mapping[str, int]) -> str:
    """The exception as Python prints it, with earlier chained errors named first."""
    chain: list[BaseException] = []
    current: BaseException | None = error
    while current is not None and current not in chain and len(chain) < 4:
        chain.append(current)
        context = None if current.__suppress_context__ else current.__context__
        current = current.__cause__ or context
    parts = []
    for earlier in reversed(chain[1:]):
        only = "".join(traceback.format_exception_only(type(earlier), earlier)).strip()
        parts.append(f"(while handling {only})")
    text = "".join(traceback.format_exception_only(type(error), error)).rstrip()
    for filename in cell_numbers:
        if f'"{filename}"' in text:
            text = text.replace(filename, _label(filename, cell_numbers))
    return "\n".join([*parts, text])


def explain_prompt(
    last: LastError,
    cell_numbers: Mapping[str, int],
    budget_tokens: int = 800,
    count: TextCounter = estimate_text_tokens,
) -> str:
    """The ``%agent explain`` message: instructions, error, cell code, user frames.

    About ``budget_tokens`` long at most, as ``count`` counts tokens (the
    model's tokenizer, or the estimate): each part is cut in its middle to its
    share (a quarter for the message, the rest split between code and frames).
    """
    budget = max(200, budget_tokens) - count(INSTRUCTIONS)
    # cut by characters first (generously) so a huge message is never counted whole
    error = cut_middle(_exception_text(last.error, cell_numbers), budget * CHARS_PER_TOKEN_CAP)
    parts = [INSTRUCTIONS, fit_middle(error, budget // 4, count, "Error:\n{}".format)]
    if last.cell and last.cell.strip():
        where = f" (In [{last.execution_count}])" if last.execution_count else ""
        label = f"The failing cell{where}:\n```python\n{{}}\n```".format
        parts.append(fit_middle(last.cell.strip("\n"), budget * 3 // 8, count, label))
    frames = _user_frames(last.error, cell_numbers)
    if frames:
        label = "Traceback of my code (most recent call last):\n{}".format
        parts.append(fit_middle("\n".join(frames), budget * 3 // 8, count, label))
    return "\n\n".join(parts)
