// ChatWidget front end. Python owns the conversation: this view renders the
// `transcript` trait, streams `delta` messages into a live block, and sends
// `send` / `stop` / `new_chat` requests. Nothing the model writes is ever
// inserted as HTML without going through markdown.js (escape + DOMPurify).

import "./widget.css";
import { addCopyButtons, renderMarkdown } from "./markdown.js";

/** @typedef {import("./protocol.js").WidgetState} WidgetState */
/** @typedef {import("./protocol.js").Entry} Entry */
/** @typedef {import("./protocol.js").FromPython} FromPython */
/** @typedef {import("./protocol.js").FromJs} FromJs */
/** @typedef {import("./protocol.js").UsageDict} UsageDict */
/** @typedef {import("./protocol.js").TurnEntry} TurnEntry */
/** @typedef {import("./protocol.js").ToolCallEntry} ToolCallEntry */
/** @typedef {import("./protocol.js").ToolResultEntry} ToolResultEntry */

/**
 * @template {keyof HTMLElementTagNameMap} K
 * @param {K} tag
 * @param {string} [className]
 * @param {string} [text]
 * @returns {HTMLElementTagNameMap[K]}
 */
function h(tag, className, text) {
  const node = document.createElement(tag);
  if (className) node.className = className;
  if (text !== undefined) node.textContent = text;
  return node;
}

/** @param {UsageDict} usage */
export function formatUsage(usage) {
  const parts = [];
  if (usage.time_to_first_token_s != null) {
    parts.push(`TTFT ${usage.time_to_first_token_s.toFixed(2)} s`);
  }
  if (usage.tokens_per_s != null) parts.push(`${usage.tokens_per_s.toFixed(1)} tokens/s`);
  parts.push(`${usage.generated_tokens} tokens`);
  return parts.join(" · ");
}

/** @param {unknown} value */
function pretty(value) {
  try {
    return JSON.stringify(value, null, 2);
  } catch {
    return String(value);
  }
}

/**
 * ``a=2, b=3`` for the summary line, shortened so the line stays one line.
 * @param {Record<string, unknown>} args
 */
function argsPreview(args) {
  const text = Object.entries(args)
    .map(([key, value]) => `${key}=${JSON.stringify(value)}`)
    .join(", ");
  return text.length > 60 ? `${text.slice(0, 57)}…` : text;
}

/** @param {HTMLElement} body @param {string} text */
function fillMarkdown(body, text) {
  body.replaceChildren(renderMarkdown(text));
  addCopyButtons(body);
}

/**
 * The same words as the cell's note (agent_nb/_reply.py `cut_off_note`).
 * @param {number | null} limit
 */
function cutOffNote(limit) {
  const at = limit ? `the ${limit}-token limit` : "the token limit";
  return `cut off at ${at}; raise max_tokens for more`;
}

/**
 * @param {string} role
 * @param {string} label
 */
function bubble(role, label) {
  const box = h("div", `anb-msg anb-${role}`);
  box.append(h("div", "anb-role", label));
  const body = h("div", "anb-body");
  box.append(body);
  return { box, body };
}

/**
 * Build the DOM for a whole transcript. Tool calls and their results share one
 * collapsible block (matched by call_id); ``openTools`` remembers which blocks
 * the user opened, so a re-render at the end of a turn keeps them open.
 * @param {Entry[]} entries
 * @param {Set<string>} openTools
 * @returns {HTMLElement[]}
 */
function renderEntries(entries, openTools) {
  /** @type {HTMLElement[]} */
  const out = [];
  /** @type {Map<string, HTMLDetailsElement>} */
  const tools = new Map();
  for (const entry of entries) {
    if (entry.kind === "user") {
      const { box, body } = bubble("user", "You");
      body.textContent = entry.text;
      out.push(box);
    } else if (entry.kind === "model") {
      const { box, body } = bubble("model", entry.author);
      fillMarkdown(body, entry.text);
      if (entry.interrupted) box.append(h("div", "anb-note", "stopped"));
      out.push(box);
    } else if (entry.kind === "tool_call") {
      const block = toolBlock(entry, entry.name, openTools);
      tools.set(entry.call_id, block);
      out.push(block);
    } else if (entry.kind === "tool_result") {
      const block = tools.get(entry.call_id) ?? toolBlock(null, entry.name, openTools);
      if (!tools.has(entry.call_id)) out.push(block);
      addToolResult(block, entry);
    } else if (entry.kind === "turn" && entry.error) {
      out.push(h("div", "anb-error", entry.error));
    } else if (entry.kind === "turn" && entry.finish_reason === "length") {
      out.push(h("div", "anb-note anb-cut", cutOffNote(entry.max_tokens)));
    }
  }
  return out;
}

/**
 * @param {ToolCallEntry | null} call
 * @param {string} name
 * @param {Set<string>} openTools
 */
function toolBlock(call, name, openTools) {
  const block = h("details", "anb-tool");
  const key = call ? call.call_id : "";
  if (key) {
    block.dataset.callId = key;
    block.open = openTools.has(key);
    block.addEventListener("toggle", () => {
      if (block.open) openTools.add(key);
      else openTools.delete(key);
    });
  }
  const summary = h("summary");
  summary.append(h("span", "anb-tool-tag", "tool"), h("span", "anb-tool-name", name));
  if (call) summary.append(h("span", "anb-tool-args", `(${argsPreview(call.args)})`));
  block.append(summary);
  if (call) {
    block.append(h("div", "anb-tool-label", "arguments"));
    block.append(h("pre", "anb-tool-json", pretty(call.args)));
  }
  return block;
}

