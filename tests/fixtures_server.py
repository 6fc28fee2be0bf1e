"""Real HTTP servers for the OpenAI-compatible backend.

* `mlx_server`: a real ``mlx_lm.server`` subprocess on 127.0.0.1 serving the
  embedded model (session-scoped: loading takes seconds), on the Linux CPU with
  float32 weights and OpenBLAS, as agent_nb runs it (`cpu_fast_folder`).
* `fake_openai`: a tiny stdlib HTTP server on real sockets whose next
  answers are enqueued: an HTTP error status, a garbage stream, a stall, or a
  well-formed streamed reply. It exists to produce the failures a real server
  produces only by accident.
* `closed_port_url`: a base URL on which nothing listens (connection refused).

Nothing here talks to anything but 127.0.0.1.
"""

from __future__ import annotations

import contextlib
import json
import os
import pathlib
import queue
import subprocess
import sys
import threading
from collections.abc import Iterator
from dataclasses import dataclass, field
from http.server import BaseHTTPRequestHandler, ThreadingHTTPServer
from typing import Any, TypeAlias

import pytest

from tests.net import free_port, wait_http

__all__ = [
    "FakeOpenAIServer",
    "MlxServer",
    "RawBody",
    "Reply",
    "Stall",
    "Status",
    "closed_port_url",
    "cpu_fast_folder",
    "fake_openai",
    "mlx_server",
    "start_mlx_server",
]


# -- the fake server's scripted answers ------------------------------------------


@dataclass(frozen=True)
class Status:
    """Answer with an HTTP error status and an OpenAI-style JSON error body."""

    code: int
    message: str = "scripted failure"


@dataclass(frozen=True)
class RawBody:
    """Answer 200 with these bytes as the body (garbage, truncated SSE...)."""

    body: bytes
    content_type: str = "text/event-stream"


@dataclass(frozen=True)
class Stall:
    """Hang: after the response headers (default) or before them."""

    after_headers: bool = True


@dataclass(frozen=True)
class Reply:
    """A well-formed streamed chat completion: text pieces, tool calls, usage."""

    pieces: tuple[str, ...] = ("Hello", " there", ".")
    tool_calls: tuple[dict[str, Any], ...] = ()
    usage: dict[str, Any] = field(
        default_factory=lambda: {
            "prompt_tokens": 12,
            "completion_tokens": 3,
            "total_tokens": 15,
            "prompt_tokens_details": {"cached_tokens": 4},
        }
    )
    split_arguments: int = 0  # >0: send each tool call's arguments in pieces this long


Answer: TypeAlias = Status | RawBody | Stall | Reply


def _sse(obj: dict[str, Any]) -> bytes:
    return f"data: {json.dumps(obj)}\n\n".encode()


def _chunk(delta: dict[str, Any], finish: str | None = None) -> dict[str, Any]:
    return {
        "id": "chatcmpl-fake",
        "object": "chat.completion.chunk",
        "created": 0,
        "model": "fake",
        "choices": [{"index": 0, "delta": delta, "finish_reason": finish}],
    }


def _reply_events(reply: Reply) -> Iterator[bytes]:
    yield _sse(_chunk({"role": "assistant", "content": ""}))
    for piece in reply.pieces:
        yield _sse(_chunk({"content": piece}))
    for index, call in enumerate(reply.tool_calls):
        raw = call.get("arguments", {})
        args = raw if isinstance(raw, str) else json.dumps(raw)  # a str goes out verbatim
        step = reply.split_arguments or len(args) or 1
        head = {"index": index, "id": call.get("id", f"call_{index}"), "type": "function"}
        yield _sse(_chunk({"tool_calls": [{**head, "function": {"name": call["name"]}}]}))
        for start in range(0, len(args), step):
            frag = {"index": index, "function": {"arguments": args[start : start + step]}}
            yield _sse(_chunk({"tool_calls": [frag]}))
    yield _sse(_chunk({}, "tool_calls" if reply.tool_calls else "stop"))
    usage = {**_chunk({}), "choices": [], "usage": reply.usage}
    yield _sse(usage)
    yield b"data: [DONE]\n\n"


