"""GPU counts and node layouts as people type them, in English and Chinese.

"8x H100", "8*A100", "A100 80G *4", "H800 PCIE * 8", "H200(8*141G)", "3x24 GB",
"2 nodes x 4 A100", "2Nodes * 8 A100", "2 H100*8 machines", "4x8 A100s", "one 8xH100 node",
"three A100 nodes", "2 nodes and each of them has 2 V100", "两张4090", "8卡A800", "4块T4",
"2台H100*8", "4台8卡", "三个8*V100", "千卡集群". Reads the masked question (GPU names are
markers such as `<g0>`). Several counts in one question: a nodes-by-GPUs layout wins, else the
first count above one (a question comparing one card with two is about the two).
"""

from __future__ import annotations

import re
from dataclasses import dataclass
from typing import Any

from clusterplan.assistant.parsing.lazy_re import lazy
from clusterplan.assistant.parsing.quantities import COUNT, count

_I = re.IGNORECASE
G = r"<[gu]\d>"  # a catalog GPU's marker, or one outside the catalog (outside_gpus.py)
X = r"\s*[x×*]\s*"
NODE = r"(?:nodes?|servers?|boxe?s?|machines?|systems?|hosts?)"
ZH_DIGITS = {"一": 1, "单": 1, "两": 2, "二": 2, "双": 2, "三": 3, "四": 4, "五": 5, "六": 6,
             "七": 7, "八": 8, "九": 9, "十": 10, "千": 1000, "万": 10000}
ZN = r"(\d+|[一单两二双三四五六七八九十])"
PAIRS = {"pair": 2, "couple": 2, "dual": 2, "quad": 4}
# A memory size beside a GPU name: "40G", "80GB"; not a rate ("8x400Gb/s" is eight ports).
MEM = r"\d+\s*g(?:i?b)?\b(?!\s*/\s*s)"
B = r"(?<![0-9A-Za-z_.])"  # a word start that Chinese text around a number does not hide
NOT_MEM = r"(?![\d.]|\s*[gt]i?b?(?![a-z]))"  # "A800x80G" is the card's memory, not 80 of them

