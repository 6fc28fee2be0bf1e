// Model output is untrusted. It is rendered as Markdown with every raw HTML
// token shown as text, then sanitised again by DOMPurify with a tight
// allow-list, so neither a tag the model writes nor a bug in the Markdown
// layer can run script. Images are not loaded (a remote image URL is a way to
// leak conversation data); they become plain links.

import DOMPurify from "dompurify";
import { Marked } from "marked";

/** @param {string} text */
function escapeHtml(text) {
  return text
    .replaceAll("&", "&amp;")
    .replaceAll("<", "&lt;")
    .replaceAll(">", "&gt;")
    .replaceAll('"', "&quot;")
    .replaceAll("'", "&#39;");
}

const SAFE_URL = /^(?:https?:|mailto:|#|\/(?!\/)|\.\.?\/)/i;

const marked = new Marked({
  gfm: true,
  breaks: false,
  async: false,
  renderer: {
    html({ text }) {
      return escapeHtml(text);
    },
    image({ href, text }) {
      const label = escapeHtml(text || "image");
      if (!SAFE_URL.test(href ?? "")) return `[${label}]`;
      return `<a href="${escapeHtml(href)}">[image: ${label}]</a>`;
    },
  },
});

const PURIFY_CONFIG = {
  ALLOWED_TAGS: [
    "a", "b", "blockquote", "br", "code", "del", "em", "h1", "h2", "h3", "h4",
    "h5", "h6", "hr", "i", "input", "li", "ol", "p", "pre", "s", "span",
    "strong", "sub", "sup", "table", "tbody", "td", "th", "thead", "tr", "ul",
  ],
  ALLOWED_ATTR: ["href", "title", "class", "align", "start", "type", "checked", "disabled"],
  FORBID_TAGS: ["iframe", "script", "style", "svg", "math", "object", "embed", "form", "img"],
  FORBID_ATTR: ["srcdoc", "style", "src", "action", "formaction"],
  ALLOWED_URI_REGEXP: SAFE_URL,
  ALLOW_DATA_ATTR: false,
  RETURN_DOM_FRAGMENT: true,
};

let hooked = false;

function installHooks() {
  if (hooked) return;
  hooked = true;
  DOMPurify.addHook("uponSanitizeAttribute", (_node, data) => {
    if (data.attrName.startsWith("on")) data.keepAttr = false;
  });
  DOMPurify.addHook("afterSanitizeAttributes", (node) => {
    if (node.tagName === "A") {
      const href = node.getAttribute("href") ?? "";
      if (!SAFE_URL.test(href)) node.removeAttribute("href");
      node.setAttribute("target", "_blank");
      node.setAttribute("rel", "noopener noreferrer nofollow");
    }
    if (node.tagName === "INPUT") {
      // Only GFM task-list checkboxes survive, and they are inert.
      if (node.getAttribute("type") !== "checkbox") node.remove();
      else node.setAttribute("disabled", "");
    }
  });
}

/**
 * Markdown -> a sanitised DocumentFragment (never an HTML string that could be
 * re-parsed later).
 * @param {string} text
 * @returns {DocumentFragment}
 */
export function renderMarkdown(text) {
  installHooks();
  const html = /** @type {string} */ (marked.parse(text));
  return /** @type {DocumentFragment} */ (
    /** @type {unknown} */ (DOMPurify.sanitize(html, PURIFY_CONFIG))
  );
}

/**
 * Give every code block a copy button (built with DOM calls, not HTML).
 * @param {ParentNode} root
 */
export function addCopyButtons(root) {
  for (const pre of root.querySelectorAll("pre")) {
    const code = pre.querySelector("code");
    if (!code || pre.parentElement?.classList.contains("anb-code")) continue;
    const wrap = document.createElement("div");
    wrap.className = "anb-code";
    pre.replaceWith(wrap);
    wrap.append(pre);
    const button = document.createElement("button");
    button.type = "button";
    button.className = "anb-copy";
    button.textContent = "Copy";
    button.title = "Copy code";
    button.addEventListener("click", () => copyText(code.textContent ?? "", button));
    wrap.append(button);
  }
}

/**
 * @param {string} text
 * @param {HTMLButtonElement} button
 */
async function copyText(text, button) {
  let ok = false;
  try {
    await navigator.clipboard.writeText(text);
    ok = true;
  } catch {
    const area = document.createElement("textarea");
    area.value = text;
    area.style.position = "fixed";
    area.style.opacity = "0";
    document.body.append(area);
    area.select();
    ok = document.execCommand("copy");
    area.remove();
  }
  button.textContent = ok ? "Copied" : "Copy failed";
  setTimeout(() => {
    button.textContent = "Copy";
  }, 1200);
}
