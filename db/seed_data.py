"""Reading the seed CSVs shipped inside the package, validated by their row models."""

from __future__ import annotations

import csv
import hashlib
from functools import cache
from importlib import resources

from pydantic import BaseModel, ValidationError

from clusterplan.db.rows import GpuRow, LinkRow, ModelRow, OfferRow, ProviderRow
from clusterplan.validation import describe

# Catalog tables, their seed file and row model, and their primary key.
CATALOG: dict[str, tuple[str, type[BaseModel], str | tuple[str, ...]]] = {
    "gpus": ("gpus.csv", GpuRow, "id"),
    "links": ("links.csv", LinkRow, "id"),
    "models": ("models.csv", ModelRow, "id"),
    "providers": ("providers.csv", ProviderRow, "id"),
    "offers": ("offers.csv", OfferRow, "rowid"),
}


class SeedError(ValueError):
    """A shipped seed file is malformed: a packaging bug, reported with file and line."""


def _seed_text(filename: str) -> str:
    path = resources.files("clusterplan.db").joinpath("seed", filename)
    return path.read_text(encoding="utf-8") if path.is_file() else ""


@cache
def catalog_fingerprint() -> str:
    """A hash of every seed file: a change in the shipped catalog triggers a rebuild."""
    digest = hashlib.sha256()
    for filename, _, _ in CATALOG.values():
        digest.update(filename.encode() + b"\0" + _seed_text(filename).encode())
    return digest.hexdigest()[:16]


def read_rows(text: str, model: type[BaseModel], label: str) -> list[dict]:
    """Validate CSV text row by row; every bad row is named by line and reason."""
    rows, problems = [], []
    for line_no, raw in enumerate(csv.DictReader(text.splitlines()), start=2):
        try:
            rows.append(model.model_validate(raw).model_dump(mode="json"))
        except ValidationError as exc:
            problems.append(f"{label} line {line_no}: {describe(exc)}")
    if problems:
        raise SeedError("; ".join(problems))
    return rows


def seed_rows(table: str) -> list[dict]:
    """The shipped rows of one catalog table."""
    filename, model, _ = CATALOG[table]
    return read_rows(_seed_text(filename), model, filename)
