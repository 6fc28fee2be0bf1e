"""`OpenAIBackend`: any OpenAI-compatible chat server through the official SDK.

This is the way past one machine: vLLM (``vllm serve MODEL
--tensor-parallel-size N``), Ollama, llama.cpp's server, LM Studio and
``mlx_lm.server`` all speak the chat-completions protocol, so one backend
covers them. The server owns its prompt cache, so this backend keeps no
per-session state (``supports_prompt_cache = False``); it reports the cached
tokens the server says it reused.

Two things the SDK does not do for us:

* **Cancel promptly, even against a stalled server.** A watcher polls the
  `CancelToken` while the request or a stream read waits on the server;
  once it is set the wait is interrupted and the HTTP stream closed, so a
  server that sent headers and then nothing cannot hold a turn (and a
  cancelled consumer task closes the stream too).
* **Say what to do next.** SDK and transport exceptions are translated into
  `BackendError` naming the server URL and the next step, with
  ``raise ... from exc`` so the cause stays visible.

The wire format (messages, request arguments, folding streamed fragments)
lives in `wire`. This module imports ``openai`` at the top: it is
only ever imported on demand, by `agent_nb.backends.resolve_backend` or by a
caller who asked for it.
"""

from __future__ import annotations

import asyncio
import inspect
import os
import urllib.parse
from collections.abc import AsyncIterator, Awaitable, Mapping
from typing import Any, ClassVar, TypeVar

import openai

from ..._core.aio import uncancel
from ..._core.types import GenerateContentRequest
from ...errors import AgentError, BackendError, ContextWindowError
from .._base import Backend, CancelToken, Chunk, Finish, TextDelta
from ..structured import parse_json_reply
from .wire import (
    StreamAssembler,
    check_base_url,
    context_overflow,
    create_kwargs,
    parse_spec,
    request_messages,
)

__all__ = ["OpenAIBackend", "from_spec", "parse_spec", "request_messages"]

_T = TypeVar("_T")
_POLL_S = 0.05  # how often a pending read looks at the cancel token
_LOOPBACK = {"localhost", "127.0.0.1", "::1", "[::1]"}


def from_spec(arg: str) -> OpenAIBackend:
    """Build the backend for ``"openai:" + arg`` (called by `resolve_backend`)."""
    model, base_url = parse_spec(arg)
    return OpenAIBackend(model, base_url=base_url)


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
            uncancel(self._task)
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
    backoff). ``context_window`` gives the model's window in tokens; without
    it the backend asks the server's ``/v1/models`` once and uses the
    ``max_model_len`` it reports (vLLM does). Requests are counted with
    `agent_nb._core.tokens.estimate_request_tokens`; a refusal for length becomes
    `ContextWindowError`. The API key comes from ``api_key`` or the environment variable
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
        context_window: int | None = None,
    ) -> None:
        if context_window is not None and context_window < 1:
            raise ValueError(f"context_window must be >= 1 token, got {context_window}")
        if not isinstance(model, str) or not model.strip():
            raise ValueError(f"model must be a non-empty string, got {model!r}")
        if timeout <= 0:
            raise ValueError(f"timeout must be > 0 seconds, got {timeout}")
        if max_retries < 0:
            raise ValueError(f"max_retries must be >= 0, got {max_retries}")
        self.model = model
        self.base_url = check_base_url(base_url)
        self.api_key_env = api_key_env
        self._api_key = api_key
        self.timeout = float(timeout)
        self.max_retries = max_retries
        self.extra_headers = dict(extra_headers or {})
        self.spec = f"openai:{model}@{self.base_url}"
        self._client: openai.AsyncOpenAI | None = None
        self._client_loop: asyncio.AbstractEventLoop | None = None
        self._context_window = context_window
        self._probed = context_window is not None

    def replay_identity(self) -> str | None:
        """The model name at its server: a server that swaps the weights behind the
        same name is not noticed (``%%agent --fresh`` asks it again)."""
        return self.spec

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

    async def resolve_context_window(self) -> int | None:
        """Ask ``/v1/models`` once for this model's ``max_model_len`` (vLLM reports it).

        A server without that endpoint or field leaves the window unknown; a
        refusal for length later teaches the turn the window anyway.
        """
        if not self._probed:
            self._probed = True
            try:
                client = self._client_for_loop().with_options(max_retries=0)
                page = await asyncio.wait_for(client.models.list(), min(self.timeout, 10.0))
                for entry in page.data:
                    value = (getattr(entry, "model_extra", None) or {}).get("max_model_len")
                    if entry.id == self.model and isinstance(value, int) and value > 0:
                        self._context_window = value
            except (openai.OpenAIError, asyncio.TimeoutError, ValueError, TypeError):
                pass  # no /v1/models (or no such field): the window stays unknown
        return self._context_window

    # -- streaming --------------------------------------------------------------

    async def stream(
        self, request: GenerateContentRequest, *, cache: str | None, cancel: CancelToken
    ) -> AsyncIterator[Chunk]:
        client = self._client_for_loop()
        answer = StreamAssembler(self.base_url)
        if cancel.is_set():
            yield Finish(finish_reason="cancelled")
            return
        watch = _CancelWatch(cancel)
        try:
            opened = await watch.read(
                client.chat.completions.create(**create_kwargs(self.model, request))
            )
        except Exception as exc:
            watch.stop()
            raise self._translate(exc, request.config.max_tokens) from exc
        if isinstance(opened, _Cancelled):
            watch.stop()
            yield Finish(answer.usage(), finish_reason="cancelled")
            return
        stream: Any = opened
        try:
            while not cancel.is_set():
                try:
                    chunk = await watch.read(stream.__anext__())
                except StopAsyncIteration:
                    break
                except Exception as exc:
                    raise self._translate(exc) from exc
                if isinstance(chunk, _Cancelled):
                    break
                for text in answer.feed(chunk):
                    yield TextDelta(text)
        finally:
            watch.stop()
            await _close_quietly(stream)
        if cancel.is_set():
            yield Finish(answer.usage(), finish_reason="cancelled")
            return
        if answer.chunks == 0:
            raise BackendError(
                f"The server at {self.base_url} answered without any completion chunk; "
                "is it an OpenAI-compatible endpoint? The base URL usually ends in /v1."
            )
        calls = answer.tool_calls()
        if request.response_schema is not None and not calls:
            # A server that ignores response_format answers in prose: say so
            # rather than hand on a reply that only looks like an answer.
            text, source = "".join(answer.text), f"The server at {self.base_url}"
            parse_json_reply(text, source, cut=answer.finish == "length")
        for call in calls:
            yield call
        yield Finish(answer.usage(), finish_reason=answer.finish)

    # -- errors -----------------------------------------------------------------

    def _translate(self, exc: BaseException, max_tokens: int = 0) -> AgentError:
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
            return self._status_error(exc, max_tokens)
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

    def _status_error(self, exc: openai.APIStatusError, max_tokens: int) -> AgentError:
        url, code, detail = self.base_url, exc.status_code, _short(exc.message)
        overflow = context_overflow(exc.message, max_tokens) if code in (400, 413, 422) else None
        if overflow is not None:
            window, overshoot = overflow
            over = f" by {overshoot:,} tokens" if overshoot else ""
            return ContextWindowError(
                f"The server at {url} refused the request as too long for the model's "
                f"window{over} (HTTP {code}: {detail}). The next turn of this session fits "
                "a smaller window; or shorten the input, lower --max-tokens, or start over "
                "with %agent delete SESSION.",
                window=window,
                overshoot=overshoot,
                sent=True,
            )
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
