"""The chat-completions wire format, kept apart from the HTTP client.

Pure functions and one accumulator, no ``openai`` import: model specs, the
mapping of a `GenerateContentRequest` to request arguments, and the folding
of streamed chunks (text pieces, tool-call fragments, usage) into agent_nb
chunks. Streamed chunks are read with ``getattr`` defaults because servers
differ in which fields they send, and model output is untrusted.
"""

from __future__ import annotations

import json
import re
import time
import urllib.parse
from collections.abc import Mapping
from dataclasses import dataclass, field
from typing import Any

from ..._core.messages import chat_messages
from ..._core.types import FinishReason, GenerateContentRequest, Usage
from ...errors import BackendError, ModelNotFoundError
from .._base import ToolCallChunk
from ..json_bounds import without_bounds

__all__ = [
    "SPEC_HELP",
    "StreamAssembler",
    "check_base_url",
    "context_overflow",
    "create_kwargs",
    "parse_spec",
    "request_messages",
    "response_format",
]

_SPEC = re.compile(r"(?P<model>[^@\s][^\s]*?)@(?P<url>https?://\S+)")
SPEC_HELP = (
    "Use 'openai:MODEL@BASE_URL', e.g. 'openai:llama3.2@http://localhost:11434/v1' "
    "(Ollama) or 'openai:MODEL@http://host:8000/v1' (vLLM)."
)
_SCHEMA_NAME = re.compile(r"[A-Za-z0-9_-]{1,64}")
_FINISH: dict[str, FinishReason] = {"stop": "stop", "length": "length", "tool_calls": "stop"}


def parse_spec(arg: str) -> tuple[str, str]:
    """Split ``"MODEL@BASE_URL"`` into (model, base_url) or raise with the allowed form.

    The split is at the first ``@`` followed by ``http://`` or ``https://``, so
    model names may contain ``@`` and ``/`` (``org/model@v2``).
    """
    if not isinstance(arg, str):
        raise TypeError(f"an openai model spec must be a string, got {type(arg).__name__}")
    match = _SPEC.fullmatch(arg.strip())
    if match is None:
        raise ModelNotFoundError(f"Bad OpenAI-compatible model spec 'openai:{arg}'. {SPEC_HELP}")
    return match["model"], check_base_url(match["url"])


def check_base_url(url: str) -> str:
    parts = urllib.parse.urlsplit(url)
    if parts.scheme not in ("http", "https") or not parts.hostname:
        raise ModelNotFoundError(
            f"base_url must be an http:// or https:// URL with a host, got {url!r}. {SPEC_HELP}"
        )
    if parts.query or parts.fragment:
        raise ModelNotFoundError(
            f"base_url must not carry a query or fragment, got {url!r}. {SPEC_HELP}"
        )
    return url.rstrip("/")


def request_messages(request: GenerateContentRequest) -> list[dict[str, Any]]:
    """History as chat-completions messages (tool arguments as JSON strings)."""
    return chat_messages(request, for_template=False)


def create_kwargs(model: str, request: GenerateContentRequest) -> dict[str, Any]:
    """Arguments for ``chat.completions.create``: streaming, with usage in the last chunk."""
    cfg = request.config
    kwargs: dict[str, Any] = {
        "model": model,
        "messages": request_messages(request),
        "stream": True,
        "stream_options": {"include_usage": True},
        "temperature": cfg.temperature,
        "top_p": cfg.top_p,
        "max_tokens": cfg.max_tokens,
    }
    if cfg.seed is not None:
        kwargs["seed"] = cfg.seed
    if cfg.stop:
        kwargs["stop"] = list(cfg.stop)
    if request.tools:
        kwargs["tools"] = [t.to_openai() for t in request.tools]
        if request.tool_choice != "auto":  # "auto" is every server's default: not sent
            kwargs["tool_choice"] = _tool_choice(request.tool_choice)
    if request.response_schema is not None:
        kwargs["response_format"] = response_format(request.response_schema)
    extra: dict[str, Any] = {}
    if cfg.top_k:  # not in the OpenAI schema; vLLM, mlx_lm and llama.cpp accept it
        extra["top_k"] = cfg.top_k
    if cfg.repetition_penalty is not None:
        extra["repetition_penalty"] = cfg.repetition_penalty
    if extra:
        kwargs["extra_body"] = extra
    return kwargs


def _tool_choice(choice: str) -> str | dict[str, Any]:
    if choice in ("required", "none"):
        return choice
    return {"type": "function", "function": {"name": choice}}


def response_format(schema: Mapping[str, Any]) -> dict[str, Any]:
    """OpenAI's structured-output request (vLLM, llama.cpp server and Ollama honour it).

    The name is the schema's ``title`` (a pydantic model's class name) where it
    is a valid one, else ``"response"``. The schema goes as given, less
    agent_nb's own ``"x-bounds"`` (`agent_nb.backends.json_bounds`), which a
    server does not know; the reply is validated against it afterwards.
    """
    title = schema.get("title")
    name = title if isinstance(title, str) and _SCHEMA_NAME.fullmatch(title) else "response"
    return {
        "type": "json_schema",
        "json_schema": {"name": name, "schema": without_bounds(schema), "strict": True},
    }


@dataclass
class _PendingCall:
    """A tool call whose name and JSON arguments arrive in fragments."""

    call_id: str = ""
    name: str = ""
    arguments: list[str] = field(default_factory=list)


