"""Intent -> tool calls: each intent kind has a route that calls the tools it needs, in order.

A route calls tools through the registry (so every input is validated exactly as for any other
caller), records each call with its input and result, and returns a Reply: the direct answer
in one or two sentences, the tables, and any steps or assumptions of its own.
"""

from __future__ import annotations

import datetime as dt
import importlib
import json
from collections import OrderedDict
from collections.abc import Callable
from dataclasses import dataclass, field
from functools import cached_property
from typing import Any

from clusterplan.assistant.answer import Intent
from clusterplan.db.active import active_store, catalog
from clusterplan.db.offers import offers_version
from clusterplan.tools.contract import Step, ToolResult
from clusterplan.tools.memory.model_shape import ModelShape, find_model, shape_from_params
from clusterplan.tools.registry import invoke


@dataclass
class Call:
    """One tool call made for an answer: why, with what, and what came back."""

    name: str
    why: str
    payload: dict[str, Any]
    result: ToolResult
    dumped: dict[str, Any] | None = None  # a remembered result's data, dumped when first made
    # A call beside the answer (the model at a glance): its figures and steps are shown, but
    # the assumptions of the job it sized are not the answer's own.
    aside: bool = False

    @cached_property
    def data(self) -> dict[str, Any]:
        """The result as JSON-ready data (dumped once: the route and the Answer both read it).

        Read-only: a remembered result's data is shared by every answer that repeats the call.
        """
        return self.dumped if self.dumped is not None else self.result.model_dump(mode="json")


@dataclass
class Reply:
    """What a route says: the direct answer first, then tables, plus its own steps."""

    headline: str
    tables: list[str] = field(default_factory=list)
    steps: list[Step] = field(default_factory=list)
    assumptions: list[str] = field(default_factory=list)
    warnings: list[str] = field(default_factory=list)
    citations: list[Any] = field(default_factory=list)
    # Cluster figures the route settled on (the GPUs a plan chose) for follow-ups to keep.
    resolved: dict[str, Any] = field(default_factory=dict)


class Calls:
    """The tool calls of one answer, in the order they were made."""

    def __init__(self) -> None:
        self.made: list[Call] = []
        self.tried: list[tuple[str, str, dict[str, Any]]] = []  # every call, even one refused

    def run(self, name: str, payload: dict[str, Any], why: str,
            aside: bool = False) -> dict[str, Any]:
        """Invoke tool `name` and keep the call; returns the result as JSON-ready data."""
        clean = {k: v for k, v in payload.items() if v is not None}
        self.tried.append((name, why, clean))
        result, dumped = _remembered(name, clean, invoke)
        call = Call(name=name, why=why, payload=clean, result=result, dumped=dumped,
                    aside=aside)
        self.made.append(call)
        return call.data


# Calculators whose result depends only on their input and the catalog's GPUs, models and
# links; pricing also on the offers on record and today's date, so those are in its key.
PURE_TOOLS = frozenset({"memory", "interconnect", "parallelism", "pricing"})
# A remembered result, its data, and the disputes its citations carried when it was dumped (an
# answer marks disputes on the cited claims afterwards; the data must then show them too).
_REMEMBERED: OrderedDict[tuple[str, str, tuple[Any, ...]],
                        tuple[ToolResult, dict[str, Any], tuple[Any, ...], Any]]
_REMEMBERED = OrderedDict()
_FOR_CATALOG: list[Any] = []
_MOST_REMEMBERED = 512


def _remembered(name: str, payload: dict[str, Any],
                invoke: Callable[[str, Any], ToolResult]
                ) -> tuple[ToolResult, dict[str, Any] | None]:
    """A pure tool's result (and its data) for an input already answered in this process, else
    a fresh one."""
    if name not in PURE_TOOLS:
        return invoke(name, payload), None

    current = catalog()
    if not (_FOR_CATALOG and _FOR_CATALOG[0] is current):
        # Another store's catalog: forget (holding the catalog keeps its id from being reused).
        _REMEMBERED.clear()
        _FOR_CATALOG[:] = [current]
    version, keep = _prices_version() if name == "pricing" else ((), None)
    key = (name, json.dumps(payload, sort_keys=True, default=str), version)
    if key in _REMEMBERED:
        _REMEMBERED.move_to_end(key)
        result, data, disputes, _ = _REMEMBERED[key]
        if disputes != _disputes(result):
            data = result.model_dump(mode="json")
            _REMEMBERED[key] = (result, data, _disputes(result), keep)
        return result, data
    result = invoke(name, payload)
    _REMEMBERED[key] = (result, result.model_dump(mode="json"), _disputes(result), keep)
    if len(_REMEMBERED) > _MOST_REMEMBERED:
        _REMEMBERED.popitem(last=False)
    return result, _REMEMBERED[key][1]


