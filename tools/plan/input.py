"""The plan tool's input: a model, a workload and one goal, with optional constraints."""

from __future__ import annotations

from typing import Literal

from pydantic import Field, field_validator, model_validator

from clusterplan.tools.input_checks import CheckedInput
from clusterplan.tools.parallelism.input import token_budget

PlanWorkload = Literal["pretrain", "full_finetune", "lora", "qlora", "inference"]
TRAINING = ("pretrain", "full_finetune", "lora", "qlora")


class PlanInput(CheckedInput):
    """What to plan for: the model, the workload, the goal and the limits."""

    model: str | None = Field(default=None, max_length=200, description="catalog name")
    params_b: float | None = Field(default=None, description="total parameters, in billions")
    workload: PlanWorkload = Field(default="pretrain")
    tokens: float | str | None = Field(default=None, description="training tokens, e.g. '2T'")
    deadline_days: float | None = Field(default=None, gt=0, le=3650,
                                        description="finish the tokens within this many days")
    tokens_per_s: float | None = Field(default=None, gt=0, le=1e12,
                                       description="serving: output tokens/s of all replicas")
    concurrent_users: int | None = Field(default=None, ge=1, le=100_000_000,
                                         description="serving: users decoding at once")
    tokens_per_s_per_user: float | None = Field(default=None, gt=0, le=100_000,
                                                description="serving: output tokens/s per user")
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
    max_gpus: int = Field(default=16_384, ge=1, le=1_000_000, description="largest cluster")

    @field_validator("gpus", "providers", mode="before")
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
        if (self.model is None) == (self.params_b is None):
            raise ValueError("give either `model` (a catalog name) or `params_b`, exactly one")
        if (self.concurrent_users is None) != (self.tokens_per_s_per_user is None):
            raise ValueError("`concurrent_users` and `tokens_per_s_per_user` go together")
        if self.tokens_per_s is not None and self.concurrent_users is not None:
            raise ValueError("give `tokens_per_s` or `concurrent_users` x "
                             "`tokens_per_s_per_user`, not both")
        serving_goal = self.tokens_per_s is not None or self.concurrent_users is not None
        if self.workload in TRAINING:
            if serving_goal:
                raise ValueError(f"a throughput goal is for workload 'inference', not "
                                 f"{self.workload!r}")
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
                raise ValueError("workload 'inference' needs `tokens_per_s`, or "
                                 "`concurrent_users` with `tokens_per_s_per_user`")
        return self

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
        return None