class FakeOpenAIServer:
    """A real socket server answering ``/v1/chat/completions`` from a queue.

    With the queue empty it answers a default `Reply`. Every request body is
    kept in ``requests``. ``release`` wakes stalled handlers (teardown).
    """

    def __init__(self) -> None:
        self.answers: queue.Queue[Answer] = queue.Queue()
        self.requests: list[dict[str, Any]] = []
        self.headers: list[dict[str, str]] = []
        self.release = threading.Event()
        self.disconnected = threading.Event()  # a stalled handler saw the client go
        self.stalled = threading.Event()  # a handler is stalling now: cancel after this
        # What GET /v1/models lists (vLLM adds "max_model_len"); None answers 404.
        self.models: list[dict[str, Any]] | None = None
        handler = self._handler_class()
        self._httpd = ThreadingHTTPServer(("127.0.0.1", 0), handler)
        self._httpd.daemon_threads = True
        self.port = self._httpd.server_address[1]
        self.base_url = f"http://127.0.0.1:{self.port}/v1"
        self._thread = threading.Thread(
            target=self._httpd.serve_forever, kwargs={"poll_interval": 0.05}, daemon=True
        )
        self._thread.start()

    def enqueue(self, *answers: Answer) -> None:
        for answer in answers:
            self.answers.put(answer)

    def close(self) -> None:
        self.release.set()
        self._httpd.shutdown()
        self._httpd.server_close()

    def _next(self) -> Answer:
        try:
            return self.answers.get_nowait()
        except queue.Empty:
            return Reply()

    def _handler_class(self) -> type[BaseHTTPRequestHandler]:
        server = self

        class Handler(BaseHTTPRequestHandler):
            def log_message(self, format: str, *args: Any) -> None:
                pass  # keep pytest output clean

            def do_GET(self) -> None:
                if self.path.rstrip("/").endswith("/models") and server.models is not None:
                    body = json.dumps({"object": "list", "data": server.models})
                    self._head(200, "application/json")
                else:
                    body = json.dumps({"error": {"message": "not found", "code": 404}})
                    self._head(404, "application/json")
                self.wfile.write(body.encode())

            def do_POST(self) -> None:
                length = int(self.headers.get("Content-Length") or 0)
                raw = self.rfile.read(length)
                server.requests.append(json.loads(raw or b"{}"))
                server.headers.append({k.lower(): v for k, v in self.headers.items()})
                answer = server._next()
                if isinstance(answer, Status):
                    body = json.dumps({"error": {"message": answer.message, "code": answer.code}})
                    self._head(answer.code, "application/json")
                    self.wfile.write(body.encode())
                elif isinstance(answer, RawBody):
                    self._head(200, answer.content_type)
                    self.wfile.write(answer.body)
                elif isinstance(answer, Stall):
                    if answer.after_headers:
                        self._head(200, "text/event-stream")
                        self.wfile.flush()
                    self._stall()
                else:
                    self._head(200, "text/event-stream")
                    for event in _reply_events(answer):
                        self.wfile.write(event)
                        self.wfile.flush()

            def _head(self, code: int, content_type: str) -> None:
                self.send_response(code)
                self.send_header("Content-Type", content_type)
                self.send_header("Connection", "close")
                self.end_headers()

            def _stall(self) -> None:
                """Send nothing until released or the client hangs up."""
                self.connection.settimeout(0.05)
                server.stalled.set()
                while not server.release.is_set():
                    try:
                        if self.connection.recv(1) == b"":
                            server.disconnected.set()
                            return
                    except TimeoutError:
                        continue
                    except OSError:
                        server.disconnected.set()
                        return

        return Handler


@pytest.fixture
def fake_openai() -> Iterator[FakeOpenAIServer]:
    server = FakeOpenAIServer()
    yield server
    server.close()


@pytest.fixture
def closed_port_url() -> str:
    """A base URL on 127.0.0.1 where nothing listens: connecting is refused."""
    return f"http://127.0.0.1:{free_port()}/v1"


