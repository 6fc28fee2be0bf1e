// The transcript: entries (from the `transcript` trait or one `entry` message)
// into DOM nodes. Everything here takes the `document` to build with and the
// Markdown filler to use, so it is testable without a browser (tests/js/) and
// the untrusted-text path stays in markdown.js.

import { dataBlock } from "./chart.js";
import { argsPreview, cutOffNote, jsonReply, pretty, toolFailed } from "./format.js";
import { tracePanel } from "./trace.js";

/** @typedef {import("./protocol.js").Entry} Entry */
/** @typedef {import("./protocol.js").ToolCallEntry} ToolCallEntry */
/** @typedef {import("./protocol.js").ToolResultEntry} ToolResultEntry */
/** @typedef {(body: HTMLElement, text: string) => void} FillMarkdown */
/** @typedef {(callId: string, approved: boolean) => void} Answer */

/**
 * @template {keyof HTMLElementTagNameMap} K
 * @param {Document} doc
 * @param {K} tag
 * @param {string} [className]
 * @param {string} [text]
 * @returns {HTMLElementTagNameMap[K]}
 */
export function h(doc, tag, className, text) {
  const node = doc.createElement(tag);
  if (className) node.className = className;
  if (text !== undefined) node.textContent = text;
  return node;
}

/**
 * A message: a role label over a body.
 * @param {Document} doc
 * @param {string} role
 * @param {string} label
 */
export function bubble(doc, role, label) {
  const box = h(doc, "div", `anb-msg anb-${role}`);
  box.append(h(doc, "div", "anb-role", label));
  const body = h(doc, "div", "anb-body");
  box.append(body);
  return { box, body };
}

/**
 * Build the DOM for a run of entries. Tool calls and their results share one
 * collapsible block (matched by call_id); a turn with a trace ends with its
 * trace panel (trace.js). ``openTools`` remembers which blocks and panels the
 * user opened, so a re-render at the end of a turn keeps them open. A call
 * that waits for approval (no result among the entries yet) is shown open,
 * with Approve and Deny buttons that call ``answer``.
 * @param {Document} doc
 * @param {Entry[]} entries
 * @param {Set<string>} openTools
 * @param {FillMarkdown} fillMarkdown
 * @param {Answer} [answer]
 * @returns {HTMLElement[]}
 */
export function renderEntries(doc, entries, openTools, fillMarkdown, answer) {
  /** @type {HTMLElement[]} */
  const out = [];
  /** @type {Map<string, HTMLDetailsElement>} */
  const tools = new Map();
  const answered = new Set(
    entries.flatMap((e) => (e.kind === "tool_result" ? [e.call_id] : [])),
  );
  for (const entry of entries) {
    if (entry.kind === "user") {
      const { box, body } = bubble(doc, "user", "You");
      body.textContent = entry.text;
      out.push(box);
    } else if (entry.kind === "model" && !entry.text && !entry.interrupted) {
      // A step that only wrote state (a CodeAgent returning None) said nothing:
      // no empty bubble. Its reads and writes show in the turn's trace panel.
    } else if (entry.kind === "model") {
      const { box, body } = bubble(doc, "model", entry.author);
      // A structured reply shows as formatted JSON, as text; any other as Markdown.
      const json = entry.interrupted ? null : jsonReply(entry.text);
      if (json === null) fillMarkdown(body, entry.text);
      else body.append(h(doc, "pre", "anb-json", json));
      if (entry.interrupted) box.append(h(doc, "div", "anb-note", "stopped"));
      out.push(box);
    } else if (entry.kind === "data") {
      out.push(dataBlock(doc, entry, fillMarkdown)); // its chart is drawn later (chart.js)
    } else if (entry.kind === "tool_call") {
      const waiting = Boolean(entry.needs_approval && !answered.has(entry.call_id) && answer);
      const block = toolBlock(doc, entry, entry.name, openTools, waiting);
      if (waiting && answer) addApproval(doc, block, entry, answer);
      tools.set(entry.call_id, block);
      out.push(block);
    } else if (entry.kind === "tool_result") {
      const block = tools.get(entry.call_id) ?? toolBlock(doc, null, entry.name, openTools);
      if (!tools.has(entry.call_id)) out.push(block);
      addToolResult(doc, block, entry);
    } else if (entry.kind === "turn" && entry.error) {
      out.push(h(doc, "div", "anb-error", entry.error));
    } else if (entry.kind === "turn" && entry.finish_reason === "length") {
      out.push(h(doc, "div", "anb-note anb-cut", cutOffNote(entry.max_tokens)));
    }
    if (entry.kind === "turn" && entry.usage.replayed_calls) {
      out.push(h(doc, "div", "anb-note anb-replayed", "↻ replayed"));
    }
    if (entry.kind === "turn" && entry.stale) out.push(h(doc, "div", "anb-note anb-stale", entry.stale));
    if (entry.kind === "turn" && entry.trace) out.push(tracePanel(doc, entry.trace, openTools));
  }
  return out;
}

