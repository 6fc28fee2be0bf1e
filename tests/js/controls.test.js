import assert from "node:assert/strict";
import { test } from "node:test";

import { KERNEL_GONE, controlState, watchKernel } from "../../js/controls.js";

const idle = { modelBusy: false, pending: false, closed: false, kernelGone: false, text: "hi" };

test("an idle view with text can send; an empty box cannot", () => {
  const state = controlState(idle);
  assert.equal(state.sendDisabled, false);
  assert.equal(state.inputDisabled, false);
  assert.equal(state.stopDisabled, true);
  assert.equal(state.sendTitle, "");
  assert.equal(controlState({ ...idle, text: "  " }).sendDisabled, true);
});

test("while a turn runs only Stop is on", () => {
  const state = controlState({ ...idle, modelBusy: true });
  assert.deepEqual(
    [state.streaming, state.inputDisabled, state.sendDisabled, state.stopDisabled],
    [true, true, true, false],
  );
});

test("once the kernel restarted, Send is off with the reason and the box keeps its text", () => {
  // Even mid-turn (busy stays true: the old kernel never said it ended).
  const state = controlState({ ...idle, modelBusy: true, pending: true, kernelGone: true });
  assert.equal(state.sendDisabled, true);
  assert.equal(state.sendTitle, KERNEL_GONE);
  assert.equal(state.inputDisabled, false); // the typed text stays usable
  assert.equal(state.stopDisabled, true);
  assert.equal(state.newDisabled, true);
  assert.equal(state.streaming, false); // no "waiting for the model…" forever
  assert.match(KERNEL_GONE, /kernel restarted — re-run this cell/);
});

test("watchKernel calls back once on comm_live_update, and its cleanup unsubscribes", () => {
  const handlers = new Map();
  const model = {
    on: (name, fn) => handlers.set(name, fn),
    off: (name, fn) => {
      if (handlers.get(name) === fn) handlers.delete(name);
    },
  };
  let calls = 0;
  const cleanup = watchKernel(model, () => calls++);
  handlers.get("comm_live_update")();
  handlers.get("comm_live_update")();
  assert.equal(calls, 1);
  cleanup();
  assert.equal(handlers.size, 0);
});
