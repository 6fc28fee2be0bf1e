// A data answer in the transcript (the data agent's `DataEntry`): its plan
// line, the result table and the chart. The table is built from text nodes
// only; the chart is drawn by the chart module (vega.js, bundled on its own),
// which `chartModule` asks the kernel for once per page and only when a chart
// is on screen, so a chat without charts never loads its ~850 kB. A view with
// no chart module (kernel gone, a build without it) still shows the table.

import { bubble, h } from "./transcript.js";

/** @typedef {import("./protocol.js").DataEntry} DataEntry */
/** @typedef {import("./protocol.js").ChartModuleMsg} ChartModuleMsg */
/** @typedef {{ draw: (el: HTMLElement, spec: object) => Promise<() => void> }} ChartModule */
/** @typedef {(body: HTMLElement, text: string) => void} FillMarkdown */

/** The spec of each chart slot, kept off the DOM (never an attribute or HTML). */
const specs = new WeakMap();

/** @param {unknown} value */
export function cellText(value) {
  if (value === null || value === undefined) return "";
  if (typeof value === "number") {
    const digits = Number.isInteger(value) ? 0 : Math.abs(value) < 1 ? 4 : 2;
    return value.toLocaleString("en-US", { maximumFractionDigits: digits });
  }
  return typeof value === "string" ? value : JSON.stringify(value);
}

/**
 * The message's block: its author over its text (if any), the plan, the table
 * and a slot for the chart (drawn later by `drawChart`).
 * @param {Document} doc
 * @param {DataEntry} entry
 * @param {FillMarkdown} fillMarkdown
 * @returns {HTMLElement}
 */
export function dataBlock(doc, entry, fillMarkdown) {
  const { box, body } = bubble(doc, "data", entry.author);
  if (entry.text) {
    const text = h(doc, "div", "anb-data-text");
    fillMarkdown(text, entry.text);
    body.append(text);
  }
  if (entry.plan) body.append(h(doc, "div", "anb-plan", entry.plan));
  if (entry.table) {
    const table = h(doc, "table", "anb-table");
    const head = h(doc, "tr");
    for (const name of entry.table.columns) head.append(h(doc, "th", "", name));
    const thead = h(doc, "thead");
    thead.append(head);
    const tbody = h(doc, "tbody");
    for (const row of entry.table.rows) {
      const tr = h(doc, "tr");
      for (const value of row) {
        const td = h(doc, "td", typeof value === "number" ? "anb-num" : "", cellText(value));
        tr.append(td);
      }
      tbody.append(tr);
    }
    table.append(thead, tbody);
    body.append(table);
  }
  if (entry.chart) {
    const slot = h(doc, "div", "anb-chart");
    slot.dataset.state = "pending";
    slot.dataset.key = entry.id;
    specs.set(slot, entry.chart);
    body.append(slot);
  }
  return box;
}

/** Slots in ``root`` whose chart is not drawn yet. @param {ParentNode} root */
export function pendingCharts(root) {
  return /** @type {HTMLElement[]} */ ([
    ...root.querySelectorAll('.anb-chart[data-state="pending"]'),
  ]);
}

/**
 * Draw a slot's chart with the module ``load`` gives. ``drawn`` keeps this view's
 * drawn slots by entry id: a transcript re-rendered at the end of a turn takes
 * the drawn chart over instead of drawing it again. A failure leaves a one-line
 * note under the table.
 * @param {Document} doc
 * @param {HTMLElement} slot
 * @param {() => Promise<ChartModule>} load
 * @param {Map<string, HTMLElement>} drawn
 * @returns {Promise<void>}
 */
export async function drawChart(doc, slot, load, drawn) {
  const spec = specs.get(slot);
  const key = slot.dataset.key ?? "";
  if (!spec) return;
  const before = drawn.get(key);
  if (before && before !== slot && before.dataset.state === "drawn") {
    slot.replaceChildren(...[...before.childNodes]);
    slot.dataset.state = "drawn";
    drawn.set(key, slot);
    return;
  }
  slot.dataset.state = "loading";
  try {
    const chart = await load();
    await chart.draw(slot, spec);
    slot.dataset.state = "drawn";
    drawn.set(key, slot);
  } catch (error) {
    slot.dataset.state = "failed";
    const why = error instanceof Error ? error.message : String(error);
    slot.replaceChildren(h(doc, "div", "anb-note anb-chart-note", `chart not shown: ${why}`));
  }
}

/**
 * Import an ES module from its source text (as anywidget imports a widget's).
 * @param {string} source
 * @returns {Promise<ChartModule>}
 */
export async function importSource(source) {
  const url = URL.createObjectURL(new Blob([source], { type: "text/javascript" }));
  try {
    return await import(/* @vite-ignore */ url);
  } finally {
    URL.revokeObjectURL(url);
  }
}

const PAGE_KEY = "__agentNbChartModule";

/**
 * The chart module, asked of the kernel by request id (`ChartModuleRequest`) and
 * kept for the whole page once imported, for every widget and view in it.
 * ``answer`` takes the kernel's `ChartModuleMsg`.
 * @param {{ post: (msg: import("./protocol.js").ChartModuleRequest) => void,
 *           win: any, importer?: (source: string) => Promise<ChartModule> }} options
 */
export function chartModule({ post, win, importer = importSource }) {
  /** @type {Map<string, {resolve: (s: string) => void, reject: (e: Error) => void}>} */
  const waiting = new Map();
  /** @type {Promise<ChartModule> | null} */
  let asked = null;
  let count = 0;
  return {
    /** @returns {Promise<ChartModule>} */
    load() {
      if (win[PAGE_KEY]) return win[PAGE_KEY];
      if (asked) return asked;
      const id = `chart-${Date.now().toString(36)}-${count++}`;
      /** @type {Promise<string>} */
      const source = new Promise((resolve, reject) => waiting.set(id, { resolve, reject }));
      asked = source.then(importer).then((module) => {
        win[PAGE_KEY] = Promise.resolve(module);
        return module;
      });
      asked.catch(() => {
        asked = null; // the next chart asks again (a kernel that was busy, a rebuild)
      });
      post({ type: "chart_module", id });
      return asked;
    },
    /** @param {ChartModuleMsg} msg */
    answer(msg) {
      const wait = waiting.get(msg.id);
      if (!wait) return;
      waiting.delete(msg.id);
      if (msg.source) wait.resolve(msg.source);
      else wait.reject(new Error(msg.error || "the kernel has no chart module"));
    },
  };
}
