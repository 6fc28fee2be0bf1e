"""The OpenAI-compatible backend against real servers.

A real ``mlx_lm.server`` (the `mlx_server` fixture) for streaming, multi-turn
history, usage and cancel; a small real-socket server (`fake_openai`) for the
failures: refused, HTTP errors, garbage streams, stalls. After every failure
the session keeps its history and the next turn works.
"""

from __future__ import annotations

import asyncio
import subprocess
import sys
import threading
import time
from collections.abc import Iterator

import pytest

from agent_nb import (
    Agent,
    AgentRunner,
    Content,
    FunctionCall,
    FunctionResponse,
    GenerateContentRequest,
    GenerationConfig,
    TextMessage,
    TurnComplete,
)
from agent_nb.backends import CancelToken, Chunk, Finish, TextDelta, resolve_backend
from agent_nb.backends.openai import OpenAIBackend, parse_spec
from agent_nb.errors import BackendError, ModelNotFoundError
from tests.fixtures_runtime import RunnerFactory
from tests.fixtures_server import FakeOpenAIServer, MlxServer, RawBody, Reply, Stall, Status

SHORT = GenerationConfig(max_tokens=8, temperature=0.0)


def _runner(backend: OpenAIBackend | str) -> AgentRunner:
    return AgentRunner(model=backend)


@pytest.fixture
def fake_backend(fake_openai: FakeOpenAIServer) -> OpenAIBackend:
    return OpenAIBackend("fake-model", base_url=fake_openai.base_url, timeout=5, max_retries=0)


@pytest.fixture
def fake_runner(fake_backend: OpenAIBackend) -> Iterator[AgentRunner]:
    runner = _runner(fake_backend)
    yield runner
    runner.shutdown()


# -- specs ----------------------------------------------------------------------------


@pytest.mark.parametrize(
    ("arg", "model", "url"),
    [
        ("llama3.2@http://localhost:11434/v1", "llama3.2", "http://localhost:11434/v1"),
        ("org/m@v2@https://h.example:8000/v1/", "org/m@v2", "https://h.example:8000/v1"),
        ("/models/smol@http://127.0.0.1:8080/v1", "/models/smol", "http://127.0.0.1:8080/v1"),
    ],
)
def test_spec_parsing(arg: str, model: str, url: str) -> None:
    assert parse_spec(arg) == (model, url)
    backend = resolve_backend(f"openai:{arg}")
    assert isinstance(backend, OpenAIBackend)
    assert (backend.model, backend.base_url) == (model, url)
    assert backend.spec == f"openai:{model}@{url}"


@pytest.mark.parametrize(
    "spec",
    [
        "openai:",
        "openai:llama3.2",
        "openai:@http://localhost:8000/v1",
        "openai:m@ftp://localhost/v1",
        "openai:m@http://",
        "openai:m@http://host/v1?key=1",
        "openai:m @http://host/v1",
    ],
)
def test_bad_specs_say_what_is_allowed(spec: str) -> None:
    with pytest.raises(ModelNotFoundError, match="MODEL@"):
        resolve_backend(spec)


def test_bad_keyword_arguments() -> None:
    with pytest.raises(ValueError, match="model"):
        OpenAIBackend("", base_url="http://127.0.0.1:1/v1")
    with pytest.raises(ValueError, match="timeout"):
        OpenAIBackend("m", base_url="http://127.0.0.1:1/v1", timeout=0)
    with pytest.raises(ModelNotFoundError, match="http"):
        OpenAIBackend("m", base_url="localhost:8000")


@pytest.mark.slow  # a fresh interpreter
def test_import_agent_nb_does_not_import_openai() -> None:
    code = "import sys, agent_nb; assert 'openai' not in sys.modules, 'openai imported'"
    subprocess.run([sys.executable, "-c", code], check=True)


# -- the wire, against the local fake server ----------------------------------------------


