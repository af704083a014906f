"""The GPUs a question names: catalog GPUs and the variant a memory size picks ("A100 (40GB)"),
the GPU an instance name carries (g5: A10G), suffixed cards ("3090 Ti") and GPUs outside the
catalog ("A40", "M2 Ultra"), each read or named as unknown, never swapped silently.
"""

from __future__ import annotations

import re
from typing import TYPE_CHECKING

from clusterplan.assistant.parsing.gpu_suffixes import suffixed_gpus
from clusterplan.assistant.parsing.instances import instance_gpu, same_kind
from clusterplan.assistant.parsing.lazy_re import lazy
from clusterplan.assistant.parsing.names import Mention, by_kind, gpu_names, unknown_gpus
from clusterplan.assistant.parsing.outside_gpus import mark_outside, nearest, outside_gpus
from clusterplan.db.catalog import Catalog

if TYPE_CHECKING:
    from clusterplan.assistant.parsing.entities import Entities

_I = re.IGNORECASE
MEM_BEFORE = lazy(r"(\d+)\s*g(?:i?b)?\s*(?:的|显存的)?\s*$", _I)
# "A100 (40GB)", "A100 GPUs (40GB)", "DGX-A100 (8X40G)"; or a memory named as such: "V100 GPU,
# 16GB GPU memory", "H100显卡，96G显存".
MEM_AFTER = lazy(r"\s*(?:gpus?\s*)?[(（\[-]?\s*(?:\d+\s*[x×*]\s*)?(\d+)\s*g(?:i?b)?"
                 r"(?![a-z])|"
                 r"\s*(?:gpus?|cards?|显卡)?\s*[,，]\s*(\d+)\s*g(?:i?b)?\s*"
                 r"(?:gpu\s+memory|vram|显存)", _I)  # not "4090,256G memory" (host RAM)


def read_gpus(found: Entities, catalog: Catalog) -> None:
    """Fill gpu (the first named), gpu_list (several), gpu_plural, unknown_gpu and the memory of
    an unknown one."""
    slots = found.slots
    _unknown_gpus(found, catalog)
    gpus = _suffixed(found, catalog, _by_instance(found, _distinct_gpus(found, catalog)))
    gpus = _form_factor(found, catalog, gpus)
    if gpus:
        slots["gpu"] = gpus[0]
        named = by_kind(found.mentions, "gpus")  # none when an instance name gave the GPU
        if named and named[0].text.endswith("s") and not named[0].fuzzy:
            slots["gpu_plural"] = True  # 'H100s': some number of them, not one
        if len(gpus) > 1:
            slots["gpu_list"] = gpus


def _unknown_gpus(found: Entities, catalog: Catalog) -> None:
    """GPUs named that the catalog lacks: said so with the nearest catalog GPUs, counted ("2
    A40" is two GPUs), and their memory taken when written beside them ("RTX 3060 12GB")."""
    slots = found.slots
    unknown = unknown_gpus(found.masked, catalog)
    outside = outside_gpus(found.masked)
    names = gpu_names(catalog)
    unknown += [(o.said, nearest(o.said, names)) for o in outside
                if o.said not in {u for u, _ in unknown}]
    found.masked = mark_outside(found.masked, outside)
    if unknown:
        slots["unknown_gpu"] = unknown[0][0]
        found.readings.extend(f"'{said}' is not a GPU in the catalog (nearest: {near}); it was "
                              "not read as one" for said, near in unknown)
    sized = next((o for o in outside if o.gb), None)
    if sized is not None:  # written beside the card, it is that card's (over a bare "6GB 显卡")
        slots["gpu_memory_gb"] = float(sized.gb)
        slots.pop("gpu_memory_label", None)
        found.readings.append(f"took the {sized.gb} GB written beside '{sized.said}' as the "
                              "memory of each GPU")


def _suffixed(found: Entities, catalog: Catalog, gpus: list[str]) -> list[str]:
    """'3090 Ti', '4090ti', '4080 Super': another card than the plain one. With the plain
    card's memory stated beside it, the plain card stands in (said); else it is unknown."""
    named = by_kind(found.mentions, "gpus")
    for s in suffixed_gpus(found.masked):
        plain = named[s.mark].id if s.mark is not None and s.mark < len(named) \
            else catalog.gpus.rows.get(f"rtx-{s.number}") and f"rtx-{s.number}"
        said = s.said if s.mark is None else f"{named[s.mark].text} {s.said.split()[-1]}"
        row = catalog.gpus.rows.get(plain or "")
        if row is not None and s.gb is not None and row.memory_label == f"{s.gb}GB":
            found.readings.append(f"'{said}' is not in the catalog; read as {plain}, which has "
                                  f"the same {s.gb} GB the question gives (speeds differ)")
            gpus = list(dict.fromkeys([plain, *gpus]))
            continue
        found.slots.setdefault("unknown_gpu", said)
        found.readings.append(f"'{said}' is not a GPU in the catalog (nearest: "
                              f"{plain or 'none'}); it was not read as one")
        gpus = [g for g in gpus if g != plain]
    return gpus


