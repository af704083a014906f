"""Row models of the catalog tables: every seed CSV and every imported row is validated here."""

from __future__ import annotations

import datetime as dt
import json
import re
from typing import Any, Literal, get_args

from pydantic import (
    BaseModel,
    ConfigDict,
    Field,
    ValidationInfo,
    field_validator,
    model_validator,
)

NoteId = str


_CONTROL = re.compile(r"[\x00-\x08\x0b-\x1f\x7f]")


class CatalogRow(BaseModel):
    """A catalog row: unknown columns are an error, and every row names the note it comes from."""

    # defer_build: a row model's validator is built when first used, so a question that never
    # reads offers (most of them) does not build OfferRow's.
    model_config = ConfigDict(extra="forbid", str_strip_whitespace=True, defer_build=True)

    source_note: NoteId = Field(min_length=1)

    @field_validator("*", mode="before")
    @classmethod
    def _empty_cell(cls, value: object, info: ValidationInfo) -> object:
        # CSV cells and SQL NULLs: empty means "not applicable" where the column allows None,
        # and empty text where the column is text with a default (e.g. aliases, region).
        if value is None or value == "":
            field = cls.model_fields.get(info.field_name or "")
            allows_none = field is not None and type(None) in get_args(field.annotation)
            return None if allows_none else ""
        if isinstance(value, str) and _CONTROL.search(value):
            raise ValueError("control characters (NUL, escapes) are not allowed in text")
        return value


# Compute precisions a GPU row can lack: an empty peak cell means the GPU has no tensor-core
# path at that precision (V100 and T4: no BF16; nothing before Hopper/Ada Lovelace: no FP8).
# (An empty fp32 or int8 cell means the figure is not published; see the row's note.)
PEAK_COLUMNS = {"bf16": "bf16_tflops", "fp16": "fp16_tflops", "fp8": "fp8_tflops"}


class GpuRow(CatalogRow):
    """One accelerator product; throughput figures are dense (without sparsity), per GPU.

    Capacity: `memory_bytes` is what the driver reports (nvidia-smi / rocm-smi total), quoted in
    the note `memory_note`; where no driver figure was found it is the datasheet label read as
    GiB (label x 2^30) and `memory_basis` is "label". `memory_gb` = memory_bytes / 1e9 is what
    every calculator reads (GB = 1e9 bytes); `memory_label` ("80GB") is the datasheet's name.
    """

    id: str
    name: str
    aliases: str = ""
    vendor: str
    form_factor: Literal["sxm", "pcie", "oam", "superchip", "consumer"]
    memory_label: str = Field(min_length=1)
    memory_bytes: int = Field(gt=0)
    memory_basis: Literal["driver", "label"]
    memory_note: NoteId = Field(min_length=1)
    memory_gb: float = Field(default=0.0, ge=0)
    memory_bandwidth_tb_s: float = Field(gt=0)
    fp32_tflops: float | None = Field(default=None, gt=0)
    bf16_tflops: float | None = Field(default=None, gt=0)
    fp16_tflops: float = Field(gt=0)
    fp8_tflops: float | None = Field(default=None, gt=0)
    int8_tops: float | None = Field(default=None, gt=0)
    intra_link: str | None = None
    gpus_per_node: int = Field(ge=1)
    nvlink_domain_gpus: int = Field(ge=1)
    tdp_w: float = Field(gt=0)
    # A bridge joining a pair (or four) of PCIe cards, e.g. GA102's NVLink bridge: TP within
    # the bridged group runs over it, anything wider over intra_link (note nvlink-generations).
    pair_link: str | None = None

    @model_validator(mode="after")
    def _memory_gb_is_the_bytes(self) -> GpuRow:
        # memory_gb is derived, never typed: absent (a seed row) it is filled in; present (a row
        # read back from the store) it must be the same bytes.
        exact = self.memory_bytes / 1e9
        if self.memory_gb and abs(self.memory_gb - exact) > 1e-9 * exact:
            raise ValueError(f"memory_gb {self.memory_gb} is not memory_bytes / 1e9 ({exact})")
        self.memory_gb = exact
        return self

    def without_nvlink(self) -> bool:
        """No GPU-to-GPU fabric at all: a PCIe card whose peers are reached over PCIe only
        (L40S, L4, RTX 4090), not one whose bridge joins pairs (RTX 3090, A40, H100 NVL)."""
        return self.over_pcie() and self.pair_link is None

    def over_pcie(self) -> bool:
        """Whether the GPUs of a node meet over PCIe (whatever bridges join some of them)."""
        return (self.intra_link or "").startswith("pcie")

    def nvlink(self) -> str | None:
        """What 'NVLink' means on this GPU: its node's fabric (NVLink, or Infinity Fabric on an
        MI300X), else the bridge to its partner, else None (no GPU-to-GPU fabric at all)."""
        if not self.over_pcie():
            return self.intra_link
        return self.pair_link

    def precisions(self) -> list[str]:
        """The compute precisions this GPU has a dense peak for in the catalog."""
        columns = {"fp32": "fp32_tflops", **PEAK_COLUMNS, "int8": "int8_tops"}
        return [p for p, column in columns.items() if getattr(self, column) is not None]

    def lacks(self, precision: str) -> str | None:
        """Why this GPU cannot compute at `precision` on tensor cores, or None when it can."""
        column = PEAK_COLUMNS.get(precision)
        if column is None or getattr(self, column) is not None:
            return None
        return (f"{self.name} has no {precision.upper()} tensor cores (it has: "
                f"{', '.join(p.upper() for p in self.precisions())})")


