// Pure text helpers of the ChatWidget: no DOM, no imports, so `node --test`
// runs them as they are (tests/js/).

/** @typedef {import("./protocol.js").UsageDict} UsageDict */
/** @typedef {import("./protocol.js").TurnCompleteMsg} TurnCompleteMsg */

/**
 * ``TTFT 0.12 s · 7.3 tokens/s · 16 tokens`` for the status line.
 * @param {UsageDict} usage
 */
export function formatUsage(usage) {
  const parts = [];
  if (usage.replayed_calls) parts.push("↻ replayed");
  if (usage.time_to_first_token_s != null) {
    parts.push(`TTFT ${usage.time_to_first_token_s.toFixed(2)} s`);
  }
  if (usage.tokens_per_s != null) parts.push(`${usage.tokens_per_s.toFixed(1)} tokens/s`);
  parts.push(`${usage.generated_tokens} tokens`);
  if (usage.context_tokens != null) {
    const used = usage.context_tokens.toLocaleString("en-US");
    const window =
      usage.context_window != null ? usage.context_window.toLocaleString("en-US") : "?";
    parts.push(`${used} / ${window} in context`);
  }
  if (usage.window_note) parts.push(usage.window_note);
  return parts.join(" · ");
}

/**
 * JSON for a tool's arguments or result, indented; anything JSON cannot hold as text.
 * @param {unknown} value
 */
export function pretty(value) {
  try {
    return JSON.stringify(value, null, 2);
  } catch {
    return String(value);
  }
}

/**
 * A structured reply (an ``output_schema``'s JSON object or array) as indented
 * JSON, or null for any other text, which stays Markdown. The caller shows it
 * as text (``textContent``), never as markup.
 * @param {string} text
 * @returns {string | null}
 */
export function jsonReply(text) {
  const body = text.trim();
  const object = body.startsWith("{") && body.endsWith("}");
  if (!object && !(body.startsWith("[") && body.endsWith("]"))) return null;
  try {
    const value = JSON.parse(body);
    return typeof value === "object" && value !== null ? JSON.stringify(value, null, 2) : null;
  } catch {
    return null;
  }
}

/**
 * ``a=2, b=3`` for a tool block's summary line, shortened so the line stays one line.
 * @param {Record<string, unknown>} args
 */
export function argsPreview(args) {
  const text = Object.entries(args)
    .map(([key, value]) => `${key}=${JSON.stringify(value)}`)
    .join(", ");
  return text.length > 60 ? `${text.slice(0, 57)}…` : text;
}

/**
 * A tool result that reports a failure (the tool raised, or was cancelled).
 * @param {unknown} response
 */
export function toolFailed(response) {
  return typeof response === "object" && response !== null && "error" in response;
}

/**
 * The same words as the cell's note (agent_nb/_core/reply.py `cut_off_note`).
 * @param {number | null} limit
 */
export function cutOffNote(limit) {
  const at = limit ? `the ${limit}-token limit` : "the token limit";
  return `cut off at ${at}; raise max_tokens for more`;
}

/**
 * ``reading the prompt: 3,072 / 7,034 tokens ▰▰▰▰▱▱▱▱▱▱`` (the cell's words, and a bar).
 * @param {number} done
 * @param {number} total
 */
export function promptProgress(done, total) {
  const filled = total > 0 ? Math.min(10, Math.floor((10 * done) / total)) : 0;
  const count = `${done.toLocaleString("en-US")} / ${total.toLocaleString("en-US")}`;
  return `reading the prompt: ${count} tokens ${"▰".repeat(filled)}${"▱".repeat(10 - filled)}`;
}

/**
 * The status line before a turn's first token: what it waits for on the model
 * (a `waiting` message's note, the cell's words with the cell's mark), else
 * ``waiting for the model…``.
 * @param {string} note
 */
export function waitingStatus(note) {
  return note ? `◷ ${note}` : "waiting for the model…";
}

/** The same words as the cell's note (agent_nb/_core/repetition.py `repetition_note`). */
export const REPETITION_NOTE = "stopped: the reply kept repeating itself";

/**
 * What the status line says when a turn ends: [text, css class].
 * @param {TurnCompleteMsg} msg
 * @returns {[string, string]}
 */
export function turnStatus(msg) {
  if (msg.error) return [`error: ${msg.error}`, "anb-status-error"];
  if (msg.interrupted) return [`stopped · ${formatUsage(msg.usage)}`, ""];
  if (msg.finish_reason === "length") {
    return [`${cutOffNote(msg.max_tokens)} · ${formatUsage(msg.usage)}`, ""];
  }
  if (msg.finish_reason === "repetition") {
    return [`${REPETITION_NOTE} · ${formatUsage(msg.usage)}`, ""];
  }
  return [formatUsage(msg.usage), ""];
}
