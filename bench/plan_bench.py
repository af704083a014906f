"""Time the plan tool's full search in-process: a training deadline and a serving target."""

from __future__ import annotations

import time

from clusterplan.tools.plan.affordable import forget_searches
from clusterplan.tools.registry import invoke

EVERY_KIND = ["on_demand", "spot", "reserved_1m", "reserved_1y", "reserved_3y",
              "capacity_block"]
TARGET_S = 1.0  # the bound for each full search, in-process on 2 cores
CASES = {
    "Llama 3.1 405B pretrain, 15T in 90 days, 16M-token batch, all GPU kinds to 16,384, "
    "every offer":
        {"model": "llama-3.1-405b", "tokens": "15T", "deadline_days": 90, "max_gpus": 16_384,
         "global_batch_tokens": 16_777_216, "offer_kinds": EVERY_KIND},
    "Llama 2 7B pretrain, 2T tokens in 30 days":
        {"model": "llama-2-7b", "tokens": "2T", "deadline_days": 30},
    "Llama 3 70B serving, 200 users x 30 tokens/s":
        {"model": "llama-3-70b", "workload": "inference", "concurrent_users": 200,
         "tokens_per_s_per_user": 30},
    "Llama 3 70B serving, 50,000 output tokens/s, 2,000 in / 500 out, TTFT 500 ms, TPOT 50 ms, "
    "every offer":
        {"model": "llama-3-70b", "workload": "inference", "tokens_per_s": 50_000,
         "input_tokens": 2000, "output_tokens": 500, "ttft_ms": 500, "tpot_ms": 50,
         "offer_kinds": EVERY_KIND},
    "I have $50k: the biggest model to fine-tune, full / LoRA / QLoRA x 3 data sizes":
        {"largest_model": True, "workload": "full_finetune", "budget_usd": 50_000},
    "I have $500: the same comparison, where the budget binds":
        {"largest_model": True, "workload": "full_finetune", "budget_usd": 500},
}


def main() -> None:
    invoke("plan", {"model": "llama-3-8b", "tokens": "1B", "objective": "cheapest",
                    "gpus": ["h100"], "max_gpus": 8})  # warm the catalog and imports
    for name, payload in CASES.items():
        forget_searches()  # each case cold: no search remembered from the one before
        _timed(name, payload)
    _timed("I have $1,000, asked after $500 (the searches they share remembered)",
           {"largest_model": True, "workload": "full_finetune", "budget_usd": 1_000})


def _timed(name: str, payload: dict) -> None:
    start, cpu = time.perf_counter(), time.process_time()
    result = invoke("plan", payload)
    took, cpu = time.perf_counter() - start, time.process_time() - cpu
    verdict = "within" if took < TARGET_S else "OVER"
    print(f"{name}: {took:.2f} s, {cpu:.2f} s CPU ({verdict} the {TARGET_S:g} s bound), "
          f"{result.evaluated} evaluated; {result.summary}")


if __name__ == "__main__":
    main()
