import assert from "node:assert/strict";
import { test } from "node:test";

import { addToolResult, renderEntries } from "../../js/transcript.js";
import { miniDocument, plainText } from "./mini_dom.js";

const ids = { id: "e", invocation_id: "inv" };

/** @param {any[]} entries @param {Set<string>} [open] */
function render(entries, open = new Set()) {
  // @ts-ignore: the mini document stands in for a real one
  return renderEntries(miniDocument, entries, open, plainText);
}

test("user and model messages become bubbles; the model's text goes through the filler", () => {
  const nodes = render([
    { ...ids, kind: "user", text: "<b>hi</b>" },
    { ...ids, kind: "model", author: "helper", text: "**Hello**", interrupted: false },
  ]);
  assert.deepEqual(
    nodes.map((n) => n.className),
    ["anb-msg anb-user", "anb-msg anb-model"],
  );
  assert.equal(nodes[0].textContent, "You<b>hi</b>");
  assert.equal(nodes[1].textContent, "helper**Hello**");
});

test("an interrupted model message is marked stopped", () => {
  const [box] = render([{ ...ids, kind: "model", author: "m", text: "par", interrupted: true }]);
  assert.equal(box.findAll("anb-note")[0].textContent, "stopped");
});

test("a model message with no text (a CodeAgent step) gets no bubble; one with text does", () => {
  const nodes = render([
    { ...ids, kind: "model", author: "step", text: "", interrupted: false },
    { ...ids, kind: "model", author: "counter", text: "counted 3", interrupted: false },
    { ...ids, kind: "model", author: "m", text: "", interrupted: true },
  ]);
  assert.deepEqual(
    nodes.map((n) => n.textContent),
    ["countercounted 3", "mstopped"],
  );
});

test("a tool call and its result share one block, matched by call_id", () => {
  const nodes = render([
    { ...ids, kind: "tool_call", name: "add", call_id: "c1", args: { a: 2, b: 3 } },
    { ...ids, kind: "tool_call", name: "boom", call_id: "c2", args: {} },
    { ...ids, kind: "tool_result", name: "add", call_id: "c1", response: { result: 5 } },
    { ...ids, kind: "tool_result", name: "boom", call_id: "c2", response: { error: "no" } },
  ]);
  assert.equal(nodes.length, 2);
  const [add, boom] = nodes;
  assert.equal(add.tagName, "DETAILS");
  assert.equal(add.dataset.callId, "c1");
  assert.equal(add.findAll("anb-tool-args")[0].textContent, "(a=2, b=3)");
  assert.deepEqual(
    add.findAll("anb-tool-label").map((n) => n.textContent),
    ["arguments", "result"],
  );
  assert.ok(!add.classList.contains("anb-tool-failed"));
  assert.ok(boom.classList.contains("anb-tool-failed"));
  assert.equal(boom.findAll("anb-tool-label")[1].textContent, "error");
});

test("a tool block names the agent that called it, as text", () => {
  const [block] = render([
    { ...ids, kind: "tool_call", author: "<b>writer</b>", name: "peek", call_id: "c1", args: {} },
  ]);
  const agent = block.findAll("anb-tool-agent");
  assert.equal(agent.length, 1);
  assert.equal(agent[0].textContent, "<b>writer</b>"); // text, never markup
  assert.equal(agent[0].children.length, 0);
  const [anonymous] = render([{ ...ids, kind: "tool_call", name: "x", call_id: "c2", args: {} }]);
  assert.equal(anonymous.findAll("anb-tool-agent").length, 0);
});

test("a tool from an MCP server names its server beside the tool, as text", () => {
  const [mcp] = render([
    { ...ids, kind: "tool_call", name: "read_text_file", server: "<i>fs</i>", call_id: "c1", args: {} },
  ]);
  assert.equal(mcp.findAll("anb-tool-tag")[0].textContent, "mcp");
  const server = mcp.findAll("anb-tool-server");
  assert.equal(server.length, 1);
  assert.equal(server[0].textContent, "<i>fs</i>"); // text, never markup
  assert.equal(server[0].children.length, 0);
  const [local] = render([{ ...ids, kind: "tool_call", name: "add", call_id: "c2", args: {} }]);
  assert.equal(local.findAll("anb-tool-tag")[0].textContent, "tool");
  assert.equal(local.findAll("anb-tool-server").length, 0);
});

test("a result whose call is not in the run gets a block of its own", () => {
  const [block] = render([
    { ...ids, kind: "tool_result", name: "late", call_id: "c9", response: { result: 1 } },
  ]);
  assert.equal(block.findAll("anb-tool-name")[0].textContent, "late");
  assert.equal(block.dataset.callId, undefined);
});