class StreamAssembler:
    """Folds streamed chunks into text pieces, whole tool calls and `Usage`.

    Times are taken client-side: time to first token from the request start,
    tokens/s over the decode span (first piece to last).
    """

    def __init__(self, base_url: str) -> None:
        self.base_url = base_url
        self.started = time.perf_counter()
        self.first: float | None = None
        self.last = self.started
        self.pieces = 0
        self.chunks = 0
        self.finish: FinishReason = "stop"
        self._reported: Any = None
        self._calls: dict[int, _PendingCall] = {}
        self.text: list[str] = []  # the reply so far (a schema reply is checked whole)

    def feed(self, chunk: Any) -> list[str]:
        """Take one streamed chunk; return the text pieces to pass on."""
        self.chunks += 1
        usage = getattr(chunk, "usage", None)
        if usage is not None:
            self._reported = usage
        texts: list[str] = []
        for choice in getattr(chunk, "choices", None) or ():
            delta = getattr(choice, "delta", None)
            text = getattr(delta, "content", None)
            fragments = getattr(delta, "tool_calls", None) or ()
            if text or fragments:
                now = time.perf_counter()
                self.first = now if self.first is None else self.first
                self.last = now
                self.pieces += 1
            for fragment in fragments:
                self._collect(fragment)
            if text:
                texts.append(text)
                self.text.append(text)
            reason = getattr(choice, "finish_reason", None)
            if reason:
                self.finish = _FINISH.get(reason, "stop")
        return texts

    def _collect(self, fragment: Any) -> None:
        index = getattr(fragment, "index", None)
        index = len(self._calls) if index is None else index
        pending = self._calls.setdefault(index, _PendingCall())
        pending.call_id = getattr(fragment, "id", None) or pending.call_id
        function = getattr(fragment, "function", None)
        if function is not None:
            pending.name += getattr(function, "name", None) or ""
            args = getattr(function, "arguments", None)
            if args:
                pending.arguments.append(args)

    def tool_calls(self) -> list[ToolCallChunk]:
        """The assembled calls. Arguments that are not a JSON object reach the
        model as the tool's error; a call with no tool name fails the turn."""
        out: list[ToolCallChunk] = []
        for _, pending in sorted(self._calls.items()):
            raw = "".join(pending.arguments).strip() or "{}"
            if not pending.name:
                raise BackendError(
                    f"The model at {self.base_url} sent a tool call without a tool name "
                    f"(arguments {raw[:120]!r}); retry the turn."
                )
            error = None
            try:
                args = json.loads(raw)
            except ValueError:
                args = None
            if not isinstance(args, dict):
                args = {}
                error = (
                    f"the arguments were not a JSON object: {raw[:200]!r}; "
                    "call the tool again with a JSON object of arguments"
                )
            ids = {"call_id": pending.call_id} if pending.call_id else {}
            out.append(ToolCallChunk(pending.name, args, error=error, **ids))
        return out

    def usage(self) -> Usage:
        """Server-reported counts where given (OpenAI's prompt_tokens include cached ones)."""
        prompt = cached = 0
        generated = self.pieces
        reported = self._reported
        if reported is not None:
            prompt = int(getattr(reported, "prompt_tokens", 0) or 0)
            generated = int(getattr(reported, "completion_tokens", 0) or 0) or self.pieces
            details = getattr(reported, "prompt_tokens_details", None)
            cached = int(getattr(details, "cached_tokens", 0) or 0) if details else 0
        first = self.first
        decode_s = self.last - first if first is not None else 0.0
        return Usage(
            prompt_tokens=max(prompt - cached, 0),
            cached_tokens=cached,
            generated_tokens=generated,
            time_to_first_token_s=None if first is None else first - self.started,
            tokens_per_s=(generated - 1) / decode_s if generated > 1 and decode_s > 0 else None,
        )


_LENGTH_HINTS = ("context length", "context window", "context size", "too long", "exceeds")
_WINDOW = re.compile(
    r"(?:maximum context length is|context length|context size|limit of|context window of)"
    r"\D{0,12}?(\d[\d,]*)",
    re.I,
)
# (pattern, whether the number already includes the completion's max_tokens)
_REQUESTED = (
    (re.compile(r"requested (\d[\d,]*) tokens \(", re.I), True),
    (re.compile(r"requested (\d[\d,]*) tokens", re.I), False),
    (re.compile(r"resulted in (\d[\d,]*) tokens", re.I), False),
    (re.compile(r"request has (\d[\d,]*) input tokens", re.I), False),
    (re.compile(r"total length (\d[\d,]*)", re.I), False),
    (re.compile(r"prompt \((\d[\d,]*) tokens\)", re.I), False),
)


def _number(text: str) -> int:
    return int(text.replace(",", ""))


def context_overflow(message: str, max_tokens: int) -> tuple[int | None, int | None] | None:
    """Read a server's "request too long" refusal: (window, overshoot), None when it is not one.

    Covers the texts of vLLM ("This model's maximum context length is 4096
    tokens. However, you requested 5000 tokens (4500 in the messages, 500 in
    the completion)", "... your request has 600 input tokens", "The prompt
    (total length 5000) is too long to fit into the model (context length
    4096)") and OpenAI ("... However, your messages resulted in 9000 tokens").
    The overshoot counts the completion's ``max_tokens`` when the server's
    number does not; either figure is None when the text does not give it.
    """
    lowered = message.lower()
    if not any(hint in lowered for hint in _LENGTH_HINTS):
        return None
    found = _WINDOW.search(message)
    if found is None:
        return None
    window = _number(found[1])
    for pattern, with_completion in _REQUESTED:
        match = pattern.search(message)
        if match is not None:
            requested = _number(match[1]) + (0 if with_completion else max_tokens)
            return window, max(requested - window, 1)
    return window, None