class LinkRow(CatalogRow):
    """One interconnect or storage path. `per_direction_gb_s` is per GPU (NVLink) or per port."""

    id: str
    name: str
    aliases: str = ""
    kind: Literal["nvlink", "infinity_fabric", "pcie", "infiniband", "roce", "ethernet", "storage"]
    scope: Literal["intra_node", "inter_node", "storage"]
    line_rate_per_direction_gb_s: float = Field(gt=0)
    marketed_bidirectional: bool
    effective_per_direction_gb_s: float | None = Field(default=None, gt=0)
    latency_us: float = Field(ge=0)


Precision = Literal["fp32", "bf16", "fp16", "fp8", "int8", "mxfp4", "int4"]


class ModelRow(CatalogRow):
    """A model's published architecture (from its config file or paper).

    For a mixture of experts, `ffn_hidden` is one routed expert's width and `shared_experts`
    counts the experts every token also runs. `kv_latent_dim` is MLA's compressed KV per
    token and layer (kv_lora_rank + qk_rope_head_dim). `sliding_window` is the span, in
    tokens, of the local attention that `sliding_window_layers` of the layers use (`window_kind`
    'chunked' for Llama 4's fixed chunks); the calculators do not use these three yet and
    size every layer's KV cache for the full context. `native_precision` is what the released
    weights are stored in. `origin` is 'user' for a model imported from a config.json.
    """

    id: str
    name: str
    aliases: str = ""
    family: str
    params_b: float = Field(gt=0)
    active_params_b: float = Field(gt=0)
    layers: int = Field(gt=0)
    hidden: int = Field(gt=0)
    heads: int = Field(gt=0)
    kv_heads: int = Field(gt=0)
    head_dim: int = Field(gt=0)
    ffn_hidden: int = Field(gt=0)
    vocab: int = Field(gt=0)
    experts: int = Field(default=1, ge=1)
    experts_per_token: int = Field(default=1, ge=1)
    attention: Literal["mha", "gqa", "mqa", "mla"] = "gqa"
    kv_latent_dim: int | None = Field(default=None, gt=0)
    max_context: int = Field(gt=0)
    shared_experts: int = Field(default=0, ge=0)
    sliding_window: int | None = Field(default=None, gt=0)
    sliding_window_layers: int | None = Field(default=None, gt=0)
    window_kind: Literal["sliding", "chunked"] | None = None
    native_precision: Precision = "bf16"
    origin: Literal["catalog", "user"] = "catalog"

    @model_validator(mode="after")
    def _consistent(self) -> ModelRow:
        problems = []
        if self.heads % self.kv_heads:
            problems.append(f"kv_heads {self.kv_heads} does not divide heads {self.heads}")
        if self.active_params_b > self.params_b * 1.0001:
            problems.append("active_params_b exceeds params_b")
        if self.experts_per_token > self.experts:
            problems.append("experts_per_token exceeds experts")
        if (self.attention == "mla") != (self.kv_latent_dim is not None):
            problems.append("kv_latent_dim is given exactly when attention is mla")
        if self.sliding_window_layers is not None and self.sliding_window_layers > self.layers:
            problems.append("sliding_window_layers exceeds layers")
        if (self.sliding_window is None) != (self.sliding_window_layers is None):
            problems.append("give sliding_window and sliding_window_layers together")
        if problems:
            raise ValueError("; ".join(problems))
        return self


