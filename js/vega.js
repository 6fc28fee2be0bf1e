// The chart module: vega-embed (with vega and vega-lite) bundled from npm into
// agent_nb/static/vega.js, a bundle of its own (~850 kB minified) that a view
// asks the kernel for once per page, only when a transcript has a chart to
// draw (chart.js). Never loaded from a CDN.
//
// The specs are agent_nb's own (Altair, from computed values; data inline), so
// the loader refuses every URL: a chart can read, fetch or link nothing.

import embed, { vega } from "vega-embed";

/** @param {string} uri */
const refuse = async (uri) => {
  throw new Error(`agent_nb charts carry their data inline; not loading ${uri}`);
};
const loader = { ...vega.loader(), load: refuse, sanitize: refuse, http: refuse, file: refuse };

/**
 * Draw ``spec`` (Vega-Lite) into ``el`` as SVG, without the action menu.
 * @param {HTMLElement} el
 * @param {object} spec
 * @returns {Promise<() => void>} frees the chart's view
 */
export async function draw(el, spec) {
  const result = await embed(el, /** @type {any} */ (spec), {
    actions: false,
    renderer: "svg",
    // @ts-ignore: a loader object with every method replaced
    loader,
  });
  return () => result.finalize();
}