# -- the real mlx_lm.server ----------------------------------------------------------


@dataclass(frozen=True)
class MlxServer:
    base_url: str
    model: str  # the name to send: the model directory, exactly as served
    log: pathlib.Path

    def spec(self) -> str:
        return f"openai:{self.model}@{self.base_url}"


def cpu_fast_folder(model_dir: pathlib.Path, out: pathlib.Path) -> tuple[pathlib.Path, str | None]:
    """The embedded model as ``mlx_lm.server`` runs it fast on MLX's Linux CPU wheel,
    and the OpenBLAS to preload into it: what agent_nb's CPU fast path gives itself
    (`agent_nb.backends.mlx.cpu_blas`, `weights`), since the server's quantised
    matmuls on the bundled BLAS prefill about ten tokens a second.

    The folder holds the tokenizer and config (without its quantisation) and links
    the float32 weights agent_nb keeps for the embedded model (`float32_cache`,
    written by this process's model load). Elsewhere: ``model_dir`` itself and None.
    """
    from agent_nb.backends.mlx.cpu_blas import cpu_blas
    from agent_nb.backends.mlx.float32_cache import cache_file
    from agent_nb.backends.mlx.runtime import load_model, resolve_source

    # Loading decides the path: float32 weights only where OpenBLAS was loaded.
    loaded = load_model(resolve_source("smollm2-135m"), progress=False)
    blas, weights = cpu_blas(), cache_file(model_dir)
    if loaded.weights != "float32" or blas is None or not weights.is_file():
        return model_dir, None
    out.mkdir(parents=True, exist_ok=True)
    config = json.loads((model_dir / "config.json").read_text())
    for key in ("quantization", "quantization_config"):
        config.pop(key, None)
    (out / "config.json").write_text(json.dumps(config, indent=2))
    for name in ("tokenizer.json", "tokenizer_config.json", "generation_config.json"):
        (out / name).symlink_to(model_dir / name)
    (out / "model.safetensors").symlink_to(weights)
    return out, blas.path


@contextlib.contextmanager
def start_mlx_server(
    model_dir: pathlib.Path, log: pathlib.Path, preload: str | None = None
) -> Iterator[MlxServer]:
    """Run ``mlx_lm.server`` on a free 127.0.0.1 port until the block exits
    (``preload``: a library for ``LD_PRELOAD``, see `cpu_fast_folder`).

    ``HF_HUB_OFFLINE`` keeps it from reaching for the Hub when asked for a
    model it does not have (it answers 404 instead).
    """
    port = free_port()
    model = str(model_dir)
    env = {**os.environ, "HF_HUB_OFFLINE": "1", "TRANSFORMERS_OFFLINE": "1"}
    if preload:
        env["LD_PRELOAD"] = preload
    command = [
        sys.executable, "-m", "mlx_lm", "server",
        "--model", model, "--host", "127.0.0.1", "--port", str(port),
        "--max-tokens", "16", "--log-level", "WARNING",
    ]  # fmt: skip
    with log.open("wb") as sink:
        proc = subprocess.Popen(command, stdout=sink, stderr=subprocess.STDOUT, env=env)
    try:
        wait_http(f"http://127.0.0.1:{port}/health", proc, log, name="mlx_lm.server", timeout=180)
        yield MlxServer(base_url=f"http://127.0.0.1:{port}/v1", model=model, log=log)
    finally:
        proc.terminate()
        try:
            proc.wait(timeout=10)
        except subprocess.TimeoutExpired:
            proc.kill()
            proc.wait(timeout=10)


@pytest.fixture(scope="session")
def mlx_server(
    embedded_model_dir: pathlib.Path, tmp_path_factory: pytest.TempPathFactory
) -> Iterator[MlxServer]:
    """A real ``mlx_lm.server`` serving the embedded model, killed at teardown."""
    folder = tmp_path_factory.mktemp("mlx_server")
    model, preload = cpu_fast_folder(embedded_model_dir, folder / "model")
    with start_mlx_server(model, folder / "server.log", preload) as server:
        yield server
