"""The repetition stop on its corpus (tests/core/repetition_corpus.py): no
ordinary reply stops, in any chunking, and every loop, short ones included,
stops within one copy of its bar. Driven through `RepetitionWatch` and, for
the issue's case, through a session on the ScriptedBackend."""

from __future__ import annotations

import re

import pytest

from agent_nb import AgentRunner, GenerationConfig
from agent_nb._core.repetition import RepetitionWatch, short_repeats
from agent_nb.backends import ScriptedBackend
from tests.core.repetition_corpus import LOOPS, ORDINARY

_TOKEN = re.compile(r"\s*\S+|\s+")  # how ScriptedBackend streams: word by word


def chunkings(text: str) -> dict[str, list[str]]:
    sized = {f"{n} chars": [text[i : i + n] for i in range(0, len(text), n)] for n in (1, 5, 64)}
    return {"words": _TOKEN.findall(text), **sized}


def stops(chunks: list[str], repeats: int = 3) -> bool:
    watch = RepetitionWatch(repeats)
    return any(watch.feed(chunk) for chunk in chunks)


def false_stops(repeats: int = 3) -> list[str]:
    return [
        f"{name} ({how})"
        for name, text in ORDINARY.items()
        for how, chunks in chunkings(text).items()
        if stops(chunks, repeats)
    ]


@pytest.mark.parametrize("repeats", [2, 3, 5])
def test_no_ordinary_reply_is_taken_for_a_loop(repeats: int) -> None:
    assert len(ORDINARY) >= 25
    assert false_stops(repeats) == []


@pytest.mark.parametrize("name", list(LOOPS))
def test_every_loop_stops_soon_and_shows_once(name: str) -> None:
    loop, intro = LOOPS[name]
    bar = short_repeats(3) + 1  # a short passage needs 4 whole copies; one more at most
    for how, chunks in chunkings(intro + loop * 100).items():
        watch = RepetitionWatch(3)
        before = 0  # what had streamed before the chunk that stopped it
        for chunk in chunks:
            if watch.feed(chunk):
                break
            before += len(chunk)
        assert watch.span, (name, how)
        assert before < len(intro) + bar * len(loop), (name, how, before)
        kept = watch.kept()
        assert kept.startswith(intro.rstrip()) and kept.count(loop.strip()) == 1, (how, kept)


def test_a_short_loop_needs_one_copy_more_than_a_long_one() -> None:
    three = "Rome was born. " * 3
    assert not stops(chunkings(three)["words"])
    assert stops(chunkings(three + "Rome was born. ")["1 chars"])
    assert not stops(chunkings("Rome was born. " * 20)["words"], repeats=0)  # off is off


def test_rome_was_born_a_hundred_times_stops_within_five_copies(
    runner: AgentRunner, scripted: ScriptedBackend
) -> None:
    scripted.enqueue("Rome was born. " * 100)
    session = runner.get_or_create_session("rome")
    reply = session.run("Write a very long essay about the history of Rome.",
                        config=GenerationConfig(max_tokens=400))  # fmt: skip
    assert reply.finish_reason == "repetition"
    assert reply.usage.generated_tokens <= 5 * 3  # three words a copy
    assert reply.text.strip() == "Rome was born."
    assert "kept repeating itself" in reply.note