/**
 * @param {Document} doc
 * @param {ToolCallEntry | null} call
 * @param {string} name
 * @param {Set<string>} openTools
 * @param {boolean} [waiting] the call waits for approval: the summary says so before its arguments
 */
function toolBlock(doc, call, name, openTools, waiting = false) {
  const block = h(doc, "details", "anb-tool");
  const key = call ? call.call_id : "";
  if (key) {
    block.dataset.callId = key;
    block.open = openTools.has(key);
    block.addEventListener("toggle", () => {
      if (block.open) openTools.add(key);
      else openTools.delete(key);
    });
  }
  const summary = h(doc, "summary");
  // In a multi-agent turn the block says which agent called the tool, as a
  // model bubble says who wrote it.
  if (call?.author) summary.append(h(doc, "span", "anb-tool-agent", call.author));
  // A tool from an MCP server says which server: a name alone could be any server's.
  if (call?.server) {
    summary.append(h(doc, "span", "anb-tool-tag", "mcp"), h(doc, "span", "anb-tool-server", call.server));
  } else {
    summary.append(h(doc, "span", "anb-tool-tag", "tool"));
  }
  summary.append(h(doc, "span", "anb-tool-name", name));
  if (waiting) summary.append(h(doc, "span", "anb-tool-wait", "waiting for approval"));
  if (call) summary.append(h(doc, "span", "anb-tool-args", `(${argsPreview(call.args)})`));
  block.append(summary);
  if (call) {
    block.append(h(doc, "div", "anb-tool-label", "arguments"));
    block.append(h(doc, "pre", "anb-tool-json", pretty(call.args)));
  }
  return block;
}

/**
 * Approve / Deny under a waiting call's arguments. The block is open, so the
 * arguments (text, as every model value) are in view; its summary says it waits.
 * @param {Document} doc
 * @param {HTMLDetailsElement} block
 * @param {ToolCallEntry} call
 * @param {Answer} answer
 */
function addApproval(doc, block, call, answer) {
  block.open = true;
  block.classList.add("anb-tool-waiting");
  const box = h(doc, "div", "anb-approval");
  const label = h(doc, "div", "anb-approval-label", `Run ${call.name} with these arguments?`);
  const approve = h(doc, "button", "anb-approve", "Approve");
  const deny = h(doc, "button", "anb-deny", "Deny");
  for (const [button, approved] of /** @type {const} */ ([
    [approve, true],
    [deny, false],
  ])) {
    button.type = "button";
    button.addEventListener("click", () => {
      approve.disabled = deny.disabled = true;
      label.textContent = approved ? "approved: running…" : "denied";
      answer(call.call_id, approved);
    });
  }
  const buttons = h(doc, "div", "anb-approval-buttons");
  buttons.append(approve, deny);
  box.append(label, buttons);
  block.append(box);
}

/**
 * Add a result under its call's block (also for a block already on screen);
 * a call that waited is answered now: its buttons go.
 * @param {Document} doc
 * @param {HTMLDetailsElement} block
 * @param {ToolResultEntry} result
 */
export function addToolResult(doc, block, result) {
  block.querySelector?.(".anb-approval")?.remove();
  block.querySelector?.(".anb-tool-wait")?.remove();
  block.classList.remove?.("anb-tool-waiting");
  const failed = toolFailed(result.response);
  if (failed) block.classList.add("anb-tool-failed");
  block.append(h(doc, "div", "anb-tool-label", failed ? "error" : "result"));
  block.append(h(doc, "pre", "anb-tool-json", pretty(result.response)));
}