def _prices_version() -> tuple[tuple[Any, ...], Any]:
    """What a price depends on besides its input: today's date and the offers on record (their
    version changes whenever rows are imported or another process writes; the store is kept
    with the result so its id is not reused)."""
    store = active_store()
    return (dt.date.today().isoformat(), *offers_version(store)), store


def _disputes(result: ToolResult) -> tuple[Any, ...]:
    return tuple(ref.dispute for ref in result.citations)


Route = Callable[[Intent, Calls], Reply]
# Each kind's route lives in a module of its family; imported when first asked.
ROUTES: dict[str, tuple[str, str]] = {
    "memory": ("clusterplan.assistant.routing.memory", "memory"),
    "fit": ("clusterplan.assistant.routing.memory", "fit"),
    "cluster_size": ("clusterplan.assistant.routing.memory", "cluster_size"),
    "checkpoint": ("clusterplan.assistant.routing.memory", "checkpoint"),
    "gpu_compare": ("clusterplan.assistant.routing.compare", "gpu_compare"),
    "gpu_specs": ("clusterplan.assistant.routing.compare", "gpu_specs"),
    "layout": ("clusterplan.assistant.routing.cluster", "layout"),
    "training": ("clusterplan.assistant.routing.cluster", "training"),
    "serving": ("clusterplan.assistant.routing.cluster", "serving"),
    "plan": ("clusterplan.assistant.routing.plan", "plan"),
    "interconnect": ("clusterplan.assistant.routing.network", "collective"),
    "convert": ("clusterplan.assistant.routing.network", "convert"),
    "link_compare": ("clusterplan.assistant.routing.network", "link_compare"),
    "pricing": ("clusterplan.assistant.routing.pricing", "pricing"),
    "concept": ("clusterplan.assistant.routing.concept", "concept"),
    "parallelism": ("clusterplan.assistant.routing.cluster", "layout"),
    "notes": ("clusterplan.assistant.routing.concept", "concept"),
    "diagnose": ("clusterplan.assistant.routing.diagnose", "diagnose"),
}


def route(intent: Intent, calls: Calls) -> Reply:
    """Run the route of `intent.kind`."""
    module_name, function = ROUTES[intent.kind]
    handler: Route = getattr(importlib.import_module(module_name), function)
    return handler(intent, calls)


def slot(intent: Intent, name: str, default: Any = None) -> Any:
    """A slot the user gave, else the assumed default."""
    return intent.slots.get(name, intent.assumed.get(name, default))


def model_fields(intent: Intent) -> dict[str, Any]:
    """The model as a tool takes it: a catalog id, or a size in billions of parameters with
    the architecture the question states ("8192 dim, 80 layers"); the tool assumes the rest."""
    if "model" in intent.slots:
        return {"model": intent.slots["model"]}
    if "config" in intent.slots:  # a config.json pasted into the question
        return {"config": intent.slots["config"]}
    active = {"active_params_b": intent.slots["active_params_b"]} \
        if "active_params_b" in intent.slots else {}
    return {"params_b": intent.slots.get("params_b"), **active, **intent.slots.get("shape", {})}


def model_shape(intent: Intent) -> ModelShape | None:
    """The architecture the tools use for the question's model (catalog row, or the stated
    size with the stated and assumed fields); None for a pasted config or no model."""
    fields = model_fields(intent)
    if fields.get("model"):
        return find_model(str(fields["model"]))
    if fields.get("params_b"):
        return shape_from_params(float(fields["params_b"]), fields)
    return None
