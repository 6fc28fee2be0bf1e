"""Streaming one turn into a cell's output for ``%%agent``.

The kernel's main thread runs the magic while an event loop may already be
running in that thread (ipykernel), so the turn's `EventStream` is read with
its blocking `EventStream.next_event`, in short waits that keep the thread
responsive to a kernel interrupt: ``KeyboardInterrupt`` cancels the turn and
the loop keeps draining until the turn is recorded (as interrupted). A token
crosses three threads: the MLX thread, the worker loop, this one.

Output goes through one display handle, updated at most every
``interval`` seconds (less often when a long reply makes each render costly),
as Markdown made safe by `safe_markdown`. A terminal
IPython cannot update a display in place, so there the text is printed as it
streams. In a front end that renders widgets the output is a widget while the
turn streams, which draws the reply and watches the kernel (`turn_status`): a
restart mid-turn cannot leave a silently cut-off reply, and the final text
replaces the widget in the same output (a saved notebook keeps one output).

Until the first token the output says what the turn is doing: waiting for
another session's turn (a local model answers one turn at a time, so a cell
can sit behind a widget's long reply; `Waiting` events say so), reading a long prompt ("reading the
prompt: 3,072 / 7,034 tokens", from `PromptProgress` events) or just "…". A
reply stopped by its token limit or the repetition stop, or one that came
back empty, ends with a note that says so (`Reply.note`); one answered from
the replay cache says so too, and how to ask the model instead (`replay_note`).
A structured reply (``--schema``, ``--choice``) streams as its JSON and ends as
its parsed value.
"""

from __future__ import annotations

import dataclasses
import sys
import time
from collections.abc import Callable
from typing import Any, Literal, Protocol

from ..._core.fences import code_blocks, fence_markdown
from ..._core.render import safe_markdown
from ..._core.reply import Reply, Structured, shown_text
from ..._core.types import (
    Event,
    FunctionCall,
    FunctionResponse,
    PromptProgress,
    Rewound,
    TextMessage,
    Waiting,
)
from ..._runtime.face import EventStream
from ..export import call_entry, response_line
from ..front_end import batch_run
from ..waiting import waiting_note

__all__ = [
    "REPLAYED",
    "CellOutput",
    "DisplayOutput",
    "Outcome",
    "TerminalOutput",
    "output_for",
    "render_bundle",
    "replay_note",
    "show_bundle",
    "show_turn",
]

Format = Literal["markdown", "text", "code"]
READING = "reading the prompt"
REPLAYED = "↻ replayed"


def replay_note(reply: Reply) -> str:
    """ "↻ replayed ..." for a turn answered (in part) from the replay cache, else ""."""
    calls = reply.usage.replayed_calls
    if not calls:
        return ""
    what = "the recorded answer" if calls == 1 else f"{calls} recorded model answers"
    return f"{REPLAYED}: {what} to this same request; `%%agent --fresh` asks the model again"


@dataclasses.dataclass
class Outcome:
    """What the cell saw: shown text, the reply (if the turn ended cleanly), any error."""

    text: str = ""
    reply: Reply | None = None
    error: BaseException | None = None
    interrupted: bool = False
    invocation_id: str | None = None


class CellOutput(Protocol):
    def start(self) -> None:
        """The turn is under way: show that something is coming."""

    def show(
        self, text: str, *, final: bool, interrupted: bool, note: str = "", plain: str | None = None
    ) -> None: ...

    def waiting(self, note: str) -> None:
        """Before any text: say why nothing shows yet ("" = nothing to say)."""

    def mark(self, line: str) -> None:
        """Rewrite the finished output with ``line`` below it ("" removes it)."""

    def failed(self) -> None:
        """The turn failed before any text: leave nothing above the error."""


def _code_only(text: str) -> str:
    """``--format code``: the fenced blocks of a reply, or all of it when it has none."""
    blocks = code_blocks(text)
    if not blocks:
        return fence_markdown(text.split("\n")) if text else ""
    return "\n\n".join(fence_markdown(block.lines, block.lang) for block in blocks)


