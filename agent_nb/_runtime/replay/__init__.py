"""Replay: a model call identical to one already answered gets the recorded answer.

A teacher rehearses a notebook, restarts the kernel and runs it all again in
class; with greedy decoding every reply is the one the model gave last time,
token for token, and on a CPU each costs seconds. So a model call is keyed by
what decides its reply, and a call seen before streams its recorded chunks
again at once. The seam is the model call (`ModelCall`), not the turn: the
agents, the one loop, history, branches, state deltas and events are exactly
those of a call the model answered, since only the backend's chunks are
replaced.

* **Key**: a SHA-256 of the model's identity (`Backend.replay_identity`: the
  MLX weights' hash, a server's model name; None never replays) and the fully
  rendered request: system text, contents (tool call ids numbered by order,
  since they are fresh each run), tools with their schemas, response schema,
  tool choice and every sampling setting except ``prompt_lookup`` (exact: it
  changes speed, never text). The session id is a cache-affinity key only and
  is left out.
* **What qualifies**: greedy decoding (temperature 0) or an explicit seed; and
  an agent whose tools are all ``@tool(pure=True)`` (an `AgentTool` counts when
  every tool below it is pure; an MCP tool when its server marks it
  ``readOnlyHint``), since replayed tool calls run again; a tool
  that needs approval (``@tool(confirm=True)``, an MCP tool that is not
  read-only) never counts, whatever the policy. Only
  calls that ended normally are recorded (stop or length): not a cancelled
  one, a repetition stop or an error.
* **Where it is on**: notebook turns (`%%agent`, `ChatWidget`), through
  `TurnOptions.replay`; off with ``%%agent --fresh``, ``AgentMagics.replay =
  False``, or ``AGENT_NB_REPLAY=0`` (everywhere). Python API turns leave it off
  unless they ask (``session.run(..., replay=True)``), and so does direct
  model access (``runner.generate_content_async(request, replay=True)``: the
  same key and rules; its tool calls are only reported, never run, so purity
  does not apply).
* **Storage**: one SQLite file, ``replay.sqlite`` in the cache folder (moved
  by ``$AGENT_NB_CACHE_DIR``, or the file itself by ``$AGENT_NB_REPLAY_FILE``),
  with a byte budget (``$AGENT_NB_REPLAY_BUDGET``, default 64 MiB) kept by
  removing the least recently used answers. A file that is missing is made
  again; one that is not a database is moved aside (``.corrupt``) and the call
  runs as a normal one. The cache never fails a turn.
* **Prompt counts**: fitting a request to the window counts its tokens with
  the model's tokenizer, which loads the model. Each count is remembered in the
  same file under the request's key, so a replayed turn loads nothing: the
  identity is a hash of the model's files (`Backend.replay_identity`).
* **KV cache**: a replayed call does not go through the model, so a backend's
  prompt cache does not hold the replayed reply; the next call the model
  answers re-reads the conversation from where its cache stops (once), then
  reuses it as usual.
"""

from .adapter import Replayer, counter_for, replay_enabled, replay_for
from .cache_file import DEFAULT_BUDGET_BYTES, Recorder, Recording, ReplayCache, replay_cache
from .key import agent_is_pure, qualifies, request_key

__all__ = [
    "DEFAULT_BUDGET_BYTES",
    "Recorder",
    "Recording",
    "ReplayCache",
    "Replayer",
    "agent_is_pure",
    "counter_for",
    "qualifies",
    "replay_cache",
    "replay_enabled",
    "replay_for",
    "request_key",
]