/** @param {HTMLDetailsElement} block @param {ToolResultEntry} result */
function addToolResult(block, result) {
  const failed = typeof result.response === "object" && result.response && "error" in result.response;
  if (failed) block.classList.add("anb-tool-failed");
  block.append(h("div", "anb-tool-label", failed ? "error" : "result"));
  block.append(h("pre", "anb-tool-json", pretty(result.response)));
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

  /** Streaming state of the current turn (if any). */
  let liveText = "";
  let liveId = "";
  /** @type {{box: HTMLElement, body: HTMLElement} | null} */
  let liveBubble = null;
  let frame = 0;
  let pending = false; // a send is on its way and not yet confirmed
  /** @type {Set<string>} */
  const openTools = new Set();

  const nearBottom = () => log.scrollHeight - log.scrollTop - log.clientHeight < 40;
  /** @param {boolean} stick */
  const scroll = (stick) => {
    if (stick) log.scrollTop = log.scrollHeight;
  };

  function busy() {
    return model.get("busy") || pending;
  }

  function syncControls() {
    const streaming = busy();
    input.disabled = streaming;
    send.disabled = streaming || !input.value.trim();
    stop.disabled = !model.get("busy");
    root.classList.toggle("anb-streaming", streaming);
  }

  function syncHeader() {
    title.textContent = `Chat · ${model.get("session_id")}`;
    badge.textContent = model.get("model_label");
  }

  function renderTranscript() {
    const stick = nearBottom();
    past.replaceChildren(...renderEntries(model.get("transcript"), openTools));
    if (model.get("session_closed")) {
      past.append(h("div", "anb-note", "This session was closed; a new message starts it afresh."));
    }
    scroll(stick);
  }

  function paintLive() {
    frame = 0;
    if (!liveText) return;
    const stick = nearBottom();
    if (!liveBubble) {
      liveBubble = bubble("model", model.get("agent_name"));
      liveBubble.box.classList.add("anb-streaming-msg");
      live.replaceChildren(liveBubble.box);
    }
    fillMarkdown(liveBubble.body, liveText);
    scroll(stick);
  }

  function clearLive() {
    liveText = "";
    liveId = "";
    liveBubble = null;
    if (frame) cancelAnimationFrame(frame);
    frame = 0;
    live.replaceChildren();
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

  function submit() {
    const text = input.value;
    if (!text.trim() || busy()) return;
    pending = true;
    input.value = "";
    syncControls();
    setStatus("waiting for the model…");
    post({ type: "send", text });
  }

  /** @param {FromPython} msg */
  function onMessage(msg) {
    if (msg.type === "delta") {
      if (msg.invocation_id !== liveId) {
        clearLive();
        liveId = msg.invocation_id;
        setStatus("streaming…");
      }
      liveText += msg.text;
      if (!frame) frame = requestAnimationFrame(paintLive);
    } else if (msg.type === "entry") {
      const entry = msg.entry;
      if (entry.kind === "user") {
        pending = false;
        setStatus("waiting for the model…");
      }
      if (entry.kind === "model") clearLive();
      const stick = nearBottom();
      const call =
        entry.kind === "tool_result"
          ? past.querySelector(`details[data-call-id="${CSS.escape(entry.call_id)}"]`)
          : null;
      if (call instanceof HTMLDetailsElement && entry.kind === "tool_result") {
        addToolResult(call, entry);
      } else {
        past.append(...renderEntries([entry], openTools));
      }
      scroll(stick);
    } else if (msg.type === "turn_complete") {
      pending = false;
      clearLive();
      if (msg.error) setStatus(`error: ${msg.error}`, "anb-status-error");
      else if (msg.interrupted) setStatus(`stopped · ${formatUsage(msg.usage)}`);
      else if (msg.finish_reason === "length")
        setStatus(`${cutOffNote(msg.max_tokens)} · ${formatUsage(msg.usage)}`);
      else setStatus(formatUsage(msg.usage));
    } else if (msg.type === "error") {
      pending = false;
      setStatus(msg.message, "anb-status-error");
    } else if (msg.type === "snapshot") {
      clearLive();
      liveId = msg.invocation_id;
      liveText = msg.text;
      if (liveText) frame = requestAnimationFrame(paintLive);
      setStatus("streaming…");
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
    clearLive();
    setStatus("");
    post({ type: "new_chat" });
  };
  const onTranscript = () => {
    clearLive();
    renderTranscript();
  };
  const onState = () => {
    syncHeader();
    syncControls();
  };
  const onClosed = () => renderTranscript();
  /** @param {FromPython} msg */
  const onCustom = (msg) => onMessage(msg);

  /** @type {[string, (...args: any[]) => void][]} */
  const modelEvents = [
    ["msg:custom", onCustom],
    ["change:transcript", onTranscript],
    ["change:busy", onState],
    ["change:session_id", onState],
    ["change:model_label", onState],
    ["change:session_closed", onClosed],
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
  if (model.get("busy")) {
    // Opened mid-turn: ask for the turn's entries and the text streamed so far.
    setStatus("streaming…");
    post({ type: "catch_up" });
  }

  return () => {
    if (frame) cancelAnimationFrame(frame);
    for (const [name, handler] of modelEvents) model.off(name, handler);
    root.remove();
  };
}

export default { render };
