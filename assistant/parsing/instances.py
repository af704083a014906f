"""Cloud instance names that fix which GPU is meant, and how many: 'g5.4xlarge (1 A10 GPU)'
is one A10G, '2 x p4d.24xlarge' two nodes of 8 A100 40GB.

An AWS instance family carries one GPU (note aws-instance-gpus). Named beside a GPU of the
same kind, the instance picks the variant (A10 -> A10G on g5, V100 -> the 16 GB one on p3);
named alone, it names the GPU. An instance is a node: its size gives the GPUs in it. Every
such reading is shown.
"""

from __future__ import annotations

import re
from dataclasses import dataclass

from clusterplan.assistant.parsing.lazy_re import lazy

# "g5.4xlarge", "ml.g4dn.12xlarge", "p3.2xlarge", "p4de.24xlarge", "a g5 instance"; not p3dn
# (its V100 is 32 GB).
# The question arrives with counts spaced out ("4xlarge" -> "4 x large"), hence the spaces.
INSTANCE = lazy(r"(?:(?<![\w.])(\d{1,4})\s*(?:x\s*|\*\s*)?)?\b(p4de|p4d|p5en|p5|g5|g4dn|p3)"
                r"(?:\.(\d*)\s*(?:x\s*)*large\b|\s+instances?\b)", re.IGNORECASE)
GPU_OF = {"g5": "a10g", "g4dn": "t4", "p3": "v100-sxm2-16gb", "p4d": "a100-sxm-40gb",
          "p4de": "a100-sxm-80gb", "p5": "h100-sxm", "p5en": "h200-sxm"}
# GPUs in each size the sources give (note aws-instance-gpus); other sizes: not counted.
GPUS_IN = {("g5", "4"): 1, ("g5", "12"): 4, ("g5", "48"): 8, ("g4dn", ""): 1, ("g4dn", "2"): 1,
           ("g4dn", "4"): 1, ("g4dn", "12"): 4, ("p3", "2"): 1, ("p3", "8"): 4,
           ("p3", "16"): 8, ("p4d", "24"): 8, ("p4de", "24"): 8, ("p5", "48"): 8,
           ("p5en", "48"): 8}


@dataclass(frozen=True)
class Instance:
    """An instance named: as written, the GPU it carries, how many of it, GPUs in each."""

    said: str
    gpu: str
    count: int | None
    gpus_each: int | None


def instance_named(text: str) -> Instance | None:
    """The first instance the question names."""
    m = INSTANCE.search(text)
    if m is None:
        return None
    name = m[0][m.start(2) - m.start():]
    said = re.sub(r"\s*x\s*", "x", name) if "large" in name.lower() else name
    family = m[2].lower()
    return Instance(said, GPU_OF[family], int(m[1]) if m[1] else None,
                    GPUS_IN.get((family, m[3] or "")))


def instance_gpu(text: str) -> tuple[str, str] | None:
    """(the instance name as written, the catalog GPU it carries), for the first one named."""
    named = instance_named(text)
    return (named.said, named.gpu) if named else None


def same_kind(named: str, carried: str, family: str) -> bool:
    """'a10' and 'a10g', 'v100-sxm2-32gb' and 'v100-sxm2-16gb': one GPU kind, two variants."""
    return carried.startswith(named) or family == carried.split("-")[0]
