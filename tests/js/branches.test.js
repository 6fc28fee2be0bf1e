import assert from "node:assert/strict";
import { test } from "node:test";

import { renderWithForks } from "../../js/branches.js";
import { miniDocument } from "./mini_dom.js";

/** Three turns, two entries each; turn "b" is where the branches split. */
const entries = ["a", "a", "b", "b", "c", "c"].map((inv, i) => ({
  id: `e${i}`,
  invocation_id: inv,
  kind: i % 2 ? "model" : "user",
  text: `${inv}${i}`,
}));

/** One element per entry, so the output shows where the bar went. */
const draw = (/** @type {any[]} */ group) =>
  group.map((e) => {
    const el = miniDocument.createElement("div");
    el.className = "entry";
    el.textContent = e.text;
    return el;
  });

/** @param {any[]} forks */
function render(forks) {
  /** @type {number[]} */
  const sent = [];
  // @ts-ignore: the mini document stands in for a real one
  const nodes = renderWithForks(miniDocument, entries, forks, draw, (b) => sent.push(b));
  return { nodes, sent };
}

/** @param {any} bar */
function arrows(bar) {
  const [prev, where, next] = bar.children;
  return { prev, where, next };
}

test("the bar is drawn just before the forked turn, once", () => {
  const fork = { invocation_id: "b", position: 2, count: 3, prev_branch: 1, next_branch: 4 };
  const { nodes } = render([fork]);
  assert.deepEqual(
    nodes.map((n) => (n.className === "entry" ? n.textContent : n.className)),
    ["a0", "a1", "anb-fork", "b2", "b3", "c4", "c5"],
  );
  const bar = nodes[2];
  assert.equal(bar.getAttribute("role"), "group");
  const { prev, where, next } = arrows(bar);
  assert.equal(where.textContent, "2 of 3 versions");
  assert.deepEqual([prev.textContent, next.textContent], ["‹", "›"]);
  assert.equal(prev.title, "previous version (branch 1)");
  assert.equal(next.title, "next version (branch 4)");
});

test("a click posts the fork's prev or next branch number", () => {
  const fork = { invocation_id: "b", position: 2, count: 3, prev_branch: 5, next_branch: 2 };
  const { nodes, sent } = render([fork]);
  const { prev, next } = arrows(nodes[2]);
  assert.deepEqual([prev.disabled, next.disabled], [false, false]);
  prev.dispatch("click");
  next.dispatch("click");
  assert.deepEqual(sent, [5, 2]);
});

test("the arrows are disabled at the ends and send nothing", () => {
  const first = { invocation_id: "a", position: 1, count: 2, prev_branch: null, next_branch: 2 };
  const last = { invocation_id: "c", position: 2, count: 2, prev_branch: 3, next_branch: null };
  const { nodes, sent } = render([first, last]);
  assert.deepEqual(
    nodes.map((n) => (n.className === "entry" ? n.textContent : n.className)),
    ["anb-fork", "a0", "a1", "b2", "b3", "anb-fork", "c4", "c5"],
  );
  const atStart = arrows(nodes[0]);
  assert.equal(atStart.where.textContent, "1 of 2 versions");
  assert.deepEqual([atStart.prev.disabled, atStart.next.disabled], [true, false]);
  assert.equal(atStart.prev.title, "previous version");
  atStart.prev.dispatch("click");
  const atEnd = arrows(nodes[5]);
  assert.deepEqual([atEnd.prev.disabled, atEnd.next.disabled], [false, true]);
  atEnd.next.dispatch("click");
  assert.deepEqual(sent, []);
  atEnd.prev.dispatch("click");
  assert.deepEqual(sent, [3]);
});

test("no forks (or a fork on a turn not shown) draws no bar", () => {
  assert.equal(render([]).nodes.length, entries.length);
  // @ts-ignore: an unset trait arrives as null
  assert.equal(render(null).nodes.length, entries.length);
  const away = { invocation_id: "gone", position: 1, count: 2, prev_branch: null, next_branch: 2 };
  assert.equal(render([away]).nodes.length, entries.length);
});
