"""The plan tool's input: a model, a workload and one goal, with optional constraints."""

from __future__ import annotations

from typing import Literal

from pydantic import Field, PrivateAttr, field_validator, model_validator

from clusterplan.tools.input_checks import CheckedInput
from clusterplan.tools.memory.input import KvPrecision
from clusterplan.tools.memory.precision import Precision
from clusterplan.tools.parallelism.input import token_budget

PlanWorkload = Literal["pretrain", "full_finetune", "lora", "qlora", "inference"]
TRAINING = ("pretrain", "full_finetune", "lora", "qlora")
# A fine-tune with no data size: Alpaca's 52,000 examples x 512 tokens x 3 epochs
# (finetune-dataset-default#default-tokens).
DEFAULT_FINETUNE_TOKENS = 52_000 * 512 * 3.0


class PlanInput(CheckedInput):
    """What to plan for: the model, the workload, the goal and the limits."""

    model: str | None = Field(default=None, max_length=200, description="catalog name")
    params_b: float | None = Field(default=None, description="total parameters, in billions")
    workload: PlanWorkload = Field(default="pretrain")
    precision: Precision | None = Field(default=None, description="weights and compute; "
                                        "default bf16 (nf4 for qlora), as the parallelism tool")
    kv_precision: KvPrecision | None = Field(default=None, description="inference KV cache")
    tokens: float | str | None = Field(default=None, description="training tokens, e.g. '2T'")
    deadline_days: float | None = Field(default=None, gt=0, le=3650,
                                        description="finish the tokens within this many days")
    tokens_per_s: float | None = Field(default=None, gt=0, le=1e12,
                                       description="serving: output tokens/s of all replicas")
    concurrent_users: int | None = Field(default=None, ge=1, le=100_000_000,
                                         description="serving: users decoding at once")
    tokens_per_s_per_user: float | None = Field(default=None, gt=0, le=100_000,
                                                description="serving: output tokens/s per user")
    requests_per_s: float | None = Field(default=None, gt=0, le=1e9,
                                         description="serving: requests a second (with "
                                         "input_tokens and output_tokens)")
    input_tokens: int | None = Field(default=None, ge=1, le=10_000_000,
                                     description="serving: prompt tokens a request")
    output_tokens: int | None = Field(default=None, ge=1, le=10_000_000,
                                      description="serving: output tokens a request")
    ttft_ms: float | None = Field(default=None, gt=0, le=3_600_000,
                                  description="serving: time to first token, at most (ms)")
    tpot_ms: float | None = Field(default=None, gt=0, le=3_600_000,
                                  description="serving: time per output token, at most (ms)")
    context_len: int | None = Field(default=None, ge=1, le=10_000_000,
                                    description="serving: prompt + output tokens")
    budget_usd: float | None = Field(default=None, gt=0, le=1e12,
                                     description="training: the run's cost; serving: per month")
    objective: Literal["cheapest", "fastest"] | None = Field(default=None)
    gpus: list[str] | None = Field(default=None, description="GPU kinds to consider (default all)")
    providers: list[str] | None = Field(default=None, description="only these providers")
    global_batch_tokens: int | None = Field(
        default=None, ge=1, le=1_000_000_000_000,
        description="training: tokens per optimizer step, passed to the parallelism tool "
        "(its default batch limits how far data parallelism scales)")
    offer_kinds: list[Literal["on_demand", "spot", "reserved_1m", "reserved_1y", "reserved_3y",
                              "capacity_block"]] = Field(
        default=["on_demand"], min_length=1,
        description="pricing kinds allowed (default on-demand); a commitment bills its whole "
        "term")
    largest_model: bool = Field(default=False, description="find the biggest catalog model the "
                                "goal affords (no model given)")
    max_gpus: int = Field(default=16_384, ge=1, le=1_000_000, description="largest cluster")

    _tokens_assumed: bool = PrivateAttr(default=False)

    @field_validator("gpus", "providers", "offer_kinds", mode="before")
    @classmethod
    def _names(cls, value: object) -> object:
        """'h100,h200' (as a slash command types it) is the list ['h100', 'h200']."""
        if isinstance(value, str):
            return [v.strip() for v in value.split(",") if v.strip()]
        return value

    @field_validator("tokens", mode="after")
    @classmethod
    def _tokens(cls, value: float | str | None) -> float | None:
        return token_budget(value)

    @model_validator(mode="after")
    def _consistent(self) -> PlanInput:
        if self.largest_model:
            if self.model is not None or self.params_b is not None:
                raise ValueError("`largest_model` searches the catalog: give no `model` or "
                                 "`params_b`")
            if self.workload == "inference" or (self.budget_usd is None
                                                and self.deadline_days is None):
                raise ValueError("`largest_model` needs a training workload and a "
                                 "`budget_usd` or `deadline_days`")
        elif (self.model is None) == (self.params_b is None):
            raise ValueError("give either `model` (a catalog name) or `params_b`, exactly one")
        if (self.concurrent_users is None) != (self.tokens_per_s_per_user is None):
            raise ValueError("`concurrent_users` and `tokens_per_s_per_user` go together")
        if self.tokens_per_s is not None and self.concurrent_users is not None:
            raise ValueError("give `tokens_per_s` or `concurrent_users` x "
                             "`tokens_per_s_per_user`, not both")
        if self.requests_per_s is not None and (self.tokens_per_s is not None
                                                or self.concurrent_users is not None):
            raise ValueError("give one throughput: `tokens_per_s`, `requests_per_s` or "
                             "`concurrent_users`")
        if self.requests_per_s is not None and self.output_tokens is None:
            raise ValueError("`requests_per_s` needs `output_tokens` (and `input_tokens`) a "
                             "request")
        if self.ttft_ms is not None and self.input_tokens is None:
            raise ValueError("`ttft_ms` needs `input_tokens` (the prompt whose prefill it "
                             "times)")
        if (self.input_tokens is None) != (self.output_tokens is None):
            raise ValueError("`input_tokens` and `output_tokens` go together")
        if self.context_len is not None and self.input_tokens is not None:
            raise ValueError("give `context_len` or `input_tokens` + `output_tokens`, not both")
        serving_goal = self.tokens_per_s is not None or self.concurrent_users is not None \
            or self.requests_per_s is not None
        if self.workload in TRAINING:
            given = [f for f in ("input_tokens", "ttft_ms", "tpot_ms", "context_len")
                     if getattr(self, f) is not None]
            if given:
                raise ValueError(f"`{given[0]}` is a serving goal, for workload 'inference'")
            if serving_goal:
                raise ValueError(f"a throughput goal is for workload 'inference', not "
                                 f"{self.workload!r}")
            if self.tokens is None and self.workload != "pretrain":
                self.tokens = DEFAULT_FINETUNE_TOKENS
                self._tokens_assumed = True
            if self.tokens is None:
                raise ValueError(f"workload {self.workload!r} needs `tokens` (how many to "
                                 "train on), e.g. '2T'")
            if self.deadline_days is None and self.budget_usd is None and not self.objective:
                raise ValueError("give a goal: `deadline_days`, `budget_usd` or `objective` "
                                 "(cheapest or fastest)")
        else:
            if self.deadline_days is not None or self.tokens is not None:
                raise ValueError("`tokens` and `deadline_days` are training goals; serving "
                                 "takes `tokens_per_s` or `concurrent_users`")
            if not serving_goal:
                raise ValueError("workload 'inference' needs `tokens_per_s`, `requests_per_s`, "
                                 "or `concurrent_users` with `tokens_per_s_per_user`")
        return self

    @property
    def tokens_assumed(self) -> bool:
        """True when a fine-tune named no data size and the default was taken."""
        return self._tokens_assumed

    @property
    def training(self) -> bool:
        return self.workload in TRAINING

    @property
    def target_tokens_per_s(self) -> float | None:
        """The aggregate output tokens/s a serving goal asks for."""
        if self.tokens_per_s is not None:
            return self.tokens_per_s
        if self.concurrent_users is not None and self.tokens_per_s_per_user is not None:
            return self.concurrent_users * self.tokens_per_s_per_user
        if self.requests_per_s is not None and self.output_tokens is not None:
            return self.requests_per_s * self.output_tokens
        return None

    @property
    def serving_context(self) -> int | None:
        """KV-cache tokens a sequence holds at its end: prompt + output, or context_len."""
        if self.input_tokens is not None and self.output_tokens is not None:
            return self.input_tokens + self.output_tokens
        return self.context_len

    @property
    def tpot_target_s(self) -> float | None:
        """The tightest time per output token asked: tpot_ms, or 1 / tokens/s per user."""
        limits = [t / 1e3 for t in (self.tpot_ms,) if t is not None]
        if self.tokens_per_s_per_user is not None:
            limits.append(1 / self.tokens_per_s_per_user)
        return min(limits) if limits else None
