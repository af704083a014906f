"""Time the plan tool's full search in-process: a training deadline and a serving target."""

from __future__ import annotations

import time

from clusterplan.tools.registry import invoke

CASES = {
    "Llama 3.1 405B pretrain, 15T in 90 days, 16M-token batch, all GPU kinds to 16,384":
        {"model": "llama-3.1-405b", "tokens": "15T", "deadline_days": 90, "max_gpus": 16_384,
         "global_batch_tokens": 16_777_216},
    "Llama 2 7B pretrain, 2T tokens in 30 days":
        {"model": "llama-2-7b", "tokens": "2T", "deadline_days": 30},
    "Llama 3 70B serving, 200 users x 30 tokens/s":
        {"model": "llama-3-70b", "workload": "inference", "concurrent_users": 200,
         "tokens_per_s_per_user": 30},
}


def main() -> None:
    invoke("plan", {"model": "llama-3-8b", "tokens": "1B", "objective": "cheapest",
                    "gpus": ["h100"], "max_gpus": 8})  # warm the catalog and imports
    for name, payload in CASES.items():
        start = time.perf_counter()
        result = invoke("plan", payload)
        took = time.perf_counter() - start
        print(f"{name}: {took:.2f} s, {result.evaluated} evaluated; {result.summary}")


if __name__ == "__main__":
    main()
