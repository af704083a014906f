"""The plan tool's input: a model and workload, a goal, and optional constraints."""

from __future__ import annotations

from typing import Literal

from pydantic import Field, field_validator, model_validator

from clusterplan.tools.contract import ToolInput
from clusterplan.tools.parallelism.input import MAX_TOKENS, parse_count

Goal = Literal["deadline", "budget", "cheapest", "fastest"]
TrainWorkload = Literal["pretrain", "full_finetune", "lora", "qlora"]


class PlanInput(ToolInput):
    @property
    def ident(self) -> dict[str, object]:
        """The model as the parallelism tool takes it."""
        return {"model": self.model} if self.model else {"params_b": self.params_b}

    """What to train, on how many tokens, and the goal the cluster must meet."""

    model: str | None = Field(default=None, max_length=200, description="catalog model name")
    params_b: float | None = Field(default=None, gt=0, le=100_000,
                                   description="or a size in billions of parameters")
    workload: TrainWorkload = Field(default="pretrain")
    tokens: float | str | None = Field(default=None, description="training tokens, e.g. '2T'")
    goal: Goal = Field(default="cheapest")
    deadline_days: float | None = Field(default=None, gt=0, le=3650)
    budget_usd: float | None = Field(default=None, gt=0, le=1e11)
    gpus: list[str] = Field(default_factory=list, description="GPU kinds allowed; all if empty")
    providers: list[str] = Field(default_factory=list, description="providers allowed")
    regions: list[str] = Field(default_factory=list, description="regions allowed")
    offer_kinds: list[str] = Field(default=["on_demand", "reserved_1m", "reserved_1y",
                                            "reserved_3y", "capacity_block"],
                                   description="offer kinds allowed (spot is opt-in)")
    max_gpus: int = Field(default=16384, ge=1, le=1_000_000)

    @field_validator("tokens", mode="after")
    @classmethod
    def _tokens(cls, value: float | str | None) -> float | None:
        if value is None:
            return None
        count = parse_count(value)
        if not 0 < count <= MAX_TOKENS:
            raise ValueError("tokens must be above 0 and at most 1e18")
        return count

    @model_validator(mode="after")
    def _goal_needs(self) -> PlanInput:
        if (self.model is None) == (self.params_b is None):
            raise ValueError("give either `model` (a catalog name) or `params_b`, exactly one")
        if self.goal == "deadline" and self.deadline_days is None:
            raise ValueError("goal 'deadline' needs deadline_days")
        if self.goal == "budget" and self.budget_usd is None:
            raise ValueError("goal 'budget' needs budget_usd")
        return self
