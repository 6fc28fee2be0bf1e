"""`OpenAIBackend`: any OpenAI-compatible chat server through the official SDK.

This is the way past one machine: vLLM (``vllm serve MODEL
--tensor-parallel-size N``), Ollama, llama.cpp's server, LM Studio and
``mlx_lm.server`` all speak the chat-completions protocol, so one backend
covers them. The server owns its prompt cache, so this backend keeps no
per-session state (``supports_prompt_cache = False``); it reports the cached
tokens the server says it reused.

Two things the SDK does not do for us:

* **Cancel promptly, even against a stalled server.** Every read (the request
  itself and each stream chunk) runs as a task raced against the
  `CancelToken`; when the token is set the read is abandoned and the HTTP
  stream closed, so a server that sent headers and then nothing cannot hold
  a turn.
* **Say what to do next.** SDK and transport exceptions are translated into
  `BackendError` naming the server URL and the next step, with
  ``raise ... from exc`` so the cause stays visible.

The module imports ``openai`` at the top: it is only ever imported on demand,
by `agent_nb.backends.resolve_backend` or by a caller who asked for it.
"""

from __future__ import annotations

import asyncio
import inspect
import json
import os
import re
import time
import urllib.parse
from collections.abc import AsyncIterator, Awaitable, Mapping
from dataclasses import dataclass, field
from typing import Any, ClassVar, TypeVar

import openai

from .._types import Content, FinishReason, GenerateContentRequest, Role, Usage
from ..errors import BackendError, ModelNotFoundError
from ._base import Backend, CancelToken, Chunk, Finish, TextDelta, ToolCallChunk

__all__ = ["OpenAIBackend", "from_spec", "parse_spec", "request_messages"]

_T = TypeVar("_T")
_POLL_S = 0.05  # how often a pending read looks at the cancel token
_SPEC = re.compile(r"(?P<model>[^@\s][^\s]*?)@(?P<url>https?://\S+)")
_SPEC_HELP = (
    "Use 'openai:MODEL@BASE_URL', e.g. 'openai:llama3.2@http://localhost:11434/v1' "
    "(Ollama) or 'openai:MODEL@http://host:8000/v1' (vLLM)."
)
_LOOPBACK = {"localhost", "127.0.0.1", "::1", "[::1]"}
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
        raise ModelNotFoundError(f"Bad OpenAI-compatible model spec 'openai:{arg}'. {_SPEC_HELP}")
    return match["model"], _check_base_url(match["url"])


def _check_base_url(url: str) -> str:
    parts = urllib.parse.urlsplit(url)
    if parts.scheme not in ("http", "https") or not parts.hostname:
        raise ModelNotFoundError(
            f"base_url must be an http:// or https:// URL with a host, got {url!r}. {_SPEC_HELP}"
        )
    if parts.query or parts.fragment:
        raise ModelNotFoundError(
            f"base_url must not carry a query or fragment, got {url!r}. {_SPEC_HELP}"
        )
    return url.rstrip("/")


def from_spec(arg: str) -> OpenAIBackend:
    """Build the backend for ``"openai:" + arg`` (called by `resolve_backend`)."""
    model, base_url = parse_spec(arg)
    return OpenAIBackend(model, base_url=base_url)


def request_messages(request: GenerateContentRequest) -> list[dict[str, Any]]:
    """History as chat-completions messages.

    A model text directly followed by the model's tool calls becomes one
    assistant message, as OpenAI servers produce it; each tool result is a
    ``tool`` message tied to its call by ``tool_call_id``.
    """
    messages: list[dict[str, Any]] = []
    if request.system_instruction:
        messages.append({"role": "system", "content": request.system_instruction})
    for content in request.contents:
        _append_content(messages, content)
    return messages


def _append_content(messages: list[dict[str, Any]], content: Content) -> None:
    for part in content.parts:
        if part.function_call is not None:
            call = part.function_call
            tool_call = {
                "id": call.call_id,
                "type": "function",
                "function": {"name": call.name, "arguments": json.dumps(dict(call.args))},
            }
            if messages and messages[-1]["role"] == "assistant":
                messages[-1].setdefault("tool_calls", []).append(tool_call)
            else:
                messages.append({"role": "assistant", "content": None, "tool_calls": [tool_call]})
        elif part.function_response is not None:
            resp = part.function_response
            messages.append(
                {
                    "role": "tool",
                    "tool_call_id": resp.call_id,
                    "content": json.dumps(dict(resp.response), default=str),
                }
            )
        elif part.text is not None:
            role = "user" if content.role is Role.USER else "assistant"
            messages.append({"role": role, "content": part.text})


