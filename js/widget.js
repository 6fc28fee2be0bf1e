// ChatWidget front end. Python owns the conversation: this view renders the
// `transcript` trait, streams `delta` messages into a live block, and sends
// `send` / `stop` / `new_chat` requests. Nothing the model writes is ever
// inserted as HTML without going through markdown.js (escape + DOMPurify).
//
// The parts: format.js (pure text helpers), transcript.js (entries -> DOM),
// live.js (the streaming text), markdown.js (untrusted text -> safe DOM);
// this module builds the view and wires the model's events to them.

import "./widget.css";
import { renderWithForks } from "./branches.js";
import { chartModule, drawChart, pendingCharts } from "./chart.js";
import { KERNEL_GONE, controlState, watchKernel } from "./controls.js";
import { promptProgress, turnStatus, waitingStatus } from "./format.js";
import { mountLive } from "./live.js";
import { addCopyButtons, renderMarkdown } from "./markdown.js";
import { addToolResult, h as make, renderEntries } from "./transcript.js";
import { announceModel, trackView } from "./views.js";

/** @typedef {import("./protocol.js").WidgetState} WidgetState */
/** @typedef {import("./protocol.js").FromPython} FromPython */
/** @typedef {import("./protocol.js").FromJs} FromJs */

/**
 * @template {keyof HTMLElementTagNameMap} K
 * @param {K} tag
 * @param {string} [className]
 * @param {string} [text]
 * @returns {HTMLElementTagNameMap[K]}
 */
function h(tag, className, text) {
  return make(document, tag, className, text);
}

/** @param {HTMLElement} body @param {string} text */
function fillMarkdown(body, text) {
  body.replaceChildren(renderMarkdown(text));
  addCopyButtons(body);
}

