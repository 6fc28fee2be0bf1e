import assert from "node:assert/strict";
import { afterEach, beforeEach, test } from "node:test";

import { LiveText, mountLive } from "../../js/live.js";
import { miniDocument, plainText } from "./mini_dom.js";

/** @param {string} id @param {string} text */
const delta = (id, text) => ({ type: "delta", invocation_id: id, text });

test("LiveText appends deltas of one invocation and restarts on another", () => {
  const live = new LiveText();
  assert.equal(live.add(delta("a", "Hel")), true);
  assert.equal(live.add(delta("a", "lo")), false);
  assert.equal(live.text, "Hello");
  assert.equal(live.add(delta("b", "New")), true);
  assert.equal(live.text, "New");
  live.restore({ type: "snapshot", invocation_id: "c", text: "so far" });
  assert.deepEqual([live.invocationId, live.text], ["c", "so far"]);
  live.clear();
  assert.deepEqual([live.invocationId, live.text], ["", ""]);
});

/** @type {Function[]} */
let frames = [];

beforeEach(() => {
  frames = [];
  globalThis.requestAnimationFrame = (fn) => frames.push(fn);
  globalThis.cancelAnimationFrame = (id) => {
    frames[id - 1] = () => {};
  };
});

afterEach(() => {
  delete globalThis.requestAnimationFrame;
  delete globalThis.cancelAnimationFrame;
});

function runFrames() {
  const due = frames;
  frames = [];
  for (const fn of due) fn();
}

function mount() {
  const live = miniDocument.createElement("div");
  let scrolls = 0;
  const view = mountLive({
    // @ts-ignore: the mini document stands in for a real one
    doc: miniDocument,
    live,
    fillMarkdown: plainText,
    keepScroll: () => () => {
      scrolls += 1;
    },
    label: () => "tutor",
  });
  return { live, view, scrolls: () => scrolls };
}

test("deltas paint once per animation frame into one streaming bubble", () => {
  const { live, view, scrolls } = mount();
  assert.equal(view.delta(delta("a", "Hel")), true);
  assert.equal(view.delta(delta("a", "lo")), false);
  assert.equal(frames.length, 1);
  assert.equal(live.children.length, 0);
  runFrames();
  assert.equal(live.children.length, 1);
  const [bubble] = live.children;
  assert.ok(bubble.classList.contains("anb-streaming-msg"));
  assert.equal(bubble.findAll("anb-role")[0].textContent, "tutor"); // the agent's name, as after
  assert.equal(bubble.findAll("anb-body")[0].textContent, "Hello");
  assert.equal(scrolls(), 1);
  view.delta(delta("a", "!"));
  runFrames();
  assert.equal(live.children[0], bubble);
  assert.equal(bubble.findAll("anb-body")[0].textContent, "Hello!");
});

test("a new invocation, a snapshot or clear() drops the old text", () => {
  const { live, view } = mount();
  view.delta(delta("a", "old"));
  runFrames();
  view.delta(delta("b", "new"));
  assert.equal(live.children.length, 0);
  runFrames();
  assert.equal(live.children[0].findAll("anb-body")[0].textContent, "new");
  view.snapshot({ type: "snapshot", invocation_id: "c", text: "caught up" });
  runFrames();
  assert.equal(live.children[0].findAll("anb-body")[0].textContent, "caught up");
  view.delta(delta("c", "…"));
  view.clear();
  runFrames();
  assert.equal(live.children.length, 0);
});

test("each agent of a turn streams under its own label, in a block of its own", () => {
  const { live, view } = mount();
  view.delta({ type: "delta", invocation_id: "a", author: "researcher", text: "Facts" });
  runFrames();
  assert.equal(live.findAll("anb-role")[0].textContent, "researcher");
  assert.equal(
    view.delta({ type: "delta", invocation_id: "a", author: "writer", text: "Words" }),
    true,
  );
  runFrames();
  assert.equal(live.findAll("anb-role")[0].textContent, "writer");
  assert.equal(live.findAll("anb-body")[0].textContent, "Words");
  // A delta that names no agent keeps the session agent's label.
  view.delta(delta("b", "plain"));
  runFrames();
  assert.equal(live.findAll("anb-role")[0].textContent, "tutor");
});