# Layouts: (nodes, GPUs per node).
LAYOUTS = (
    # "one 8xH100 node", "two 8xH100 nodes"
    lazy(rf"{B}(?:{COUNT}\s+)?(\d+){X}{G}\s*{NODE}\b", _I),
    # "2 nodes x H100 x 8"
    lazy(rf"{B}{COUNT}\s*{NODE}{X}{G}{X}(\d+){NOT_MEM}", _I),
    # "2 nodes x 4 A100", "2Nodes * 8 A100 80G"
    lazy(rf"{B}{COUNT}\s*{NODE}{X}(\d+)\s*(?:{G}|gpus?|cards?)", _I),
    # "16 nodes of H100x8GPUs"
    lazy(rf"{B}{COUNT}\s*{NODE}\s+(?:of|with)\s+{G}{X}(\d+){NOT_MEM}", _I),
    # "2 H100*8 machines"
    lazy(rf"{B}(\d+)\s*{G}{X}(\d+)\s*{NODE}\b", _I),
    # "4x8 A100s"
    lazy(rf"{B}(\d+){X}(\d+)(?:{X}|\s*){G}", _I),
    # "2x8 80GB GPUs"
    lazy(rf"{B}(\d+){X}(\d+)\s+(?:{MEM}\s*)?(?:gpus|cards)\b", _I),
    # "2*8*80G": nodes x GPUs a node x each GPU's memory
    lazy(rf"{B}(\d+){X}(\d+){X}{MEM}", _I),
    # "2 nodes and each of them has 2 V100", "2 servers with 8 GPUs each", "2 nodes with 4x
    # 80GB A100 each"
    lazy(rf"{B}{COUNT}\s+{NODE}\s*,?\s*(?:and\s+)?(?:each\s+(?:of\s+them\s+)?(?:has|with)|"
         rf"with|of)\s+(?:(?:a\s+)?total\s+(?:of\s+)?)?(\d+)(?:{X}|\s*)(?:{MEM}\s*)?"
         rf"(?:{G}|gpus?|cards?)", _I),
    # "6 A100 (80G) machines (each with 8 A100 cards)"
    lazy(rf"{B}{COUNT}\s+{G}\s*(?:\(\s*{MEM}\s*\)\s*|\)\s*)?{NODE}\s*\(?\s*(?:each\s+(?:with|has)|with)"
         rf"\s+(\d+)\s*(?:{G}\s*)?(?:gpus?|cards?)", _I),
    # "2台 H100*8", "4台8卡", "2台各8卡", "三个8*V100"
    lazy(rf"{ZN}\s*台\s*(?:{G}\s*)?[x×*]\s*(\d+){NOT_MEM}", _I),
    # "4机8卡": four machines of eight; "4机32卡": thirty-two in all (_in_all)
    lazy(rf"{ZN}\s*(?:台|机)\s*各?\s*{ZN}\s*卡"),
    # "2台A800x80G, 每台8卡", "两个节点，每个节点8张A100": the machines, then each one's cards
    lazy(rf"{ZN}\s*(?:台|个节点|个机器|个服务器)[^。;；\n]{{0,40}}?每\s*(?:台|个)?\s*"
         rf"(?:节点|机器|服务器)?\s*(?:上|有|各|配|都有)?\s*{ZN}\s*[张块个]?\s*(?:卡|gpu|显卡|{G})",
         _I),
    lazy(rf"{ZN}\s*个\s*(\d+){X}{G}", _I),
    lazy(rf"{ZN}\s*(?:台|机)\s*(\d+){X}{G}", _I),  # "2台8xA100 80G": two machines of eight
)
# The node a count is asked of: "how many nodes of 8x H100 do I need".
NODES_ASKED = lazy(rf"\bhow\s+many\s+{NODE}\s+(?:of|with)\s+(\d+){X}{G}", _I)
# nccl-tests' own flags: "all_reduce_perf -b 1G -e 8G -f 2 -g 2" runs on 2 GPUs per process,
# "srun -N 1 -n 8 ... all_reduce_perf ... -g 1" on 8 processes of 1.
NCCL_PERF_GPUS = lazy(r"\b\w+_perf\b(?:\s+-[a-z]\s*\S+)*?\s+-g\s*(\d{1,2})\b", _I)
NCCL_PROCS = lazy(r"\b(?:mpirun|mpiexec|srun)\b(?:\s+-\S+(?:\s+[^-\s]\S*)?)*?\s+-(?:np|n)\s*"
                  r"(\d{1,5})\b", _I)
