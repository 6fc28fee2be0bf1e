import assert from "node:assert/strict";
import { test } from "node:test";

import {
  argsPreview,
  cutOffNote,
  formatUsage,
  jsonReply,
  pretty,
  promptProgress,
  toolFailed,
  turnStatus,
  waitingStatus,
} from "../../js/format.js";

const usage = {
  prompt_tokens: 12,
  cached_tokens: 0,
  generated_tokens: 16,
  time_to_first_token_s: 0.123,
  tokens_per_s: 7.04,
};

test("formatUsage shows TTFT, speed and tokens", () => {
  assert.equal(formatUsage(usage), "TTFT 0.12 s · 7.0 tokens/s · 16 tokens");
});

test("formatUsage leaves out figures the backend did not measure", () => {
  const bare = { ...usage, time_to_first_token_s: null, tokens_per_s: null };
  assert.equal(formatUsage(bare), "16 tokens");
});

test("formatUsage shows the context used / window and the window note", () => {
  const windowed = {
    ...usage,
    context_tokens: 7012,
    context_window: 8192,
    window_note: "3 oldest turns no longer fit the 8,192-token window; they stay in history",
  };
  assert.equal(
    formatUsage(windowed),
    "TTFT 0.12 s · 7.0 tokens/s · 16 tokens · 7,012 / 8,192 in context · " +
      "3 oldest turns no longer fit the 8,192-token window; they stay in history",
  );
  assert.equal(
    formatUsage({ ...usage, context_tokens: 40, context_window: null }),
    "TTFT 0.12 s · 7.0 tokens/s · 16 tokens · 40 / ? in context",
  );
});

test("argsPreview lists key=JSON pairs", () => {
  assert.equal(argsPreview({ a: 2, b: "x" }), 'a=2, b="x"');
  assert.equal(argsPreview({}), "");
});

test("argsPreview cuts a long line at 60 characters with an ellipsis", () => {
  const preview = argsPreview({ text: "y".repeat(100) });
  assert.equal(preview.length, 58);
  assert.ok(preview.endsWith("…"));
  assert.ok(preview.startsWith('text="yyy'));
});

test("pretty indents JSON and falls back to String for what JSON cannot hold", () => {
  assert.equal(pretty({ a: [1] }), '{\n  "a": [\n    1\n  ]\n}');
  const loop = {};
  loop.self = loop;
  assert.equal(pretty(loop), "[object Object]");
});

test("toolFailed is true only for an object with an error key", () => {
  assert.equal(toolFailed({ error: "boom" }), true);
  assert.equal(toolFailed({ result: 5 }), false);
  assert.equal(toolFailed(null), false);
  assert.equal(toolFailed("error"), false);
});

test("turnStatus names errors, stops and normal ends", () => {
  const base = { type: "turn_complete", invocation_id: "i", usage, finish_reason: "stop" };
  assert.deepEqual(turnStatus({ ...base, interrupted: false, error: null }), [
    "TTFT 0.12 s · 7.0 tokens/s · 16 tokens",
    "",
  ]);
  assert.deepEqual(turnStatus({ ...base, interrupted: true, error: null }), [
    "stopped · TTFT 0.12 s · 7.0 tokens/s · 16 tokens",
    "",
  ]);
  assert.deepEqual(turnStatus({ ...base, interrupted: false, error: "BackendError: down" }), [
    "error: BackendError: down",
    "anb-status-error",
  ]);
});

test("a reply cut off at its limit says so in the status line, with the limit", () => {
  const msg = {
    type: "turn_complete",
    invocation_id: "i",
    finish_reason: "length",
    interrupted: false,
    error: null,
    max_tokens: 16,
    usage,
  };
  const [text, cls] = turnStatus(msg);
  assert.equal(text, `${cutOffNote(16)} · ${formatUsage(usage)}`);
  assert.ok(text.startsWith("cut off at the 16-token limit"));
  assert.equal(cls, "");
  assert.equal(cutOffNote(null), "cut off at the token limit; raise max_tokens for more");
});

test("promptProgress says how far the prompt is read, with a bar", () => {
  assert.equal(promptProgress(3072, 7034), "reading the prompt: 3,072 / 7,034 tokens ▰▰▰▰▱▱▱▱▱▱");
  assert.equal(promptProgress(0, 0), "reading the prompt: 0 / 0 tokens ▱▱▱▱▱▱▱▱▱▱");
});

test("waitingStatus says what a turn waits for on the model, in the cell's words", () => {
  const note = "waiting for session 'ahead' to finish its turn on the model";
  assert.equal(waitingStatus(note), `◷ ${note}`);
  assert.equal(waitingStatus(""), "waiting for the model…"); // nothing ahead any more
});

test("turnStatus names a repetition stop", () => {
  const msg = { type: "turn_complete", invocation_id: "i", finish_reason: "repetition",
    interrupted: false, error: null, max_tokens: null, usage };
  assert.match(turnStatus(msg)[0], /^stopped: the reply kept repeating itself · /);
});

test("jsonReply indents a JSON object or array and leaves other text alone", () => {
  assert.equal(jsonReply(' {"a": [1, 2]} '), '{\n  "a": [\n    1,\n    2\n  ]\n}');
  assert.equal(jsonReply("[true]"), "[\n  true\n]");
  assert.equal(jsonReply('{"a": 1'), null); // cut off: not a half object
  assert.equal(jsonReply('"yes"'), null); // a lone string stays Markdown
  assert.equal(jsonReply("{curly} prose {here}"), null);
  assert.equal(jsonReply("Hello"), null);
});