test("blocks the user opened stay open on a re-render, and toggling is remembered", () => {
  const open = new Set(["c1"]);
  const call = { ...ids, kind: "tool_call", name: "add", call_id: "c1", args: {} };
  const [block] = render([call], open);
  assert.equal(block.open, true);
  block.open = false;
  block.dispatch("toggle");
  assert.deepEqual([...open], []);
  block.open = true;
  block.dispatch("toggle");
  assert.deepEqual([...open], ["c1"]);
});

test("a turn shows only when it failed", () => {
  const turn = { ...ids, kind: "turn", usage: {}, finish_reason: "stop", interrupted: false };
  assert.deepEqual(render([{ ...turn, error: null }]), []);
  const [error] = render([{ ...turn, error: "BackendError: down" }]);
  assert.equal(error.className, "anb-error");
  assert.equal(error.textContent, "BackendError: down");
});

test("addToolResult adds to a block already on screen", () => {
  const [block] = render([{ ...ids, kind: "tool_call", name: "f", call_id: "c1", args: {} }]);
  // @ts-ignore: the mini document stands in for a real one
  addToolResult(miniDocument, block, { ...ids, kind: "tool_result", name: "f", call_id: "c1", response: { result: 1 } });
  assert.equal(block.findAll("anb-tool-json")[1].textContent, '{\n  "result": 1\n}');
});

test("a structured reply shows as formatted JSON, as text; other replies stay Markdown", () => {
  const payload = '{"note": "<img src=x onerror=alert(1)>", "n": [1, 2]}';
  const [json, prose, cut] = render([
    { ...ids, kind: "model", author: "m", text: payload, interrupted: false },
    { ...ids, kind: "model", author: "m", text: "{not json}", interrupted: false },
    { ...ids, kind: "model", author: "m", text: '{"a": 1}', interrupted: true },
  ]);
  const [pre] = json.findAll("anb-json");
  assert.equal(pre.tagName, "PRE");
  assert.equal(pre.textContent, JSON.stringify(JSON.parse(payload), null, 2));
  assert.equal(pre.children.length, 0); // the model's "<img ...>" is text, never a node
  assert.equal(prose.findAll("anb-json").length, 0);
  assert.equal(prose.textContent, "m{not json}");
  assert.equal(cut.findAll("anb-json").length, 0); // an interrupted reply is not parsed
});

test("a call waiting for approval shows its arguments as text with Approve and Deny", () => {
  /** @type {[string, boolean][]} */
  const answers = [];
  const call = {
    ...ids,
    kind: "tool_call",
    name: "write_note",
    call_id: "c1",
    args: { path: "<img src=x onerror=alert(1)>" },
    needs_approval: true,
  };
  // @ts-ignore: the mini document stands in for a real one
  const [block] = renderEntries(miniDocument, [call], new Set(), plainText, (id, ok) =>
    answers.push([id, ok]),
  );
  assert.equal(block.open, true);
  assert.ok(block.classList.contains("anb-tool-waiting"));
  assert.equal(block.findAll("anb-tool-wait")[0].textContent, "waiting for approval");
  // The arguments are a text node: the markup shows as the characters it is.
  assert.match(block.findAll("anb-tool-json")[0].textContent, /<img src=x onerror=alert\(1\)>/);
  assert.equal(block.findAll("anb-tool-json")[0].children.length, 0);
  const [approve] = block.findAll("anb-approve");
  const [deny] = block.findAll("anb-deny");
  assert.equal(approve.textContent, "Approve");
  assert.equal(deny.textContent, "Deny");
  approve.dispatch("click");
  assert.deepEqual(answers, [["c1", true]]);
  assert.equal(approve.disabled, true);
  assert.equal(deny.disabled, true);
  assert.equal(block.findAll("anb-approval-label")[0].textContent, "approved: running…");
});

test("an answered call, a call that needs no approval, or no answer callback: no buttons", () => {
  const call = { ...ids, kind: "tool_call", name: "w", call_id: "c1", args: {}, needs_approval: true };
  const result = { ...ids, kind: "tool_result", name: "w", call_id: "c1", response: { ok: 1 } };
  const plain = { ...call, call_id: "c2", needs_approval: false };
  const noop = () => {};
  // @ts-ignore: the mini document stands in for a real one
  const answered = renderEntries(miniDocument, [call, result, plain], new Set(), plainText, noop);
  assert.deepEqual(answered.flatMap((b) => b.findAll("anb-approval")), []);
  assert.equal(render([call]).flatMap((b) => b.findAll("anb-approval")).length, 0);
});
