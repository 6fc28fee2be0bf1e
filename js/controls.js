// The composer's controls (input, Send, Stop, New chat) as a pure function of
// the view's state, and the one signal that the kernel behind the view is gone.
// No DOM here, so `node --test` runs it (tests/js/controls.test.js).

/** What a view says, and Send's reason, once its kernel restarted. */
export const KERNEL_GONE = "the kernel restarted — re-run this cell to chat again";

/**
 * @typedef {object} ControlInput
 * @property {boolean} modelBusy  the kernel says a turn runs (the ``busy`` trait)
 * @property {boolean} pending  a send is on its way and not yet confirmed
 * @property {boolean} closed  the widget was closed (its ``closed_note``)
 * @property {boolean} kernelGone  the kernel restarted: this model is gone there
 * @property {string} text  what is typed in the box
 */

/**
 * Which controls are off, and why Send is. A view whose kernel is gone keeps
 * its box usable (the typed text stays, to copy) but sends nothing: the new
 * kernel has no widget behind this view.
 * @param {ControlInput} s
 */
export function controlState({ modelBusy, pending, closed, kernelGone, text }) {
  const streaming = !kernelGone && (modelBusy || pending);
  return {
    streaming,
    inputDisabled: !kernelGone && (streaming || closed),
    sendDisabled: kernelGone || closed || streaming || !text.trim(),
    stopDisabled: kernelGone || closed || !modelBusy,
    newDisabled: kernelGone || closed,
    sendTitle: kernelGone ? KERNEL_GONE : "",
  };
}

/**
 * Call ``onGone`` once when the view's model loses its kernel. On a kernel
 * restart the widget manager marks every model's comm dead (``comm_live``
 * false, announced as ``comm_live_update``, which fires for nothing else
 * after a model is made); messages sent after that reach no kernel.
 * @param {{on: Function, off: Function}} model
 * @param {() => void} onGone
 * @returns {() => void} the cleanup
 */
export function watchKernel(model, onGone) {
  let gone = false;
  const handler = () => {
    if (gone) return;
    gone = true;
    onGone();
  };
  model.on("comm_live_update", handler);
  return () => model.off("comm_live_update", handler);
}
