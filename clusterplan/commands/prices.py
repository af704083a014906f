"""`clusterplan prices`: the GPU rental offers in the store; list, import and export them."""

from __future__ import annotations

import datetime as dt
import json
from pathlib import Path
from typing import TYPE_CHECKING

import click

from clusterplan.commands.common import UsageFailure, emit, store

if TYPE_CHECKING:
    from clusterplan.tools.pricing.offers import Offer

# Offers listed by default: a store can hold 100,000 imported rows.
LIMIT = 100
KINDS = ("on_demand", "spot", "reserved_1m", "reserved_1y", "reserved_3y", "capacity_block")


@click.group("prices")
def prices_group() -> None:
    """GPU rental offers: list them, import your own from CSV, export them as CSV."""


@prices_group.command("list")
@click.option("--gpu", help="Only this GPU (an id or a name, e.g. h100 or h200-sxm).")
@click.option("--provider", help="Only this provider (e.g. aws, coreweave).")
@click.option("--kind", type=click.Choice(KINDS), help="Only this pricing kind.")
@click.option("--json", "as_json", is_flag=True, help="Print the offers as JSON.")
@click.option("--limit", type=click.IntRange(min=0), default=LIMIT, show_default=True,
              help="List at most this many offers, cheapest first; 0 lists them all.")
@click.pass_context
def list_prices(ctx: click.Context, gpu: str | None, provider: str | None, kind: str | None,
                as_json: bool, limit: int) -> None:
    """One line per offer, cheapest $/GPU-hour first, with its date and source note."""
    # lazy: loaded when this command runs, so `--help` and the others start fast
    from clusterplan.db.catalog import UnknownName, load_catalog
    from clusterplan.tools.pricing.lookup import OfferFilter, find
    from clusterplan.tools.pricing.offers import price_disagreements

    opened = store(ctx)
    catalog = load_catalog(opened)
    if gpu:
        try:
            gpu = catalog.gpus.find(gpu).id
        except UnknownName as exc:
            raise UsageFailure(f"--gpu: {exc}") from None
    if provider:
        try:
            provider = catalog.providers.find(provider).id
        except UnknownName:
            pass  # an imported offer may name a provider the catalog does not know
    today = dt.date.today()
    found = find(opened, OfferFilter(gpu=gpu, provider=provider, kinds=(kind,) if kind else ()),
                 today, limit or None)
    offers = found.listed[:limit] if limit else found.listed
    rest = found.total - len(offers)
    more = (f"{rest} more offer(s) not listed; --limit 0 lists all {found.total}"
            if rest else "")
    if as_json:
        click.echo(json.dumps([o.model_dump(mode="json") for o in offers], indent=2))
        if more:
            click.echo(more, err=True)
        return
    if not offers:
        click.echo("no offer matches; `clusterplan prices list` shows them all")
        return
    _print_table(offers)
    if more:
        click.echo(more)
    for problem in price_disagreements(found.warned, found.spans, found.per_product):
        click.echo(f"warning: {problem}", err=True)


def _print_table(offers: list[Offer]) -> None:
    """Aligned columns, prices right-aligned to the cent (three places per GPU-hour, where
    providers quote tenths of a cent); the last column (note, status, product) runs free."""
    header = ("provider", "gpu", "kind", "$/GPU-h", "$/node-h", "GPUs", "verified", "note")
    rows = [(o.provider, o.gpu, o.kind, f"{o.effective_usd_per_gpu_hour:,.3f}",
             f"{o.usd_per_node_hour:,.2f}", str(o.gpus_per_node),
             f"{o.verified_on}{' stale' if o.stale else ''}",
             o.source_note + (" (announced)" if o.status == "announced" else "")
             + (" (prices disagree)" if o.prices_disagree else "")
             + (f" [{o.product}{', ' + o.region if o.region else ''}]"
                if o.product or o.region else ""))
            for o in offers]
    widths = [max(len(r[i]) for r in [header, *rows]) for i in range(len(header) - 1)]
    for row in [header, *rows]:
        cells = [c.rjust(w) if i in (3, 4, 5) else c.ljust(w)
                 for i, (c, w) in enumerate(zip(row, widths, strict=False))]
        click.echo("  ".join([*cells, row[-1]]).rstrip())


@prices_group.command("import")
@click.argument("file", type=click.Path(dir_okay=False, path_type=Path))
@click.option("--dry-run", is_flag=True, help="Check the file and say what would be added.")
@click.pass_context
def import_prices(ctx: click.Context, file: Path, dry_run: bool) -> None:
    """Add the offers in FILE (CSV, the export format); one bad row refuses the whole file."""
    # lazy: loaded when this command runs, so `--help` and the others start fast
    from clusterplan.db.offers import import_offers

    try:
        text = file.read_text(encoding="utf-8")
    except (OSError, UnicodeDecodeError) as exc:
        raise UsageFailure(f"cannot read {file}: {getattr(exc, 'strerror', None) or exc}") \
            from None
    report = import_offers(store(ctx), text, dry_run=dry_run)
    if report.problems:
        rows = "\n".join(f"  {p}" for p in report.problems)
        raise UsageFailure(f"{file} was not imported ({len(report.problems)} problem(s)); "
                           f"the store is unchanged:\n{rows}")
    skipped = f" ({report.duplicates} already in the store, skipped)" if report.duplicates else ""
    if dry_run:
        click.echo(f"would import {len(report.added)} offer(s) from {file}{skipped}; "
                   "dry run, the store is unchanged")
    else:
        click.echo(f"imported {len(report.added)} offer(s) from {file}{skipped}")


@prices_group.command("export")
@click.option("--origin", type=click.Choice(["all", "user", "catalog"]), default="all",
              show_default=True, help="Which offers: all, only imported ones, only shipped ones.")
@click.option("-o", "--output", type=click.Path(dir_okay=False, path_type=Path),
              help="Write to this file instead of standard output.")
@click.pass_context
def export_prices(ctx: click.Context, origin: str, output: Path | None) -> None:
    """Print the offers as CSV, in the format `prices import` reads."""
    # lazy: loaded when this command runs, so `--help` and the others start fast
    from clusterplan.db.offers import export_offers

    text = export_offers(store(ctx), origin)
    if emit(text, output):
        click.echo(f"wrote {text.count(chr(10)) - 1} offer(s) to {output}")
