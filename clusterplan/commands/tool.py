"""`clusterplan tool`: list the registered tools, or run one on a JSON input."""

from __future__ import annotations

import shutil
from pathlib import Path

import click

from clusterplan.commands.common import UsageFailure, echo_json, store


class ToolGroup(click.Group):
    """`tool list` is a command; any other word is the name of a tool to run."""

    def get_command(self, ctx: click.Context, cmd_name: str) -> click.Command | None:
        return super().get_command(ctx, cmd_name) or _run_command(cmd_name)


@click.group(cls=ToolGroup)
def tool() -> None:
    """Run the calculators directly: `tool list`, or `tool NAME --input JSON`."""


@tool.command("list")
@click.option("--json", "as_json", is_flag=True,
              help="Print each tool with its input and output JSON Schemas (the default when "
                   "piped).")
def list_tools(as_json: bool) -> None:
    """One line per tool in a terminal; its JSON Schemas with --json or when piped."""
    # lazy: loaded when this command runs, so `--help` and the others start fast
    from clusterplan.commands.terminal import is_terminal
    from clusterplan.tools.registry import tools

    listed = tools().values()
    if as_json or not is_terminal():
        echo_json([t.schema() for t in listed])
        return

    width = shutil.get_terminal_size((100, 24)).columns
    for entry in listed:
        line = f"{entry.name} - " + " ".join(str(entry.schema().get("description", "")).split())
        click.echo(line if len(line) <= width else line[: width - 1].rstrip() + "…")


def _run_command(name: str) -> click.Command:
    @click.command(name)
    @click.option("--input", "input_text", required=True, metavar="JSON|@FILE",
                  help="The tool input as JSON, or @path to a JSON file.")
    @click.option("--all-layouts", "all_layouts", type=click.Path(dir_okay=False, path_type=Path),
                  default=None, metavar="FILE",
                  help="parallelism (training): also write every layout the search evaluated "
                       "to FILE as CSV, with its step-time parts or why it was rejected.")
    @click.pass_context
    def run_tool(ctx: click.Context, input_text: str, all_layouts: Path | None) -> None:
        """Run one tool on a JSON input and print its result as JSON."""
        # lazy: loaded when this command runs, so `--help` and the others start fast
        from clusterplan.tools import registry
        from clusterplan.tools.contract import ToolError

        if all_layouts is not None and name != "parallelism":
            raise UsageFailure("--all-layouts lists the parallelism tool's layouts; "
                               f"{name!r} has none")
        try:
            registry.get(name)
            payload = registry.parse_json_input(_read_input(input_text))
            store(ctx)
            result = registry.invoke(name, payload)
            if all_layouts is not None:
                rows, count = _write_layouts(all_layouts, registry.validate(name, payload),
                                             result)
                click.echo(f"wrote {rows:,} rows ({count:,} layouts) to {all_layouts}",
                           err=True)
        except ToolError as exc:
            raise UsageFailure(str(exc)) from None
        echo_json(result)

    return run_tool


MAX_INPUT_BYTES = 1_000_000  # a tool input is a small JSON object; more is a mistake


def _read_input(text: str) -> str:
    if not text.startswith("@"):
        if len(text) > MAX_INPUT_BYTES:
            raise UsageFailure(f"the input is {len(text):,} characters; at most "
                               f"{MAX_INPUT_BYTES:,} are read")
        return text
    path = Path(text[1:])
    try:
        with path.open("rb") as handle:
            data = handle.read(MAX_INPUT_BYTES + 1)
    except OSError as exc:
        raise UsageFailure(f"cannot read the input file {path}: {exc.strerror}") from None
    if len(data) > MAX_INPUT_BYTES:
        raise UsageFailure(f"the input file {path} is over {MAX_INPUT_BYTES:,} bytes")
    try:
        return data.decode("utf-8")
    except UnicodeDecodeError as exc:
        raise UsageFailure(f"the input file {path} is not UTF-8 text (byte {exc.start})") from None


def _write_layouts(path: Path, inp: object, result: object) -> tuple[int, int]:
    """Every evaluated layout as CSV (tools/parallelism/all_layouts); the rows written and the
    layouts they stand for."""
    # lazy: loaded when this option is used, so `--help` and the others start fast
    import csv
    import io

    from clusterplan.commands.common import emit
    from clusterplan.tools.parallelism.all_layouts import COLUMNS, every_layout

    rows = every_layout(inp, result)
    out = io.StringIO()
    writer = csv.DictWriter(out, fieldnames=COLUMNS, lineterminator="\n")
    writer.writeheader()
    writer.writerows(rows)
    emit(out.getvalue(), path)
    return len(rows), sum(row["layouts"] for row in rows)