def test_streams_text_usage_and_sends_options(
    fake_openai: FakeOpenAIServer,
    monkeypatch: pytest.MonkeyPatch,
    make_runner: RunnerFactory,
) -> None:
    monkeypatch.setenv("AGENT_NB_TEST_KEY", "sk-test-123")
    backend = OpenAIBackend(
        "fake-model",
        base_url=fake_openai.base_url,
        api_key_env="AGENT_NB_TEST_KEY",
        extra_headers={"X-Agent-Nb": "yes"},
        max_retries=0,
    )
    runner = make_runner.adopt(_runner(backend))
    session = runner.get_or_create_session("wire")
    stream = session.run_async("hi", system="Be brief.", config=GenerationConfig(top_k=5))
    partial = asyncio.run(_collect_partials(stream))
    reply = session.history
    assert partial == ["Hello", " there", "."]
    done = reply[-1]
    assert isinstance(done, TurnComplete) and done.finish_reason == "stop"
    assert done.usage.prompt_tokens == 8 and done.usage.cached_tokens == 4
    assert done.usage.generated_tokens == 3
    assert done.usage.time_to_first_token_s is not None
    sent = fake_openai.requests[0]
    assert sent["model"] == "fake-model" and sent["stream"] is True
    assert sent["stream_options"] == {"include_usage": True}
    assert sent["messages"] == [
        {"role": "system", "content": "Be brief."},
        {"role": "user", "content": "hi"},
    ]
    assert sent["top_k"] == 5 and sent["max_tokens"] == 512
    assert fake_openai.headers[0]["authorization"] == "Bearer sk-test-123"
    assert fake_openai.headers[0]["x-agent-nb"] == "yes"


async def _collect_partials(stream: object) -> list[str]:
    return [piece async for piece in stream.text_tokens()]  # type: ignore[attr-defined]


def add(a: int, b: int) -> int:
    """Add two integers.

    Args:
        a: the first number
        b: the second number
    """
    return a + b


def test_tool_call_fragments_are_assembled(
    fake_openai: FakeOpenAIServer,
    fake_backend: OpenAIBackend,
    make_runner: RunnerFactory,
) -> None:
    call = {"id": "call_7", "name": "add", "arguments": {"a": 2, "b": 3}}
    fake_openai.enqueue(
        Reply(pieces=(), tool_calls=(call,), split_arguments=3),
        Reply(pieces=("The sum is 5.",)),
    )
    runner = make_runner(Agent("calc", tools=[add]), model=fake_backend)
    reply = runner.get_or_create_session("tools").run("2+3?")
    assert reply.text == "The sum is 5."
    calls = [e for e in reply.events if isinstance(e, FunctionCall)]
    results = [e for e in reply.events if isinstance(e, FunctionResponse)]
    assert [(c.name, dict(c.args), c.call_id) for c in calls] == [
        ("add", {"a": 2, "b": 3}, "call_7")
    ]
    assert dict(results[0].response) == {"result": 5}
    first, second = fake_openai.requests
    assert first["tools"][0]["function"]["name"] == "add"
    assert first["tools"][0]["function"]["parameters"]["required"] == ["a", "b"]
    assert second["messages"][-2]["tool_calls"][0]["id"] == "call_7"
    assert second["messages"][-1] == {
        "role": "tool", "tool_call_id": "call_7", "content": '{"result": 5}'
    }  # fmt: skip


def test_tool_arguments_that_are_not_json_go_back_to_the_model(
    fake_openai: FakeOpenAIServer,
    fake_backend: OpenAIBackend,
    make_runner: RunnerFactory,
) -> None:
    fake_openai.enqueue(
        Reply(pieces=(), tool_calls=({"id": "call_9", "name": "add", "arguments": "{oops"},)),
        Reply(pieces=("Sorry, 5.",)),
    )
    runner = make_runner(Agent("calc", tools=[add]), model=fake_backend)
    reply = runner.get_or_create_session("bad-args").run("2+3?")
    assert reply.text == "Sorry, 5." and reply.finish_reason == "stop"
    (result,) = [e for e in reply.events if isinstance(e, FunctionResponse)]
    assert "not a JSON object" in result.response["error"] and "{oops" in result.response["error"]
    tool_message = fake_openai.requests[1]["messages"][-1]
    assert tool_message["role"] == "tool" and tool_message["tool_call_id"] == "call_9"
    assert "not a JSON object" in tool_message["content"]


ERRORS = [
    pytest.param(Status(500, "boom"), r"HTTP 500.*boom.*log", id="500"),
    pytest.param(Status(401, "bad key"), r"HTTP 401.*OPENAI_API_KEY", id="401"),
    pytest.param(Status(404, "model missing"), r"no model 'fake-model'.*models", id="404"),
    pytest.param(Status(429, "slow down"), r"rate limiting.*HTTP 429", id="429"),
    pytest.param(RawBody(b"data: {this is not json\n\n"), r"malformed stream.*/v1", id="garbage"),
    pytest.param(
        RawBody(b"<html>hello</html>", "text/html"), r"without any completion chunk", id="html"
    ),
    pytest.param(Stall(), r"did not answer within 1s", id="stall"),
    pytest.param(Stall(after_headers=False), r"did not answer within 1s", id="stall-head"),
    pytest.param(
        RawBody(b'data: {"error": {"message": "mid-stream crash"}}\n\n'),
        r"mid-stream crash",
        id="sse-error",
    ),
]


