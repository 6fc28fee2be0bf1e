"""``%%agent --schema NAME`` and ``--choice "a|b"`` in a real IPython shell, on the scripted
model (the embedded model's ``--choice`` is in tests/backends/test_structured_turns.py)."""

from __future__ import annotations

import pydantic
from IPython.core.error import UsageError
from IPython.core.interactiveshell import InteractiveShell

from agent_nb import get_runner
from agent_nb.backends import ScriptedBackend
from tests.fixtures_magics import final_bundle, run, usage_error
from tests.html_safety import assert_inert, render_all


class Person(pydantic.BaseModel):
    name: str
    age: int


def test_schema_shows_the_parsed_value_and_o_holds_the_reply(
    shell: InteractiveShell, backend: ScriptedBackend
) -> None:
    shell.user_ns["Person"] = Person
    backend.enqueue({"name": "Ada", "age": 36})
    result, cap = run(shell, "%%agent --schema Person -o who\nWho wrote the first program?")
    assert result.error_in_exec is None, cap.stderr
    assert backend.requests[0].response_schema == Person.model_json_schema()
    reply = shell.user_ns["who"]
    assert reply.parsed == Person(name="Ada", age=36)
    markdown = final_bundle(cap)["text/markdown"]
    assert markdown == '```json\n{\n  "name": "Ada",\n  "age": 36\n}\n```'


def test_a_schema_dict_and_model_text_that_is_markup_render_inert(
    shell: InteractiveShell, backend: ScriptedBackend
) -> None:
    payload = "<img src=x onerror=alert(1)> ```</code><script>alert(1)</script>"
    shell.user_ns["note"] = {
        "type": "object",
        "properties": {"text": {"type": "string"}},
        "required": ["text"],
    }
    backend.enqueue({"text": payload})
    result, cap = run(shell, "%%agent --schema note -o out\nWrite a note.")
    assert result.error_in_exec is None, cap.stderr
    assert shell.user_ns["out"].parsed == {"text": payload}
    for output in cap.outputs:
        for rendered in render_all(output.data["text/markdown"]).values():
            assert_inert(rendered, payload)


def test_choice_shows_the_chosen_string(shell: InteractiveShell, backend: ScriptedBackend) -> None:
    backend.enqueue("yes")  # a scripted reply breaks the grammar: not JSON, so no value
    backend.enqueue('"unsure"')
    result, cap = run(shell, '%%agent --choice "yes|no|unsure" -o v\nIs it sorted?')
    assert result.error_in_exec is None
    assert backend.requests[0].response_schema == {"enum": ["yes", "no", "unsure"]}
    assert shell.user_ns["v"].parsed is None
    assert "does not match its schema" in final_bundle(cap)["text/markdown"]
    result, cap = run(shell, '%%agent --choice "yes | no|unsure" -o v\nIs it sorted?')
    assert shell.user_ns["v"].parsed == "unsure"
    assert final_bundle(cap)["text/plain"] == "unsure"


def test_bad_schema_and_choice_options_are_one_line_each(
    shell: InteractiveShell, backend: ScriptedBackend
) -> None:
    shell.user_ns["number"] = 3
    for line, fragment in [
        ("--schema Missing", "--schema: no variable 'Missing'; define a pydantic BaseModel"),
        ("--schema number", "--schema number: expected a pydantic BaseModel class or a JSON"),
        ('--choice "yes"', "--choice needs two or more non-empty options separated by '|'"),
        ('--choice "yes||no"', "--choice needs two or more"),
        ('--schema number --choice "a|b"', "--schema number: expected"),
    ]:
        result, cap = run(shell, f"%%agent {line}\nhi")
        usage_error(result, cap, fragment)
    shell.user_ns["Person"] = Person
    result, cap = run(shell, '%%agent --schema Person --choice "a|b"\nhi')
    usage_error(result, cap, "--schema and --choice both set the reply's shape")
    shell.user_ns["odd"] = {"type": "no-such-type"}
    result, cap = run(shell, "%%agent --schema odd\nhi")
    usage_error(result, cap, "output_schema is not a valid JSON schema")
    assert backend.requests == []


def test_a_schema_that_does_not_compile_fails_the_cell_and_records_nothing(
    shell: InteractiveShell, backend: ScriptedBackend
) -> None:
    shell.user_ns["bad"] = {"type": "object", "properties": {"a": {"not": {"type": "string"}}}}
    result, cap = run(shell, "%%agent --schema bad\nhi")
    assert isinstance(result.error_in_exec, UsageError)
    first = cap.stderr.strip().splitlines()[0]  # then llguidance's own lines, with a caret
    assert first.startswith("UsageError: the turn failed: SchemaError: response_schema cannot")
    assert 'Unimplemented keys: ["not"]' in first
    assert get_runner().get_or_create_session("default").history == []
    assert backend.requests == []
