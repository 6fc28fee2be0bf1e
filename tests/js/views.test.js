import assert from "node:assert/strict";
import { test } from "node:test";

import { announceModel, pageId, removalEvent, trackView } from "../../js/views.js";

test("pageId is one id per page, kept across calls", () => {
  const page = {};
  const first = pageId(page);
  assert.equal(typeof first, "string");
  assert.ok(first.length >= 8);
  assert.equal(pageId(page), first);
  assert.notEqual(pageId({}), first);
});

test("a view removed from a panel still in the page is destroyed, else detached", () => {
  assert.equal(removalEvent({ isConnected: true }), "destroyed");
  assert.equal(removalEvent({ isConnected: false }), "detached");
  assert.equal(removalEvent(null), "destroyed");
});

/** A window with the timer and event calls trackView uses. */
function fakeWindow() {
  const listeners = new Map();
  return {
    listeners,
    setTimeout: () => 1,
    clearTimeout: () => {},
    addEventListener: (name, fn) => listeners.set(name, fn),
    removeEventListener: (name, fn) => {
      if (listeners.get(name) === fn) listeners.delete(name);
    },
  };
}

test("trackView reports attached, page_gone on unload, and the removal kind", () => {
  const panel = { isConnected: true };
  const el = { isConnected: true, closest: () => panel };
  const win = fakeWindow();
  const sent = [];
  const cleanup = trackView({ el, key: "w1", post: (m) => sent.push(m), win });
  assert.equal(sent[0].event, "attached");
  const { page_id, view_id } = sent[0];
  win.listeners.get("pagehide")();
  assert.deepEqual(sent[0].live, [view_id]);
  assert.deepEqual(sent[1], {
    type: "view", event: "page_gone", page_id, view_id: "", live: [view_id],
  });

  cleanup(); // output cleared: the notebook panel is still there
  assert.deepEqual(sent[2], { type: "view", event: "destroyed", page_id, view_id, live: [] });
  assert.equal(win.listeners.size, 0);

  const second = trackView({ el, key: "w1", post: (m) => sent.push(m), win });
  const third = trackView({ el, key: "w1", post: (m) => sent.push(m), win });
  assert.equal(sent.at(-1).live.length, 2); // the page's views of this widget
  third();
  panel.isConnected = false; // the notebook's tab closes: its panel left the page first
  second();
  assert.equal(sent.at(-1).event, "detached");
  assert.notEqual(sent.at(-1).view_id, view_id);
});

test("a cleanup after the widget closed does not throw", () => {
  const el = { isConnected: false, closest: () => null };
  const cleanup = trackView({
    el,
    key: "w2",
    post: (m) => {
      if (m.event !== "attached") throw new Error("comm closed");
    },
    win: fakeWindow(),
  });
  cleanup();
});

test("announceModel tells the kernel this page made the model, with its live views", () => {
  const win = fakeWindow();
  const sent = [];
  announceModel({ key: "w9", post: (m) => sent.push(m), win });
  const el = { isConnected: true, closest: () => ({ isConnected: true }) };
  const cleanup = trackView({ el, key: "w9", post: () => {}, win });
  announceModel({ key: "w9", post: (m) => sent.push(m), win });
  assert.deepEqual(
    sent.map((m) => [m.type, m.event, m.view_id, m.live.length]),
    [
      ["view", "connected", "", 0],
      ["view", "connected", "", 1],
    ],
  );
  assert.equal(sent[0].page_id, pageId(win));
  cleanup();
});
