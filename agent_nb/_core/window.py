"""The context window: which whole turns of a history the model is shown.

History only grows, but a model has a fixed window. Before each model call
the turn counts the request and, when prompt + ``max_tokens`` would not fit,
applies the agent's ``context_policy``:

* ``"window"`` (default): leave out the oldest **whole turns** (a turn starts
  at a user message, so a tool call and its response always go together;
  the system instructions and the current turn always stay). The cut is
  **sticky**: it moves only when the request no longer fits, and then far
  enough that the prompt takes about ¾ of the window. The prefix the model
  sees therefore changes once per slide, not every turn, so a backend's KV
  cache (which reuses the longest common prefix) is rebuilt once per slide
  and reused in between.
* ``"error"``: raise `ContextWindowError` instead.

Either way, a current turn that does not fit alone raises
`ContextWindowError`, naming the counts and the next step. History is never
trimmed: the window is only what the model is shown.

Everything here is pure (counting is passed in), so the rules are tested
without a model; `WindowMemory` is the little per-session state (the sticky
cut, and a shrink learned from a server that refused a request for length).
"""

from __future__ import annotations

import dataclasses
from collections.abc import Callable, Iterable, Sequence
from typing import Literal, TypeAlias, get_args

from ..errors import ContextWindowError
from .types import Content, Event, GenerateContentRequest, Role, TurnComplete

__all__ = [
    "CONTEXT_POLICIES",
    "SLIDE_TO",
    "ContextPolicy",
    "Window",
    "WindowMemory",
    "check_policy",
    "fit_window",
    "omitted_line",
    "shown",
    "turn_starts",
]

ContextPolicy: TypeAlias = Literal["window", "error"]
CONTEXT_POLICIES: tuple[str, ...] = get_args(ContextPolicy)

#: After a slide the prompt plus ``max_tokens`` takes at most this share of the window.
SLIDE_TO = 0.75

_NEXT_STEP = (
    "shorten the input, lower the --data budget (%config AgentMagics.data_budget) or "
    "--max-tokens, start over with %agent delete SESSION, or use a model with a bigger window"
)


def check_policy(value: object) -> ContextPolicy:
    """``value`` if it is a context policy, else a one-line ValueError saying what is."""
    if value not in CONTEXT_POLICIES:
        raise ValueError(
            f"context_policy must be one of {', '.join(map(repr, CONTEXT_POLICIES))}, got {value!r}"
        )
    return value  # type: ignore[return-value]


def turn_starts(contents: Sequence[Content]) -> list[int]:
    """Indices where whole turns begin: each user text (tool results are not turns).

    Anything before the first user text (a caller-supplied history that
    starts with the model) is one turn of its own.
    """
    starts = [
        i
        for i, c in enumerate(contents)
        if c.role is Role.USER and any(p.text is not None for p in c.parts)
    ]
    if contents and (not starts or starts[0] != 0):
        starts.insert(0, 0)
    return starts


def _without_oldest(
    request: GenerateContentRequest, starts: Sequence[int], omitted: int
) -> GenerateContentRequest:
    if not omitted:
        return request
    return dataclasses.replace(request, contents=request.contents[starts[omitted] :])


def shown(request: GenerateContentRequest, omitted: int) -> GenerateContentRequest:
    """``request`` without its ``omitted`` oldest whole turns (the current one always stays):
    what a sticky cut shows the model, e.g. to trim a KV cache after a rewind."""
    starts = turn_starts(request.contents)
    return _without_oldest(request, starts, min(max(omitted, 0), max(len(starts) - 1, 0)))


@dataclasses.dataclass(frozen=True)
class Window:
    """What the model is shown: ``request`` without the ``omitted`` oldest turns."""

    request: GenerateContentRequest
    omitted: int
    tokens: int  # the request's prompt tokens, as counted
    window: int | None  # the window it was fitted to (None: unknown, nothing fitted)


