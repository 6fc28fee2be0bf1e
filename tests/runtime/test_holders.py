"""Session holders: who still uses a session, as ``%agent sessions`` shows it."""

from __future__ import annotations

from agent_nb import AgentRunner


def test_holders_are_listed_released_and_forgotten_on_close(runner: AgentRunner) -> None:
    session = runner.get_or_create_session("held")
    runner.hold_session("held", "%%agent cells")
    runner.hold_session("held", "ChatWidget 1")
    runner.hold_session("held", "ChatWidget 1")  # a name counts once
    [info] = runner.sessions()
    assert info.holders == ("%%agent cells", "ChatWidget 1")

    assert runner.release_session("held", "ChatWidget 1") == ("%%agent cells",)
    assert runner.release_session("held", "nobody") == ("%%agent cells",)
    assert runner.session_holders("held") == ("%%agent cells",)

    session.close()  # a fresh session under the same id starts with no holders
    assert runner.session_holders("held") == ()
    runner.get_or_create_session("held")
    assert runner.sessions()[0].holders == ()


def test_delete_forgets_holders(runner: AgentRunner) -> None:
    runner.get_or_create_session("gone")
    runner.hold_session("gone", "%%agent cells")
    runner.delete_session("gone")
    assert runner.session_holders("gone") == ()