def render_bundle(
    text: str,
    fmt: Format,
    *,
    final: bool,
    interrupted: bool,
    note: str = "",
    plain: str | None = None,
) -> dict[str, str]:
    """The MIME bundle for the cell: safe Markdown plus the raw text as text/plain
    (``plain`` where the Markdown source is not the text itself: an escaped value)."""
    note = "(interrupted)" if interrupted else note
    plain = "\n".join(part for part in (text if plain is None else plain, note) if part)
    note = "".join(f"\n\n*{line}*" for line in note.split("\n") if line)
    if fmt == "text":
        return {"text/plain": plain or "…"}
    source = _code_only(text) if fmt == "code" else text
    markdown = safe_markdown(source) + note
    if not final:
        markdown += " …"
    return {"text/markdown": markdown or "…", "text/plain": plain or "…"}


class DisplayOutput:
    """One display handle, created by `start` (so a slow prefill shows activity).

    ``watch_kernel``: the front end may render widgets, so while the turn
    streams the output is a widget that draws the reply and says so if the
    kernel restarts before the turn ends (`turn_status`); the final text
    replaces it in the same output.
    """

    def __init__(self, fmt: Format, *, watch_kernel: bool = False) -> None:
        self.fmt = fmt
        self._final: tuple[str, bool, str, str | None] = ("", False, "", None)
        self._handle: Any = None
        self._watch_kernel = watch_kernel
        self._watch: Any = None

    def start(self) -> None:
        from IPython.display import display

        bundle: dict[str, Any] = render_bundle("", self.fmt, final=False, interrupted=False)
        if self._watch_kernel:
            from .turn_status import watch_turn

            self._watch = watch_turn()
        if self._watch is not None:
            bundle = self._watch.bundle(bundle)
        self._handle = display(bundle, raw=True, display_id=True)

    def _streaming(self, bundle: dict[str, str]) -> None:
        """A bundle before the final one: to the watch's view, else to the output."""
        if self._watch is not None:
            self._watch.show(bundle)
        else:
            self._handle.update(bundle, raw=True)

    def show(
        self, text: str, *, final: bool, interrupted: bool, note: str = "", plain: str | None = None
    ) -> None:
        bundle = render_bundle(
            text, self.fmt, final=final, interrupted=interrupted, note=note, plain=plain
        )
        if not final:
            self._streaming(bundle)
            return
        self._handle.update(bundle, raw=True)
        self._final = (text, interrupted, note, plain)
        self._end_watch()

    def mark(self, line: str) -> None:
        """The finished output again, with ``line`` (a stale mark) below it; "" removes it."""
        text, interrupted, note, plain = self._final
        marked = "\n".join(part for part in (note, line) if part)
        bundle = render_bundle(
            text, self.fmt, final=True, interrupted=False, note=marked, plain=plain
        )
        if interrupted:
            bundle = render_bundle(text, self.fmt, final=True, interrupted=True, plain=plain)
        self._handle.update(bundle, raw=True)

    def failed(self) -> None:
        if self._handle is not None:  # not a stray "…" over the error
            self._handle.update({"text/plain": ""}, raw=True)
        self._end_watch()

    def _end_watch(self) -> None:
        if self._watch is not None:
            self._watch.end()
            self._watch = None

    def waiting(self, note: str) -> None:
        plain = f"◷ {note}" if note else "…"
        markdown = f"*{plain}*" if note else plain
        self._streaming({"text/markdown": markdown, "text/plain": plain})


