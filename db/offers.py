"""Queries on the offers table: filtered lookups, all-or-nothing CSV import, CSV export.

Every filter is a bound SQL parameter, never text pasted into the statement, so a provider
named `x'; DROP TABLE offers; --` is only a name.
"""

from __future__ import annotations

import csv
import datetime as dt
import io
from dataclasses import dataclass, field
from typing import Any
from weakref import WeakKeyDictionary

from pydantic import ValidationError

from clusterplan.db.catalog import UnknownName, load_catalog
from clusterplan.db.rows import OfferRow
from clusterplan.db.store import Store
from clusterplan.validation import describe

# The order of columns in an exported file (and the columns an imported file may have).
COLUMNS = ("provider", "gpu", "gpus_per_node", "kind", "usd_per_gpu_hour", "usd_per_node_hour",
           "region", "verified_on", "status", "source_note", "product", "origin")
REQUIRED = ("provider", "gpu", "gpus_per_node", "kind", "verified_on", "source_note")


def find_offers(store: Store, gpu: str | None = None, provider: str | None = None,
                kinds: tuple[str, ...] = ()) -> list[OfferRow]:
    """Offers matching every filter given, cheapest stated figure first."""
    return [row for row_gpu, row_provider, row_kind, row in _all_offers(store)
            if (gpu is None or row_gpu == gpu) and (provider is None or row_provider == provider)
            and (not kinds or row_kind in kinds)]


# Every offer of a store, read and validated once: a batch prices hundreds of questions from
# the same rows. Kept while the catalog fingerprint and SQLite's data_version (bumped when
# another connection commits) stay the same; this module's own import clears it.
_cache: WeakKeyDictionary[Store, tuple[tuple[Any, ...], list[tuple[str, str, str, OfferRow]]]]
_cache = WeakKeyDictionary()


def _all_offers(store: Store) -> list[tuple[str, str, str, OfferRow]]:
    """(gpu, provider, kind as stored, row) for every offer, in the order lookups return."""
    version = (store.meta("catalog"),
               store.conn.execute("pragma data_version").fetchone()[0])
    cached = _cache.get(store)
    if cached is not None and cached[0] == version:
        return cached[1]
    sql = ("select * from offers "
           "order by provider, gpu, kind, gpus_per_node, verified_on desc, id")
    rows = [(r["gpu"], r["provider"], r["kind"], _row(r))
            for r in store.rows(sql)]
    _cache[store] = (version, rows)
    return rows


def offers_on_record(store: Store) -> list[Any]:
    """Every offer of the store as read now: the same list object until the offers change."""
    return _all_offers(store)


# Writes this process made to each store's offers (SQLite's data_version counts only others').
_writes: WeakKeyDictionary[Store, int] = WeakKeyDictionary()


def offers_version(store: Store) -> tuple[Any, ...]:
    """A token that changes whenever the offers of `store` may have changed, read without
    reading the offers (a store may hold 100,000 of them)."""
    return (id(store), store.meta("catalog"),
            store.conn.execute("pragma data_version").fetchone()[0], _writes.get(store, 0))


def forget_offers(store: Store) -> None:
    """Drop the offers kept for `store` (after rows were written to it)."""
    _cache.pop(store, None)
    _writes[store] = _writes.get(store, 0) + 1


def offer_providers(store: Store) -> list[str]:
    """Every provider name that has an offer, catalog or imported."""
    rows = store.conn.execute("select distinct provider from offers order by provider").fetchall()
    return [r[0] for r in rows]


def _row(record: dict[str, Any]) -> OfferRow:
    fields = OfferRow.model_fields
    return OfferRow.model_validate({k: v for k, v in record.items() if k in fields})


@dataclass
class ImportReport:
    """What an import did or would do: rows added, duplicates skipped, or why it was refused."""

    added: list[OfferRow] = field(default_factory=list)
    duplicates: int = 0
    problems: list[str] = field(default_factory=list)
    dry_run: bool = False