# A form factor written after a GPU the catalog matched: "H800 PCIE", "A100 SXM4".
FORM_AFTER = lazy(r"<g(\d)>\s*-?\s*(pcie|sxm\d?)\b", _I)
BOTH_FORMS = lazy(r"\bsxm.*\bpcie|\bpcie.*\bsxm", _I | re.DOTALL)


def _form_factor(found: Entities, catalog: Catalog, gpus: list[str]) -> list[str]:
    """'H800 PCIe' when the catalog holds the H800 only as SXM: another product (its own
    bandwidth and power), named as unknown with the nearest, never read as the SXM card."""
    named = by_kind(found.mentions, "gpus")
    if BOTH_FORMS.search(found.masked):
        return gpus  # "SXM or PCIe?": the forms are the question, each shown by the specs
    for m in FORM_AFTER.finditer(found.masked):
        index = int(m[1])
        if index >= len(named):
            continue
        gpu, form = named[index].id, m[2].lower().rstrip("0123456789")
        row = catalog.gpus.rows.get(gpu)
        if row is None or row.form_factor == form:
            continue
        kin = [r for i, r in catalog.gpus.rows.items()
               if gpu_family(i) == gpu_family(gpu) and r.form_factor == form]
        if kin:  # the family's card of that form stands for the name
            gpus = [kin[0].id if g == gpu else g for g in gpus]
            continue
        said = f"{named[index].text} {m[2]}"
        found.slots.setdefault("unknown_gpu", said)
        found.readings.append(f"'{said}' is not a GPU in the catalog (nearest: {gpu}, the "
                              f"{row.form_factor.upper()} card); it was not read as one")
        gpus = [g for g in gpus if g != gpu]
    return gpus


def _by_instance(found: Entities, gpus: list[str]) -> list[str]:
    """The GPU an instance name carries ('g5.4xlarge': A10G), in place of the same kind named
    loosely ('1 A10 GPU'), or as the GPU when none is named (note aws-instance-gpus)."""
    named = instance_gpu(found.masked)
    if named is None:
        return gpus
    said, carried = named
    if not gpus:
        found.readings.append(f"read '{said}' as its GPU, {carried} (note aws-instance-gpus)")
        return [carried]
    first = gpus[0]
    if first != carried and same_kind(first, carried, gpu_family(first)):
        found.readings.append(f"read {first} on '{said}' as {carried}, the GPU that "
                              "instance carries (note aws-instance-gpus)")
        return [carried, *gpus[1:]]
    return gpus


def _distinct_gpus(found: Entities, catalog: Catalog) -> list[str]:
    """The GPUs named, in order, each once. A family named bare and again with its memory
    ("8 x A100s (8x 40GB A100s)") is one GPU, the variant the memory picks, not two to compare."""
    read = []  # (family, GB written beside the mention or None, the GPU it names)
    for i, m in enumerate(by_kind(found.mentions, "gpus")):
        gb = _memory_said(found, i)
        read.append((gpu_family(m.id), gb, _by_memory(found, m, gb, catalog)))
    sized: dict[str, set[str]] = {}
    for family, gb, gpu in read:
        if gb is not None:
            sized.setdefault(family, set()).add(gpu)
    # a bare mention takes its family's one sized variant, when the family is named again
    one_variant = {family: next(iter(gpus)) for family, gpus in sized.items()
                   if len(gpus) == 1 and sum(f == family for f, _, _ in read) > 1}
    named = [one_variant.get(family, gpu) if gb is None else gpu for family, gb, gpu in read]
    # "since I do not have H100, I tried 8-A100": a GPU only ever named as one the asker lacks
    # (or as an error message's example) is not a second GPU of the question.
    ruled_out = {gpu for i, gpu in enumerate(named) if _negated(found.masked, i)}
    ruled_out -= {gpu for i, gpu in enumerate(named) if not _negated(found.masked, i)}
    kept = [g for g in named if g not in ruled_out] or named
    return [g for g in dict.fromkeys(kept) if g]