@pytest.mark.parametrize(("answer", "message"), ERRORS)
def test_errors_become_backend_errors_and_the_next_turn_works(
    fake_openai: FakeOpenAIServer,
    answer: object,
    message: str,
    make_runner: RunnerFactory,
) -> None:
    # 1 s only where the server stalls (the case is about the timeout); elsewhere a
    # loaded machine may take longer than that just to connect.
    timeout = 1 if isinstance(answer, Stall) else 30
    backend = OpenAIBackend(
        "fake-model", base_url=fake_openai.base_url, timeout=timeout, max_retries=0
    )
    runner = make_runner.adopt(_runner(backend))
    session = runner.get_or_create_session("errors")
    session.run("first", config=SHORT)
    fake_openai.enqueue(answer)  # type: ignore[arg-type]
    with pytest.raises(BackendError, match=message) as info:
        session.run("second", config=SHORT)
    assert fake_openai.base_url in str(info.value)
    assert info.value.__cause__ is not None or "completion chunk" in str(info.value)
    failed = session.history[-1]
    assert isinstance(failed, TurnComplete) and failed.finish_reason == "error"
    reply = session.run("third", config=SHORT)
    assert reply.text == "Hello there."
    users = [m["content"] for m in fake_openai.requests[-1]["messages"] if m["role"] == "user"]
    # The failed turn's message is kept; with no answer between, it joins the next one
    # so strict-alternation servers accept the history.
    assert users == ["first", "second\n\nthird"]


def test_connection_refused(closed_port_url: str, make_runner: RunnerFactory) -> None:
    runner = make_runner.adopt(_runner(OpenAIBackend("m", base_url=closed_port_url, max_retries=0)))
    session = runner.get_or_create_session("refused")
    with pytest.raises(BackendError, match=r"Cannot reach.*Is the server running") as info:
        session.run("hello", config=SHORT)
    assert closed_port_url in str(info.value)
    assert [e.text for e in session.history if isinstance(e, TextMessage)] == ["hello"]


@pytest.mark.parametrize("after_headers", [True, False], ids=["after-headers", "before-headers"])
def test_cancel_token_beats_a_stalled_server(
    fake_openai: FakeOpenAIServer, after_headers: bool
) -> None:
    """The token alone (no task cancel) ends the stream and closes the connection."""
    backend = OpenAIBackend("m", base_url=fake_openai.base_url, timeout=60, max_retries=0)
    fake_openai.enqueue(Stall(after_headers=after_headers))
    request = GenerateContentRequest([Content.user("hi")], config=SHORT)

    async def scenario() -> tuple[list[Chunk], float]:
        cancel = CancelToken()
        loop = asyncio.get_running_loop()
        # Cancel once the server stalls (not after a fixed time: under load the request
        # may not have arrived yet, and the test would not test a stalled server).
        threading.Thread(
            target=lambda: fake_openai.stalled.wait(60) and loop.call_soon_threadsafe(cancel.set),
            daemon=True,
        ).start()
        started = time.perf_counter()
        chunks = [c async for c in backend.stream(request, cache=None, cancel=cancel)]
        return chunks, time.perf_counter() - started

    chunks, elapsed = asyncio.run(scenario())
    assert chunks == [Finish(finish_reason="cancelled")]
    assert elapsed < 30  # far below the 60 s timeout: the token ended it (loose, for load)
    assert fake_openai.disconnected.wait(5), "the HTTP connection was left open"


def test_one_backend_serves_several_event_loops(fake_openai: FakeOpenAIServer) -> None:
    """httpx pools are loop-bound: a backend reused from a new loop must still work."""
    backend = OpenAIBackend("m", base_url=fake_openai.base_url, max_retries=0)
    request = GenerateContentRequest([Content.user("hi")], config=SHORT)

    async def text() -> str:
        chunks = [c async for c in backend.stream(request, cache=None, cancel=CancelToken())]
        return "".join(c.text for c in chunks if isinstance(c, TextDelta))

    assert asyncio.run(text()) == asyncio.run(text()) == "Hello there."


def test_task_cancel_closes_the_stream(fake_openai: FakeOpenAIServer) -> None:
    backend = OpenAIBackend("m", base_url=fake_openai.base_url, timeout=60, max_retries=0)
    fake_openai.enqueue(Stall())
    request = GenerateContentRequest([Content.user("hi")], config=SHORT)

    async def scenario() -> None:
        async def consume() -> None:
            async for _ in backend.stream(request, cache=None, cancel=CancelToken()):
                pass

        task = asyncio.create_task(consume())
        assert await asyncio.to_thread(fake_openai.stalled.wait, 60)
        task.cancel()
        with pytest.raises(asyncio.CancelledError):
            await task

    asyncio.run(scenario())
    assert fake_openai.disconnected.wait(5), "the HTTP connection was left open"


