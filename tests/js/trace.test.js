import assert from "node:assert/strict";
import { test } from "node:test";

import { foldRounds, stepTokens, traceSummary, tracePanel } from "../../js/trace.js";
import { renderEntries } from "../../js/transcript.js";
import { miniDocument, plainText } from "./mini_dom.js";

/** A SequentialAgent turn: a code agent writes temp:, a model agent reads it. */
const TRACE = {
  invocation_id: "inv-1",
  steps: [
    {
      agent: "counter",
      kind: "code",
      scopes: {
        temp: { read: [], wrote: { "temp:count": "3" } },
        session: { read: ["topic"], wrote: {} },
      },
      prompt_tokens: 0,
      cached_tokens: 0,
      generated_tokens: 0,
      error: null,
    },
    {
      agent: "speaker",
      kind: "model",
      scopes: { temp: { read: ["temp:count"], wrote: {} } },
      prompt_tokens: 40,
      cached_tokens: 12,
      generated_tokens: 5,
      error: null,
    },
    {
      agent: "broken",
      kind: "code",
      scopes: {},
      prompt_tokens: 0,
      cached_tokens: 0,
      generated_tokens: 0,
      error: "ValueError: no",
    },
  ],
};

/** @param {any} trace @param {Set<string>} [open] */
function panel(trace, open = new Set()) {
  // @ts-ignore: the mini document stands in for a real one
  return tracePanel(miniDocument, trace, open);
}

test("the summary names the agents in the order they finished", () => {
  assert.equal(traceSummary(TRACE), "3 agents: counter → speaker → broken");
  assert.equal(traceSummary({ ...TRACE, steps: TRACE.steps.slice(0, 1) }), "1 agent: counter");
  assert.equal(stepTokens(TRACE.steps[1]), "fed 40, reused 12, generated 5 tokens");
  assert.equal(stepTokens(TRACE.steps[0]), "");
});

test("the panel shows, agent by agent and scope by scope, what was read and written", () => {
  const node = panel(TRACE);
  assert.equal(node.tagName, "DETAILS");
  assert.equal(node.open, false); // collapsed until opened
  assert.equal(node.dataset.invocationId, "inv-1");
  const steps = node.findAll("anb-trace-step");
  assert.deepEqual(
    steps.map((s) => s.dataset.agent),
    ["counter", "speaker", "broken"],
  );
  const [counter, speaker, broken] = steps;
  assert.deepEqual(
    counter.findAll("anb-trace-scope").map((s) => s.dataset.scope),
    ["temp", "session"],
  );
  const [write] = counter.findAll("anb-trace-write");
  assert.equal(write.dataset.key, "temp:count");
  assert.equal(write.findAll("anb-trace-value")[0].textContent, "3");
  assert.equal(counter.findAll("anb-trace-read")[0].textContent, "read topic");
  assert.equal(speaker.findAll("anb-trace-read")[0].textContent, "read temp:count");
  assert.equal(speaker.findAll("anb-trace-tokens")[0].textContent, stepTokens(TRACE.steps[1]));
  assert.equal(broken.findAll("anb-trace-none")[0].textContent, "no state read or written");
  assert.equal(broken.findAll("anb-trace-error")[0].textContent, "ValueError: no");
});

test("keys and values are text, never markup", () => {
  const evil = "<img src=x onerror=alert(1)>";
  const trace = {
    invocation_id: "x",
    steps: [{ ...TRACE.steps[0], scopes: { temp: { read: [], wrote: { [`temp:${evil}`]: evil } } } }],
  };
  const [write] = panel(trace).findAll("anb-trace-write");
  // The mini DOM has no innerHTML: everything it holds was set as textContent.
  assert.equal(write.findAll("anb-trace-key")[0].textContent, `temp:${evil}`);
  assert.equal(write.findAll("anb-trace-value")[0].textContent, evil);
});

test("a panel the user opened stays open on a re-render", () => {
  const open = new Set();
  const first = panel(TRACE, open);
  first.open = true;
  first.dispatch("toggle");
  assert.deepEqual([...open], ["trace:inv-1"]);
  assert.equal(panel(TRACE, open).open, true);
  first.open = false;
  first.dispatch("toggle");
  assert.equal(panel(TRACE, open).open, false);
});

test("a turn entry with a trace ends with its panel; one without has none", () => {
  const turn = {
    id: "t",
    invocation_id: "inv-1",
    kind: "turn",
    usage: {},
    finish_reason: "stop",
    interrupted: false,
    error: null,
  };
  // @ts-ignore: the mini document stands in for a real one
  const render = (entries) => renderEntries(miniDocument, entries, new Set(), plainText);
  assert.deepEqual(render([{ ...turn, trace: null }]), []);
  const nodes = render([{ ...turn, error: "BackendError: down", trace: TRACE }]);
  assert.deepEqual(
    nodes.map((n) => n.className),
    ["anb-error", "anb-trace"],
  );
});

test("a loop's rounds are counted once per agent and folded", () => {
  const steps = Array.from({ length: 14 }, () => [{ agent: "tick" }, { agent: "talker" }]).flat();
  assert.equal(traceSummary({ ...TRACE, steps: /** @type {any} */ (steps) }), "2 agents: (tick → talker) ×14");
  assert.deepEqual(foldRounds(["a", "b", "c", "b", "c", "b", "c", "d"]), ["a", "(b → c) ×3", "d"]);
  assert.deepEqual(foldRounds(["w", "w", "w"]), ["w ×3"]);
  assert.deepEqual(foldRounds(["a", "b", "a"]), ["a", "b", "a"]);
  assert.deepEqual(foldRounds([]), []);
});
