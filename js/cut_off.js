// What a `%%agent` cell keeps when its kernel restarts mid-turn (turn_status.js
// draws the reply while it streams). The kernel can no longer replace the
// reply's output, and the widget's model dies with the page: a notebook saved
// then reopened would hold only the widget's view, which JupyterLab's widget
// manager renders as "Error displaying widget: model not found" (its renderer
// tries no other MIME type of the bundle, and widget state is saved into the
// notebook only where a setting asks). So the view writes what it shows, the
// reply so far and the note, into the notebook's own model in place of that
// output: static Markdown, which a save keeps and a reload shows.

/** Kept equal to agent_nb/_jupyter/magics/turn_status.py's CUT_OFF. */
export const CUT_OFF =
  "⚠ the kernel restarted during this turn — the reply above is cut off; re-run the cell";

export const WIDGET_VIEW = "application/vnd.jupyter.widget-view+json";

/**
 * The output bundle that keeps a cut-off reply: the reply as the view drew it
 * (Markdown, or text for ``--format text``), then the note, in the italic the
 * kernel gives its own end notes (cell_output.render_bundle).
 * @param {string} markdown  the reply so far as safe Markdown, or ""
 * @param {string} plain  the reply so far as text, where ``markdown`` is ""
 * @returns {Record<string, string>}
 */
export function cutOffBundle(markdown, plain) {
  if (!markdown) {
    return { "text/plain": plain ? `${plain}\n${CUT_OFF}` : CUT_OFF };
  }
  // A reply cut inside a code block would swallow the note into it.
  const fences = markdown.split("\n").filter((line) => /^\s*(```|~~~)/.test(line)).length;
  const closed = fences % 2 ? `${markdown}\n\`\`\`` : markdown;
  return {
    "text/markdown": `${closed}\n\n*${CUT_OFF}*`,
    "text/plain": `${markdown}\n${CUT_OFF}`,
  };
}

/**
 * @typedef {object} OutputList  a code cell's outputs (JupyterLab's IOutputAreaModel)
 * @property {number} length
 * @property {(i: number) => {data: Record<string, any>, toJSON: () => Record<string, any>}} get
 * @property {(i: number, output: Record<string, any>) => void} set
 */

/**
 * Replaces every output in the notebook that shows widget ``modelId`` with
 * ``bundle``, keeping each output's type. ``manager`` is the widget manager
 * (a view's ``model.widget_manager``); JupyterLab's and Notebook 7's name their
 * notebook as ``context.model``. Elsewhere (VS Code, Colab) there is no such
 * notebook and nothing is replaced: the view alone says the reply is cut off.
 * @param {any} manager
 * @param {string} modelId
 * @param {Record<string, string>} bundle
 * @returns {number} how many outputs were replaced
 */
export function keepInNotebook(manager, modelId, bundle) {
  const cells = manager?.context?.model?.cells;
  if (!modelId || !cells || typeof cells.get !== "function") return 0;
  let replaced = 0;
  for (let i = 0; i < cells.length; i++) {
    /** @type {OutputList | undefined} */
    const outputs = cells.get(i).outputs;
    if (!outputs) continue;
    for (let j = 0; j < outputs.length; j++) {
      const output = outputs.get(j);
      if (output.data[WIDGET_VIEW]?.model_id !== modelId) continue;
      outputs.set(j, { ...output.toJSON(), data: bundle, metadata: {} });
      replaced += 1;
    }
  }
  return replaced;
}
