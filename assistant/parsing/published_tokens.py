"""A named model's own pretraining budget: "how long to pretrain Llama 3 8B" means its 15T.

A question that names a published model and asks to pretrain it is asking about that model's
run, so the tokens it was published with are the budget, shown as an assumption with the
claim they come from; a model known only by its size keeps the 20-tokens-a-parameter rule.
"""

from __future__ import annotations

T = 1e12
B = 1e9
# catalog id -> (tokens, claim): pretraining-tokens notes each figure's source
PUBLISHED_TOKENS: dict[str, tuple[float, str]] = {
    **{m: (1.0 * T, "pretraining-tokens#llama-1") for m in ("llama-7b", "llama-13b")},
    **{m: (1.4 * T, "pretraining-tokens#llama-1") for m in ("llama-33b", "llama-65b")},
    **{m: (2.0 * T, "pretraining-tokens#llama-2")
       for m in ("llama-2-7b", "llama-2-13b", "llama-2-70b")},
    **{m: (15 * T, "pretraining-tokens#llama-3")
       for m in ("llama-3-8b", "llama-3-70b", "llama-3.1-8b", "llama-3.1-70b", "llama-3.1-405b",
                 "llama-3.3-70b")},
    **{m: (9 * T, "pretraining-tokens#llama-3") for m in ("llama-3.2-1b", "llama-3.2-3b")},
    **{m: (14.8 * T, "pretraining-tokens#deepseek-v3") for m in ("deepseek-v3", "deepseek-r1")},
    **{m: (18 * T, "pretraining-tokens#qwen")
       for m in ("qwen2.5-7b", "qwen2.5-14b", "qwen2.5-32b", "qwen2.5-72b")},
    **{m: (36 * T, "pretraining-tokens#qwen")
       for m in ("qwen3-0.6b", "qwen3-1.7b", "qwen3-4b", "qwen3-8b", "qwen3-14b", "qwen3-32b",
                 "qwen3-30b-a3b", "qwen3-235b-a22b")},
    "gpt-3-175b": (300 * B, "pretraining-tokens#gpt-3-opt-bloom"),
    "gpt2-124m": (600_000 * 491_520.0, "pretraining-tokens#nanogpt-gpt2"),
    **{m: (180 * B, "pretraining-tokens#gpt-3-opt-bloom")
       for m in ("opt-13b", "opt-30b", "opt-66b", "opt-175b")},
    "bloom-176b": (366 * B, "pretraining-tokens#gpt-3-opt-bloom"),
    "falcon-7b": (1.5 * T, "pretraining-tokens#falcon"),
    "falcon-40b": (1.0 * T, "pretraining-tokens#falcon"),
    "falcon-180b": (3.5 * T, "pretraining-tokens#falcon"),
    "gemma-2b": (3 * T, "pretraining-tokens#gemma"),
    "gemma-7b": (6 * T, "pretraining-tokens#gemma"),
    "gemma-2-2b": (2 * T, "pretraining-tokens#gemma"),
    "gemma-2-9b": (8 * T, "pretraining-tokens#gemma"),
    "gemma-2-27b": (13 * T, "pretraining-tokens#gemma"),
    "gemma-3-1b": (2 * T, "pretraining-tokens#gemma"),
    "gemma-3-4b": (4 * T, "pretraining-tokens#gemma"),
    "gemma-3-12b": (12 * T, "pretraining-tokens#gemma"),
    "gemma-3-27b": (14 * T, "pretraining-tokens#gemma"),
}

M = 1e6
# catalog id -> (GPU-hours, GPU they were counted on, claim): the published run's own total, to
# set beside an estimate of the same run
PUBLISHED_GPU_HOURS: dict[str, tuple[float, str, str]] = {
    "llama-3-8b": (1.3 * M, "h100-sxm", "pretraining-tokens#llama-3-gpu-hours"),
    "llama-3-70b": (6.4 * M, "h100-sxm", "pretraining-tokens#llama-3-gpu-hours"),
    "llama-3.1-8b": (1.46 * M, "h100-sxm", "pretraining-tokens#llama-3-gpu-hours"),
    "llama-3.1-70b": (7.0 * M, "h100-sxm", "pretraining-tokens#llama-3-gpu-hours"),
    "llama-3.1-405b": (30.84 * M, "h100-sxm", "pretraining-tokens#llama-3-gpu-hours"),
    "deepseek-v3": (2.664 * M, "h800-sxm", "pretraining-tokens#deepseek-v3-gpu-hours"),
}