# Words that put a GPU mention out of the question: the asker lacks it, or an error names it
# ("e.g." in an error message; but "48 GB GPUs (e.g., A40s)" gives the asker's own kind), or
# someone else ran on it.
NOT_MINE = lazy(r"(?:(?:do|does|did)\s+not|don'?t|doesn'?t|didn'?t)\s+have\s+(?:an?\s+|any\s+)?"
                r"$|\bwithout\s+(?:an?\s+|any\s+)?$|(?<!gpus\s\()(?<!gpus\()\be\.?\s?g\.?,?\s*$|"
                r"\binstead\s+of\s+$|"
                # "From the paper I see you used 4 × A100": someone else's run, not the asker's
                r"\b(?:you|they|the\s+authors?)\s+(?:used|trained\s+on|ran\s+on)\s+"
                r"(?:\d+\s*[×x*]\s*)?$|"
                r"没有\s*$", _I)


def _negated(masked: str, index: int) -> bool:
    """Whether GPU mention `index` follows words that rule it out of the question."""
    at = masked.find(f"<g{index}>")
    return at >= 0 and NOT_MINE.search(masked[max(0, at - 30):at]) is not None


def _memory_said(found: Entities, index: int) -> int | None:
    """The GB written right beside GPU mention `index` ('40G A100', 'A100 (40GB)'), if any."""
    mark = f"<g{index}>"
    text = found.masked
    at = text.find(mark)
    if at < 0:
        return None
    said = MEM_BEFORE.search(text[max(0, at - 12):at]) or MEM_AFTER.match(text[at + len(mark):])
    return int(next(g for g in said.groups() if g)) if said else None


def _by_memory(found: Entities, mention: Mention, gb: int | None, catalog: Catalog) -> str:
    """'40G A100', 'A100 (40GB)', '40G的A100': the variant of that GPU with `gb` of memory."""
    rows, gpu_id = catalog.gpus.rows, mention.id
    if gb is None or gpu_id not in rows:
        return gpu_id
    if rows[gpu_id].memory_label.upper() == f"{gb}GB":
        return gpu_id
    stem = gpu_family(gpu_id)
    kin = [(row_id, _label_gb(row.memory_label)) for row_id, row in rows.items()
           if gpu_family(row_id) == stem]
    # The variant with that memory; else one within 3 % of it (an H100 "96G" is the 94 GB NVL).
    near = [(abs(size - gb), order, row_id) for order, (row_id, size) in enumerate(kin)
            if size and abs(size - gb) <= 0.03 * gb]  # ties: the catalog's first
    if near:
        row_id = min(near)[2]
        if row_id != gpu_id:
            found.readings.append(f"read '{gb}G' beside {gpu_id} as {row_id}")
        return row_id
    # or as the driver reports it ("T4 15GB": 15,360 MiB is 15 GiB)
    for row_id, row in rows.items():
        if gpu_family(row_id) == stem and any(abs(row.memory_bytes / unit - gb) <= 0.03 * gb
                                              for unit in (2**30, 1e9)):
            return row_id
    # "8xH100s (640 GB of total VRAM)", "T4 64GB" (4 x 16), "2xH100 NVL 196GB" (2 x 98 GiB as
    # the driver counts): the memory of several, by label or by driver total, not a variant
    labels = [size for _, size in kin if size] + [
        row.memory_bytes / unit for row_id, row in rows.items() if gpu_family(row_id) == stem
        for unit in (2**30, 1e9)]
    if any(round(gb / size) >= 2 and abs(gb / size - round(gb / size)) <= 0.03 * gb / size
           for size in labels):
        return gpu_id
    # "A800 40G", "5090 24G": a variant the catalog lacks, never read as the other size; the
    # memory stated is what each GPU holds
    said = f"{mention.text} {gb}GB"
    found.slots.setdefault("unknown_gpu", said)
    found.slots.setdefault("gpu_memory_gb", float(gb))
    reading = (f"'{said}' is not a GPU in the catalog (nearest: {gpu_id}); it was not read as "
               f"one, and its {gb} GB is taken as the memory of each GPU")
    if reading not in found.readings:
        found.readings.append(reading)
    return ""


def gpu_family(gpu_id: str) -> str:
    """'a100-sxm-80gb' -> 'a100', 'rtx-5090' -> 'rtx-5090': the id up to its model number, so
    a memory size picks a variant of the same GPU, never another GPU of that size."""
    parts = gpu_id.split("-")
    for i, part in enumerate(parts):
        if any(ch.isdigit() for ch in part):
            return "-".join(parts[: i + 1])
    return gpu_id


def _label_gb(label: str) -> float | None:
    m = re.match(r"\s*(\d+(?:\.\d+)?)\s*GB", label or "", re.IGNORECASE)
    return float(m[1]) if m else None
