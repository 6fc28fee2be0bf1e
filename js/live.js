// The live part of the ChatWidget: the model's text while it streams.
//
// `delta` messages arrive batched (~30 ms); the text is re-rendered as
// Markdown at most once per animation frame, in a bubble below the
// transcript, and dropped when the turn's final `entry` (or `turn_complete`)
// arrives. `LiveText` is the pure state (which invocation, what text), kept
// apart so it is testable without a browser (tests/js/); `mountLive` binds it
// to the DOM.

import { bubble } from "./transcript.js";

/** @typedef {import("./protocol.js").DeltaMsg} DeltaMsg */
/** @typedef {import("./protocol.js").SnapshotMsg} SnapshotMsg */
/** @typedef {import("./transcript.js").FillMarkdown} FillMarkdown */

/** The streamed text of the current invocation and agent. */
export class LiveText {
  constructor() {
    this.invocationId = "";
    this.author = ""; // the agent writing; "" from a sender that does not say
    this.text = "";
  }

  /**
   * Is ``msg`` the start of another block (another invocation or agent)?
   * @param {DeltaMsg} msg
   */
  isFresh(msg) {
    return msg.invocation_id !== this.invocationId || (msg.author ?? "") !== this.author;
  }

  /**
   * Add a delta; a delta of another invocation or agent starts afresh.
   * @param {DeltaMsg} msg
   * @returns {boolean} true when a new block started
   */
  add(msg) {
    const fresh = this.isFresh(msg);
    if (fresh) {
      this.invocationId = msg.invocation_id;
      this.author = msg.author ?? "";
      this.text = "";
    }
    this.text += msg.text;
    return fresh;
  }

  /**
   * Everything streamed so far, as a view opened mid-turn receives it.
   * @param {SnapshotMsg} msg
   */
  restore(msg) {
    this.invocationId = msg.invocation_id;
    this.author = msg.author ?? "";
    this.text = msg.text;
  }

  clear() {
    this.invocationId = "";
    this.author = "";
    this.text = "";
  }
}

/**
 * Bind a `LiveText` to the ``live`` element.
 * @param {object} options
 * @param {Document} options.doc
 * @param {HTMLElement} options.live  where the streaming bubble goes
 * @param {FillMarkdown} options.fillMarkdown
 * @param {() => (() => void)} options.keepScroll  call before a change; call its result after
 * @param {() => string} options.label  the session agent's name, for deltas that name no
 *   agent (a turn of several agents labels each block with the agent writing it)
 */
export function mountLive({ doc, live, fillMarkdown, keepScroll, label }) {
  const state = new LiveText();
  /** @type {{box: HTMLElement, body: HTMLElement} | null} */
  let shown = null;
  let frame = 0;

  function paint() {
    frame = 0;
    if (!state.text) return;
    const restore = keepScroll();
    if (!shown) {
      shown = bubble(doc, "model", state.author || label());
      shown.box.classList.add("anb-streaming-msg");
      live.replaceChildren(shown.box);
    }
    fillMarkdown(shown.body, state.text);
    restore();
  }

  function schedule() {
    if (!frame && state.text) frame = requestAnimationFrame(paint);
  }

  function clear() {
    state.clear();
    shown = null;
    if (frame) cancelAnimationFrame(frame);
    frame = 0;
    live.replaceChildren();
  }

  return {
    /** @param {DeltaMsg} msg @returns {boolean} true when a new block started */
    delta(msg) {
      const fresh = state.isFresh(msg);
      if (fresh) clear();
      state.add(msg);
      schedule();
      return fresh;
    },
    /** @param {SnapshotMsg} msg */
    snapshot(msg) {
      clear();
      state.restore(msg);
      schedule();
    },
    clear,
    dispose() {
      if (frame) cancelAnimationFrame(frame);
      frame = 0;
    },
  };
}
