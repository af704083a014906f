"""Grade the assistant against the corpus of real questions (tests/data/corpus/*.jsonl).

Each line holds a question copied verbatim from a public thread, what a correct reading of it
is (`expect`) and the figures a correct answer contains (`facts`). Every question is answered
by `respond`, the function behind `clusterplan ask --json`, and graded on:

- crash:    the answer is not an internal error;
- intent:   the kind equals the expected one, or one of its documented equivalents (EQUIVALENT);
- model:    the model slot is the expected catalog model (through MODEL_ALIASES and the
            catalog's own aliases) or one of the models sized side by side, or, when the
            collector also gave a size and the question was read as a size only, that size
            within 5 %; a model the
            catalog lacks must not be read as a different catalog model; a size alone
            (params_b) must be matched within 5 %;
- gpu:      the GPU slot is the expected catalog GPU (through GPU_ALIASES); a GPU the catalog
            lacks must not be read as a catalog GPU (named as unknown, never swapped);
- gpus:     the GPU count read from the question (nodes x GPUs per node; none read counts
            as one);
- ask_back: a clarification is asked if and only if expected;
- facts:    each figure appears in the answer's data (every number, converted by its unit) or
            in its Markdown, within the fact's tolerance.

A question passes when every check that applies passes.
"""

from __future__ import annotations

import json
import math
import re
from collections.abc import Iterator
from dataclasses import dataclass, field
from pathlib import Path
from typing import Any

CORPUS = Path(__file__).resolve().parent / "data" / "corpus"
FLOOR_FILE = CORPUS / "FLOOR"
CHECKS = ("crash", "intent", "model", "gpu", "gpus", "ask_back", "facts")

# Kinds an answer may take for an expected kind and still answer what was asked. "fit" and
# "memory" both report the memory per GPU against its capacity; a question asking how many
# GPUs ("cluster_size") is answered by the memory sizing too, which gives the fewest GPUs.
EQUIVALENT: dict[str, set[str]] = {
    "fit": {"memory"},
    "memory": {"fit"},
    "cluster_size": {"memory", "fit"},
    "plan": {"cluster_size"},
    # "how much does fine-tuning StarCoder cost?" with no hardware named: the plan prices the
    # cheapest way to run it, which is the cost asked.
    "pricing": {"plan"},
}
# The "count" class asks how many GPUs, whatever kind the collector wrote.
CLASS_EQUIVALENT: dict[str, set[str]] = {"count": {"cluster_size", "memory", "fit"}}

# Collectors' names for models the catalog holds under another id (naming variants only, never
# a different model of the same size). Names the catalog itself lists as a row's alias (e.g.
# Qwen2.5-Coder-32B, which shares Qwen2.5 32B's architecture) resolve through the catalog.
MODEL_ALIASES: dict[str, str] = {
    "gpt-3": "gpt-3-175b",
    "llama-4-scout-17b-16e": "llama-4-scout",
    "command-r-plus-104b": "command-r-plus",
}

# Collectors' GPU ids to the catalog ids they may denote. A bare family name ("a100") accepts
# any of its catalog variants; a memory size picks the variants with that memory.
GPU_ALIASES: dict[str, set[str]] = {
    "a100": {"a100-sxm-80gb", "a100-sxm-40gb", "a100-pcie-40gb"},
    "a100-80gb": {"a100-sxm-80gb"},
    "a100-40gb": {"a100-sxm-40gb", "a100-pcie-40gb"},
    "a800-80gb": {"a800-sxm-80gb"},
    "h100": {"h100-sxm", "h100-pcie", "h100-nvl"},
    "h800": {"h800-sxm"},
    "h200": {"h200-sxm", "h200-nvl"},
    "b200": {"b200-sxm"},
    "v100": {"v100-sxm2-16gb", "v100-sxm2-32gb", "v100s-pcie-32gb"},
    "v100-32gb": {"v100-sxm2-32gb", "v100s-pcie-32gb"},
    "v100-16gb": {"v100-sxm2-16gb"},
    "p40": {"tesla-p40"},
}

