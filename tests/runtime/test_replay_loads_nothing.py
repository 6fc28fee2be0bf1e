"""A replayed turn on the MLX backend loads neither weights nor tokenizer.

"Restart and Run All" is fast only if the first replayed cell does not wait
for the model: fitting the request to the window would count its tokens with
the tokenizer, and the replay key names the model. So the window comes from
the folder's JSON files, the key from a hash of its files, and the count from
the replay file. Each "kernel" here is a fresh interpreter on one replay file:
one asks the model (a session's turns, then a direct call), a second asks the
same and must load nothing, a third adds a new question.
"""

from __future__ import annotations

import json
import os
import subprocess
import sys
import textwrap
from pathlib import Path
from typing import Any

import pytest

pytestmark = pytest.mark.mlx

_KERNEL = textwrap.dedent(
    """
    import json, sys
    from agent_nb import AgentRunner, Content, GenerateContentRequest, GenerationConfig
    from agent_nb.backends.mlx.runtime import loaded_models

    def seen():
        return {
            "loaded": sorted(loaded_models()),
            "modules": sorted(m for m in ("mlx_lm", "transformers") if m in sys.modules),
        }

    spec = json.loads(sys.argv[1])
    runner = AgentRunner(model="mlx:smollm2-135m", kv_checkpoints=False)
    config = GenerationConfig(max_tokens=6, temperature=0.0)
    result = {}
    # The session's turns first: what they load is seen before the direct call runs.
    session = runner.get_or_create_session("s")
    texts = [session.run(q, config=config, replay=True).text for q in spec["session"]]
    usage = session.history[-1].usage
    result["session"] = {"texts": texts, "replayed": usage.replayed_calls, **seen()}
    if spec.get("direct"):
        request = GenerateContentRequest([Content.user(spec["direct"])], config=config)
        reply = runner.wait(runner.generate_content_async(request, replay=True))
        result["direct"] = {
            "texts": [reply.text], "replayed": reply.usage.replayed_calls, **seen()
        }
    runner.shutdown()
    print("RESULT " + json.dumps(result))
    """
)

FRANCE = "What is the capital of France?"
#: The direct question is not one of the session's: its request would be the same
#: as the session's first turn (no instructions), and replayed from it.
SPEC = {"session": [FRANCE, "And of Italy?"], "direct": "What is the capital of Spain?"}


def _kernel(replay_file: Path, spec: dict[str, Any]) -> dict[str, Any]:
    env = {k: v for k, v in os.environ.items() if k != "AGENT_NB_REPLAY"}
    done = subprocess.run(
        [sys.executable, "-c", _KERNEL, json.dumps(spec)],
        capture_output=True,
        text=True,
        timeout=300,
        env={**env, "AGENT_NB_REPLAY": "1", "AGENT_NB_REPLAY_FILE": str(replay_file)},
    )
    assert done.returncode == 0, done.stderr[-3000:]
    line = next(x for x in done.stdout.splitlines() if x.startswith("RESULT "))
    result: dict[str, Any] = json.loads(line.removeprefix("RESULT "))
    return result


@pytest.fixture(scope="module")
def replay_file(tmp_path_factory: pytest.TempPathFactory) -> Path:
    return tmp_path_factory.mktemp("replay") / "replay.sqlite"


@pytest.fixture(scope="module")
def cold(replay_file: Path) -> dict[str, Any]:
    """The first kernel on the replay file: everything goes to the model."""
    return _kernel(replay_file, SPEC)


@pytest.fixture(scope="module")
def warm(replay_file: Path, cold: dict[str, Any]) -> dict[str, Any]:
    """The next kernel asks the same: everything is replayed."""
    return _kernel(replay_file, SPEC)


def test_a_replayed_run_loads_no_model_and_answers_the_same(
    cold: dict[str, Any], warm: dict[str, Any]
) -> None:
    assert cold["session"]["loaded"] == ["embedded:smollm2-135m"]
    assert cold["session"]["replayed"] == 0
    assert warm["session"]["texts"] == cold["session"]["texts"]
    assert warm["session"]["replayed"] == 1
    # Nothing of the model was read: no weights, and not even the tokenizer's library.
    assert warm["session"]["loaded"] == []
    assert warm["session"]["modules"] == []


def test_a_new_question_after_a_replay_loads_the_model_and_counts_as_usual(
    replay_file: Path, cold: dict[str, Any]
) -> None:
    mixed = _kernel(replay_file, {"session": [FRANCE, "Name a river in Paris."]})
    assert mixed["session"]["texts"][0] == cold["session"]["texts"][0]
    assert mixed["session"]["replayed"] == 0  # the last turn went to the model
    assert mixed["session"]["loaded"] == ["embedded:smollm2-135m"]
    assert mixed["session"]["texts"][1].strip()


def test_a_replayed_direct_call_loads_no_model_and_answers_the_same(
    cold: dict[str, Any], warm: dict[str, Any]
) -> None:
    """Direct model access takes the same route: asked to replay, a request the
    model answered before is answered from the replay file, with no model loaded
    (in the warm kernel the session's replayed turns loaded nothing before it)."""
    assert cold["direct"]["loaded"] == ["embedded:smollm2-135m"]
    assert cold["direct"]["replayed"] == 0
    assert cold["direct"]["texts"][0].strip()
    assert warm["direct"]["texts"] == cold["direct"]["texts"]
    assert warm["direct"]["replayed"] == 1
    assert warm["direct"]["loaded"] == [] and warm["direct"]["modules"] == []
