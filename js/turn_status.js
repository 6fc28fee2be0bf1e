// A `%%agent` cell's watch on its kernel. While a turn streams, the cell shows
// this widget below the reply; it draws nothing unless the kernel restarts
// before the turn ends: the front end then drops the old kernel's messages, so
// the reply above stays cut off and only this view can say why. When the turn
// ends the kernel replaces this output with an empty one (turn_status.py).

import { watchKernel } from "./controls.js";

/** Kept equal to agent_nb/_jupyter/magics/turn_status.py's CUT_OFF. */
export const CUT_OFF =
  "⚠ the kernel restarted during this turn — the reply above is cut off; re-run the cell";

/**
 * @typedef {object} TurnStatusState
 * @property {boolean} streaming  a cell's turn streams now
 */

/** @type {import("@anywidget/types").Render<TurnStatusState>} */
function render({ model, el }) {
  const unwatch = watchKernel(model, () => {
    // A view whose turn ended but whose page missed the kernel's replacement
    // (reloaded mid-turn) stays quiet when no turn was streaming.
    if (!model.get("streaming")) return;
    const note = el.ownerDocument.createElement("div");
    note.className = "anb-turn-cut";
    note.setAttribute("role", "status");
    note.textContent = CUT_OFF;
    // The theme's warning colours, as the chat widget's notes use them.
    note.style.cssText =
      "color: var(--jp-warn-color0, #b45309); font-size: var(--jp-content-font-size1, 14px);" +
      "padding: 4px 0;";
    el.replaceChildren(note);
  });
  return () => unwatch();
}

export default { render };
