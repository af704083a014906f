"""The asker's KV formula, factor by factor, against the model's own.

Bytes per token are 2 x layers x KV heads x head size x bytes per element (kv-cache#per-token).
Home-made versions go wrong in two ways nearly always: the hidden size (or every query head) in
place of the KV heads x head size that grouped-query attention keeps (kv-cache#gqa), and bits
where the formula counts bytes, or 16-bit elements counted as 8-bit because the weights are
(kv-cache#cache-dtype-default). Each factor is named for what it stands for, and the one that
differs is shown with the model's value and the size of the error.
"""

from __future__ import annotations

from dataclasses import dataclass
from typing import Any

from clusterplan.assistant.answer import Intent
from clusterplan.assistant.composing.markdown import num, table
from clusterplan.tools.contract import Step, q
from clusterplan.tools.memory.model_shape import ModelShape

NOTES = ["kv-cache#per-token", "kv-cache#gqa", "kv-cache#cache-dtype-default"]
# Factors that count tokens, not bytes per token: left out of the per-token product.
PER_JOB = ("tokens per sequence", "sequences (the batch)")
ELEMENT_BYTES = (1, 2, 4)


@dataclass(frozen=True)
class Factor:
    """One factor of the formula shown: what it stands for and how it compares."""

    value: float
    meaning: str
    against: str = "as the model"
    note: str = "kv-cache#per-token"

    @property
    def differs(self) -> bool:
        return self.against != "as the model"

    def row(self) -> list[str]:
        return [f"{self.value:g}", self.meaning, self.against]


def check(intent: Intent, shape: ModelShape, per_token: float) -> tuple[str, str, Step] | None:
    """(a sentence, a table, a step) setting the asker's formula beside the model's, or None
    when the question shows no KV formula with this model's layer count in it."""
    factors = readings(intent, shape, per_token)
    if factors is None:
        return None
    element = _element_bytes(shape, per_token)
    theirs = 1.0
    for f in factors:
        theirs *= f.value if f.meaning not in PER_JOB else 1
    wrong = [f for f in factors if f.differs]
    sentence = (f"Your formula gives **{num(theirs)} bytes per token**; this model keeps "
                f"**{num(per_token)}** (2 x {shape.layers} layers x {shape.kv_heads} KV heads x "
                f"{shape.head_dim} head size x {element:g} bytes)")
    sentence += (": " + "; ".join(f"{f.value:g} is {f.meaning}, {f.against}" for f in wrong)
                 + "." if wrong else ", the same factors.")
    tokens = [f.value for f in factors if f.meaning in PER_JOB]
    if len(tokens) == 2 and wrong:
        count = tokens[0] * tokens[1]
        yours_gb, model_gb = theirs * count / 1e9, per_token * count / 1e9
        sentence += (f" For {num(tokens[0])} × {num(tokens[1])} tokens that is "
                     f"{num(yours_gb)} GB by your formula, **{num(model_gb)} GB** for this model.")
    step = Step(label="the KV formula shown, factor by factor",
                formula="2 x layers x kv_heads x head_dim x bytes per element",
                inputs={"yours": q(theirs, "B/token"), "layers": q(shape.layers),
                        "kv_heads": q(shape.kv_heads), "head_dim": q(shape.head_dim),
                        "bytes": q(element)},
                result=q(per_token, "B/token"), notes=NOTES)
    rows = [f.row() for f in factors]
    return sentence, table(["your factor", "stands for", "against the model"], rows), step


def readings(intent: Intent, shape: ModelShape, per_token: float) -> list[Factor] | None:
    """Each factor of the formula shown, read against the model, or None without a formula
    that has this model's layer count in it."""
    factors = intent.slots.get("kv_formula")
    if not factors or shape.attention == "mla" or shape.layers not in factors:
        return None
    element = _element_bytes(shape, per_token)
    # "2*64*2048*14848*80*2" with a batch of 64 named: the 64 is the sequences, not a head size,
    # when the formula's width is already there (the hidden size or KV heads x head size)
    batch = intent.slots.get("batch") if {shape.hidden, shape.kv_heads * shape.head_dim} \
        & set(factors) else None
    return [_reading(f, shape, element, intent.slots.get("context_len"), batch)
            for f in factors]


def differences(intent: Intent, shape: ModelShape, per_token: float) -> list[tuple[str, str]]:
    """(sentence, note) for each factor of the formula shown that differs from the model's."""
    return [(f"your {f.value:g} is {f.meaning}, {f.against}", f.note)
            for f in readings(intent, shape, per_token) or [] if f.differs]


def _element_bytes(shape: ModelShape, per_token: float) -> float:
    return per_token / (2 * shape.layers * shape.kv_heads * shape.head_dim)


def _reading(f: float, shape: ModelShape, element: float, context: Any,
             batch: Any = None) -> Factor:
    """The model's own numbers are matched first, so a 2 that could be K-and-V or bytes reads
    as the model's."""
    width = shape.kv_heads * shape.head_dim
    if batch and f == batch:
        return Factor(f, "sequences (the batch)")
    same = {shape.layers: "layers", width: "KV heads x head size", shape.kv_heads: "KV heads",
            shape.head_dim: "head size"}
    if f in same:
        return Factor(f, same[f])
    if context and f == context:
        return Factor(f, "tokens per sequence")
    if f == shape.hidden and shape.hidden != width:
        return Factor(f, "the hidden size", f"where the cache keeps {shape.kv_heads} KV heads "
                      f"x {shape.head_dim} = {width} ({f / width:.3g}x too many)", "kv-cache#gqa")
    if f == shape.heads and shape.heads != shape.kv_heads:
        return Factor(f, "every query head", f"where grouped-query attention keeps "
                      f"{shape.kv_heads} ({f / shape.kv_heads:.3g}x too many)", "kv-cache#gqa")
    if f == 2:
        return Factor(f, "K and V, or 16-bit elements")
    if f == 8 and element != 8:
        return Factor(f, "bits per element, it seems", f"where the formula counts bytes: "
                      f"{element:g} per element ({f / element:.3g}x too many)")
    if f in ELEMENT_BYTES and f != element:
        return Factor(f, "bytes per element", f"where the cache stores {element:g}",
                      "kv-cache#cache-dtype-default")
    return Factor(f, "not a dimension of this model", "left as given")
