"""Cloud instance names that fix which GPU is meant: 'g5.4xlarge (1 A10 GPU)' is an A10G.

An AWS instance family carries one GPU (note aws-instance-gpus). Named beside a GPU of the
same kind, the instance picks the variant (A10 -> A10G on g5, V100 -> the 16 GB one on p3);
named alone, it names the GPU. Either way the reading is shown.
"""

from __future__ import annotations

import re

from clusterplan.assistant.parsing.lazy_re import lazy

# "g5.4xlarge", "p3.2xlarge", "p4de.24xlarge", "a g5 instance"; not p3dn (its V100 is 32 GB).
# The question arrives with counts spaced out ("4xlarge" -> "4 x large"), hence the spaces.
INSTANCE = lazy(r"\b(g5|p3|p4de|p5en|p5)(?:\.\d*\s*(?:x\s*)*large\b|\s+instances?\b)",
                re.IGNORECASE)
GPU_OF = {"g5": "a10g", "p3": "v100-sxm2-16gb", "p4de": "a100-sxm-80gb", "p5": "h100-sxm",
          "p5en": "h200-sxm"}


def instance_gpu(text: str) -> tuple[str, str] | None:
    """(the instance name as written, the catalog GPU it carries), for the first one named."""
    m = INSTANCE.search(text)
    if m is None:
        return None
    said = re.sub(r"\s*x\s*", "x", m[0]) if "large" in m[0].lower() else m[0]
    return said, GPU_OF[m[1].lower()]


def same_kind(named: str, carried: str, family: str) -> bool:
    """'a10' and 'a10g', 'v100-sxm2-32gb' and 'v100-sxm2-16gb': one GPU kind, two variants."""
    return carried.startswith(named) or family == carried.split("-")[0]
