// The trace panel of one invocation: agent by agent, what each read and wrote
// in temp:, session, user: and app: state (`TraceDict` in protocol.js, built by
// agent_nb/_core/trace.py). It is how a reader sees one agent hand data to the
// next through temp: keys, which are never stored.
//
// Keys and values are model and user data: they go in as textContent only,
// never as HTML (no Markdown either: a value is shown exactly as written).

/** @typedef {import("./protocol.js").TraceDict} TraceDict */
/** @typedef {import("./protocol.js").TraceStepDict} TraceStepDict */

/** How each scope is labelled, in the order the trace lists them. */
export const SCOPE_LABELS = { temp: "temp:", session: "session", user: "user:", app: "app:" };

/**
 * @template {keyof HTMLElementTagNameMap} K
 * @param {Document} doc
 * @param {K} tag
 * @param {string} className
 * @param {string} [text]
 * @returns {HTMLElementTagNameMap[K]}
 */
function el(doc, tag, className, text) {
  const node = doc.createElement(tag);
  node.className = className;
  if (text !== undefined) node.textContent = text;
  return node;
}

/**
 * `names` with consecutive repeats of a block folded: a loop's rounds read as
 * "(tick → talker) ×14", not as 28 names.
 * @param {string[]} names
 * @returns {string[]}
 */
export function foldRounds(names) {
  /** @type {string[]} */
  const parts = [];
  let i = 0;
  while (i < names.length) {
    let best = { period: 1, rounds: 1 };
    for (let period = 1; i + 2 * period <= names.length; period++) {
      let rounds = 1;
      while (
        i + (rounds + 1) * period <= names.length &&
        names.slice(i + rounds * period, i + (rounds + 1) * period).every((n, k) => n === names[i + k])
      ) {
        rounds++;
      }
      if (rounds > 1 && rounds * period > best.rounds * best.period) best = { period, rounds };
    }
    const block = names.slice(i, i + best.period);
    const shown = block.length > 1 ? `(${block.join(" → ")})` : block[0];
    parts.push(best.rounds > 1 ? `${shown} ×${best.rounds}` : shown);
    i += best.period * best.rounds;
  }
  return parts;
}

/**
 * The one-line summary: how many agents (each counted once), then the order
 * they finished in, a loop's rounds folded.
 * @param {TraceDict} trace
 */
export function traceSummary(trace) {
  const names = trace.steps.map((s) => s.agent);
  const distinct = new Set(names).size;
  const count = distinct === 1 ? "1 agent" : `${distinct} agents`;
  return `${count}: ${foldRounds(names).join(" → ")}`;
}

/**
 * Token counts for a model step ("" for code steps and merges).
 * @param {TraceStepDict} step
 */
export function stepTokens(step) {
  if (step.kind !== "model") return "";
  return `fed ${step.prompt_tokens}, reused ${step.cached_tokens}, generated ${step.generated_tokens} tokens`;
}

/**
 * @param {Document} doc
 * @param {TraceStepDict} step
 */
function stepNode(doc, step) {
  const item = el(doc, "li", "anb-trace-step");
  item.dataset.agent = step.agent;
  const head = el(doc, "div", "anb-trace-head");
  head.append(el(doc, "span", "anb-trace-agent", step.agent));
  head.append(el(doc, "span", "anb-trace-kind", step.kind));
  const tokens = stepTokens(step);
  if (tokens) head.append(el(doc, "span", "anb-trace-tokens", tokens));
  item.append(head);
  const scopes = Object.keys(SCOPE_LABELS).filter((s) => s in step.scopes);
  if (!scopes.length) item.append(el(doc, "div", "anb-trace-none", "no state read or written"));
  for (const scope of scopes) {
    const used = step.scopes[scope];
    const box = el(doc, "div", "anb-trace-scope");
    box.dataset.scope = scope;
    box.append(el(doc, "span", "anb-trace-scope-name", SCOPE_LABELS[/** @type {keyof SCOPE_LABELS} */ (scope)]));
    if (used.read.length) box.append(el(doc, "div", "anb-trace-read", `read ${used.read.join(", ")}`));
    for (const [key, value] of Object.entries(used.wrote)) {
      const row = el(doc, "div", "anb-trace-write");
      row.dataset.key = key;
      row.append(el(doc, "span", "anb-trace-verb", "wrote "));
      row.append(el(doc, "code", "anb-trace-key", key));
      row.append(el(doc, "pre", "anb-trace-value", value));
      box.append(row);
    }
    item.append(box);
  }
  if (step.error) item.append(el(doc, "div", "anb-trace-error", step.error));
  return item;
}

/**
 * A collapsed panel for one invocation's trace. ``open`` remembers which
 * panels the user opened (keyed ``trace:<invocation id>``), so the re-render
 * at the end of the next turn keeps them open.
 * @param {Document} doc
 * @param {TraceDict} trace
 * @param {Set<string>} open
 * @returns {HTMLDetailsElement}
 */
export function tracePanel(doc, trace, open) {
  const key = `trace:${trace.invocation_id}`;
  const panel = el(doc, "details", "anb-trace");
  panel.dataset.invocationId = trace.invocation_id;
  panel.open = open.has(key);
  panel.addEventListener("toggle", () => {
    if (panel.open) open.add(key);
    else open.delete(key);
  });
  const summary = el(doc, "summary", "anb-trace-summary");
  summary.append(el(doc, "span", "anb-trace-tag", "trace"));
  summary.append(el(doc, "span", "anb-trace-agents", traceSummary(trace)));
  panel.append(summary);
  const steps = el(doc, "ol", "anb-trace-steps");
  for (const step of trace.steps) steps.append(stepNode(doc, step));
  panel.append(steps);
  return panel;
}
