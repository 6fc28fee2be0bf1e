"""Checks that rendered Markdown is inert, shared by the render and magic tests.

The renderers are the ones Jupyter front ends use, all with raw HTML enabled:
markdown-it (CommonMark), mistune (nbconvert) and marked (JupyterLab, run in
node from the repository's node_modules).
"""

from __future__ import annotations

import json
import pathlib
import re
import shutil
import subprocess
import urllib.parse
from html.parser import HTMLParser

import markdown_it
import mistune

__all__ = ["assert_inert", "render_all", "render_marked"]

ROOT = pathlib.Path(__file__).resolve().parents[1]
# Tags a Markdown renderer makes itself, plus the <code> that safe_markdown emits.
ALLOWED_TAGS = {
    "p", "code", "pre", "em", "strong", "a", "ul", "ol", "li", "blockquote", "hr", "br",
    "h1", "h2", "h3", "h4", "h5", "h6", "table", "thead", "tbody", "tr", "th", "td", "del",
    "s", "input",
}  # fmt: skip
ALLOWED_ATTRS = {"href", "class", "title", "align", "start", "style", "type", "checked",
                 "disabled", "id"}  # fmt: skip
_DANGEROUS_URL = re.compile(r"^\s*(javascript|vbscript|data|file)\s*:", re.IGNORECASE)

_markdown_it = markdown_it.MarkdownIt("commonmark", {"html": True})
_markdown_it.enable(["table", "strikethrough"])
_mistune = mistune.create_markdown(escape=False, plugins=["table", "strikethrough", "url"])


class _Inspector(HTMLParser):
    def __init__(self) -> None:
        super().__init__(convert_charrefs=True)
        self.problems: list[str] = []

    def handle_starttag(self, tag: str, attrs: list[tuple[str, str | None]]) -> None:
        if tag not in ALLOWED_TAGS:
            self.problems.append(f"live <{tag}> tag")
        for name, value in attrs:
            if name.startswith("on") or name not in ALLOWED_ATTRS:
                self.problems.append(f"attribute {name}={value!r} on <{tag}>")
            if name in ("href", "src") and value is not None:
                url = urllib.parse.unquote(value)
                if _DANGEROUS_URL.match(url):
                    self.problems.append(f"{name}={value!r}")

    def handle_startendtag(self, tag: str, attrs: list[tuple[str, str | None]]) -> None:
        self.handle_starttag(tag, attrs)

    def handle_comment(self, data: str) -> None:
        self.problems.append(f"comment <!--{data}-->")


def assert_inert(html: str, source: str = "") -> None:
    inspector = _Inspector()
    inspector.feed(html)
    inspector.close()
    assert not inspector.problems, f"{inspector.problems} in {html!r} (from {source!r})"


def render_marked(sources: list[str]) -> list[str]:
    """Render with marked (what JupyterLab uses), all in one node process."""
    node = shutil.which("node")
    assert node, "node is needed to check rendering with marked (apt-get install nodejs)"
    marked = ROOT / "node_modules" / "marked"
    assert marked.is_dir(), "run `npm ci` in the repository first (marked comes from there)"
    script = (
        "import { marked } from 'marked';"
        "let s='';process.stdin.on('data',d=>s+=d).on('end',()=>{"
        "process.stdout.write(JSON.stringify(JSON.parse(s).map(m=>marked.parse(m,{gfm:true}))))})"
    )
    done = subprocess.run(
        [node, "--input-type=module", "-e", script],
        input=json.dumps(sources), capture_output=True, text=True, cwd=ROOT, timeout=60,
        check=True,
    )  # fmt: skip
    rendered: list[str] = json.loads(done.stdout)
    return rendered


def render_all(markdown: str) -> dict[str, str]:
    """The Python renderers (marked is batched separately: it needs a process)."""
    return {"markdown-it": _markdown_it.render(markdown), "mistune": str(_mistune(markdown))}
