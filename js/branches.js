// Branch arrows: where the active conversation took one of several
// alternative turns (a re-run cell moved the old ones to a branch), a
// "‹ 1 of 2 versions ›" bar before that turn switches branches. Python computes the forks
// (the `forks` trait) and which branch each arrow goes to; this module only
// draws them and posts `switch_branch`. Every view of the session re-renders
// from the synced traits, so a switch in one view shows in all of them.

/** @typedef {import("./protocol.js").Entry} Entry */
/** @typedef {import("./protocol.js").Fork} Fork */

/**
 * @param {Document} doc
 * @param {Fork} fork
 * @param {(branch: number) => void} onSwitch
 */
function forkBar(doc, fork, onSwitch) {
  const bar = doc.createElement("div");
  bar.className = "anb-fork";
  bar.setAttribute("role", "group");
  bar.setAttribute("aria-label", "alternative turns");
  /** @param {string} text @param {number | null} branch @param {string} label */
  const arrow = (text, branch, label) => {
    const button = doc.createElement("button");
    button.type = "button";
    button.className = "anb-fork-arrow";
    button.textContent = text;
    button.title = branch === null ? label : `${label} (branch ${branch})`;
    button.disabled = branch === null;
    if (branch !== null) button.addEventListener("click", () => onSwitch(branch));
    return button;
  };
  const where = doc.createElement("span");
  where.className = "anb-fork-pos";
  // A position among the turn's versions, not a branch number (those are in
  // the arrows' titles and in `%agent branches`): say so in words.
  where.textContent = `${fork.position} of ${fork.count} versions`;
  bar.append(
    arrow("‹", fork.prev_branch, "previous version"),
    where,
    arrow("›", fork.next_branch, "next version"),
  );
  return bar;
}

/**
 * Render `entries` turn group by turn group, with a fork bar before each turn
 * that has alternatives.
 * @param {Document} doc
 * @param {Entry[]} entries
 * @param {Fork[]} forks
 * @param {(entries: Entry[]) => HTMLElement[]} render
 * @param {(branch: number) => void} onSwitch
 * @returns {HTMLElement[]}
 */
export function renderWithForks(doc, entries, forks, render, onSwitch) {
  const at = new Map((forks || []).map((f) => [f.invocation_id, f]));
  /** @type {HTMLElement[]} */
  const out = [];
  /** @type {Entry[]} */
  let group = [];
  for (const entry of entries) {
    const fork = at.get(entry.invocation_id);
    if (fork) {
      at.delete(entry.invocation_id);
      out.push(...render(group), forkBar(doc, fork, onSwitch));
      group = [];
    }
    group.push(entry);
  }
  out.push(...render(group));
  return out;
}
