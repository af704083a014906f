"""`clusterplan models`: the catalog's models and your own, imported from a config.json."""

from __future__ import annotations

import json
from pathlib import Path

import click

from clusterplan.commands.common import UsageFailure, echo_json, store


@click.group("models")
def models_group() -> None:
    """Models: list them, show one's shape, import your own from a Hugging Face config.json."""


@models_group.command("list")
@click.option("--family", help="Only this family (e.g. llama-3, qwen3, deepseek-v3).")
@click.option("--origin", type=click.Choice(["all", "user", "catalog"]), default="all",
              show_default=True, help="Which models: all, only imported ones, only shipped ones.")
@click.option("--json", "as_json", is_flag=True, help="Print the models as JSON.")
@click.pass_context
def list_models(ctx: click.Context, family: str | None, origin: str, as_json: bool) -> None:
    """One line per model: id, parameters (active for a MoE), layers, attention, context."""
    # lazy: loaded when this command runs, so `--help` and the others start fast
    from clusterplan.db.catalog import load_catalog, normalise

    rows = sorted(load_catalog(store(ctx)).models.rows.values(),
                  key=lambda r: (r.family, r.params_b, r.id))
    if family:
        rows = [r for r in rows if normalise(r.family) == normalise(family)]
    if origin != "all":
        rows = [r for r in rows if r.origin == origin]
    if as_json:
        click.echo(json.dumps([r.model_dump(mode="json") for r in rows], indent=2))
        return
    if not rows:
        click.echo("no model matches; `clusterplan models list` shows them all")
        return
    header = ("id", "family", "params", "active", "layers", "attention", "context", "weights",
              "note")
    table = [(r.id, r.family, f"{r.params_b:g}B",
              f"{r.active_params_b:g}B" if r.experts > 1 else "",
              str(r.layers), r.attention, _context(r.max_context), r.native_precision,
              r.source_note + (" (imported)" if r.origin == "user" else "")) for r in rows]
    widths = [max(len(t[i]) for t in [header, *table]) for i in range(len(header) - 1)]
    for line in [header, *table]:
        cells = [c.ljust(w) for c, w in zip(line, widths, strict=False)]
        click.echo("  ".join([*cells, line[-1]]).rstrip())


def _context(tokens: int) -> str:
    return f"{tokens // 1024}K" if tokens % 1024 == 0 and tokens >= 1024 else str(tokens)


@models_group.command("show")
@click.argument("name")
@click.option("--json", "as_json", is_flag=True, help="Print the row as JSON.")
@click.pass_context
def show_model(ctx: click.Context, name: str, as_json: bool) -> None:
    """Every column of one model, found by id, name or alias (e.g. 'qwen2.5:72b')."""
    # lazy: loaded when this command runs, so `--help` and the others start fast
    from clusterplan.db.catalog import UnknownName, load_catalog

    try:
        row = load_catalog(store(ctx)).models.find(name)
    except UnknownName as exc:
        raise UsageFailure(str(exc)) from None
    if as_json:
        echo_json(row)
        return
    _print_row(row)


def _print_row(row: object) -> None:
    # lazy: loaded when this command runs, so `--help` and the others start fast
    from clusterplan.db.rows import ModelRow

    assert isinstance(row, ModelRow)
    click.echo(f"{row.name}  [{row.id}]" + ("  (imported)" if row.origin == "user" else ""))
    for field, value in row.model_dump().items():
        if field in ("id", "name") or value is None or value == "":
            continue
        click.echo(f"  {field:<22} {value}")


@models_group.command("import")
@click.argument("path", type=click.Path(path_type=Path))
@click.option("--name", help="The model's name (default: the repo id in the config, or the "
              "folder's name).")
@click.option("--id", "row_id", help="The id to store it under (default: from the name).")
@click.option("--params-b", type=click.FloatRange(min=0, min_open=True),
              help="The published parameter count in billions (default: counted from the "
              "shape).")
@click.option("--active-params-b", type=click.FloatRange(min=0, min_open=True),
              help="A MoE's published active parameters per token, in billions.")
@click.option("--dry-run", is_flag=True, help="Read the file and show the row; store nothing.")
@click.pass_context
def import_model_command(ctx: click.Context, path: Path, name: str | None, row_id: str | None,
                         params_b: float | None, active_params_b: float | None,
                         dry_run: bool) -> None:
    """Add the model whose Hugging Face config.json is PATH (or a folder holding one).

    The row survives catalog upgrades; importing the same id again replaces it.
    """
    # lazy: loaded when this command runs, so `--help` and the others start fast
    from clusterplan.db.hf_config import ConfigError
    from clusterplan.db.models import import_model

    if path.is_dir():
        path = path / "config.json"
    try:
        done = import_model(store(ctx), path, name, row_id, params_b, active_params_b,
                            dry_run=dry_run)
    except ConfigError as exc:
        raise UsageFailure(f"{path} was not imported: {exc}") from None
    row = done.row
    size = f"{row.params_b:g}B parameters" + (
        f", {row.active_params_b:g}B active" if row.experts > 1 else "")
    how = " (counted from the shape)" if done.counted else ""
    verb = "would import" if dry_run else "replaced" if done.replaced else "imported"
    click.echo(f"{verb} {row.id}: {row.name}, {size}{how}, {row.layers} layers, "
               f"{row.attention.upper()}" + ("; dry run, the store is unchanged"
                                             if dry_run else ""))


@models_group.command("remove")
@click.argument("name")
@click.pass_context
def remove_model_command(ctx: click.Context, name: str) -> None:
    """Delete a model you imported (catalog models cannot be removed)."""
    # lazy: loaded when this command runs, so `--help` and the others start fast
    from clusterplan.db.models import remove_model

    row = remove_model(store(ctx), name)
    if row is None:
        raise UsageFailure(f"{name!r} is not a model you imported; "
                           "`clusterplan models list --origin user` shows them")
    click.echo(f"removed {row.id}")
