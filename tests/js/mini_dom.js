// A minimal stand-in for `document`, enough for the DOM-building helpers in
// js/transcript.js and js/live.js to run under `node --test`. The real DOM is
// covered by the browser tests (tests/jupyter/test_widget_browser.py).

class MiniElement {
  /** @param {string} tag */
  constructor(tag) {
    this.tagName = tag.toUpperCase();
    this.className = "";
    /** @type {MiniElement[]} */
    this.children = [];
    this.ownText = "";
    this.dataset = {};
    /** @type {Record<string, string>} */
    this.attributes = {};
    this.open = false;
    /** @type {Record<string, Function[]>} */
    this.listeners = {};
    const self = this;
    this.classList = {
      /** @param {string} name */
      add(name) {
        if (!self.classList.contains(name)) self.className = `${self.className} ${name}`.trim();
      },
      /** @param {string} name */
      contains(name) {
        return self.className.split(/\s+/).includes(name);
      },
    };
  }

  get textContent() {
    return this.ownText + this.children.map((c) => c.textContent).join("");
  }

  set textContent(text) {
    this.ownText = String(text);
    this.children = [];
  }

  get childNodes() {
    return this.children;
  }

  /** @param {...MiniElement} nodes */
  append(...nodes) {
    this.children.push(...nodes);
  }

  /** @param {...MiniElement} nodes */
  replaceChildren(...nodes) {
    this.ownText = "";
    this.children = [...nodes];
  }

  /** @param {string} name @param {string} value */
  setAttribute(name, value) {
    this.attributes[name] = String(value);
  }

  /** @param {string} name */
  getAttribute(name) {
    return this.attributes[name] ?? null;
  }

  /** @param {string} type @param {Function} fn */
  addEventListener(type, fn) {
    (this.listeners[type] ??= []).push(fn);
  }

  /** @param {string} type */
  dispatch(type) {
    for (const fn of this.listeners[type] ?? []) fn();
  }

  /** Every descendant (depth first) whose class list has ``name``. @param {string} name */
  findAll(name) {
    /** @type {MiniElement[]} */
    const found = [];
    for (const child of this.children) {
      if (child.classList.contains(name)) found.push(child);
      found.push(...child.findAll(name));
    }
    return found;
  }
}

export const miniDocument = {
  /** @param {string} tag */
  createElement(tag) {
    return new MiniElement(tag);
  },
};

/** A Markdown filler that shows the raw text (markdown.js needs a real DOM). */
export function plainText(/** @type {MiniElement} */ body, /** @type {string} */ text) {
  body.textContent = text;
}