# Units of the facts and of the answer's numbers, to a base unit of their dimension.
UNITS: dict[str, tuple[str, float]] = {
    "b": ("bytes", 1.0), "bytes": ("bytes", 1.0),
    "kb": ("bytes", 1e3), "mb": ("bytes", 1e6), "gb": ("bytes", 1e9), "tb": ("bytes", 1e12),
    "kib": ("bytes", 2.0**10), "mib": ("bytes", 2.0**20), "gib": ("bytes", 2.0**30),
    "tib": ("bytes", 2.0**40),
    "gb/s": ("bytes/s", 1e9), "tb/s": ("bytes/s", 1e12), "mb/s": ("bytes/s", 1e6),
    "gib/s": ("bytes/s", 2.0**30), "gbit/s": ("bytes/s", 1e9 / 8),
    "s": ("s", 1.0), "ms": ("s", 1e-3), "us": ("s", 1e-6), "µs": ("s", 1e-6),
    "min": ("s", 60.0), "h": ("s", 3600.0), "hours": ("s", 3600.0), "days": ("s", 86400.0),
    "day": ("s", 86400.0),
    "%": ("%", 1.0),
    "tflops": ("flop/s", 1e12), "tflop/s": ("flop/s", 1e12), "flop": ("flop", 1.0),
    "gflop": ("flop", 1e9), "tflop": ("flop", 1e12),
}
# Counts and money a fact may be given in, matched as plain numbers.
COUNT_UNITS = ("GPUs", "tokens/s", "tokens", "samples", "replicas", "count", "usd", "usd/h")


@dataclass
class Grade:
    """One question graded: which checks apply and which of them failed."""

    row: dict[str, Any]
    kind: str | None
    failed: list[str] = field(default_factory=list)
    detail: list[str] = field(default_factory=list)

    @property
    def passed(self) -> bool:
        return not self.failed


def load(corpus: Path = CORPUS) -> list[dict[str, Any]]:
    """Every question of the corpus, GitHub's first."""
    rows: list[dict[str, Any]] = []
    for name in ("github.jsonl", "forums.jsonl"):
        for line in (corpus / name).read_text(encoding="utf-8").splitlines():
            if line.strip():
                rows.append(json.loads(line))
    return rows


def floor() -> float:
    """The pass rate (a percentage) the suite must not fall below."""
    return float(FLOOR_FILE.read_text(encoding="utf-8").split()[0])


def catalog_ids() -> tuple[dict[str, str], set[str]]:
    """The catalog's model names (id, name and every alias, folded) to ids, and its GPU ids."""
    from clusterplan.db.active import catalog
    from clusterplan.db.catalog import normalise

    cat = catalog()
    names: dict[str, str] = {}
    for row_id, row in cat.models.rows.items():
        for name in (row_id, row.name, *(row.aliases or "").split(";")):
            if name.strip():
                names.setdefault(normalise(name), row_id)
    return names, set(cat.gpus.ids())


def grade_all(rows: list[dict[str, Any]]) -> list[Grade]:
    """Answer and grade every row, each question on its own (no follow-up context)."""
    from clusterplan.assistant.respond import respond

    models, gpus = catalog_ids()
    return [grade(row, respond(row["question"]), models, gpus) for row in rows]