def import_offers(store: Store, text: str, dry_run: bool = False,
                  today: dt.date | None = None) -> ImportReport:
    """Validate every row, then add the new ones in one transaction, or none if any is bad."""
    report = ImportReport(dry_run=dry_run)
    rows = _read_file(store, text, today or dt.date.today(), report.problems)
    if report.problems:
        return report
    seen = {_key(r) for r in find_offers(store)}
    for row in rows:
        if _key(row) in seen:
            report.duplicates += 1
            continue
        seen.add(_key(row))
        report.added.append(row)
    if report.added and not dry_run:
        records = [r.model_dump(mode="json") for r in report.added]
        try:
            with store.db.atomic():
                store.db["offers"].insert_all(records)
        finally:
            forget_offers(store)
    return report


def _read_file(store: Store, text: str, today: dt.date, problems: list[str]) -> list[OfferRow]:
    reader = csv.DictReader(io.StringIO(text.lstrip("\ufeff")))
    header = [h.strip() for h in reader.fieldnames or []]
    unknown = [h for h in header if h not in COLUMNS]
    missing = [h for h in REQUIRED if h not in header]
    if unknown or missing or not header:
        problems.append(_header_problem(unknown, missing))
        return []
    rows = []
    while True:
        try:
            raw = next(reader)
        except StopIteration:
            break
        except csv.Error as exc:  # e.g. a cell over the csv module's field size limit
            problems.append(f"line {reader.line_num}: {exc}; the file is not read further")
            break
        line = reader.line_num
        try:
            rows.append(_read_row(store, raw, today))
        except ValueError as exc:
            problems.append(f"line {line}: {exc}")
    if not rows and not problems:
        problems.append("the file has a header but no rows")
    return rows


def _header_problem(unknown: list[str], missing: list[str]) -> str:
    parts = []
    if missing:
        parts.append(f"missing column(s) {', '.join(missing)}")
    if unknown:
        parts.append(f"unknown column(s) {', '.join(unknown)}")
    return f"line 1: {'; '.join(parts) or 'no header'}; columns are {', '.join(COLUMNS)}"


def _read_row(store: Store, raw: dict[str | None, Any], today: dt.date) -> OfferRow:
    """One CSV row as a user offer; ValueError names the column and the reason."""
    if None in raw:
        raise ValueError("more cells than columns")
    values = {k.strip(): v for k, v in raw.items() if k is not None}
    values["origin"] = "user"  # whatever the file says, an imported row is the user's
    try:
        row = OfferRow.model_validate(values)
    except ValidationError as exc:
        # A rule across columns has no one field to name: drop describe()'s "input: " label.
        parts = describe(exc).split("; ")
        raise ValueError("; ".join(p.removeprefix("input: ") for p in parts)) from None
    catalog = load_catalog(store)
    try:
        gpu = catalog.gpus.find(row.gpu).id
    except UnknownName as exc:
        raise ValueError(f"gpu: {exc}") from None
    try:
        provider = catalog.providers.find(row.provider).id
    except UnknownName:
        provider = row.provider  # a provider the catalog does not know is still a provider
    if row.verified_on > today:
        raise ValueError(f"verified_on: {row.verified_on} is after today ({today})")
    return row.model_copy(update={"gpu": gpu, "provider": provider})


def _key(row: OfferRow) -> tuple[Any, ...]:
    """What makes two rows the same offer: every column but where it came from."""
    dumped = row.model_dump(mode="json")
    return tuple(dumped[c] for c in COLUMNS if c != "origin")


def export_offers(store: Store, origin: str = "all") -> str:
    """The offers as CSV text in the import format (origin 'all', 'user' or 'catalog')."""
    rows = find_offers(store)
    if origin != "all":
        rows = [r for r in rows if r.origin == origin]
    out = io.StringIO()
    writer = csv.DictWriter(out, fieldnames=COLUMNS, lineterminator="\n")
    writer.writeheader()
    for row in rows:
        dumped = row.model_dump(mode="json")
        writer.writerow({c: _cell(dumped[c]) for c in COLUMNS})
    return out.getvalue()


def _cell(value: Any) -> Any:
    """A CSV cell; text a spreadsheet would run as a formula (=, +, -, @, tab, CR first) is
    prefixed with a quote, as OWASP advises against CSV injection."""
    if value is None:
        return ""
    if isinstance(value, str) and value[:1] in ("=", "+", "-", "@", "\t", "\r"):
        return "'" + value
    return value
