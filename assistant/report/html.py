"""The planning report as one HTML page that needs nothing from the network.

The same Markdown, rendered; each Mermaid block is read back into its chart and drawn as inline
SVG (report.svg), so the page shows its charts offline, in a mail attachment or on an
intranet, and makes no request when opened. A block that is not one of the report's charts
shows as its text.
"""

from __future__ import annotations

import html
from typing import Any

from clusterplan.assistant.report.charts import parse
from clusterplan.assistant.report.svg import render_svg

STYLE = """
body { font: 15px/1.5 system-ui, sans-serif; max-width: 60rem; margin: 2rem auto;
       padding: 0 1rem; color: #1f2328; }
table { border-collapse: collapse; margin: 0.5rem 0 1rem; }
th, td { border: 1px solid #d0d7de; padding: 0.25rem 0.6rem; text-align: left; }
th { background: #f6f8fa; }
th:empty { padding: 0; border: none; background: none; }  /* a table of labelled rows */
code { background: #f6f8fa; padding: 0 0.2rem; }
details { margin: 0.5rem 0; }
summary { cursor: pointer; font-weight: 600; }
figure.chart { margin: 0.5rem 0 1rem; }
svg.chart { max-width: 100%; height: auto; font: 12px system-ui, sans-serif; }
svg.chart .chart-title { font-size: 14px; }
svg.chart .tick, svg.chart .value { font-size: 11px; fill: #57606a; }
h1, h2 { border-bottom: 1px solid #d8dee4; padding-bottom: 0.2rem; }
"""


def render_html(markdown: str, title: str) -> str:
    """A standalone page of the report's Markdown (tables, <details>, charts as SVG)."""
    # lazy: only the HTML export needs the Markdown parser
    from markdown_it import MarkdownIt

    parser = MarkdownIt("commonmark", {"html": True}).enable("table")
    default_fence = parser.renderer.rules["fence"]  # type: ignore[attr-defined]

    def fence(renderer: Any, tokens: Any, idx: int, options: Any, env: Any) -> str:
        token = tokens[idx]
        if token.info.strip() == "mermaid":
            chart = parse(token.content)
            if chart is not None:
                return f'<figure class="chart">\n{render_svg(chart)}\n</figure>\n'
        return str(default_fence(tokens, idx, options, env))

    parser.add_render_rule("fence", fence)
    body = parser.render(markdown)
    return (f'<!DOCTYPE html>\n<html lang="en">\n<head>\n<meta charset="utf-8">\n'
            f"<title>{html.escape(title)}</title>\n<style>{STYLE}</style>\n</head>\n<body>\n"
            f"{body}</body>\n</html>\n")