def grade(row: dict[str, Any], answer: Any, models: dict[str, str], gpus: set[str]) -> Grade:
    """Grade one answer against its row."""
    intent = answer.intent
    slots: dict[str, Any] = dict(intent.slots) if intent else {}
    assumed: dict[str, Any] = dict(intent.assumed) if intent else {}
    g = Grade(row, intent.kind if intent else None)
    expect = row["expect"]

    if answer.error and "internal error" in answer.error:
        g.failed.append("crash")
        g.detail.append(answer.error)

    asked = answer.clarification is not None
    if asked != bool(expect.get("ask_back")):
        g.failed.append("ask_back")
        g.detail.append(f"asked back: {asked}")

    if expect.get("intent") and not asked:
        accepted = {expect["intent"]} | EQUIVALENT.get(expect["intent"], set())
        accepted |= CLASS_EQUIVALENT.get(row.get("class", ""), set())
        if g.kind not in accepted:
            g.failed.append("intent")
            g.detail.append(f"intent {g.kind}, expected {expect['intent']}")

    if not _model_ok(expect, slots, models):
        g.failed.append("model")
        g.detail.append(f"model {slots.get('model')!r} params_b {slots.get('params_b')!r}, "
                        f"expected {expect.get('model')!r} / {expect.get('params_b')!r}")

    if not _gpu_ok(expect.get("gpu"), slots, gpus):
        g.failed.append("gpu")
        g.detail.append(f"gpu {slots.get('gpu')!r}, expected {expect.get('gpu')!r}")

    if expect.get("gpus") is not None:
        got = slots.get("gpus")
        if got is None and "nodes" in slots:  # the nodes read, times the GPUs per node
            per_node = slots.get("gpus_per_node", assumed.get("gpus_per_node"))
            got = slots["nodes"] * per_node if per_node else None
        if got is None:
            got = assumed.get("gpus")
        if got is None and int(expect["gpus"]) == 1:
            got = 1  # no count read: one GPU is what the answer assumes
        if got is None or int(got) != int(expect["gpus"]):
            g.failed.append("gpus")
            g.detail.append(f"gpus {got!r}, expected {expect['gpus']}")

    if row.get("facts") and not asked:
        missing = [f for f in row["facts"] if not fact_found(f, answer)]
        if missing:
            g.failed.append("facts")
            g.detail.extend(f"fact not found: {f['value']} {f['unit']} ({f['what'][:60]})"
                            for f in missing)
    elif row.get("facts") and asked and not expect.get("ask_back"):
        g.failed.append("facts")
        g.detail.append("asked back instead of answering")
    return g


def _model_ok(expect: dict[str, Any], slots: dict[str, Any], names: dict[str, str]) -> bool:
    from clusterplan.db.catalog import normalise

    models = set(names.values())
    want = expect.get("model")
    got = slots.get("model")
    size = expect.get("params_b")
    if want:
        want = MODEL_ALIASES.get(want, want)
        want = names.get(normalise(want), want)  # a name the catalog lists as an alias of a row
        if want in models:
            if got is None and size and slots.get("params_b") is not None:
                # read as a size only (several catalog versions share it): the size must match
                return abs(float(slots["params_b"]) - float(size)) <= 0.05 * float(size)
            # several models named are sized side by side: the expected one among them
            listed = {e.get("model") for e in slots.get("model_list") or []}
            return got == want or want in listed
        if got in models:  # a model outside the catalog read as a different one
            return False
    if size and not (want and want in models):
        read = slots.get("params_b")
        if read is None and got in models:
            # a size written down before the catalog knew the model: the catalog model read
            # must be that size
            return _catalog_size_ok(got, float(size))
        if read is not None:
            return abs(float(read) - float(size)) <= 0.05 * float(size)
        return got is not None or not want
    return True


def _catalog_size_ok(model_id: str, size: float) -> bool:
    from clusterplan.db.active import catalog

    row = catalog().models.rows[model_id]
    return abs(row.params_b - size) <= 0.05 * size


def _gpu_ok(want: str | None, slots: dict[str, Any], gpus: set[str]) -> bool:
    if not want:
        return True
    got = slots.get("gpu")
    listed = [x for x in slots.get("gpu_list") or [] if isinstance(x, str)]
    read = {got, *listed} - {None}
    accepted = GPU_ALIASES.get(want, {want} if want in gpus else set())
    if accepted:
        return bool(read & accepted)
    return not (read & gpus)  # outside the catalog: named, not swapped for a catalog GPU