# A launcher's flags: "torchrun --nnodes 2 --nproc_per_node=8", "deepspeed --num_gpus=4".
PER_NODE_FLAG = lazy(r"--(?:nproc[_-]per[_-]node|num[_-]gpus)[=\s]+(\d{1,2})\b", _I)
NODES_FLAG = lazy(r"--(?:nnodes|num[_-]nodes)[=\s]+(\d{1,4})\b", _I)
GLUED_GPUS = lazy(rf"{B}(\d{{1,5}})gpus\b(?!\s*[:：])", _I)
# GPU counts.
COUNTS = (
    # "8x H100", "8*A100", "8 x 40GB A100"
    lazy(rf"{B}(\d[\d,]*){X}(?:{MEM}\s*)?{G}", _I),
    # "8-A100" (names.py reads the GPU after the hyphen)
    lazy(rf"{B}(\d{{1,4}})-\s*{G}", _I),
    # "A100 80G *4", "A100 80GB * 2", "H800 PCIE * 8", "h100 sxm x 4", "H200(8*141G)"
    lazy(rf"{G}\s*(?:\(?\s*{MEM}\s*\)?\s*)?(?:pcie|sxm\d?|nvl)?{X}(\d+)(?![\d.]|\s*[gmt]i?b?\b)",
         _I),
    lazy(rf"{G}\s*\(\s*(\d+){X}{MEM}", _I),
    # "3x24 GB" (the GPU named by its memory only)
    lazy(rf"{B}(\d+){X}{MEM}", _I),
    # "4 MI300X", "three A100", "64 32GB V100" (not "three A100 nodes": a node count)
    lazy(rf"{B}{COUNT}\s+(?:{MEM}\s*)?{G}(?!\s*{NODE})", _I),
    # "8 GPUs" (not "CPU: 80 GPU": a label's value)
    # "two graphics cards with 24 GB VRAM each"
    # "8 80GB GPUs": the count, then each one's memory label (not a node's "each with 8
    # 80GB GPUs", which counts GPUs per node)
    lazy(rf"(?<!each with )(?<!each has )(?<!:)(?<!:\s){B}{COUNT}[ \t]+{MEM}[ \t]*"
         r"(?:gpus?|cards?)\b", _I),
    lazy(rf"(?<!:)(?<!:\s){B}{COUNT}[ \t]+(?:(?:graphics|video)\s+)?"
         r"(?:gpus?|accelerators?|cards?|devices?)\b"
         # not "RAM : 32GB * 2\nGPU: ..." (a value, then a label); not "8788 GPU VRAM" (memory)
         r"(?!\s*[:：])(?!\s*(?:v?ram|memory|mem)\b)"
         # not "59 GPU-hours", "135 GPU hours": a measure of compute, not a count of GPUs
         r"(?!\s*-?\s*(?:hours?|hrs?|h|days?|months?|years?)\b)", _I),
    # "a pair of H100s", "dual 4090", "a couple of GPUs"
    lazy(rf"\b(pair|couple|dual|quad)\s+(?:of\s+)?(?:{G}|gpus?|cards?)", _I),
    # "with 64 of them" (a follow-up counting the GPUs just named)
    lazy(rf"{B}{COUNT}\s+of\s+(?:them|those|these)\b", _I),
    # "两张4090", "2块V100", "3个A100", "8卡A800", "3090双卡", "千卡"
    lazy(rf"{ZN}\s*[张块](?!量)"),
    lazy(rf"{ZN}\s*个\s*(?:{MEM}\s*)?(?:{G}|gpu|显卡|卡)", _I),  # "4个80G A100显卡"
    lazy(r"((?<!\d)\d+|[单两二双三四五六七八九十千万])\s*卡"),
    lazy(rf"(单)\s*(?:张|块|个)?\s*{G}"),  # "使用单A100": one of them
)
N_NODES = (lazy(rf"{B}{COUNT}\**\s+(?:{G}\s*|\w+\s+)?{NODE}\b", _I),
           lazy(rf"{ZN}\s*(?:台|个节点)"))
# Network ports a node has: "8x400Gb/s", "8 x 400G NDR", "8 NICs", "4 HCAs", "8 rails".
NICS = lazy(rf"{B}(\d{{1,2}}){X}\d+\s*g(?:b|bit)?e?(?:\s*/\s*s\b|ps\b|"
            r"\s*(?=ndr|hdr|ib\b|infiniband|roce|ethernet|nics?\b))|"
            r"\b(\d{1,2})\s+(?:<l\d>\s*|(?:hdr|ndr|xdr|edr|ib|infiniband|roce|ethernet)\s+)?"
            r"(?:nics?|hcas?|ports|rails|network\s+cards)\b|"
            # "IB 200Gb * 4": the port's rate, then how many
            rf"\b(?:ib|infiniband|hdr|ndr|roce)\s*\d{{2,3}}\s*g(?:b|bit)?(?:\s*/\s*s|ps)?{X}"
            r"(\d{1,2})(?![\d.])|"
            # "four 200Gb RoCEv2 NICs": a count in words or digits, the port's rate, its kind
            rf"{B}{COUNT}\s+\d{{2,3}}\s*g(?:b|bit)?(?:\s*/\s*s|ps)?\s+"
            r"(?:<l\d>\s*|(?:rocev?2?|ib|infiniband|ethernet|hdr|ndr)\s+)?"
            r"(?:nics?|hcas?|ports)\b", _I)
