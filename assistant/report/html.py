"""The planning report as one HTML page: the same Markdown, rendered, charts drawn by Mermaid.

The page carries its own styles; Mermaid loads from a script tag, so charts draw wherever the
page is opened with a network (without one, each chart shows as its source text).
"""

from __future__ import annotations

import html
from typing import Any

MERMAID = "https://cdn.jsdelivr.net/npm/mermaid@11/dist/mermaid.esm.min.mjs"
STYLE = """
body { font: 15px/1.5 system-ui, sans-serif; max-width: 60rem; margin: 2rem auto;
       padding: 0 1rem; color: #1f2328; }
table { border-collapse: collapse; margin: 0.5rem 0 1rem; }
th, td { border: 1px solid #d0d7de; padding: 0.25rem 0.6rem; text-align: left; }
th { background: #f6f8fa; }
code { background: #f6f8fa; padding: 0 0.2rem; }
details { margin: 0.5rem 0; }
summary { cursor: pointer; font-weight: 600; }
pre.mermaid { background: none; }
h1, h2 { border-bottom: 1px solid #d8dee4; padding-bottom: 0.2rem; }
"""


def render_html(markdown: str, title: str) -> str:
    """A standalone page of the report's Markdown (tables, <details>, Mermaid charts)."""
    # lazy: only the HTML export needs the Markdown parser
    from markdown_it import MarkdownIt

    parser = MarkdownIt("commonmark", {"html": True}).enable("table")
    default_fence = parser.renderer.rules["fence"]  # type: ignore[attr-defined]

    def fence(renderer: Any, tokens: Any, idx: int, options: Any, env: Any) -> str:
        token = tokens[idx]
        if token.info.strip() == "mermaid":
            return f'<pre class="mermaid">{html.escape(token.content)}</pre>\n'
        return str(default_fence(tokens, idx, options, env))

    parser.add_render_rule("fence", fence)
    body = parser.render(markdown)
    return (f'<!DOCTYPE html>\n<html lang="en">\n<head>\n<meta charset="utf-8">\n'
            f"<title>{html.escape(title)}</title>\n<style>{STYLE}</style>\n</head>\n<body>\n"
            f"{body}"
            f'<script type="module">import mermaid from "{MERMAID}";\n'
            f"mermaid.initialize({{startOnLoad: true}});</script>\n</body>\n</html>\n")