@dataclass
class _PendingCall:
    """A tool call whose name and JSON arguments arrive in fragments."""

    call_id: str = ""
    name: str = ""
    arguments: list[str] = field(default_factory=list)


class _Cancelled:
    """Returned by `_CancelWatch.read` when the cancel token won."""


_CANCELLED = _Cancelled()


class _CancelWatch:
    """Interrupts a read that waits on the server once the cancel token is set.

    A `CancelToken` is a thread flag with nothing to await, so one watcher
    task polls it; when it is set while the consuming task waits inside
    `read`, the watcher cancels that task, and `read` turns the resulting
    `CancelledError` into `_CANCELLED` (and takes the cancel request back),
    the way ``asyncio.timeout`` does. Reads themselves stay plain awaits, so a
    fast stream pays nothing per chunk.
    """

    def __init__(self, cancel: CancelToken) -> None:
        self._cancel = cancel
        self._reading = False
        self._fired = False
        task = asyncio.current_task()
        assert task is not None, "stream() runs inside a task"
        self._task = task
        self._watcher = asyncio.create_task(self._poll())

    async def _poll(self) -> None:
        while not self._cancel.is_set():
            await asyncio.sleep(_POLL_S)
        if self._reading:  # the consumer is suspended inside read(): interrupt it there
            self._fired = True
            self._task.cancel()

    async def read(self, aw: Awaitable[_T]) -> _T | _Cancelled:
        if self._cancel.is_set():
            if inspect.iscoroutine(aw):
                aw.close()
            return _CANCELLED
        self._reading = True
        try:
            return await aw
        except asyncio.CancelledError:
            if not self._fired:
                raise  # someone else cancelled the consumer: let it through
            uncancel = getattr(self._task, "uncancel", None)  # Python >= 3.11
            if uncancel is not None:
                uncancel()
            return _CANCELLED
        finally:
            self._reading = False

    def stop(self) -> None:
        self._watcher.cancel()