# A range of counts: "4-8 A10G", "2 to 4 H100s", "4~8张A100": each end is answered.
RANGE = lazy(rf"{B}(\d{{1,4}})\s*(?:-|–|~|to|or)\s*(\d{{1,4}})\s*(?:x\s*)?"
             rf"(?:{G}|gpus?\b|cards?\b|张|块|卡)",
             _I)
# Two counts of one GPU put as alternatives: "a single 3090, or 2x 3090", "4 or 8 H100".
_ONE_OR_N = r"(?:(\d{1,4})\s*(?:x\s*)?|(?:a\s+)?(?:single|one)\s+)"
ALTERNATIVES = lazy(rf"{B}{_ONE_OR_N}(<[gu]\d>)\s*,?\s*or\s+(?:with\s+|on\s+)?{_ONE_OR_N}"
                    r"<[gu]\d>", _I)
# Devices listed by index: "CUDA_VISIBLE_DEVICES=0,1,2,3", "[GPU0, GPU2] and [GPU1, GPU3]".
VISIBLE = lazy(r"\bCUDA_VISIBLE_DEVICES\s*=\s*[\"']?(\d+(?:\s*,\s*\d+)*)")
GPU_INDEX = lazy(r"\b(?:gpu|cuda)[:#]?(\d{1,2})\b", _I)  # "GPU0", "cuda:1"; not "GPU 24 GB"
# "96 NVIDIA DGX-A100 (8X40G)", "12 DGX H100": systems, each a node (of 8 GPUs unless said).
DGX = lazy(rf"{B}{COUNT}(?:\s+|{X})(?:nvidia\s+)?[dh]gx\s*{G}(?:\s*s\b)?"
           rf"(?:\s*\(\s*(\d+){X}{MEM})?", _I)
EVERY_NODE = lazy(r"\b(?:e[vy]ery|each|per)\s+(?:node|server|machine)\b|每(?:台|个节点|个机器)", _I)
PER_NODE = lazy(rf"\b(\d+)\s+(?:gpus?|{G}s?)\s+(?:per|each|a)\s+{NODE}", _I)


@dataclass
class Layout:
    gpus: int | None = None
    nodes: int | None = None
    per_node: int | None = None


# The cards a run was given, beside all the machine has: "我配置了3张", "只用了2张卡".
USED_COUNT = lazy(rf"(?:配置了|用了|使用了|只用了?|启用了)\s*{ZN}\s*[张块](?:卡|显卡)?")
# "I have 4x," "we have 8 of them": the asker's own count, with no other GPU named after it.
OWN_COUNT = lazy(r"\b(?:i|we)\s+(?:have|own|got|use)\s+(\d{1,5})(?![.,]\d)\s*(?:x|×)?\s*(?=[,.;!?]|"
                 r"\s+(?:but|and|of\s+them|cards|gpus)\b)", _I)


def number(text: str) -> int:
    """'8', 'three', '两' -> the count."""
    if text in ZH_DIGITS:
        return ZH_DIGITS[text]
    if text.lower() in PAIRS:
        return PAIRS[text.lower()]
    return count(text)


# "24K GPUs", "16k H100s": thousands, and "24K GPUs (24576, to be precise)" the number the
# parenthesis gives when it is the same count written exactly.
THOUSANDS = lazy(rf"{B}(\d+(?:\.\d+)?)\s*k(?=\s+(?:{G}|gpus?\b|cards?\b|accelerators?\b))"
                 rf"((?:\s+(?:{G}|gpus?|cards?|accelerators?))+\s*\(\s*(\d[\d,]*))?", _I)


def _thousands(m: re.Match[str]) -> str:
    rough = round(float(m[1]) * 1000)
    exact = int(m[3].replace(",", "")) if m[3] else None
    said = exact if exact and abs(exact - rough) <= 0.05 * rough else rough
    return f"{said}" + (m[2] or "")