class ProviderRow(CatalogRow):
    """A cloud or GPU provider and what it charges for data leaving it.

    `egress_tiers` is JSON text: a list of {"up_to_gb": number or null, "usd_per_gb": number},
    bands over the month's total volume in decimal GB, the last one open-ended (null).
    """


    id: str
    name: str
    aliases: str = ""
    egress_usd_per_gb: float = Field(ge=0)
    egress_free_gb: float = Field(default=0, ge=0)
    egress_tiers: str = ""

    @field_validator("egress_tiers")
    @classmethod
    def _tiers_are_bands(cls, text: str) -> str:
        if text:
            egress_bands(text)
        return text


def egress_bands(text: str) -> list[dict[str, Any]]:
    """Parse egress tiers JSON; a malformed table is a ValueError naming what is wrong."""
    try:
        bands = json.loads(text)
    except json.JSONDecodeError:
        raise ValueError("egress_tiers is not valid JSON") from None
    if not isinstance(bands, list) or not bands:
        raise ValueError("egress_tiers must be a non-empty JSON list of bands")
    previous = 0.0
    for i, band in enumerate(bands):
        if not isinstance(band, dict) or set(band) != {"up_to_gb", "usd_per_gb"}:
            raise ValueError("each egress tier is {\"up_to_gb\": ..., \"usd_per_gb\": ...}")
        last = i == len(bands) - 1
        top = band["up_to_gb"]
        if (top is None) != last or (top is not None and top <= previous):
            raise ValueError("egress tiers rise in up_to_gb and only the last is open (null)")
        if not isinstance(band["usd_per_gb"], int | float) or band["usd_per_gb"] < 0:
            raise ValueError("an egress tier's usd_per_gb must be a number >= 0")
        previous = top or previous
    return bands


OfferKind = Literal[
    "on_demand", "spot", "reserved_1m", "reserved_1y", "reserved_3y", "capacity_block"
]


class OfferRow(CatalogRow):
    """A dated price point for renting one GPU product from one provider.

    Give $/GPU-hour, $/node-hour or both; `product` is the provider's own name for what is
    rented (instance type, cloud tier), so two rows for the same GPU can be told apart.
    """


    provider: str = Field(min_length=1, max_length=200)
    gpu: str = Field(min_length=1)
    gpus_per_node: int = Field(ge=1, le=72)
    kind: OfferKind
    usd_per_gpu_hour: float | None = Field(default=None, gt=0, lt=1000)
    usd_per_node_hour: float | None = Field(default=None, gt=0, lt=100000)
    region: str = ""
    verified_on: dt.date
    status: Literal["available", "announced"] = "available"
    origin: Literal["catalog", "user"] = "catalog"
    product: str = ""

    @model_validator(mode="after")
    def _has_a_price(self) -> OfferRow:
        if self.usd_per_gpu_hour is None and self.usd_per_node_hour is None:
            raise ValueError("give usd_per_gpu_hour or usd_per_node_hour (or both)")
        return self
