"""Words of an offload question: the GPU's memory ("8 GB VRAM"), the host's RAM ("32 GB RAM",
"1 TB RAM"), and whether training offloads ("offload", "ZeRO-Offload", "host RAM")."""

from __future__ import annotations

import re
from typing import Any

from clusterplan.assistant.parsing.lazy_re import lazy

_I = re.IGNORECASE
# a size starts where its digits start (tried inside a long run of digits it is quadratic)
_SIZE = r"(?<![\d.])(\d+(?:\.\d+)?)\s*(gb|gib|g|tb|tib|t)\b\s*(?:of\s+)?"
# gpu-driver-memory#label-derived: a GPU's memory label ("80GB") counts GiB, as its driver does.
LABEL_GIB = 2**30 / 1e9
VRAM = lazy(_SIZE + r"(?:vram|gpu\s+memory|video\s+memory|of\s+vram|(?:的\s*)?显存|unified\s+memory"
            r"|(?:的\s*)?统一内存)"
            # "8 x 48GB GPUs", "一张48G的显卡": GPUs known by their memory alone (not "<gpu>
            # 80GB GPUs"; "6GB显卡提示显存不足" beside a card named is that card's memory)
            # (not a log's "KV cache memory: 10.55 GiB\nGPU KV cache size": a new line's label)
            r"|(?<!>)(?<!>\s)(?<![\d.])(\d+(?:\.\d+)?)\s*(gb|gib|g)[ \t]*"
            r"(?:(?<=[ \t])(?:gpus?|cards?)\b(?!\s+(?:kv|cache|blocks?)\b)|(?:的\s*)?(?:显卡|卡))",
            _I)
RAM = lazy(_SIZE + r"(?:(?:system|host|cpu|ddr\d?)\s+)?(?:ram|memory\s+on\s+the\s+host|dram)\b"
           r"|" + _SIZE + r"(?:system|host|cpu)\s+memory\b"
           # a terabyte of "memory" is the host's: no GPU holds one
           r"|(?<![\d.])(\d+(?:\.\d+)?)\s*(tb|tib|t)\b\s*(?:of\s+)?memory\b"
           # a spec sheet's line "Memory: 256G" beside its "GPU:" line; Chinese 内存 is RAM
           r"|(?<![\w-])(?<!gpu\s)(?<!cache\s)memory\s*[:：]\s*(\d+(?:\.\d+)?)\s*"
           r"(gb|gib|g|tb|tib|t)\b"
           r"|(?<![\d.])(\d+(?:\.\d+)?)\s*(gb|gib|g|tb|tib|t)\s*(?:ddr\d?|d\d)?\s*内存"
           # "...96GB VRAM, but my memory is only 256GB": the asker's own memory, beside VRAM
           r"|\bmy\s+(?:system\s+)?memory\s+is\s+(?:only\s+|just\s+)?(\d+(?:\.\d+)?)\s*"
           r"(gb|gib|g|tb|tib|t)\b"
           # "Intel i9 14900k 96GB", "Ryzen 9 7950X, 64 GB": a size written after a CPU is its RAM
           r"|\b(?:i[3579][\s-]?\d{4,5}[a-z]{0,2}|ryzen\s+\d\s+\d{4}[a-z0-9]{0,3}|"
           r"threadripper\s+(?:pro\s+)?\w+|epyc\s+\d{4}\w*|"
           r"xeon(?:\s+(?:gold|silver|platinum|bronze))?\s+[\w-]+(?:\s+v\d)?)"
           r"\s*[,(/]?\s*(?:with\s+)?(\d+(?:\.\d+)?)\s*(gb|gib|g|tb|tib|t)\b"
           r"(?!\s*(?:vram|gpu))", _I)
# "fine-tuning a 7B model requires about ... = 112 GB of VRAM": what a job needs, not the
# memory the asker has
REQUIRED_BEFORE = lazy(r"\b(?:requires?|requiring|needs?|needing|takes?|uses?|consumes?|"
                       r"occupies)\b[^.,;]*$", _I)
OFFLOAD = lazy(r"\boffload|\bzero[\s-]?offload|\bhost\s+ram\b|\bcpu\s+ram\b|\bsystem\s+ram\b",
               _I)
PARAMS_OFFLOAD = lazy(r"\bzero[\s-]?infinity\b|\bnvme\b|\boffload\w*\s+(?:the\s+)?param", _I)
ZERO = lazy(r"\bzero[\s_-]*(?:stage[\s_-]*)?[0-9]\b|\bzero[\s-]?offload\b|\bdeepspeed\b", _I)
# "without CPU offload", "no offload", "不使用offload": offload named to say it is off.
NO_OFFLOAD = lazy(r"(?:\bwithout|\bno|\bnot|\bdisabled?|不使用|不用|没有|关闭)\s+(?:any\s+|the\s+|"
                  r"cpu\s+|optimizer\s+)?$", _I)


def _gb(value: str, unit: str) -> float:
    return float(value) * (1000.0 if unit.lower().startswith("t") else 1.0)


def read_offload(text: str, slots: dict[str, Any]) -> None:
    """Fill gpu_memory_gb, host_ram_gb and (for training) offload from the question."""
    if "gpu_memory_gb" in slots:
        pass  # the memory written beside a card named ("3060laptop 6GB") is that card's
    elif (m := VRAM.search(text)) and not REQUIRED_BEFORE.search(text[max(0, m.start() - 40):
                                                                      m.start()]):
        if m[1]:
            slots["gpu_memory_gb"] = _gb(m[1], m[2])
        else:  # "48GB GPUs": a GPU known by its memory label, which counts GiB
            slots["gpu_memory_gb"] = round(_gb(m[3], m[4]) * LABEL_GIB, 2)
            slots["gpu_memory_label"] = f"{m[3]}{m[4].upper()}"
    if m := RAM.search(text):
        value, unit = next((m[i], m[i + 1]) for i in range(1, m.re.groups, 2) if m[i])
        slots["host_ram_gb"] = _gb(value, unit)
    if ZERO.search(text) and slots.get("workload") == "inference":
        del slots["workload"]  # "host RAM" reads as hosting; ZeRO is training
    training = slots.get("workload") not in (None, "inference") or ZERO.search(text)
    if training and (offload_asked(text) or "host_ram_gb" in slots):
        slots["offload"] = offload_kind(text)


def offload_asked(text: str) -> bool:
    """Offload is named, and not to say it is off ("without CPU offload")."""
    return any(not NO_OFFLOAD.search(text[max(0, m.start() - 20):m.start()])
               for m in OFFLOAD.finditer(text))


def offload_kind(text: str) -> str:
    """What is offloaded: the parameters too (ZeRO-Infinity, NVMe), else the optimizer."""
    return "optimizer_and_params" if PARAMS_OFFLOAD.search(text) else "optimizer"
