"""Every character agent_nb shows has a glyph in Debian's default fonts (issue 39, 3.6).

"⏹" in the interrupt line and "⏳" in the waiting line drew as missing-glyph boxes in
Debian's chromium: no font Debian installs by default has them. Each non-ASCII character
in the package and the widget's sources is drawn in Debian chromium (Playwright) with
JupyterLab's two font stacks, UI and code, and compared pixel for pixel with the box
chromium draws for a character no font has (a private-use code point).
"""

from __future__ import annotations

import pathlib
from typing import Any

import pytest

pytestmark = [pytest.mark.browser]

ROOT = pathlib.Path(__file__).parents[2]
# JupyterLab's --jp-ui-font-family and --jp-code-font-family (its default theme).
STACKS = {
    "ui": "system-ui, -apple-system, blinkmacsystemfont, 'Segoe UI', helvetica, arial, "
    "sans-serif, 'Apple Color Emoji', 'Segoe UI Emoji', 'Segoe UI Symbol'",
    "code": "menlo, consolas, 'DejaVu Sans Mono', monospace",
}
NO_FONT_HAS_IT = "\ue000"

DRAW = """([chars, stacks, missing]) => {
    const canvas = document.createElement('canvas');
    canvas.width = canvas.height = 48;
    const ctx = canvas.getContext('2d', {willReadFrequently: true});
    const pixels = (ch, stack) => {
        ctx.clearRect(0, 0, 48, 48);
        ctx.font = `32px ${stack}`;
        ctx.fillStyle = '#000';
        ctx.fillText(ch, 4, 38);
        return Array.from(ctx.getImageData(0, 0, 48, 48).data).join(',');
    };
    const boxes = [];
    for (const [name, stack] of Object.entries(stacks)) {
        const box = pixels(missing, stack);
        for (const ch of chars) {
            const code = ch.codePointAt(0).toString(16);
            if (pixels(ch, stack) === box) boxes.push(`${name}: ${ch} U+${code}`);
        }
    }
    return boxes;
}"""


def shown_characters() -> list[str]:
    """Every non-ASCII character of the package's and the widget's sources."""
    files = [*(ROOT / "agent_nb").rglob("*.py"), *(ROOT / "js").rglob("*.js"),
             *(ROOT / "js").rglob("*.ts")]  # fmt: skip
    found = {ch for f in files for ch in f.read_text(encoding="utf-8") if ord(ch) > 127}
    return sorted(found)


def test_no_character_draws_as_a_missing_glyph_box(lab_browser: Any) -> None:
    chars = shown_characters()
    assert "■" in chars and "◷" in chars  # the interrupt and waiting lines' marks
    page = lab_browser.new_page()
    try:
        page.set_content("<html><body></body></html>")
        drawn_as_box = page.evaluate(DRAW, [chars, STACKS, NO_FONT_HAS_IT])
        # The check can fail: the two old marks draw as the box.
        assert page.evaluate(DRAW, [["⏹", "⏳"], STACKS, NO_FONT_HAS_IT]) != []
    finally:
        page.close()
    assert drawn_as_box == []