class OpenAIBackend(Backend):
    """A model served by an OpenAI-compatible HTTP server.

    >>> OpenAIBackend("llama3.2", base_url="http://localhost:11434/v1")  # Ollama

    ``timeout`` is the seconds the server may stay silent (connecting, before
    the first token, between tokens) before the turn fails; ``max_retries``
    is passed to the SDK (it retries connection errors, 429 and 5xx with
    backoff). The API key comes from ``api_key`` or the environment variable
    named by ``api_key_env``; local servers need none.
    """

    supports_tools: ClassVar[bool] = True
    supports_prompt_cache: ClassVar[bool] = False

    def __init__(
        self,
        model: str,
        *,
        base_url: str,
        api_key: str | None = None,
        api_key_env: str = "OPENAI_API_KEY",
        timeout: float = 120.0,
        max_retries: int = 2,
        extra_headers: Mapping[str, str] | None = None,
    ) -> None:
        if not isinstance(model, str) or not model.strip():
            raise ValueError(f"model must be a non-empty string, got {model!r}")
        if timeout <= 0:
            raise ValueError(f"timeout must be > 0 seconds, got {timeout}")
        if max_retries < 0:
            raise ValueError(f"max_retries must be >= 0, got {max_retries}")
        self.model = model
        self.base_url = _check_base_url(base_url)
        self.api_key_env = api_key_env
        self._api_key = api_key
        self.timeout = float(timeout)
        self.max_retries = max_retries
        self.extra_headers = dict(extra_headers or {})
        self.spec = f"openai:{model}@{self.base_url}"
        self._client: openai.AsyncOpenAI | None = None
        self._client_loop: asyncio.AbstractEventLoop | None = None

    def __repr__(self) -> str:
        return f"OpenAIBackend({self.model!r}, base_url={self.base_url!r})"

    # -- client ---------------------------------------------------------------

    def _client_for_loop(self) -> openai.AsyncOpenAI:
        """One SDK client per event loop: httpx connection pools are loop-bound."""
        loop = asyncio.get_running_loop()
        if self._client is None or self._client_loop is not loop:
            host = urllib.parse.urlsplit(self.base_url).hostname or ""
            http_client = openai.DefaultAsyncHttpxClient(
                # A proxy cannot reach this machine's loopback: ignore proxy settings there.
                trust_env=host not in _LOOPBACK,
                timeout=openai.Timeout(self.timeout, connect=min(self.timeout, 10.0)),
            )
            api_key = self._api_key or os.environ.get(self.api_key_env) or "EMPTY"
            self._client = openai.AsyncOpenAI(
                api_key=api_key,
                base_url=self.base_url,
                timeout=openai.Timeout(self.timeout, connect=min(self.timeout, 10.0)),
                max_retries=self.max_retries,
                default_headers=self.extra_headers or None,
                http_client=http_client,
            )
            self._client_loop = loop
        return self._client

    def close(self) -> None:
        client, loop = self._client, self._client_loop
        self._client = self._client_loop = None
        if client is None or loop is None or loop.is_closed():
            return
        try:
            if loop.is_running():
                asyncio.run_coroutine_threadsafe(client.close(), loop)
        except RuntimeError:  # the loop stopped meanwhile; the pool dies with it
            pass

    def memory(self) -> dict[str, Any]:
        return {"server": self.base_url, "model": self.model}

    # -- request --------------------------------------------------------------

    def _create_kwargs(self, request: GenerateContentRequest) -> dict[str, Any]:
        cfg = request.config
        kwargs: dict[str, Any] = {
            "model": self.model,
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
        extra: dict[str, Any] = {}
        if cfg.top_k:  # not in the OpenAI schema; vLLM, mlx_lm and llama.cpp accept it
            extra["top_k"] = cfg.top_k
        if cfg.repetition_penalty is not None:
            extra["repetition_penalty"] = cfg.repetition_penalty
        if extra:
            kwargs["extra_body"] = extra
        return kwargs

    async def stream(
        self, request: GenerateContentRequest, *, cache: str | None, cancel: CancelToken
    ) -> AsyncIterator[Chunk]:
        client = self._client_for_loop()
        started = time.perf_counter()
        first: float | None = None
        last = started
        pieces = 0
        finish: FinishReason = "stop"
        reported: Any = None
        calls: dict[int, _PendingCall] = {}
        chunks_seen = 0
        if cancel.is_set():
            yield Finish(finish_reason="cancelled")
            return
        watch = _CancelWatch(cancel)
        try:
            opened = await watch.read(
                client.chat.completions.create(**self._create_kwargs(request))
            )
        except Exception as exc:
            watch.stop()
            raise self._translate(exc) from exc
        if isinstance(opened, _Cancelled):
            watch.stop()
            yield Finish(finish_reason="cancelled")
            return
        stream: Any = opened
        try:
            while True:
                if cancel.is_set():
                    finish = "cancelled"
                    break
                try:
                    chunk = await watch.read(stream.__anext__())
                except StopAsyncIteration:
                    break
                except Exception as exc:
                    raise self._translate(exc) from exc
                if isinstance(chunk, _Cancelled):
                    finish = "cancelled"
                    break
                chunks_seen += 1
                usage = getattr(chunk, "usage", None)
                if usage is not None:
                    reported = usage
                for choice in getattr(chunk, "choices", None) or ():
                    delta = getattr(choice, "delta", None)
                    text = getattr(delta, "content", None)
                    fragments = getattr(delta, "tool_calls", None) or ()
                    if text or fragments:
                        now = time.perf_counter()
                        first = now if first is None else first
                        last = now
                        pieces += 1
                    for fragment in fragments:
                        self._collect(calls, fragment)
                    if text:
                        yield TextDelta(text)
                    reason = getattr(choice, "finish_reason", None)
                    if reason:
                        finish = _FINISH.get(reason, "stop")
        finally:
            watch.stop()
            await _close_quietly(stream)
        if chunks_seen == 0 and finish != "cancelled":
            raise BackendError(
                f"The server at {self.base_url} answered without any completion chunk; "
                "is it an OpenAI-compatible endpoint? The base URL usually ends in /v1."
            )
        if finish != "cancelled":
            for call in self._assemble(calls):
                yield call
        yield Finish(self._usage(reported, pieces, started, first, last), finish_reason=finish)

    # -- assembling the answer --------------------------------------------------

    @staticmethod
    def _collect(calls: dict[int, _PendingCall], fragment: Any) -> None:
        index = getattr(fragment, "index", None)
        index = len(calls) if index is None else index
        pending = calls.setdefault(index, _PendingCall())
        pending.call_id = getattr(fragment, "id", None) or pending.call_id
        function = getattr(fragment, "function", None)
        if function is not None:
            pending.name += getattr(function, "name", None) or ""
            args = getattr(function, "arguments", None)
            if args:
                pending.arguments.append(args)

    def _assemble(self, calls: dict[int, _PendingCall]) -> list[ToolCallChunk]:
        out: list[ToolCallChunk] = []
        for _, pending in sorted(calls.items()):
            raw = "".join(pending.arguments).strip() or "{}"
            try:
                args = json.loads(raw)
            except ValueError as exc:
                raise BackendError(
                    f"The model at {self.base_url} called tool {pending.name!r} with arguments "
                    f"that are not JSON ({raw[:120]!r}); retry the turn, use temperature 0 "
                    "or a model trained for tool calling."
                ) from exc
            if not isinstance(args, dict) or not pending.name:
                raise BackendError(
                    f"The model at {self.base_url} sent a malformed tool call "
                    f"(name {pending.name!r}, arguments {raw[:120]!r}); retry the turn."
                )
            if pending.call_id:
                out.append(ToolCallChunk(pending.name, args, pending.call_id))
            else:
                out.append(ToolCallChunk(pending.name, args))
        return out

    @staticmethod
    def _usage(
        reported: Any, pieces: int, started: float, first: float | None, last: float
    ) -> Usage:
        prompt = cached = 0
        generated = pieces
        if reported is not None:
            prompt = int(getattr(reported, "prompt_tokens", 0) or 0)
            generated = int(getattr(reported, "completion_tokens", 0) or 0) or pieces
            details = getattr(reported, "prompt_tokens_details", None)
            cached = int(getattr(details, "cached_tokens", 0) or 0) if details else 0
        decode_s = last - first if first is not None else 0.0
        return Usage(
            prompt_tokens=max(prompt - cached, 0),
            cached_tokens=cached,
            generated_tokens=generated,
            time_to_first_token_s=None if first is None else first - started,
            tokens_per_s=(generated - 1) / decode_s if generated > 1 and decode_s > 0 else None,
        )

    # -- errors -----------------------------------------------------------------

    def _translate(self, exc: BaseException) -> BackendError:
        """One `BackendError` per failure kind, each naming the server and a next step."""
        url = self.base_url
        if isinstance(exc, BackendError):
            return exc
        if isinstance(exc, openai.APITimeoutError):
            return BackendError(
                f"The server at {url} did not answer within {self.timeout:g}s. It may be "
                "overloaded or still loading the model: retry, or raise "
                "OpenAIBackend(timeout=...)."
            )
        if isinstance(exc, openai.APIConnectionError):
            return BackendError(
                f"Cannot reach the OpenAI-compatible server at {url} ({_cause(exc)}). Is the "
                "server running? Start it, e.g. `mlx_lm.server --model PATH --port 8080`, "
                "`vllm serve MODEL` or `ollama serve`, and check the URL in "
                f"{self.spec!r}."
            )
        if isinstance(exc, openai.APIStatusError):
            return self._status_error(exc)
        if isinstance(exc, openai.APIError):
            return BackendError(
                f"The server at {url} reported an error mid-stream: {_short(exc.message)}. "
                "Check the server's log; the next turn can retry."
            )
        return BackendError(
            f"The server at {url} sent a malformed stream ({type(exc).__name__}: "
            f"{_short(str(exc))}). Is it an OpenAI-compatible endpoint? The base URL usually "
            "ends in /v1."
        )

    def _status_error(self, exc: openai.APIStatusError) -> BackendError:
        url, code, detail = self.base_url, exc.status_code, _short(exc.message)
        if code in (401, 403):
            return BackendError(
                f"The server at {url} refused the API key (HTTP {code}: {detail}). Put the key "
                f"in the {self.api_key_env} environment variable or pass "
                "OpenAIBackend(api_key=...)."
            )
        if code == 404:
            return BackendError(
                f"The server at {url} has no model {self.model!r} or no chat endpoint there "
                f"(HTTP 404: {detail}). List its models with `curl {url}/models` and use "
                f"'openai:MODEL@{url}'; the base URL usually ends in /v1."
            )
        if code == 429:
            return BackendError(
                f"The server at {url} is rate limiting (HTTP 429: {detail}) after "
                f"{self.max_retries} retries. Wait a moment and run the turn again."
            )
        if code >= 500:
            return BackendError(
                f"The server at {url} failed (HTTP {code}: {detail}). Check the server's log; "
                "the next turn can retry."
            )
        return BackendError(
            f"The server at {url} rejected the request (HTTP {code}: {detail}). Check the "
            "generation settings and that the model supports them (tools, max_tokens)."
        )


def _short(text: str, limit: int = 200) -> str:
    text = " ".join(str(text).split())
    return text if len(text) <= limit else text[: limit - 3] + "..."


def _cause(exc: BaseException) -> str:
    inner = exc.__cause__ or exc.__context__
    return _short(f"{type(inner).__name__}: {inner}" if inner else str(exc), 120)


async def _close_quietly(stream: Any) -> None:
    """Release the connection; a failure to close must not hide the real outcome."""
    try:
        await stream.close()
    except Exception:  # the connection is already gone, which is what we wanted
        pass
