// What this view tells the kernel about its own life (agent_nb/_jupyter/widget/lifecycle.py).
//
// The kernel closes a widget whose every view was *destroyed* (output cleared,
// cell deleted or re-run) and keeps one whose views went away with their
// notebook (tab closed while the kernel runs) or with the whole page (reload):
// those are configuration changes. A view cannot ask the notebook why it is
// being removed, but it can look at where it lived: JupyterLab takes a closing
// notebook's panel out of the document before it disposes the outputs inside,
// while clearing an output or deleting a cell leaves the panel in place.
// Measured in JupyterLab 4 (tests/jupyter/test_widget_lifecycle_browser.py).
//
// A closing notebook also drops its kernel connection before its views go,
// so their last message is lost. Every message therefore carries the page's
// whole list of this widget's live views (`live`), kept here per page: the
// next message from the page (a view of the reopened notebook) corrects the
// kernel's count.

/** @typedef {import("./protocol.js").ViewEvent} ViewEvent */
/** @typedef {import("./protocol.js").ViewMsg} ViewMsg */

/** The panel (notebook, "new view for output") a view lives in. */
export const HOST_SELECTOR = ".jp-MainAreaWidget, .jp-NotebookPanel";

/** @returns {string} */
function randomId() {
  const c = globalThis.crypto;
  if (c && typeof c.randomUUID === "function") return c.randomUUID();
  return `${Date.now().toString(36)}-${Math.random().toString(36).slice(2)}`;
}

/**
 * One id per page load, shared by every view of every widget in it.
 * @param {Record<string, unknown>} [scope]
 * @returns {string}
 */
export function pageId(scope = /** @type {any} */ (globalThis)) {
  if (typeof scope.__agentNbPageId !== "string") scope.__agentNbPageId = randomId();
  return /** @type {string} */ (scope.__agentNbPageId);
}

/**
 * How a removed view reads to the kernel: "destroyed" while its panel is
 * still in the page (or it had none: a front end without panels), else
 * "detached" (the panel itself is closing).
 * @param {{isConnected: boolean} | null} host
 * @returns {ViewEvent}
 */
export function removalEvent(host) {
  return host === null || host.isConnected ? "destroyed" : "detached";
}

/**
 * This page's live views per widget.
 * @param {any} win
 * @returns {Map<string, Set<string>>}
 */
function registry(win) {
  if (!(win.__agentNbViews instanceof Map)) win.__agentNbViews = new Map();
  return win.__agentNbViews;
}

/**
 * Tell the kernel this page made the widget's model (anywidget's initialize):
 * a notebook that connected to a running kernel restores every widget it
 * has, and one whose cell no longer shows it (an unsaved notebook reloaded)
 * never renders a view; the kernel closes it after its grace period unless a
 * view attaches (lifecycle.py, ``connected``).
 * @param {object} options
 * @param {string} options.key  the widget's id (its ``view_key`` trait)
 * @param {(msg: ViewMsg) => void} options.post
 * @param {Window} options.win
 */
export function announceModel({ key, post, win }) {
  const page = pageId(/** @type {any} */ (win));
  const live = [...(registry(win).get(key) ?? [])];
  post({ type: "view", event: "connected", page_id: page, view_id: "", live });
}

/**
 * Report this view: attached now, then destroyed / detached on removal, and
 * page_gone when the page unloads. Returns the cleanup for `render`'s.
 * @param {object} options
 * @param {HTMLElement} options.el
 * @param {string} options.key  the widget's id (its ``view_key`` trait)
 * @param {(msg: ViewMsg) => void} options.post
 * @param {Window} options.win
 */
export function trackView({ el, key, post, win }) {
  const page = pageId(/** @type {any} */ (win));
  const view = randomId();
  const views = registry(win);
  const mine = views.get(key) ?? new Set();
  views.set(key, mine);
  /** @param {ViewEvent} event @param {string} viewId */
  const tell = (event, viewId) =>
    post({ type: "view", event, page_id: page, view_id: viewId, live: [...mine] });
  /** @type {Element | null} */
  let host = null;
  let timer = 0;
  // The view is rendered before Lab attaches it: find its panel once it is in the page.
  const findHost = () => {
    timer = 0;
    if (el.isConnected) host = el.closest(HOST_SELECTOR);
    else timer = win.setTimeout(findHost, 100);
  };
  findHost();
  const onPageHide = () => tell("page_gone", "");
  win.addEventListener("pagehide", onPageHide);
  mine.add(view);
  tell("attached", view);
  return () => {
    if (timer) win.clearTimeout(timer);
    win.removeEventListener("pagehide", onPageHide);
    mine.delete(view);
    if (!mine.size) views.delete(key);
    try {
      tell(removalEvent(host), view);
    } catch {
      // The widget closed first (its comm is gone): nothing left to tell.
    }
  };
}