def fit_window(
    request: GenerateContentRequest,
    *,
    count: Callable[[GenerateContentRequest], int],
    window: int | None,
    policy: ContextPolicy,
    start: int = 0,
) -> Window:
    """Fit ``request`` into ``window`` tokens, leaving out whole turns from ``start`` on.

    ``start`` is the sticky cut of the previous call (turns already left
    out); it is kept while the request fits. Raises `ContextWindowError` when
    the policy is ``"error"`` and the request does not fit, or when the current
    turn alone does not fit.
    """
    reserve = request.config.max_tokens
    if window is not None and reserve > window:  # no history could ever fit
        raise ContextWindowError(
            f"max_tokens must be between 1 and the model's window ({window:,} tokens), "
            f"got {reserve:,}; nothing was sent or recorded. Lower --max-tokens / "
            "GenerationConfig.max_tokens",
            tokens=reserve,
            window=window,
        )
    starts = turn_starts(request.contents)
    last = max(len(starts) - 1, 0)  # the current turn is never left out
    start = 0 if policy == "error" else min(max(start, 0), last)
    # Each candidate is built and counted once, and the one returned is the very
    # object counted (a backend may keep what counting rendered, e.g. MLX's ids).
    candidates: dict[int, GenerateContentRequest] = {}
    counted: dict[int, int] = {}

    def tokens_without(omitted: int) -> int:
        if omitted not in counted:
            candidates[omitted] = _without_oldest(request, starts, omitted)
            counted[omitted] = count(candidates[omitted])
        return counted[omitted]

    tokens = tokens_without(start)
    if window is None or tokens + reserve <= window:
        return Window(candidates[start], start, tokens, window)
    if policy == "error":
        raise ContextWindowError(
            f"this turn needs {tokens + reserve:,} tokens ({tokens:,} of conversation + "
            f"{reserve:,} to generate) but the model's window is {window:,} and "
            "context_policy='error'; nothing was sent or recorded. Use context_policy="
            f"'window' to leave the oldest turns out, or {_NEXT_STEP}",
            tokens=tokens + reserve,
            window=window,
        )
    alone = tokens_without(last)
    if alone + reserve > window:
        raise ContextWindowError(
            f"the current message needs {alone + reserve:,} tokens ({alone:,} of prompt + "
            f"{reserve:,} to generate) but the model's window is {window:,}; nothing was "
            f"sent or recorded. Next: {_NEXT_STEP}",
            tokens=alone + reserve,
            window=window,
        )
    # Slide: the fewest turns out that bring the prompt to about ¾ of the window
    # (or, when even the current turn takes more than that, to the window).
    for budget in (int(window * SLIDE_TO) - reserve, window - reserve):
        if alone > budget:
            continue
        low, high = start + 1, last  # counts only fall as turns are left out
        while low < high:
            middle = (low + high) // 2
            if tokens_without(middle) <= budget:
                high = middle
            else:
                low = middle + 1
        tokens = tokens_without(low)
        return Window(candidates[low], low, tokens, window)
    raise AssertionError("unreachable: the current turn alone fits the window")


def omitted_line(omitted: int, window: int | None) -> str:
    """The one line the magic and the widget show when older turns are left out."""
    size = f"the {window:,}-token window" if window else "the model's window"
    if omitted == 1:
        return f"1 oldest turn no longer fits {size}; it stays in history"
    return f"{omitted} oldest turns no longer fit {size}; they stay in history"


@dataclasses.dataclass
class WindowMemory:
    """Per-session window state: the sticky cut and what a server taught us.

    ``start`` is how many oldest turns the latest request left out; it is
    restored from the latest stored `TurnComplete`, so a session resumed from
    a persistent store in a new runner keeps the same window. ``shrink`` is
    the tokens a server's refusal said we were over (our count differed from
    its count); ``learned`` a window size named by such a refusal when the
    backend did not know its own.
    """

    start: int = 0
    shrink: int = 0
    learned: int | None = None

    @classmethod
    def from_history(cls, events: Iterable[Event]) -> WindowMemory:
        last = None
        for event in events:
            if isinstance(event, TurnComplete) and event.usage.context_window is not None:
                last = event
        return cls(start=last.usage.omitted_turns if last is not None else 0)

    def effective(self, window: int | None) -> int | None:
        """The window to fit to: the backend's (or the learned one) less the shrink."""
        base = window if window is not None else self.learned
        return None if base is None else max(base - self.shrink, 1)

    def learn(self, error: ContextWindowError, window: int | None) -> None:
        """A server refused a request for length: fit the next one tighter."""
        if window is None and error.window is not None:
            self.learned = error.window
        base = window if window is not None else self.learned
        if error.overshoot is not None and error.overshoot > 0:
            self.shrink += error.overshoot
        elif base is not None:  # the server named no counts: an eighth of the window
            self.shrink += max(base // 8, 1)
