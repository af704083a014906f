"""Row models of the catalog tables: every seed CSV and every imported row is validated here."""

from __future__ import annotations

import datetime as dt
from typing import Literal

from pydantic import BaseModel, ConfigDict, Field, field_validator

NoteId = str


class CatalogRow(BaseModel):
    """A catalog row: unknown columns are an error, and every row names the note it comes from."""

    model_config = ConfigDict(extra="forbid", str_strip_whitespace=True)

    source_note: NoteId = Field(min_length=1)

    @field_validator("*", mode="before")
    @classmethod
    def _empty_is_none(cls, value: object) -> object:
        # CSV cells are strings; an empty cell means "not applicable".
        return None if value == "" else value


class GpuRow(CatalogRow):
    """One accelerator product; throughput figures are dense (without sparsity), per GPU."""

    id: str
    name: str
    aliases: str = ""
    vendor: str
    form_factor: Literal["sxm", "pcie", "oam", "superchip", "consumer"]
    memory_gb: float = Field(gt=0)
    memory_bandwidth_tb_s: float = Field(gt=0)
    fp32_tflops: float = Field(gt=0)
    bf16_tflops: float = Field(gt=0)
    fp16_tflops: float = Field(gt=0)
    fp8_tflops: float | None = Field(default=None, gt=0)
    int8_tops: float | None = Field(default=None, gt=0)
    intra_link: str | None = None
    gpus_per_node: int = Field(ge=1)
    nvlink_domain_gpus: int = Field(ge=1)
    tdp_w: float = Field(gt=0)


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


class ModelRow(CatalogRow):
    """A model's published architecture (from its config file or paper)."""

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


class ProviderRow(CatalogRow):
    """A cloud or GPU provider and what it charges for data leaving it."""

    id: str
    name: str
    aliases: str = ""
    egress_usd_per_gb: float = Field(ge=0)
    egress_free_gb: float = Field(default=0, ge=0)
    egress_tiers: str = ""


class OfferRow(CatalogRow):
    """A dated price point for renting one GPU product from one provider."""

    provider: str
    gpu: str
    gpus_per_node: int = Field(ge=1, le=72)
    kind: Literal["on_demand", "spot", "reserved_1m", "reserved_1y", "reserved_3y", "capacity_block"]
    usd_per_gpu_hour: float | None = Field(default=None, gt=0, lt=1000)
    usd_per_node_hour: float | None = Field(default=None, gt=0, lt=100000)
    region: str = ""
    verified_on: dt.date
    status: Literal["available", "announced"] = "available"
    origin: Literal["catalog", "user"] = "catalog"