/** @type {import("@anywidget/types").Render<WidgetState>} */
function render({ model, el }) {
  const root = h("div", "agent-nb-chat");
  // Keys typed here belong to the chat, not to JupyterLab's notebook shortcuts.
  root.dataset.lmSuppressShortcuts = "true";
  const header = h("div", "anb-header");
  const title = h("span", "anb-title");
  const badge = h("span", "anb-badge");
  header.append(title, badge);

  const log = h("div", "anb-log");
  log.setAttribute("role", "log");
  log.setAttribute("aria-live", "polite");
  const past = h("div", "anb-past");
  const live = h("div", "anb-live");
  log.append(past, live);

  const input = h("textarea", "anb-input");
  input.rows = 2;
  input.placeholder = "Message the model — Enter sends, Shift+Enter for a new line";
  const send = h("button", "anb-send", "Send");
  const stop = h("button", "anb-stop", "Stop");
  const fresh = h("button", "anb-new", "New chat");
  for (const b of [send, stop, fresh]) b.type = "button";
  const buttons = h("div", "anb-buttons");
  buttons.append(send, stop, fresh);
  const composer = h("div", "anb-composer");
  composer.append(input, buttons);
  const status = h("div", "anb-status");
  status.setAttribute("aria-live", "polite");
  root.append(header, log, composer, status);
  el.append(root);

  let pending = false; // a send is on its way and not yet confirmed
  let sentText = ""; // the latest text sent, put back if its kernel went away
  let kernelGone = false; // the kernel restarted: nothing behind this view any more
  let waitingFor = ""; // what the running turn waits for on the model, until it starts
  /** @type {Set<string>} */
  const openTools = new Set();

  /** Keep the log pinned to the bottom across a change if it was there before. */
  const keepScroll = () => {
    const stick = log.scrollHeight - log.scrollTop - log.clientHeight < 40;
    return () => {
      if (stick) log.scrollTop = log.scrollHeight;
    };
  };
  const streaming = mountLive({
    doc: document,
    live,
    fillMarkdown,
    keepScroll,
    label: () => model.get("agent_name"),
  });

  // Charts: the chart module comes from the kernel once per page (chart.js).
  const charts = chartModule({ post: (msg) => post(msg), win: window });
  /** @type {Map<string, HTMLElement>} */
  const drawnCharts = new Map();
  function drawCharts() {
    for (const slot of pendingCharts(past)) {
      const restore = keepScroll();
      void drawChart(document, slot, charts.load, drawnCharts).then(restore);
    }
  }

  function busy() {
    return !kernelGone && (model.get("busy") || pending);
  }

  function syncControls() {
    const closed = Boolean(model.get("closed_note"));
    const state = controlState({
      modelBusy: Boolean(model.get("busy")),
      pending,
      closed,
      kernelGone,
      text: input.value,
    });
    input.disabled = state.inputDisabled;
    send.disabled = state.sendDisabled;
    send.title = state.sendTitle;
    stop.disabled = state.stopDisabled;
    fresh.disabled = state.newDisabled;
    root.classList.toggle("anb-streaming", state.streaming);
    root.classList.toggle("anb-closed", closed);
    root.classList.toggle("anb-kernel-gone", kernelGone);
  }

  function syncHeader() {
    title.textContent = `Chat · ${model.get("session_id")}`;
    badge.textContent = model.get("model_label");
  }

  function renderTranscript() {
    const restore = keepScroll();
    const entries = model.get("transcript");
    /** @param {import("./protocol.js").Entry[]} group */
    const draw = (group) => renderEntries(document, group, openTools, fillMarkdown, answer);
    /** @param {number} branch */
    const toBranch = (branch) => post({ type: "switch_branch", branch });
    past.replaceChildren(
      ...renderWithForks(document, entries, model.get("forks"), draw, toBranch),
    );
    const closedNote = model.get("closed_note");
    if (closedNote) {
      past.append(h("div", "anb-note anb-closed-note", closedNote));
    } else if (model.get("session_closed")) {
      past.append(h("div", "anb-note", "This session was closed; a new message starts it afresh."));
    }
    restore();
    drawCharts();
    showWaiting();
  }

  /** A call waits for approval (a view opened or redrawn while it waits): say so. */
  function showWaiting() {
    const waiting = past.querySelector(".anb-tool-waiting .anb-tool-name");
    if (!waiting || !model.get("busy")) return false;
    setStatus(`${waiting.textContent} waits for your approval`);
    return true;
  }

  /** @param {string} text @param {string} [kind] */
  function setStatus(text, kind = "") {
    status.textContent = text;
    status.className = `anb-status ${kind}`.trim();
  }

  /** @param {FromJs} msg */
  function post(msg) {
    model.send(msg);
  }

  /** A waiting call's Approve / Deny button. @param {string} callId @param {boolean} approved */
  function answer(callId, approved) {
    if (kernelGone) return;
    setStatus(approved ? "approved: running the tool…" : "denied: the model goes on…");
    post({ type: "approval", call_id: callId, approved });
  }

  function submit() {
    const text = input.value;
    if (kernelGone || !text.trim() || busy()) return;
    pending = true;
    sentText = text;
    input.value = "";
    syncControls();
    setStatus(waitingStatus(""));
    post({ type: "send", text });
  }

  /** @param {FromPython} msg */
  function onMessage(msg) {
    if (msg.type === "waiting") {
      waitingFor = msg.note;
      if (busy()) setStatus(waitingStatus(waitingFor));
      return;
    }
    const userEntry = msg.type === "entry" && msg.entry.kind === "user";
    if (!userEntry && msg.type !== "chart_module") waitingFor = ""; // the turn started or ended
    if (msg.type === "delta") {
      if (streaming.delta(msg)) setStatus("streaming…");
    } else if (msg.type === "entry") {
      const entry = msg.entry;
      if (entry.kind === "user") {
        pending = false;
        sentText = "";
        setStatus(waitingStatus(waitingFor)); // its Waiting may come before or after it
      }
      if (entry.kind === "model") streaming.clear();
      const restore = keepScroll();
      const call =
        entry.kind === "tool_result"
          ? past.querySelector(`details[data-call-id="${CSS.escape(entry.call_id)}"]`)
          : null;
      if (call instanceof HTMLDetailsElement && entry.kind === "tool_result") {
        addToolResult(document, call, entry);
      } else {
        past.append(...renderEntries(document, [entry], openTools, fillMarkdown, answer));
      }
      if (entry.kind === "tool_call" && entry.needs_approval) {
        setStatus(`${entry.name} waits for your approval`);
      }
      restore();
      drawCharts();
    } else if (msg.type === "turn_complete") {
      pending = false;
      streaming.clear();
      setStatus(...turnStatus(msg));
    } else if (msg.type === "error") {
      pending = false;
      setStatus(msg.message, "anb-status-error");
      // An answer that was refused (nothing waits here any more) can be given again.
      for (const button of past.querySelectorAll(".anb-approval button")) {
        if (button instanceof HTMLButtonElement) button.disabled = false;
      }
    } else if (msg.type === "snapshot") {
      streaming.snapshot(msg);
      if (!showWaiting()) setStatus("streaming…");
    } else if (msg.type === "progress") {
      setStatus(promptProgress(msg.done, msg.total)); // the first delta replaces it
    } else if (msg.type === "chart_module") {
      charts.answer(msg);
      return;
    }
    syncControls();
  }

  /** @param {KeyboardEvent} event */
  function onKey(event) {
    event.stopPropagation();
    if (event.key === "Enter" && !event.shiftKey && !event.isComposing) {
      event.preventDefault();
      submit();
    }
  }

  const onInput = () => syncControls();
  const onSend = () => submit();
  const onStop = () => post({ type: "stop" });
  const onNew = () => {
    streaming.clear();
    setStatus("");
    post({ type: "new_chat" });
  };
  const onTranscript = () => {
    streaming.clear();
    renderTranscript();
  };
  const onState = () => {
    syncHeader();
    syncControls();
  };
  const onClosed = () => {
    renderTranscript();
    syncControls();
  };
  /** @param {FromPython} msg */
  const onCustom = (msg) => onMessage(msg);
  const unwatch = watchKernel(model, () => {
    kernelGone = true;
    // A message sent just before the restart never arrived: its text comes back.
    if (pending && sentText && !input.value) input.value = sentText;
    pending = false;
    streaming.clear();
    setStatus(KERNEL_GONE, "anb-status-error");
    syncControls();
  });

  /** @type {[string, (...args: any[]) => void][]} */
  const modelEvents = [
    ["msg:custom", onCustom],
    ["change:transcript", onTranscript],
    ["change:forks", onTranscript],
    ["change:busy", onState],
    ["change:session_id", onState],
    ["change:model_label", onState],
    ["change:session_closed", onClosed],
    ["change:closed_note", onClosed],
  ];
  for (const [name, handler] of modelEvents) model.on(name, handler);
  input.addEventListener("keydown", onKey);
  input.addEventListener("input", onInput);
  send.addEventListener("click", onSend);
  stop.addEventListener("click", onStop);
  fresh.addEventListener("click", onNew);

  syncHeader();
  renderTranscript();
  syncControls();
  // The view is laid out only once the front end attaches it: open a long
  // conversation at its latest message, as chat UIs do.
  const firstLayout = requestAnimationFrame(() => {
    log.scrollTop = log.scrollHeight;
  });
  if (model.get("busy")) {
    // Opened mid-turn: ask for the turn's entries and the text streamed so far.
    if (!showWaiting()) setStatus("streaming…");
    post({ type: "catch_up" });
  }

  // Focus asks the kernel to catch up: another kernel on the same store may
  // have moved the session since this view last drew it (at most once a second).
  let lastAsked = 0;
  const onFocus = () => {
    const now = Date.now();
    if (kernelGone || now - lastAsked < 1000) return;
    lastAsked = now;
    post({ type: "catch_up" });
  };
  root.addEventListener("focusin", onFocus);

  const untrack = trackView({ el, key: model.get("view_key"), post, win: window });

  return () => {
    untrack();
    unwatch();
    root.removeEventListener("focusin", onFocus);
    cancelAnimationFrame(firstLayout);
    streaming.dispose();
    for (const [name, handler] of modelEvents) model.off(name, handler);
    root.remove();
  };
}

/** @type {import("@anywidget/types").Initialize<WidgetState>} */
function initialize({ model }) {
  announceModel({ key: model.get("view_key"), post: (msg) => model.send(msg), win: window });
}

export default { initialize, render };