# ---- facts -------------------------------------------------------------------------------

_NUMBER = re.compile(r"(?<![\w.])(\d{1,3}(?:,\d{3})+|\d+(?:\.\d+)?)(?:\s*(?:e|×\s*10\^?)"
                     r"([-+]?\d+))?\s*(GiB/s|GB/s|TB/s|MB/s|Gbit/s|KiB|MiB|GiB|TiB|KB|MB|GB|TB"
                     r"|GFLOP|TFLOP|bytes|B|ms|µs|us|s|min|h|hours|days|%)?(?![\w/])")


def _unit(unit: str | None) -> tuple[str, float] | None:
    return UNITS.get((unit or "").strip().lower())


def numbers(answer: Any) -> Iterator[tuple[float, str | None]]:
    """Every number in the answer's data and Markdown, with the unit it was given in."""
    yield from _walk(answer.data)
    for step in answer.trace:
        yield from _walk(step.model_dump(mode="json"))
    for match in _NUMBER.finditer(answer.markdown or ""):
        value = float(match.group(1).replace(",", ""))
        if match.group(2):
            value *= 10.0 ** int(match.group(2))
        yield value, match.group(3)


def _walk(node: Any, unit: str | None = None) -> Iterator[tuple[float, str | None]]:
    if isinstance(node, bool):
        return
    if isinstance(node, int | float):
        if math.isfinite(node):
            yield float(node), unit
    elif isinstance(node, dict):
        inner = node.get("unit") if isinstance(node.get("unit"), str) else None
        for key, value in node.items():
            yield from _walk(value, inner or _unit_of_key(key) or unit)
    elif isinstance(node, list):
        for value in node:
            yield from _walk(value, unit)


def _unit_of_key(key: str) -> str | None:
    for suffix, unit in (("_gib", "GiB"), ("_gb", "GB"), ("_bytes", "B"), ("_gbps", "GB/s"),
                         ("_gb_s", "GB/s"), ("_s", "s"), ("_ms", "ms"), ("_us", "us"),
                         ("_hours", "h"), ("_days", "days"), ("_pct", "%")):
        if key.lower().endswith(suffix):
            return unit
    return None


def fact_found(fact: dict[str, Any], answer: Any) -> bool:
    """Whether the fact's value appears in the answer within its tolerance."""
    want = float(fact["value"])
    tol = max(float(fact.get("tol") or 0.0), 0.005)
    target = _unit(fact.get("unit"))
    for value, unit in numbers(answer):
        have = _unit(unit)
        if _close(value, want, tol) and (have is None or target is None
                                         or have[0] == target[0]):
            return True  # the same number, unit-less or of the fact's dimension
        if target and have and have[0] == target[0] and have[1] != target[1]:
            if _close(value * have[1] / target[1], want, tol):
                return True
    return False


def _close(value: float, want: float, tol: float) -> bool:
    if want == 0:
        return abs(value) <= tol
    return abs(value - want) <= tol * abs(want)


# ---- summary -----------------------------------------------------------------------------

def rate(grades: list[Grade]) -> float:
    """The share of questions passed, as a percentage."""
    return 100.0 * sum(g.passed for g in grades) / len(grades) if grades else 0.0


def by(grades: list[Grade], key: str) -> dict[str, tuple[int, int]]:
    """Passed and total per value of the row's `key` (class, lang, source)."""
    out: dict[str, tuple[int, int]] = {}
    for g in grades:
        name = str(g.row.get(key))
        passed, total = out.get(name, (0, 0))
        out[name] = (passed + g.passed, total + 1)
    return dict(sorted(out.items()))


def failures(grades: list[Grade]) -> dict[str, int]:
    """How many questions fail each check, most first."""
    counts = {c: sum(c in g.failed for g in grades) for c in CHECKS}
    return dict(sorted(counts.items(), key=lambda kv: -kv[1]))
