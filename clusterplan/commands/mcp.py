"""`clusterplan mcp`: serve the tools over the Model Context Protocol on stdio."""

from __future__ import annotations

import click

from clusterplan.commands.common import store


@click.command("mcp")
@click.pass_context
def mcp_command(ctx: click.Context) -> None:
    """Serve every tool, `ask` and the notes over MCP (stdio), for agents and editors."""
    # lazy: loaded when this command runs, so `--help` and the others start fast
    import anyio

    from clusterplan.mcp_server import serve_stdio

    store(ctx)
    anyio.run(serve_stdio)
