import assert from "node:assert/strict";
import { test } from "node:test";

import { cellText, chartModule, dataBlock, drawChart } from "../../js/chart.js";
import { renderEntries } from "../../js/transcript.js";
import { miniDocument, plainText } from "./mini_dom.js";

const spec = { mark: { type: "bar" }, datasets: { d: [{ region: "North", total: 33 }] } };

/** @param {Partial<import("../../js/protocol.js").DataEntry>} [extra] */
function entry(extra = {}) {
  return {
    kind: "data", id: "e1", invocation_id: "inv", author: "data_agent", text: "",
    plan: "plan: rank sum revenue by region top 1",
    table: { columns: ["region", "<b>total</b>"], rows: [["<img src=x onerror=alert(1)>", 33.0], ["South", 23.4]] },
    chart: spec,
    ...extra,
  };
}

/** @param {any} e */
function block(e) {
  // @ts-ignore: the mini document stands in for a real one
  return dataBlock(miniDocument, e, plainText);
}

/** @param {any} node @param {string} tag @returns {any[]} */
function byTag(node, tag) {
  const found = [];
  for (const child of node.children) {
    if (child.tagName === tag.toUpperCase()) found.push(child);
    found.push(...byTag(child, tag));
  }
  return found;
}

test("a data entry in the transcript is a block with the plan, the table and a chart slot", () => {
  // @ts-ignore
  const nodes = renderEntries(miniDocument, [{ kind: "user", id: "u", invocation_id: "inv", text: "q" }, entry()], new Set(), plainText);
  assert.deepEqual(nodes.map((n) => n.className), ["anb-msg anb-user", "anb-msg anb-data"]);
  const box = nodes[1];
  assert.equal(box.findAll("anb-role")[0].textContent, "data_agent");
  assert.equal(box.findAll("anb-plan")[0].textContent, "plan: rank sum revenue by region top 1");
  assert.deepEqual(byTag(box, "th").map((c) => c.textContent), ["region", "<b>total</b>"]);
  assert.deepEqual(byTag(box, "td").map((c) => c.textContent), ["<img src=x onerror=alert(1)>", "33", "South", "23.4"]);
  // Cells are text, never markup: no element was made from a value.
  assert.equal(byTag(box, "img").length, 0);
  assert.equal(byTag(box, "b").length, 0);
  const [slot] = box.findAll("anb-chart");
  assert.equal(slot.dataset.state, "pending");
  assert.equal(slot.dataset.key, "e1");
  assert.equal(JSON.stringify(slot.attributes), "{}"); // the spec is not on the DOM
});

test("a data entry without a chart has no slot; its text goes through the filler", () => {
  const box = block(entry({ chart: null, text: "**note**" }));
  assert.equal(box.findAll("anb-chart").length, 0);
  assert.equal(box.findAll("anb-data-text")[0].textContent, "**note**");
});

test("cells read as a person reads numbers", () => {
  assert.equal(cellText(1234567), "1,234,567");
  assert.equal(cellText(3.14159), "3.14");
  assert.equal(cellText(0.012345), "0.0123");
  assert.equal(cellText(null), "");
  assert.equal(cellText("Gentoo"), "Gentoo");
  assert.equal(cellText(true), "true");
});

test("drawChart draws the slot's own spec with the loaded module, and reuses a drawn chart", async () => {
  const calls = [];
  const module = {
    /** @param {any} el @param {object} s */
    async draw(el, s) {
      calls.push(s);
      el.append(miniDocument.createElement("svg"));
      return () => {};
    },
  };
  const drawn = new Map();
  const [slot] = block(entry()).findAll("anb-chart");
  // @ts-ignore
  await drawChart(miniDocument, slot, async () => module, drawn);
  assert.deepEqual(calls, [spec]);
  assert.equal(slot.dataset.state, "drawn");
  assert.equal(slot.children[0].tagName, "SVG");
  // The transcript is redrawn at the end of a turn: the new slot takes the chart over.
  const [again] = block(entry()).findAll("anb-chart");
  // @ts-ignore
  await drawChart(miniDocument, again, async () => module, drawn);
  assert.equal(calls.length, 1);
  assert.equal(again.dataset.state, "drawn");
  assert.equal(again.children[0].tagName, "SVG");
});

test("a chart that cannot be drawn leaves a note and the table", async () => {
  const box = block(entry());
  const [slot] = box.findAll("anb-chart");
  // @ts-ignore
  await drawChart(miniDocument, slot, async () => { throw new Error("kernel gone"); }, new Map());
  assert.equal(slot.dataset.state, "failed");
  assert.equal(slot.textContent, "chart not shown: kernel gone");
  assert.equal(byTag(box, "td").length, 4);
});

test("the chart module is asked for once per page, matched by id, and asked again after a failure", async () => {
  /** @type {any[]} */
  const posted = [];
  const win = {};
  /** @param {string} source */
  const importer = async (source) => ({ source, draw: async () => () => {} });
  const one = chartModule({ post: (m) => posted.push(m), win, importer });
  const first = one.load();
  assert.equal(one.load(), first); // a second chart waits for the same answer
  assert.equal(posted.length, 1);
  assert.equal(posted[0].type, "chart_module");
  one.answer({ type: "chart_module", id: "someone-else", source: "x", error: null });
  one.answer({ type: "chart_module", id: posted[0].id, source: "export {}", error: null });
  assert.equal(/** @type {any} */ (await first).source, "export {}");
  // Another widget in the same page: no second request.
  const two = chartModule({ post: (m) => posted.push(m), win, importer });
  assert.equal(/** @type {any} */ (await two.load()).source, "export {}");
  assert.equal(posted.length, 1);

  const fresh = chartModule({ post: (m) => posted.push(m), win: {}, importer });
  const failed = fresh.load();
  fresh.answer({ type: "chart_module", id: posted[1].id, source: "", error: "not built" });
  await assert.rejects(failed, /not built/);
  await new Promise((r) => setTimeout(r, 0));
  void fresh.load();
  assert.equal(posted.length, 3);
});
