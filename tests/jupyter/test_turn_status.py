"""The turn's widget (`turn_status`) in process: its view can find its own output
after a restart (the id the bundle names is synced to it), and the note it
writes there is the kernel's `CUT_OFF` (``js/cut_off.js`` keeps a copy)."""

from __future__ import annotations

import json
import pathlib
import re

from agent_nb._jupyter.magics import turn_status

ROOT = pathlib.Path(__file__).resolve().parents[2]


def test_the_view_knows_the_model_id_its_output_names() -> None:
    watch = turn_status.watch_turn()
    assert watch is not None, "agent_nb/static/turn_status.js is built by `npm run build`"
    bundle = watch.bundle({"text/markdown": "so far …", "text/plain": "so far …"})
    widget = watch._widget
    view = bundle[turn_status.WIDGET_VIEW]
    assert view["model_id"] == widget.own_id == widget.model_id
    assert widget.get_state()["own_id"] == view["model_id"]  # synced to the front end
    assert (bundle["text/markdown"], widget.markdown) == ("so far …", "so far …")
    watch.end()
    # A widget taken again from the pool keeps its id: its next output names it too.
    again = turn_status.watch_turn()
    assert again is not None and again._widget is widget
    assert again.bundle({"text/plain": "…"})[turn_status.WIDGET_VIEW]["model_id"] == widget.own_id
    again.end()


def test_the_js_note_is_the_kernels() -> None:
    source = (ROOT / "js" / "cut_off.js").read_text()
    found = re.search(r'export const CUT_OFF =\s*("(?:[^"\\]|\\.)*");', source)
    assert found, "js/cut_off.js no longer exports CUT_OFF as one string"
    assert json.loads(found.group(1)) == turn_status.CUT_OFF
