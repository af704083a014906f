"""Hypothesis strategies for tool inputs, read from each tool's JSON Schema.

The published schema is what an agent sees, so inputs are drawn from it: every listed field
may appear, numbers inside their bounds and at them, enums from their values, text from
names the catalog knows mixed with noise (a random string alone never names a model, and
would test only the refusal). Only the subset of JSON Schema that pydantic writes for the
tools is read: type, enum, const, anyOf, $ref, bounds, lengths, array items.
"""

from __future__ import annotations

from typing import Any

from hypothesis import strategies as st

# Names the catalog and tools know, and hostile text, for string fields without an enum.
NAMES = ["llama-3-8b", "llama-3-70b", "llama-3.1-405b", "mixtral-8x7b", "h100", "h200",
         "a100", "b200", "mi300x", "aws", "coreweave", "nvlink", "infiniband", "all_reduce",
         "2T", "1B", "400 Gb/s", "140 GB", "GiB", "GB/s", "1e999 GB", "9**9**9 GB",
         "nan Gb/s", "\ud800", "\x00", "", " "]


def from_schema(schema: dict[str, Any]) -> st.SearchStrategy[Any]:
    """Values valid under `schema` (a pydantic model's JSON Schema, with its $defs)."""
    return _strategy(schema, schema.get("$defs", {}))


def _strategy(node: dict[str, Any], defs: dict[str, Any]) -> st.SearchStrategy[Any]:
    if "$ref" in node:
        return _strategy(defs[node["$ref"].rsplit("/", 1)[-1]], defs)
    if "const" in node:
        return st.just(node["const"])
    if "enum" in node:
        return st.sampled_from(node["enum"])
    for key in ("anyOf", "oneOf"):
        if key in node:
            return st.one_of([_strategy(option, defs) for option in node[key]])
    kind = node.get("type")
    if kind == "object":
        return _object(node, defs)
    if kind == "array":
        items = _strategy(node.get("items", {}), defs)
        return st.lists(items, min_size=node.get("minItems", 0),
                        max_size=min(node.get("maxItems", 4), 4))
    if kind in ("integer", "number"):
        return _number(node, kind == "integer")
    if kind == "boolean":
        return st.booleans()
    if kind == "null":
        return st.none()
    if kind == "string":
        if node.get("format") == "date":
            return st.dates().map(str)
        low, high = node.get("minLength", 0), node.get("maxLength", 40)
        return st.one_of(st.sampled_from(NAMES), st.text(max_size=min(high, 40))).filter(
            lambda s: low <= len(s) <= high)
    return st.none()


def _object(node: dict[str, Any], defs: dict[str, Any]) -> st.SearchStrategy[Any]:
    properties = node.get("properties", {})
    required = set(node.get("required", ()))
    return st.fixed_dictionaries(
        {k: _strategy(v, defs) for k, v in properties.items() if k in required},
        optional={k: _strategy(v, defs) for k, v in properties.items() if k not in required})


def _number(node: dict[str, Any], integer: bool) -> st.SearchStrategy[Any]:
    low = node.get("minimum", node.get("exclusiveMinimum"))
    high = node.get("maximum", node.get("exclusiveMaximum"))
    if integer:
        low = None if low is None else int(low) + ("exclusiveMinimum" in node)
        high = None if high is None else int(high) - ("exclusiveMaximum" in node)
        edges = [v for v in (low, high, 1, 8, 1024) if v is not None
                 and (low is None or v >= low) and (high is None or v <= high)]
        return st.one_of(st.sampled_from(edges), st.integers(low, high))
    return st.floats(low, high, allow_nan=False, allow_infinity=False,
                     exclude_min="exclusiveMinimum" in node,
                     exclude_max="exclusiveMaximum" in node)


# A valid core for each tool: a draw from the schema is laid over one of these (the core's
# keys win, and fields that exclude them are dropped), so most calls get past the first
# check and exercise the arithmetic with the drawn options.
CORES: dict[str, list[dict[str, Any]]] = {
    "notes": [{"query": "nvlink bandwidth"}, {"id": "nvidia-h100-datasheet"}],
    "memory": [{"model": "llama-3-8b", "workload": "inference"},
               {"model": "llama-3-70b", "workload": "pretrain", "gpus": 64},
               {"params_b": 7.0, "workload": "lora"}],
    "interconnect": [{"op": "all_reduce", "size": "1 GB", "ranks": 16, "gpus_per_node": 8},
                     {"op": "convert", "value": "400 Gb/s", "to": "GB/s"},
                     {"op": "transfer", "size": "140 GB", "link": "nvlink-4"}],
    "parallelism": [{"model": "llama-3-8b", "gpu": "h100", "gpus": 8, "workload": "pretrain"},
                    {"model": "llama-3-70b", "gpu": "h100", "gpus": 16,
                     "workload": "inference"}],
    "pricing": [{"gpu": "h100", "gpus": 8}, {"gpu": "a100", "hours": 100.0},
                {"egress_tb": 5.0, "egress_provider": "aws"}],
    "plan": [{"model": "llama-3-8b", "workload": "pretrain", "tokens": "1B",
              "objective": "cheapest", "gpus": ["h100"]},
             {"model": "llama-3-8b", "workload": "inference", "tokens_per_s": 1000.0,
              "objective": "fastest", "gpus": ["h100", "a100"]}],
}
EXCLUSIVE = {"model": ("params_b",), "params_b": ("model",), "gpus": ("nodes",),
             "hours": ("months",), "egress_tb": ("egress_tib",), "query": ("id",),
             "id": ("query",), "size": ("size_gb",)}


def tool_inputs(tool: str, schema: dict[str, Any]) -> st.SearchStrategy[dict[str, Any]]:
    """Inputs for `tool`: a valid core with drawn options laid over it, or a bare draw."""
    def laid(core: dict[str, Any], drawn: dict[str, Any]) -> dict[str, Any]:
        dropped = {x for k in core for x in EXCLUSIVE.get(k, ())}
        return {**{k: v for k, v in drawn.items() if k not in dropped}, **core}

    drawn = from_schema(schema)
    options = drawn.map(lambda d: dict(list(d.items())[:3]))  # a few options, not all at once
    cored = st.builds(laid, st.sampled_from(CORES[tool]), options)
    return st.one_of(cored, cored, drawn)  # two in three start from a valid core
