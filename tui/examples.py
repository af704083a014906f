"""Example questions shown in help and the command palette: what a planner asks first."""

from __future__ import annotations

EXAMPLE_QUESTIONS: tuple[str, ...] = (
    "How much GPU memory do I need to serve Llama 3 70B in BF16?",
    "Does a 70B model fit for full fine-tuning on one 8xH100 node?",
    "Can I QLoRA fine-tune llama-3-70b on a single H100 80GB?",
    "How should I split a 70B model across 16 H100s in 2 nodes?",
    "How long does an all-reduce of 140 GB of gradients take over NVLink on 8 H100s?",
    "Convert 400 Gb/s to GB/s",
    "What does an 8xH200 node cost per month on-demand?",
    "At what utilization does reserved pricing beat on-demand?",
    "Why shouldn't tensor parallelism cross the node boundary?",
    "/memory model=llama-3-8b workload=lora precision=bf16",
)

FOLLOW_UPS: tuple[str, ...] = (
    "and what about on H200?",
    "what about FP8?",
    "how much per month?",
)
