"""Catalog rows found by what a person typed, remembered per catalog, refused with the nearest."""

from __future__ import annotations

from collections.abc import Callable
from typing import Any, Generic, TypeVar

from clusterplan.db.active import catalog
from clusterplan.db.catalog import UnknownName
from clusterplan.tools.contract import ToolError

T = TypeVar("T")

def active_catalog() -> Any:
    """The active store's catalog. Imported here, on first use: the catalog's row models take
    about 0.15 s to import, which `clusterplan tool list` and `--help` never need."""

    return catalog()


class CatalogLookup(Generic[T]):
    """Resolve names in one catalog table; a new catalog (another store) forgets old answers."""

    def __init__(self, table: str, convert: Callable[[Any], T], refusal: str):
        self.table, self.convert, self.refusal = table, convert, refusal
        self._found: dict[str, T] = {}
        self._rows: Any = None

    def find(self, name: str, catalog: Any = None) -> T:
        """The row `name` finds in `catalog` (default: the active catalog), converted."""
        rows = getattr(catalog or active_catalog(), self.table)
        if self._rows is not rows:
            self._found.clear()
            self._rows = rows
        found = self._found.get(name)
        if found is None:
            found = self._found[name] = self.convert(self._row(rows, name))
        return found

    def _row(self, rows: Any, name: str) -> Any:
        try:
            return rows.find(name)
        except UnknownName as exc:
            raise ToolError(self.refusal.format(name=name, nearest=", ".join(exc.nearest))) \
                from None
