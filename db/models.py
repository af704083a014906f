"""Models a user imported from a config.json, kept in the store beside the catalog's."""

from __future__ import annotations

from dataclasses import dataclass
from pathlib import Path
from typing import Any

from pydantic import ValidationError

from clusterplan.db.catalog import UnknownName, load_catalog, normalise
from clusterplan.db.hf_config import ConfigError, load_config, model_id, read_shape
from clusterplan.db.rows import ModelRow
from clusterplan.db.store import Store
from clusterplan.validation import describe

IMPORT_NOTE = "model-config-import"  # how a config.json is read and its parameters counted


@dataclass
class Imported:
    """What an import made, and whether it replaced an earlier import of the same id."""

    row: ModelRow
    replaced: bool
    counted: bool  # the parameter count was computed from the shape


def row_from_config(config: dict[str, Any], name: str, row_id: str | None = None,
                    params_b: float | None = None,
                    active_params_b: float | None = None) -> tuple[ModelRow, bool]:
    """A user model row from a parsed config.json; ConfigError (one line) if it cannot be."""
    shape = read_shape(config)
    fields = shape.row_fields()
    stated = params_b if params_b is not None else _stated_params(config)
    if stated is not None:
        fields["params_b"] = stated
        if active_params_b is None and shape.experts == 1:
            fields["active_params_b"] = stated
    if active_params_b is not None:
        fields["active_params_b"] = active_params_b
    repo = str(config.get("_name_or_path") or "")
    aliases = [a for a in (repo, repo.split("/")[-1] if repo else "") if a and a != name]
    try:
        row = ModelRow.model_validate({
            **fields, "id": row_id or model_id(name), "name": name,
            "aliases": ";".join(dict.fromkeys(aliases)),
            "family": shape.model_type or "imported", "source_note": IMPORT_NOTE,
            "origin": "user"})
    except ValidationError as exc:
        raise ConfigError(f"the config gives an impossible model: {describe(exc)}") from None
    return row, stated is None


def _catalog_name(store: Store, row_id: str) -> str | None:
    """The catalog model whose id, name or alias reads as `row_id`, if any: a user row under
    that id could never be found by it."""

    found = load_catalog(store).models._index.get(normalise(row_id))
    rows = load_catalog(store).models.rows
    return found if found in rows and rows[found].origin == "catalog" else None


def _stated_params(config: dict[str, Any]) -> float | None:
    """A parameter count some configs carry (num_parameters, n_params), in billions."""
    for key in ("num_parameters", "n_params", "num_params"):
        value = config.get(key)
        if isinstance(value, int | float) and not isinstance(value, bool) and value > 0:
            return round(value / 1e9, 3) if value > 1e6 else float(value)
    return None


def import_model(store: Store, path: Path, name: str | None = None,
                 row_id: str | None = None, params_b: float | None = None,
                 active_params_b: float | None = None, dry_run: bool = False) -> Imported:
    """Read `path` and store it as a user model (replacing an earlier import of the same id).

    A catalog model's id is refused: the user's row would hide the published one.
    """
    config = load_config(path)
    shown = name or _default_name(config, path)
    row, counted = row_from_config(config, shown, row_id, params_b, active_params_b)
    existing = store.rows("select origin from models where id = ?", [row.id]) \
        if "models" in store.table_names() else []
    if existing and existing[0]["origin"] != "user":
        raise ConfigError(f"{row.id!r} is a catalog model; give another --id (or --name) "
                          "for this import")
    taken = _catalog_name(store, row.id)
    if taken:
        raise ConfigError(f"{row.id!r} already names the catalog model {taken!r}; give another "
                          "--id (or --name) for this import")
    if not dry_run:
        with store.db.atomic():
            store.db["models"].upsert(row.model_dump(mode="json"), pk="id")
        store._catalog = None
    return Imported(row=row, replaced=bool(existing), counted=counted)


def _default_name(config: dict[str, Any], path: Path) -> str:
    """The repo id the config names, else its folder's name (a snapshot's folder is a hash,
    so the name of the folder holding 'snapshots' is tried first)."""
    repo = config.get("_name_or_path")
    if isinstance(repo, str) and repo.strip() and not repo.startswith(("/", ".")):
        return repo.strip().split("/")[-1]
    parent = path.resolve().parent
    for ancestor in parent.parents:
        if ancestor.name == "snapshots" and ancestor.parent.name.startswith("models--"):
            return ancestor.parent.name.split("--")[-1]
    stem = path.stem
    if stem in ("config", "") and parent.name:
        return parent.name
    return stem.removesuffix("_config").removesuffix("-config").split("--")[-1]


def user_models(store: Store) -> list[ModelRow]:
    """The models the user imported, by id."""
    if "models" not in store.table_names():
        return []
    fields = ModelRow.model_fields
    rows = store.rows("select * from models where origin = 'user' order by id")
    return [ModelRow.model_validate({k: v for k, v in r.items() if k in fields}) for r in rows]


def remove_model(store: Store, name: str) -> ModelRow | None:
    """Delete the user model `name` finds; None when it names no user model."""

    try:
        row = load_catalog(store).models.find(name)
    except UnknownName:
        return None
    if row.origin != "user":
        return None
    with store.db.atomic():
        store.conn.execute("delete from models where id = ?", [row.id])
    store._catalog = None
    return row