class TerminalOutput:
    """Plain text printed as it streams (terminal IPython: no display updates)."""

    def __init__(self) -> None:
        self._printed = ""
        self._progress = 0  # width of the open progress line (rewritten with \r), or 0

    def start(self) -> None:
        """A terminal prints nothing until there is something to say."""

    def waiting(self, note: str) -> None:
        if note.startswith(READING):  # rewritten in place, not one line per update
            line = f"({note})"
            sys.stdout.write("\r" + line.ljust(self._progress))
            self._progress = max(self._progress, len(line))
        elif note:
            sys.stdout.write(f"{self._end_progress()}({note})\n")
        sys.stdout.flush()

    def _end_progress(self) -> str:
        """Blank the progress line, so it is gone once the reply starts (as in a cell)."""
        width, self._progress = self._progress, 0
        return f"\r{' ' * width}\r" if width else ""

    def mark(self, line: str) -> None:
        """A terminal cannot rewrite what it printed: no stale marks there."""

    def failed(self) -> None:
        sys.stdout.write(self._end_progress())
        sys.stdout.flush()

    def show(
        self, text: str, *, final: bool, interrupted: bool, note: str = "", plain: str | None = None
    ) -> None:
        sys.stdout.write(self._end_progress())
        text = text if plain is None else plain
        if text.startswith(self._printed):
            sys.stdout.write(text[len(self._printed) :])
        else:  # a tool round replaced the partial text: start a new line
            sys.stdout.write("\n" + text)
        self._printed = text
        if final:
            if interrupted:
                sys.stdout.write(" [interrupted]\n")
            else:  # the cut-off note is a sentence of its own: its own line
                sys.stdout.write(f"\n{note}\n" if note else "\n")
        sys.stdout.flush()


class _Transcript:
    """The turn as shown: finished model texts and tool lines, then the streaming text.

    A turn of several agents labels each block with its agent (``[writer]``);
    a one-agent turn shows no labels.
    """

    def __init__(self) -> None:
        self.done: list[tuple[str, str]] = []  # (author, text)
        self.partial: dict[str, list[str]] = {}  # parallel agents stream side by side
        self._texts: dict[str, int] = {}  # a final message's event id -> its place in done
        self._plain: dict[int, str] = {}  # place in done -> the text, where done holds Markdown

    def add(self, event: Event) -> bool:
        if isinstance(event, TextMessage) and event.author != "user":
            if event.is_partial:
                self.partial.setdefault(event.author, []).append(event.text)
            else:
                self.partial.pop(event.author, None)
                if not event.text:
                    return False  # a step that only wrote state
                self._texts[event.id] = len(self.done)
                self.done.append((event.author, event.text))
        elif isinstance(event, FunctionCall):
            self.done.append((event.author, call_entry(event)))
        elif isinstance(event, FunctionResponse):
            self.done.append((event.author, response_line(event, limit=300)))
        else:
            return False
        return True

    def show_parsed(self, structured: Structured | None) -> None:
        """The structured message as its parsed value (`shown_text`), once it is done."""
        at = None if structured is None else self._texts.get(structured.event_id)
        if at is not None:
            author, text = self.done[at]
            self.done[at] = (author, shown_text(text, structured))
            if structured is not None and isinstance(structured.data, str):
                self._plain[at] = structured.data

    @property
    def text(self) -> str:
        return self._joined(self.done)

    @property
    def plain(self) -> str | None:
        """The text with each escaped value as itself (None: the same as `text`)."""
        if not self._plain:
            return None
        return self._joined([(a, self._plain.get(i, t)) for i, (a, t) in enumerate(self.done)])

    def _joined(self, done: list[tuple[str, str]]) -> str:
        blocks = [*done, *((a, "".join(p)) for a, p in self.partial.items())]
        labelled = len({author for author, _ in blocks}) > 1
        return "\n\n".join(f"[{a}] {t}" if labelled else t for a, t in blocks)


