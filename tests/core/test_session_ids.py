"""Session ids: the rule of docs/python-api.md, checked with re.fullmatch and no stripping."""

from __future__ import annotations

import re

import pytest
from hypothesis import given
from hypothesis import strategies as st

from agent_nb import AgentRunner
from agent_nb._core.ids import SESSION_ID_RULE
from agent_nb.errors import InvalidSessionIdError

BAD = ["", "x" * 129, ".", "..", "a b", "a/b", "a\n", "café", "名前", " a", "a\t", "a:b"]


@pytest.mark.parametrize("bad", BAD)
def test_invalid_ids_are_refused_with_the_rule(runner: AgentRunner, bad: str) -> None:
    with pytest.raises(InvalidSessionIdError) as info:
        runner.get_or_create_session(bad)
    assert SESSION_ID_RULE in str(info.value)
    assert isinstance(info.value, ValueError)
    assert runner.sessions() == []


@pytest.mark.parametrize("bad", [None, 123, b"abc", ["a"]])
def test_non_strings_raise_type_error(runner: AgentRunner, bad: object) -> None:
    with pytest.raises(TypeError, match="must be a str"):
        runner.get_or_create_session(bad)  # type: ignore[arg-type]


@pytest.mark.parametrize(
    "good", ["a", "x" * 128, "...", "a.b-c_D9", "_st-x", "0e244246-9d1c-4d47-b253-3c1ed51fe59f"]
)
def test_valid_ids(runner: AgentRunner, good: str) -> None:
    assert runner.get_or_create_session(good).id == good


def _rule(s: str) -> bool:
    return re.fullmatch(r"[A-Za-z0-9_.\-]{1,128}", s, flags=re.ASCII) is not None and s not in (
        ".",
        "..",
    )


@given(st.text(max_size=140) | st.text(alphabet="ab._-/ \n", max_size=4))
def test_acceptance_equals_the_rule(candidate: str) -> None:
    from agent_nb._core.ids import check_session_id

    try:
        check_session_id(candidate)
        accepted = True
    except InvalidSessionIdError:
        accepted = False
    assert accepted == _rule(candidate)
