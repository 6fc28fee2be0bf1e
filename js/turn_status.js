// A `%%agent` cell's reply while its turn streams, in a front end that renders
// widgets. The reply's output is this widget until the turn ends, when the
// kernel replaces it, in the same output, with the final Markdown
// (turn_status.py). The view draws the reply as it streams (the kernel's safe
// Markdown, through markdown.js, in JupyterLab's Markdown styles) and, if the
// kernel restarts before the turn ends, says so below it: the front end then
// drops the old kernel's messages, so only this view can say why the reply
// stops there; and, where the notebook is reachable, it writes the reply and
// the note into the notebook in place of itself, so a save keeps them
// (cut_off.js).

import { watchKernel } from "./controls.js";
import { CUT_OFF, cutOffBundle, keepInNotebook } from "./cut_off.js";
import { renderMarkdown } from "./markdown.js";

export { CUT_OFF };

/**
 * @typedef {object} TurnStatusState
 * @property {boolean} streaming  a cell's turn streams now
 * @property {string} markdown  the reply so far, as the cell's (safe) Markdown
 * @property {string} plain  the reply so far as text (``--format text``), else ""
 * @property {string} own_id  the widget's model id, as its output's bundle names it
 */

/** @type {import("@anywidget/types").Render<TurnStatusState>} */
function render({ model, el }) {
  const doc = el.ownerDocument;
  const reply = doc.createElement("div");
  const cut = doc.createElement("div");
  el.replaceChildren(reply, cut);
  let frame = 0;

  function paint() {
    frame = 0;
    const markdown = model.get("markdown");
    if (markdown) {
      reply.className = "jp-RenderedMarkdown jp-RenderedHTMLCommon";
      reply.replaceChildren(renderMarkdown(markdown));
    } else {
      reply.className = "jp-RenderedText";
      const pre = doc.createElement("pre");
      pre.textContent = model.get("plain");
      reply.replaceChildren(pre);
    }
  }
  // At most one redraw per animation frame, however fast the kernel sends.
  const schedule = () => {
    if (!frame) frame = requestAnimationFrame(paint);
  };
  paint();

  const unwatch = watchKernel(model, () => {
    // A view whose turn ended but whose page missed the kernel's replacement
    // (reloaded mid-turn) stays quiet when no turn was streaming.
    if (!model.get("streaming")) return;
    cut.className = "anb-turn-cut";
    cut.setAttribute("role", "status");
    cut.textContent = CUT_OFF;
    // The theme's warning colours, as the chat widget's notes use them.
    cut.style.cssText =
      "color: var(--jp-warn-color0, #b45309); font-size: var(--jp-content-font-size1, 14px);" +
      "padding: 4px 0;";
    // The note above stays where the notebook cannot be reached; where it can,
    // this output becomes static Markdown (and this view goes with it).
    keepInNotebook(
      model.widget_manager,
      model.get("own_id"),
      cutOffBundle(model.get("markdown"), model.get("plain")),
    );
  });
  model.on("change:markdown", schedule);
  model.on("change:plain", schedule);
  return () => {
    unwatch();
    if (frame) cancelAnimationFrame(frame);
    model.off("change:markdown", schedule);
    model.off("change:plain", schedule);
  };
}

export default { render };
