"""Finish within the budget: the shortest way a grammar state closes its JSON.

A reply that reaches ``max_tokens`` in the middle of its JSON is lost whole,
however little was missing (a closing quote and two braces). So under a
response schema the decode loop keeps, near the limit, a *closing path*:
tokens that end the value from the current grammar state (close the open
string, write a short value where one is still required, close the arrays
and objects, end of text), found from the grammar alone, without the model.
While the model's own choice still leaves room for a closing path within the
tokens left, the model chooses; at the last moment the path's tokens are
taken instead (`Budget`), so the reply ends as whole JSON the grammar allows.
It is still validated against the schema afterwards, like every reply.

The path is a greedy walk over the grammar (llguidance masks): forced tokens
first, then at each position the first allowed token of an order of token
classes. Inside a string: a closing quote (with the brackets after it),
else the longest token allowed (a pattern, an enum, a ``minLength``).
Outside: end of text, closing brackets, a whole short value (``""``,
``0``, ``[]``, ``{}``), a comma, an opening quote, an opening bracket or a
literal, else the longest token allowed (fewest tokens through a key or an
enum). It is not always the shortest path, but it is one, and its length is
what the decode loop plans with.
"""

from __future__ import annotations

import re
from typing import Any

__all__ = ["IN_STRING", "OUTSIDE", "Budget", "TokenClasses", "closing_path", "lex"]

#: Where a byte of JSON text is: outside a string, inside one, after a backslash in one.
OUTSIDE, IN_STRING, ESCAPED = 0, 1, 2
_QUOTE, _BACKSLASH = ord('"'), ord("\\")

#: Token classes a closing path tries in order, outside and inside a string.
_OUTSIDE_ORDER = (
    re.compile(rb"[\]}]+"),  # closing brackets
    re.compile(rb' ?(""|0|\[\]|\{\})'),  # a whole short value (after ": " or ", ")
    re.compile(rb', ?"?'),  # on to the next required item or key
    re.compile(rb' ?"'),  # open a string (a key, a value)
    re.compile(rb" ?([\[{]|true|null|false)"),
    re.compile(rb" "),  # the space before a number (" 0" is two tokens)
)
_INSIDE_ORDER = (re.compile(rb'"[\]}]*'),)  # close the string, and what follows


def lex(state: int, text: bytes) -> int:
    """The string state after ``text`` (JSON text) from ``state``."""
    for byte in text:
        if state == ESCAPED:
            state = IN_STRING
        elif state == IN_STRING:
            state = ESCAPED if byte == _BACKSLASH else OUTSIDE if byte == _QUOTE else IN_STRING
        elif byte == _QUOTE:
            state = IN_STRING
    return state


class TokenClasses:
    """The vocabulary sorted for closing paths, built once per tokenizer: the
    token ids of each class (longest text first), every token by length (the
    fallback), the end-of-text tokens, and each token's bytes (for `lex`)."""

    def __init__(self, ll_tokenizer: Any) -> None:
        import numpy as np

        size = ll_tokenizer.vocab_size
        self.vocab_size = size
        self.texts: list[bytes] = [ll_tokenizer.decode_bytes([i]) for i in range(size)]
        self.eos = np.array(sorted(ll_tokenizer.eos_tokens), dtype=np.int64)
        plain = [i for i in range(size) if self.texts[i] and not ll_tokenizer.is_special_token(i)]
        plain.sort(key=lambda i: -len(self.texts[i]))

        def ids(pattern: re.Pattern[bytes]) -> Any:
            texts = self.texts
            return np.array([i for i in plain if pattern.fullmatch(texts[i])], dtype=np.int64)

        longest = np.array(plain, dtype=np.int64)
        self.outside = [*(ids(p) for p in _OUTSIDE_ORDER), longest]
        self.inside = [*(ids(p) for p in _INSIDE_ORDER), longest]

    def pick(self, allowed: Any, state: int) -> int | None:
        """The token a closing path takes among ``allowed`` (a bool per token id)."""
        eos = self.eos[allowed[self.eos]]
        if eos.size:
            return int(eos[0])
        for ids in self.outside if state == OUTSIDE else self.inside:
            hits = ids[allowed[ids]]
            if hits.size:
                return int(hits[0])
        return None


