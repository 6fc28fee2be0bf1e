"""The MLX backend (``"mlx:..."``): local models through mlx-lm, the default.

Three things make it fit a notebook agent rather than a one-shot CLI:

* **One MLX thread per process** (`runtime`): loading and generation
  run there; tokens cross to the asyncio worker loop with
  ``loop.call_soon_threadsafe``. The model is loaded once per process.
* **KV reuse per conversation** (`generate`, `kv`): each turn
  renders the whole chat, keeps the longest common token prefix with what the
  conversation's cache holds and feeds only the rest, so turn N costs its new
  tokens instead of the whole history.
* **One byte budget** for all those caches, least recently used out first;
  dropping a cache frees its arrays and calls ``mx.clear_cache()``.
* **KV checkpoints** (`checkpoints`, when the runner configures them): each
  cache is also written to disk after its turn, and a turn whose cache is
  gone (a restart, an eviction) resumes from the longest matching one.

On MLX's Linux CPU wheel the backend loads a system OpenBLAS before the first
``import mlx.core`` and runs float32 weights on it (`cpu_blas`,
`weights`); `memory()` says which path this process is on.

Importing this module is cheap: mlx and mlx-lm are imported on first use.
"""

from __future__ import annotations

import asyncio
import os
import threading
from collections.abc import AsyncIterator
from typing import Any, ClassVar

from ..._core.types import GenerateContentRequest
from ...errors import AgentError, BackendError, SchemaError
from .._base import Backend, CancelToken, Chunk, Finish
from ..structured import ToolCallFormat, check_request, request_grammar
from .chat import common_prefix, encode, render_prompt
from .checkpoints import Checkpoints, open_checkpoints
from .cpu_blas import cpu_fast_enabled
from .generate import GenerationJob, run_generation
from .grammar import Constraint, grammars_for, tool_call_format
from .kv import KVSlot, KVStore
from .lookup import prompt_lookup_enabled
from .model_identity import replay_identity
from .runtime import (
    LoadedModel,
    ModelSource,
    load_model,
    mlx_call,
    mlx_thread,
    model_folder,
    resolve_source,
    window_from_files,
    window_of,
)

__all__ = [
    "CPU_PREFILL_CHUNK_S",
    "DEFAULT_KV_BUDGET_BYTES",
    "MAX_PREFILL_STEP",
    "MLXBackend",
    "from_spec",
]

#: Default byte budget for all KV caches of one backend; ``$AGENT_NB_KV_BUDGET_BYTES`` overrides.
DEFAULT_KV_BUDGET_BYTES = 1 << 30
_DONE = object()


def _budget_from_env() -> int:
    raw = os.environ.get("AGENT_NB_KV_BUDGET_BYTES")
    if not raw:
        return DEFAULT_KV_BUDGET_BYTES
    try:
        return int(raw)
    except ValueError:
        raise ValueError(
            f"AGENT_NB_KV_BUDGET_BYTES must be a whole number of bytes, got {raw!r}"
        ) from None


#: On a CPU, each prefill chunk is sized to take about this long, so Stop and
#: Ctrl-C answer within about a second however fast the machine is (OpenBLAS
#: or not, busy or idle); chunks grow up to `MAX_PREFILL_STEP` tokens. Longer
#: chunks run faster (each forward pass has a fixed cost, and a chunk's rows
#: share one read of the weights): at 5,000 tokens on the project machine,
#: 0.4 s chunks prefilled at 161 tok/s and 0.7 s chunks at 210
#: (``benchmarks/bench_cpu.py``, which also measures how long a Stop takes).
CPU_PREFILL_CHUNK_S = 0.7
#: The largest prefill chunk (a GPU always uses it).
MAX_PREFILL_STEP = 512


def _prefill_plan(prefill_step: int | None) -> tuple[int, float | None]:
    """(largest chunk, seconds per chunk or None for fixed chunks)."""
    import mlx.core as mx

    if prefill_step is not None:
        return prefill_step, None
    if mx.default_device() == mx.gpu:
        return MAX_PREFILL_STEP, None
    return MAX_PREFILL_STEP, CPU_PREFILL_CHUNK_S


def from_spec(arg: str) -> MLXBackend:
    """``mlx:smollm2-135m`` (embedded), ``mlx:/local/dir`` or ``mlx:org/repo``."""
    return MLXBackend(arg)


