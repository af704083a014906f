"""Read-only views of the catalog tables, with lookup by what a person types."""

from __future__ import annotations

import difflib
import re
from dataclasses import dataclass, field
from functools import lru_cache
from typing import Generic, TypeVar

from pydantic import BaseModel

from clusterplan.db.rows import GpuRow, LinkRow, ModelRow, ProviderRow
from clusterplan.db.store import Store

Row = TypeVar("Row", bound=BaseModel)


class UnknownName(LookupError):
    """A name that matches no catalog row; carries the nearest valid ids."""

    def __init__(self, kind: str, name: str, nearest: list[str]):
        self.kind, self.name, self.nearest = kind, name, nearest
        hint = f"; nearest: {', '.join(nearest)}" if nearest else ""
        super().__init__(f"unknown {kind} {name!r}{hint}")


@lru_cache(maxsize=4096)
def normalise(name: str) -> str:
    """Fold case, spaces, dashes and dots so 'Llama 3 70B' and 'llama-3-70b' meet."""
    return _FOLDED.sub("", name.strip().lower())


_FOLDED = re.compile(r"[\s_\-./]+")


@dataclass
class Table(Generic[Row]):
    """Rows of one kind, found by id, name or alias."""

    kind: str
    rows: dict[str, Row]
    _index: dict[str, str] = field(default_factory=dict)

    def __post_init__(self) -> None:
        for row_id, row in self.rows.items():
            names = [row_id, getattr(row, "name", row_id), *_aliases(row)]
            for name in names:
                self._index.setdefault(normalise(name), row_id)

    def find(self, name: str) -> Row:
        """The row for `name`, or UnknownName with the nearest ids."""
        row_id = self._index.get(normalise(name))
        if row_id is None:
            raise UnknownName(self.kind, name, self.nearest(name))
        return self.rows[row_id]

    def nearest(self, name: str, n: int = 3) -> list[str]:
        """The ids spelled most like `name`, else the first few ids (something to offer)."""
        return self.close(name, n) or sorted(self.rows)[:n]

    def close(self, name: str, n: int = 3) -> list[str]:
        """The ids spelled like `name`; none when nothing is close."""
        keys = difflib.get_close_matches(normalise(name), list(self._index), n=n * 3, cutoff=0.5)
        return list(dict.fromkeys(self._index[k] for k in keys))[:n]

    def ids(self) -> list[str]:
        return sorted(self.rows)


def _aliases(row: BaseModel) -> list[str]:
    text = getattr(row, "aliases", "") or ""
    return [a for a in text.split(";") if a.strip()]


@dataclass
class Catalog:
    """Everything the calculators look up: GPUs, links, models, providers."""

    gpus: Table[GpuRow]
    links: Table[LinkRow]
    models: Table[ModelRow]
    providers: Table[ProviderRow]


def load_catalog(store: Store) -> Catalog:
    """Read the catalog tables once; the store keeps the result."""
    if store._catalog is None:
        store._catalog = Catalog(
            gpus=_table(store, "gpus", "GPU", GpuRow),
            links=_table(store, "links", "link", LinkRow),
            models=_table(store, "models", "model", ModelRow),
            providers=_table(store, "providers", "provider", ProviderRow),
        )
    catalog: Catalog = store._catalog
    return catalog


def _table(store: Store, table: str, kind: str, model: type[Row]) -> Table[Row]:
    if table not in store.table_names():
        return Table(kind, {})
    rows = {r["id"]: model.model_validate(r) for r in store.rows(f"select * from [{table}]")}
    return Table(kind, rows)