def read_layout(text: str) -> Layout:
    """The GPU count and node layout the (masked) question states."""
    text = text.replace("\\*", "*")  # Markdown-escaped stars: "2\*8\*A100"
    text = THOUSANDS.sub(_thousands, text)
    dgx = DGX.search(text)
    if dgx and number(dgx[1]) > 0:
        nodes, per_node = number(dgx[1]), int(dgx[2]) if dgx[2] else None
        return Layout(nodes * per_node if per_node else None, nodes, per_node)
    for pattern in LAYOUTS:
        m = next((m for m in pattern.finditer(text) if not (m[1] and _model_number(text, m))),
                 None)
        if m:
            nodes = number(m[1]) if m[1] else 1
            per_node = number(m[2])
            if nodes > 0 and per_node > 0 and _in_all(m, nodes, per_node):
                # "4 nodes with 14 H100s": more than a server holds, so the whole cluster's
                return Layout(per_node, nodes, per_node // nodes if per_node % nodes == 0
                              else None)
            if nodes > 0 and per_node > 0:
                return Layout(nodes * per_node, nodes, per_node)
    perf = NCCL_PERF_GPUS.search(text)
    if perf and int(perf[1]) > 0 and not any(p.search(text) for p in COUNTS):
        procs = NCCL_PROCS.search(text)
        return Layout(int(perf[1]) * (int(procs[1]) if procs and int(procs[1]) > 0 else 1))
    shape = NODES_ASKED.search(text)
    if shape and int(shape[1]) > 0:  # "how many nodes of 8x H100": the node's shape, not a count
        return Layout(None, None, int(shape[1]))
    flag = PER_NODE_FLAG.search(text)
    if flag and int(flag[1]) > 0 and not any(p.search(text) for p in COUNTS):
        nodes_flag = NODES_FLAG.search(text)
        nodes = int(nodes_flag[1]) if nodes_flag and int(nodes_flag[1]) > 0 else 1
        return Layout(nodes * int(flag[1]), nodes, int(flag[1]))
    used = USED_COUNT.search(text)
    if used and number(used[1]) > 0:
        # "有4张卡 ... 我配置了3张": the cards the run used, not all the machine has
        return Layout(number(used[1]))
    own = OWN_COUNT.search(text)
    if own and number(own[1]) > 0:
        # "only on 2x 3090. I have 4x": the count of the asker's own GPUs is the cluster.
        layout = Layout(number(own[1]))
        _nodes_and_size(text, layout)
        return layout
    found: list[tuple[int, int]] = []
    for pattern in COUNTS:
        for m in pattern.finditer(text):
            value = number(m[1])
            if value > 0:
                found.append((m.start(), value))
    if not found:  # "on 32gpus": a count glued to the word, when no other count is written
        found = [(m.start(), int(m[1])) for m in GLUED_GPUS.finditer(text) if int(m[1]) > 0]
    found.sort()
    layout = Layout()
    if found:
        layout.gpus = next((v for _, v in found if v > 1), found[0][1])
    _nodes_and_size(text, layout)
    return layout


# The most GPUs one server holds in the catalog's systems: 8 on a DGX or HGX board
# (megatron-lm-2021#tp-within-node).
SERVER_GPUS = 8


def _in_all(m: re.Match[str], nodes: int, count: int) -> bool:
    """'4 nodes with 14 H100s' counts the cluster, not each node: no "each", more nodes than
    one, and more GPUs than one server holds or the word "total"."""
    said_total = re.search(r"\btotal\b", m[0], _I) is not None  # "2 nodes with total 4 A10"
    # "4机32卡": four machines, thirty-two cards in all ("4机8卡" is eight a machine)
    machines_cards = re.search(r"[机台]\s*\d+\s*卡", m[0]) is not None
    # "2机2卡": as many cards as machines is one a machine, never two each ("2机4卡" says that)
    one_each = machines_cards and count == nodes
    return nodes > 1 and (count > SERVER_GPUS or said_total or one_each) \
        and "each" not in m[0].lower() \
        and (re.search(r"\b(?:with|of)\b", m[0], _I) is not None or machines_cards)