def show_turn(
    stream: EventStream,
    output: CellOutput,
    interval: float,
    *,
    on_rewound: Callable[[Rewound], None] | None = None,
) -> Outcome:
    """Show ``stream`` in ``output`` until the turn is recorded; Ctrl-C cancels it.

    Until the first text the output says what the turn waits for: the sessions
    ahead of it on the model (`Waiting`), or how far the prompt is read.
    The output starts with the first event, or once the first wait for one ends
    (the turn is running: a slow prefill shows activity), so a turn refused at
    once leaves no output above its error. ``on_rewound``: a re-run may rewind
    first, and its note belongs above the reply, so there the output starts only
    after the first event (`Rewound` or not).
    """
    started = False
    outcome = Outcome()
    transcript = _Transcript()
    next_show = 0.0
    dirty = False
    shown_note = ""
    waiting = ""  # the sessions ahead on the model, from the latest Waiting event
    reading = ""  # the latest prompt progress, until the first text
    while True:
        try:
            wait = max(0.001, next_show - time.monotonic()) if dirty else 0.1
            try:
                item = stream.next_event(timeout=wait)
            except StopIteration:
                break
            except Exception as exc:  # the turn failed; the cell reports it
                outcome.error = exc
                break
            if isinstance(item, Waiting):
                waiting = waiting_note(item)
            elif isinstance(item, PromptProgress):
                reading = f"{READING}: {item.done:,} / {item.total:,} tokens"
            elif isinstance(item, Rewound):
                if on_rewound is not None:
                    on_rewound(item)
            elif item is not None:
                outcome.invocation_id = outcome.invocation_id or item.invocation_id
                dirty = transcript.add(item) or dirty
            if not started and (item is not None or on_rewound is None):
                output.start()
                started = True
            if started and not transcript.text and not dirty:
                note = waiting or reading
                if note != shown_note:
                    output.waiting(note)
                    shown_note = note
            now = time.monotonic()
            if dirty and now >= next_show:
                output.show(transcript.text, final=False, interrupted=False)
                # A long reply costs more to render each time: back off so that
                # rendering never takes more than about a fifth of the time.
                spent = time.monotonic() - now
                next_show, dirty = now + max(interval, 5 * spent), False
        except KeyboardInterrupt:
            # Kernel interrupt: stop the turn, keep draining until it is recorded.
            outcome.interrupted = True
            stream.cancel()
    if outcome.error is None:
        outcome.reply = stream.result()  # set before the stream ends
        outcome.interrupted = outcome.reply.interrupted
        transcript.show_parsed(outcome.reply.structured)
    outcome.text = transcript.text
    if outcome.error is not None and not outcome.text:
        output.failed()
        return outcome
    if not started:
        output.start()
    reply = outcome.reply
    note = reply.note if reply is not None and not reply.interrupted else ""
    if reply is not None and reply.awaiting_approval:
        note = ""  # the cell asks, or says how to answer (`approval_cell`)
    if reply is not None:
        note = "\n".join(n for n in (note, replay_note(reply)) if n)
    output.show(
        outcome.text,
        final=True,
        interrupted=outcome.interrupted,
        note=note,
        plain=transcript.plain,
    )
    return outcome


def output_for(shell: Any, fmt: Format) -> CellOutput:
    """A display handle where the front end can update one, else printed text (a
    terminal); drawn by a widget that watches the kernel while the turn streams where
    a front end renders widgets (not a batch run such as nbconvert, which no one
    watches)."""
    if not _rich(shell):
        return TerminalOutput()
    watch = getattr(shell, "kernel", None) is not None and not batch_run(shell)
    return DisplayOutput(fmt, watch_kernel=watch)


def show_bundle(shell: Any, bundle: dict[str, str]) -> None:
    """A MIME bundle into the cell's output (a terminal prints its text/plain)."""
    if _rich(shell):
        from IPython.display import display

        display(bundle, raw=True)
    else:
        print(bundle["text/plain"])


def _rich(shell: Any) -> bool:
    """False in a terminal, whose publisher can only print text/plain."""
    from IPython.core.displaypub import DisplayPublisher

    return type(shell.display_pub) is not DisplayPublisher
