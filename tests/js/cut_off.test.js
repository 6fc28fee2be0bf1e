import assert from "node:assert/strict";
import { test } from "node:test";

import { CUT_OFF, cutOffBundle, keepInNotebook } from "../../js/cut_off.js";

test("a cut-off Markdown reply keeps what the view drew, then the note in italics", () => {
  const bundle = cutOffBundle("Paris is the **capital** …", "");
  assert.equal(bundle["text/markdown"], `Paris is the **capital** …\n\n*${CUT_OFF}*`);
  assert.equal(bundle["text/plain"], `Paris is the **capital** …\n${CUT_OFF}`);
});

test("a reply cut inside a code block closes it, so the note stays outside", () => {
  const bundle = cutOffBundle("Here:\n\n```python\nx = 1 …", "");
  assert.equal(bundle["text/markdown"], `Here:\n\n\`\`\`python\nx = 1 …\n\`\`\`\n\n*${CUT_OFF}*`);
  // A closed block is left as it is.
  const closed = cutOffBundle("```\nx\n```\nmore", "");
  assert.equal(closed["text/markdown"], `\`\`\`\nx\n\`\`\`\nmore\n\n*${CUT_OFF}*`);
});

test("a --format text reply stays text; an empty one keeps the note alone", () => {
  assert.deepEqual(cutOffBundle("", "so far …"), { "text/plain": `so far …\n${CUT_OFF}` });
  assert.deepEqual(cutOffBundle("", ""), { "text/plain": CUT_OFF });
});

test("a widget manager that names no notebook (VS Code, Colab) has nothing replaced", () => {
  const bundle = cutOffBundle("reply", "");
  assert.equal(keepInNotebook({}, "abc", bundle), 0);
  assert.equal(keepInNotebook(undefined, "abc", bundle), 0);
  assert.equal(keepInNotebook({ context: { model: { cells: [] } } }, "", bundle), 0);
});