def _nodes_and_size(text: str, layout: Layout) -> None:
    """The node count and GPUs per node the question states, into `layout`."""
    for pattern in N_NODES:
        nodes = next((m for m in pattern.finditer(text) if not _model_number(text, m)), None)
        if nodes and number(nodes[1]) > 0:
            layout.nodes = number(nodes[1])
            break
    each = PER_NODE.search(text)
    if each:
        layout.per_node = int(each[1])
    if layout.nodes and layout.nodes > 1 and layout.gpus and layout.per_node is None \
            and EVERY_NODE.search(text):
        # "two nodes, every node ... A100 * 8": the count written is each node's
        layout.per_node, layout.gpus = layout.gpus, layout.gpus * layout.nodes


# "an HPE Apollo 6500 machine", "a Supermicro 4029 server": a product's model number, written
# right after its capitalised name, not a count of machines.
PRODUCT_BEFORE = lazy(r"\b[A-Z][A-Za-z]+\s+$")


def _model_number(text: str, m: re.Match[str]) -> bool:
    return len(m[1]) >= 3 and m[1].isdigit() and bool(PRODUCT_BEFORE.search(text[:m.start()]))


def count_beside(text: str, index: int) -> int | None:
    """The count written right beside GPU mention `index`: '8*A100 (80GB)', '4 x 48GB A6000',
    'A6000 x 4', '6张v100' (None when that mention has none of its own)."""
    mark = rf"<g{index}>"
    before = re.search(rf"{B}(\d+)(?:{X}|\s+|\s*[张块片卡]\s*)(?:{MEM}\s*)?{mark}", text, _I)
    after = re.search(rf"{mark}\s*(?:\(?\s*{MEM}\s*\)?\s*)?{X}(\d+)(?![\d.]|\s*[gmt]i?b?\b)",
                      text, _I)
    found = before or after
    return number(found[1]) if found and number(found[1]) > 0 else None


def listed_devices(text: str) -> int | None:
    """How many GPUs the question lists by index, when it lists more than one."""
    visible = VISIBLE.search(text)
    ids = set(re.split(r"\s*,\s*", visible[1])) if visible else \
        {m for m in GPU_INDEX.findall(text)}
    return len(ids) if len(ids) > 1 else None


def dgx_nodes(text: str) -> tuple[str, int] | None:
    """('96 NVIDIA DGX <g0>', 96) when the question counts DGX or HGX systems."""
    m = DGX.search(text)
    return (m[0], number(m[1])) if m and number(m[1]) > 0 else None


def _alternatives(text: str) -> tuple[str, int, int] | None:
    """("a single 3090, or 2x 3090") -> (text, 1, 2): the two counts asked about, fewest first."""
    m = ALTERNATIVES.search(text)
    if not m:
        return None
    first, second = int(m[1] or 1), int(m[3] or 1)
    return m[0], min(first, second), max(first, second)


def layout_slots(text: str, slots: dict[str, Any]) -> None:
    """Fill gpus, nodes and gpus_per_node from the question."""
    layout = read_layout(text)
    span = RANGE.search(text.replace("\\*", "*")) or _alternatives(text)
    if span and 0 < int(span[1]) < int(span[2]) and layout.nodes is None:
        # The fewest is the question (does it fit, how fast at the least); both ends are shown.
        layout.gpus = int(span[1])
        slots["gpus_range"] = [int(span[1]), int(span[2])]
    if layout.gpus is None and (layout.nodes or 1) == 1:  # the devices of one machine
        layout.gpus = listed_devices(text)
    if layout.gpus is not None:
        slots["gpus"] = layout.gpus
    if layout.nodes is not None:
        slots["nodes"] = layout.nodes
    if layout.per_node is not None:
        slots["gpus_per_node"] = layout.per_node
    if ports := NICS.search(text):
        slots["nics_per_node"] = number(ports[1] or ports[2] or ports[3] or ports[4])