def allowed_tokens(matcher: Any, bitmask: Any, vocab_size: int) -> Any:
    """A numpy bool per token id: True where ``matcher`` allows it next."""
    import numpy as np
    from llguidance.numpy import fill_next_token_bitmask

    fill_next_token_bitmask(matcher, bitmask)
    bits = np.unpackbits(bitmask.view(np.uint8), bitorder="little")
    return bits[:vocab_size].astype(np.bool_)


def closing_path(
    matcher: Any, state: int, classes: TokenClasses, bitmask: Any, limit: int
) -> list[int] | None:
    """Tokens that take ``matcher`` (left as it is; its string ``state``) to the
    end of its grammar, end of text included; None when that takes more than
    ``limit`` tokens or the grammar allows nothing."""
    matcher = matcher.deep_copy()
    path: list[int] = []
    if matcher.is_stopped():  # the value is whole: end of text is all that is left
        return [int(classes.eos[0])] if limit >= 1 else None
    while not matcher.is_stopped():
        step = matcher.compute_ff_tokens()
        if not step:
            token = classes.pick(allowed_tokens(matcher, bitmask, classes.vocab_size), state)
            if token is None:
                return None
            step = [token]
        path.extend(step)
        if len(path) > limit or not matcher.consume_tokens(step) or matcher.is_error():
            return None
        for token in step:
            state = lex(state, classes.texts[token])
    if path[-1] not in classes.eos:  # llguidance stops at the value's end; the model must too
        path.append(int(classes.eos[0]))
    return path if len(path) <= limit else None


class Budget:
    """The tokens left to one generation and its closing path, kept in step
    with the grammar state (`grammar.Constraint` calls `consumed` and `choose`).

    Far from the limit nothing is done but an occasional closing path (every
    `CHECK_EVERY` tokens) to learn how many tokens closing takes. Within
    `WATCH` tokens of that, the path is recomputed at each step and the model's
    choice is checked: taken when a closing path still fits after it, else the
    path's next token is. Near the limit the choice is greedy.
    """

    CHECK_EVERY = 8
    WATCH = 24

    def __init__(self, max_tokens: int, classes: TokenClasses) -> None:
        from llguidance.numpy import allocate_token_bitmask

        self.left = max_tokens
        self.classes = classes
        self.state = OUTSIDE
        self._bitmask = allocate_token_bitmask(1, classes.vocab_size)
        self._path: list[int] | None = None  # from the current state, when known
        self._need = 0  # the last known closing path's length
        self._fits = True  # the last closing path tried fitted in what was left
        self._since = self.CHECK_EVERY  # tokens since the last closing path
        self.forced = 0  # tokens taken from a closing path instead of the model's

    def consumed(self, token: int) -> None:
        self.left -= 1
        self._since += 1
        self.state = lex(self.state, self.classes.texts[token])
        if self._path is not None:
            self._path = self._path[1:] if self._path and self._path[0] == token else None

    def _closing(self, matcher: Any, state: int, limit: int) -> list[int] | None:
        return closing_path(matcher, state, self.classes, self._bitmask, limit)

    def near(self, matcher: Any) -> bool:
        """Whether this step must be checked (learning the closing path's length
        now and then)."""
        if self._path is None:
            watching = self._fits and self.left <= self._need + self.WATCH
            if watching or self._since >= self.CHECK_EVERY:
                self._since = 0
                self._path = self._closing(matcher, self.state, self.left)
                self._fits = self._path is not None
        if self._path is not None:
            self._need = len(self._path)
        return bool(self._path) and self.left <= self._need + self.WATCH

    def choose(self, matcher: Any, wanted: int) -> int:
        """The token to take at this step, given the model's greedy ``wanted``
        (allowed by the grammar); call only when `near`."""
        path = self._path
        assert path
        if wanted == path[0]:
            return wanted
        after = matcher.deep_copy()
        if after.consume_token(wanted):
            rest = self._closing(after, lex(self.state, self.classes.texts[wanted]), self.left - 1)
            if rest is not None:
                self._path = [wanted, *rest]
                return wanted
        self.forced += 1
        return path[0]