class MLXBackend(Backend):
    """A local mlx-lm model with per-conversation KV caches.

    ``model`` is what follows ``mlx:`` in a spec. The model loads on first use
    (or `load()`); bad local paths fail here, at construction.
    ``kv_budget_bytes`` caps the KV caches of all conversations together.
    ``context_window`` overrides the window read from the model (its config's
    ``max_position_embeddings``, else the tokenizer's ``model_max_length``).
    """

    supports_prompt_cache: ClassVar[bool] = True
    # The chat template always sees the tools; calls are parsed when the
    # model's tokenizer has an mlx-lm tool parser (``tokenizer.has_tool_calling``).
    supports_tools: ClassVar[bool] = True
    one_turn_at_a_time = True  # one MLX thread per process

    def __init__(
        self,
        model: str = "smollm2-135m",
        *,
        kv_budget_bytes: int | None = None,
        prefill_step: int | None = None,
        progress: bool = True,
        context_window: int | None = None,
    ) -> None:
        if context_window is not None and context_window < 1:
            raise ValueError(f"context_window must be >= 1 token, got {context_window}")
        if prefill_step is not None and not 1 <= prefill_step <= 512:
            raise ValueError(f"prefill_step must be between 1 and 512, got {prefill_step}")
        self.source: ModelSource = resolve_source(model)
        # A bad $AGENT_NB_CPU_FAST / $AGENT_NB_PROMPT_LOOKUP fails here, not on the MLX thread.
        cpu_fast_enabled()
        prompt_lookup_enabled()
        self.spec = f"mlx:{model}"
        self.prefill_step = prefill_step
        self.progress = progress
        self._kv = KVStore(_budget_from_env() if kv_budget_bytes is None else kv_budget_bytes)
        self._loaded: LoadedModel | None = None
        self._lock = threading.Lock()
        self._epoch = 0  # bumped by close(): generations of an older epoch stop
        self._context_window = context_window
        # The latest prompt counted per cache key, so a turn's count and its
        # generation render the chat template once between them.
        self._counted: dict[str | None, tuple[GenerateContentRequest, list[int]]] = {}
        self._checkpoints: Checkpoints | None = None
        self._replay_id: str | None = None  # "" when the model has none (a Hub name)
        self._file_window: int | None = None  # read from the folder's files, before loading

    def __repr__(self) -> str:
        state = "loaded" if self._loaded else "not loaded"
        return f"<MLXBackend {self.spec!r} {state}>"

    # -- model --------------------------------------------------------------------

    def load(self) -> LoadedModel:
        """Load the model now (on the MLX thread) unless this process already has it."""
        if self._loaded is None:
            loaded = load_model(self.source, progress=self.progress)
            with self._lock:
                self._loaded = loaded
        return self._loaded

    def replay_identity(self) -> str | None:
        """A hash of the model folder's files and the numerics that turn them into
        weights (library versions, device, BLAS; on the CPU fast path also whether
        float32 weights fit), remembered per file: computed with no weights loaded,
        so a replayed turn never waits for the model."""
        if self._replay_id is None:
            source, progress = self.source, self.progress
            self._replay_id = mlx_call(lambda: replay_identity(source, progress))
        return self._replay_id or None

    @property
    def tokenizer(self) -> Any:
        return self.load().tokenizer

    @property
    def context_window(self) -> int | None:
        """The override, else the model's window (None until it is read or loaded)."""
        if self._context_window is not None:
            return self._context_window
        if self._loaded is not None:
            return window_of(self._loaded)
        return self._file_window

    async def resolve_context_window(self) -> int | None:
        if self._context_window is None and self._loaded is None and self._file_window is None:
            # Off the worker loop (a first use may convert the embedded model); the
            # window comes from the folder's JSON files, so no weights load for it.
            self._file_window = await asyncio.to_thread(self._window_from_files)
        return self.context_window

    def _window_from_files(self) -> int | None:
        folder = mlx_call(lambda: model_folder(self.source, progress=self.progress))
        if folder is None:  # a Hub repo: its files come with the download
            return window_of(self.load())
        return window_from_files(folder)

    def count_tokens(self, request: GenerateContentRequest) -> int:
        """Exact: the chat template applied and tokenized, as generation will."""
        ids = render_prompt(self.load().tokenizer, request)
        self._counted[request.session_id] = (request, ids)
        return len(ids)

    def prompt_tokens(self, request: GenerateContentRequest) -> list[int]:
        """The token ids a turn for ``request`` starts from (chat template applied)."""
        return render_prompt(self.load().tokenizer, request)

    def cached_tokens(self, cache: str) -> list[int]:
        """The token ids the KV cache under ``cache`` holds (a copy)."""
        slot = self._kv.get(cache)
        return list(slot.tokens) if slot is not None else []

    # -- generation ---------------------------------------------------------------

    async def stream(
        self, request: GenerateContentRequest, *, cache: str | None, cancel: CancelToken
    ) -> AsyncIterator[Chunk]:
        loop = asyncio.get_running_loop()
        queue: asyncio.Queue[Any] = asyncio.Queue()
        abandoned = threading.Event()

        def emit(item: Any) -> None:
            try:
                loop.call_soon_threadsafe(queue.put_nowait, item)
            except RuntimeError:  # the worker loop is gone: nobody is listening
                abandoned.set()

        epoch = self._epoch
        thread = mlx_thread()

        def cancelled() -> bool:
            return cancel.is_set() or abandoned.is_set() or epoch != self._epoch or thread.stopping

        def job() -> None:
            try:
                emit(self._generate(request, cache, emit, cancelled))
            except BaseException as exc:
                emit(exc)
            emit(_DONE)

        future = thread.submit(job)
        try:
            while True:
                item = await queue.get()
                if item is _DONE:
                    break
                if isinstance(item, BaseException):
                    if isinstance(item, AgentError):
                        raise item
                    raise BackendError(f"MLX generation failed: {item}") from item
                yield item
        finally:
            # The consumer left early (aclose, task cancelled): stop the MLX job
            # at its next check; it leaves the cache consistent on its own.
            abandoned.set()
            future.cancel()

    def _generate(
        self, request: GenerateContentRequest, key: str | None, emit: Any, cancelled: Any
    ) -> Finish:
        if cancelled():
            return Finish(finish_reason="cancelled")
        loaded = self.load()
        counted = self._counted.pop(request.session_id, None)
        if counted is not None and counted[0] is request:
            prompt = counted[1]
        else:
            prompt = render_prompt(loaded.tokenizer, request)
        fmt, constraint = self._constraint(loaded, request)
        slot = self._kv.acquire(key) if key is not None else KVSlot("")
        checkpoints = self._checkpoints if key is not None else None
        if checkpoints is not None:
            checkpoints.resume(slot, prompt, loaded)
        tools = [t.to_openai() for t in request.tools] if request.offers_tools else None
        largest_chunk, chunk_s = _prefill_plan(self.prefill_step)
        job = GenerationJob(
            model=loaded.model,
            tokenizer=loaded.tokenizer,
            stream=mlx_thread().stream,
            prompt=prompt,
            config=request.config,
            slot=slot,
            emit=emit,
            cancelled=cancelled,
            prefill_step=largest_chunk,
            prefill_chunk_s=chunk_s,
            tools=tools,
            tool_format=fmt,
            constraint=constraint,
        )
        freed = 0
        try:
            return run_generation(job)
        except Exception as exc:
            slot.clear()  # never keep a cache whose contents are unknown
            raise BackendError(f"MLX generation failed: {exc}") from exc
        finally:
            if checkpoints is not None:
                checkpoints.capture(slot)  # references only: the reply is not delayed
            freed = self._kv.release(slot) if key is not None else slot.clear()
            if freed:
                self._clear_mlx_cache()

    # -- structured output ------------------------------------------------------

    def check_request(self, request: GenerateContentRequest) -> None:
        """Compile the request's grammar now (cached for its generation): a schema
        llguidance cannot compile raises `SchemaError` before anything is sent."""
        self._constraint(self.load(), request)

    @staticmethod
    def _constraint(
        loaded: LoadedModel, request: GenerateContentRequest
    ) -> tuple[ToolCallFormat | None, Constraint | None]:
        """The model's tool-call format and a fresh grammar state (None: plain decoding)."""
        tokenizer = loaded.tokenizer
        fmt = tool_call_format(tokenizer) if request.tools else None
        grammar = request_grammar(request, fmt)
        if grammar is None:
            return fmt, None
        # one JSON value from the first token: it can be closed within max_tokens
        whole_json = request.response_schema is not None and not request.offers_tools
        max_tokens = request.config.max_tokens if whole_json else None
        try:
            return fmt, grammars_for(tokenizer).start(grammar, "the reply's grammar", max_tokens)
        except SchemaError:
            check_request(request)  # names the schema (or the tool) that fails
            raise

    # -- caches -------------------------------------------------------------------

    @staticmethod
    def _clear_mlx_cache() -> None:
        import mlx.core as mx

        mx.clear_cache()

    def rewind_cache(self, cache: str, request: GenerateContentRequest) -> None:
        """Trim the cache under ``cache`` to what ``request`` renders to."""
        if self._loaded is None:
            return
        slot = self._kv.get(cache)
        if slot is None or slot.busy or not slot.cache:
            return
        prompt = render_prompt(self._loaded.tokenizer, request)
        from mlx_lm.models.cache import can_trim_prompt_cache, trim_prompt_cache

        # Trimming a plain KV cache only moves its offset: no MLX work, so it
        # need not wait behind another conversation's generation.
        keep = common_prefix(slot.tokens, prompt)
        drop = len(slot.tokens) - keep
        if not drop or slot.busy:
            return
        if can_trim_prompt_cache(slot.cache) and trim_prompt_cache(slot.cache, drop) == drop:
            del slot.tokens[keep:]
        else:
            self.drop_cache(cache)

    def count_text_tokens(self, text: str) -> int:
        """With the model's tokenizer (loads the model on first use). Runs on the
        caller's thread: encoding touches no MLX state."""
        return len(encode(self.load().tokenizer, text))

    def drop_cache(self, cache: str) -> None:
        self._counted.pop(cache, None)
        if self._kv.drop(cache) and self._loaded is not None:
            self._clear_mlx_cache()

    def cache_bytes(self, cache: str) -> int:
        return self._kv.bytes_of(cache)

    def trim_memory(self, keep: frozenset[str] = frozenset()) -> int:
        freed = self._kv.trim(keep)
        if freed and self._loaded is not None:
            self._clear_mlx_cache()
        return freed

    def memory(self) -> dict[str, Any]:
        per_key = self._kv.by_key()
        figures: dict[str, Any] = {
            "model": self.spec,
            "loaded": self._loaded is not None,
            "kv_bytes": per_key,
            "kv_bytes_total": sum(per_key.values()),
            "kv_budget_bytes": self._kv.budget_bytes,
            "kv_evictions": self._kv.evictions,
        }
        if self._checkpoints is not None:
            figures.update(self._checkpoints.figures())
        if self._loaded is not None:
            import mlx.core as mx

            loaded = self._loaded
            figures.update(
                cpu_blas=loaded.cpu_blas,
                weights=loaded.weights,
                weight_bytes=loaded.weight_bytes,
                decode=loaded.decode,
                decode_bytes=loaded.decode_bytes,
                active_bytes=int(mx.get_active_memory()),
                cache_bytes=int(mx.get_cache_memory()),
                peak_bytes=int(mx.get_peak_memory()),
            )
        return figures

    # -- KV checkpoints -----------------------------------------------------------

    def configure_checkpoints(
        self,
        *,
        store_identity: str,
        directory: str | os.PathLike[str] | None = None,
        disk_budget: int | None = None,
    ) -> bool:
        """Write each cache to ``directory`` (default ``~/.cache/agent_nb/kv``)
        after its turn, within ``disk_budget`` bytes (default 2 GiB, least
        recently used out first), and resume from there; off (False) when
        ``$AGENT_NB_KV_CHECKPOINTS=0``. Calling it again replaces the settings."""
        opened = open_checkpoints(
            store_identity=store_identity, directory=directory, disk_budget=disk_budget
        )
        self.checkpoints_off()
        if opened is not None and self._loaded is not None:
            opened.bind(self._loaded)  # so that an eviction before the next turn is kept
        self._checkpoints = opened
        self._kv.on_evict = None if opened is None else opened.capture
        return opened is not None

    def checkpoints_off(self) -> None:
        checkpoints, self._checkpoints = self._checkpoints, None
        self._kv.on_evict = None
        if checkpoints is not None:
            checkpoints.close()

    def delete_checkpoints(self, session_id: str) -> None:
        if self._checkpoints is not None:
            self._checkpoints.delete_session(session_id)

    def checkpoint_bytes(self) -> dict[str, int]:
        return {} if self._checkpoints is None else self._checkpoints.bytes_by_session()

    @property
    def checkpoints(self) -> Checkpoints | None:
        """The KV checkpoints (folder, identities, figures), or None when off."""
        return self._checkpoints

    def close(self) -> None:
        """Stop running generations and free every KV cache.

        The weights stay loaded for the rest of the process (other runners may
        share them) and the backend stays usable: the next turn starts fresh.
        """
        self._epoch += 1
        self._counted.clear()
        if self._checkpoints is not None:
            self._checkpoints.flush()  # the last turns' checkpoints reach the disk
        if self._kv.drop_all() and self._loaded is not None:
            self._clear_mlx_cache()