def test_session_cancel_on_stall_keeps_history(
    fake_openai: FakeOpenAIServer, fake_runner: AgentRunner
) -> None:
    fake_openai.enqueue(Stall())
    session = fake_runner.get_or_create_session("stall")

    async def scenario() -> float:
        stream = session.run_async("wait for it", config=SHORT)
        assert await asyncio.to_thread(fake_openai.stalled.wait, 60)
        started = time.perf_counter()
        stream.cancel()
        events = [event async for event in stream]
        assert isinstance(events[-1], TurnComplete) and events[-1].interrupted
        return time.perf_counter() - started

    assert asyncio.run(scenario()) < 30  # the token ended it, not the 60 s timeout
    assert fake_openai.disconnected.wait(5)
    assert [e.text for e in session.history if isinstance(e, TextMessage)] == ["wait for it"]
    assert session.run("again", config=SHORT).text == "Hello there."


# -- a real mlx_lm.server -------------------------------------------------------------------


@pytest.fixture
def mlx_runner(mlx_server: MlxServer) -> Iterator[AgentRunner]:
    runner = _runner(mlx_server.spec())
    yield runner
    runner.shutdown()


@pytest.mark.mlx
def test_real_server_multi_turn(mlx_runner: AgentRunner) -> None:
    session = mlx_runner.get_or_create_session("real")
    first = session.run("What is the capital of France?", config=SHORT)
    second = session.run("And of Italy?", config=SHORT)
    assert first.text.strip() and second.text.strip()
    for reply in (first, second):
        assert reply.finish_reason in ("stop", "length")
        assert 0 < reply.usage.generated_tokens <= SHORT.max_tokens
        assert reply.usage.prompt_tokens + reply.usage.cached_tokens > 0
        assert reply.usage.time_to_first_token_s is not None
    # the second prompt holds the whole first exchange, which the server had cached
    seen_first = first.usage.prompt_tokens + first.usage.cached_tokens
    seen_second = second.usage.prompt_tokens + second.usage.cached_tokens
    assert seen_second > seen_first + first.usage.generated_tokens
    assert second.usage.cached_tokens > 0


@pytest.mark.mlx
def test_real_server_cancel_mid_stream(mlx_runner: AgentRunner) -> None:
    session = mlx_runner.get_or_create_session("real-cancel")
    long = GenerationConfig(max_tokens=16, temperature=0.0)

    async def cancel_after_first_token() -> list[str]:
        stream = session.run_async("Count from one to twenty in words.", config=long)
        pieces: list[str] = []
        async for piece in stream.text_tokens():
            pieces.append(piece)
            stream.cancel()
        return pieces

    pieces = asyncio.run(cancel_after_first_token())
    done = session.history[-1]
    assert isinstance(done, TurnComplete) and done.finish_reason == "cancelled"
    assert pieces and done.usage.generated_tokens < long.max_tokens
    partial = [e for e in session.history if isinstance(e, TextMessage) and e.interrupted]
    assert partial and partial[0].text.startswith(pieces[0])
    after = session.run("Say hi.", config=SHORT)
    assert after.finish_reason in ("stop", "length") and after.text.strip()


@pytest.mark.mlx
def test_real_server_backend_stream_directly(mlx_server: MlxServer) -> None:
    backend = resolve_backend(mlx_server.spec())
    request = GenerateContentRequest([Content.user("Hi!")], config=SHORT)

    async def scenario() -> list[Chunk]:
        return [c async for c in backend.stream(request, cache=None, cancel=CancelToken())]

    chunks = asyncio.run(scenario())
    assert any(isinstance(c, TextDelta) and c.text for c in chunks)
    finish = chunks[-1]
    assert isinstance(finish, Finish) and finish.usage.generated_tokens > 0


@pytest.mark.mlx
def test_real_server_unknown_model_is_a_404(
    mlx_server: MlxServer, make_runner: RunnerFactory
) -> None:
    """Last on purpose: mlx_lm.server unloads its model when a load fails."""
    backend = OpenAIBackend("no-such-model", base_url=mlx_server.base_url, max_retries=0)
    runner = make_runner.adopt(_runner(backend))
    session = runner.get_or_create_session("missing")
    with pytest.raises(BackendError, match=r"no model 'no-such-model'.*HTTP 404"):
        session.run("hello", config=SHORT)
    assert [e.text for e in session.history if isinstance(e, TextMessage)] == ["hello"]
