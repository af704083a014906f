"""Entities of a question: catalog names, counts and layouts, precisions, workloads, quantities."""

from __future__ import annotations

import re
from dataclasses import dataclass, field
from typing import Any

from clusterplan.assistant.parsing.counts import count_beside, dgx_nodes, layout_slots
from clusterplan.assistant.parsing.gpu_reading import read_gpus
from clusterplan.assistant.parsing.instances import instance_named
from clusterplan.assistant.parsing.lazy_re import lazy
from clusterplan.assistant.parsing.model_list import read_model_list
from clusterplan.assistant.parsing.names import Mention, by_kind, find_mentions, mask
from clusterplan.assistant.parsing.offload_words import read_offload
from clusterplan.assistant.parsing.quantities import (
    plain_numbers,
    read_params_b,
    read_quantities,
)
from clusterplan.assistant.parsing.unknown_model import (
    NamedSize,
    mask_active_words,
    read_named_size,
    same_active,
    unknown_reading,
)
from clusterplan.db.catalog import Catalog
from clusterplan.tools.memory.precision import FORMATS

_I = re.IGNORECASE
PRECISIONS = (
    # weight bits first: MLC's "q4f16_1" / "q8f16_0" and "w4a8", "w4a16", "w8a8" name the
    # weights' width before the activations' (the f16 in them is no 16-bit model)
    (lazy(r"\b(?:q8f(?:16|32)_\d|w8a(?:8|16))\b", _I), "int8"),
    (lazy(r"\b(?:q4f(?:16|32)_\d|w4a(?:4|8|16))(?:kv\d+)?\b", _I), "int4"),
    (lazy(r"\b(?:bf16|bfloat-?16)\b", _I), "bf16"),
    (lazy(r"\b(?:fp16|float-?16|half[\s-]precision)\b", _I), "fp16"),
    (lazy(r"\b(?:fp32|float-?32|full[\s-]precision)\b", _I), "fp32"),
    (lazy(r"\b(?:fp8|float-?8|e4m3)\b", _I), "fp8"),
    (lazy(r"\b(?:int8|8[\s-]?bit)\b(?![\s-]*adam)", _I), "int8"),
    (lazy(r"\b(?:nf4)\b", _I), "nf4"),
    (lazy(r"\b(?:int4|4[\s-]?bit|q4|awq|gptq)\b", _I), "int4"),
)
# FP32 gradients named ("fp32 gradients", "main grads in fp32", Megatron's
# --accumulate-allreduce-grads-in-fp32): Megatron-LM's main gradients, not FP32 weights.
FP32_GRADS = lazy(r"\b(?:fp32|float-?32)\s+(?:main\s+|master\s+)?grad(?:ient)?s?\b|"
                  r"\b(?:main\s+)?grad(?:ient)?s?\s+(?:accumulated\s+|kept\s+|reduced\s+)?"
                  r"in\s+(?:fp32|float-?32)\b|\bmain[\s_-]*grads?\b|"
                  r"accumulate[_\s-]*allreduce[_\s-]*grads[_\s-]*in[_\s-]*fp32", _I)
# Activation recompute named: turned off, selective (Megatron's attention-only kind) or on.
_CKPT = r"(?:gradient|activation)[\s_-]*(?:checkpointing|checkpoint(?=s?\b)|recomput\w*)"
RECOMPUTE_WORDS = (
    (lazy(r"\b(?:without|no|not|disabled?|disabling|turn(?:ed|ing)?\s+off|w/o)\s+(?:using\s+)?"
          rf"(?:the\s+|any\s+)?{_CKPT}|{_CKPT}\s*(?:[=:]\s*(?:false|0)\b|(?:is\s+)?"
          r"(?:off|disabled)\b)|(?:不|没有?|关闭|禁用)(?:开启?|使用|用)?(?:梯度检查点|激活重计算|重计算)",
          _I), "none"),
    (lazy(r"\bselective\s+(?:activation\s+)?recomput|recompute[-_]granularity[=\s]+selective",
          _I), "selective"),
    (lazy(rf"\b{_CKPT}|\b(?:full\s+)?activation\s+recomput|\bfull\s+recomput|"
          r"recompute[-_]activations|梯度检查点|激活重计算|重计算", _I), "full"),
)
# Named storage formats (tools/memory/quant_mix): these win over the generic bit widths above.
FORMAT_WORDS = (
    (lazy(r"\bgptq\b[^.?!]{0,20}?\b8[\s-]?bit\b|\b8[\s-]?bit\s+gptq\b", _I), "gptq-8bit"),
    (lazy(r"\bgptq\b", _I), "gptq"),
    (lazy(r"\bawq\b", _I), "awq"),
    (lazy(r"\bmxfp4\b", _I), "mxfp4"),
    (lazy(r"\b1\.58[\s-]?bits?\b|\bternary\b|\bbitnet\b", _I), "1.58bit"),
    (lazy(r"\bllm\.int8\b|\bload_in_8bit\b|\bbitsandbytes\s+8[\s-]?bit\b", _I), "bnb-int8"),
    (lazy(r"\bload_in_4bit\b|\bbitsandbytes\s+4[\s-]?bit\b", _I), "nf4"),
    # A GGUF named by its width alone ("Q4", "Q8"): the K-quant medium mix of that width, and
    # Q8_0 for eight bits (gguf-quant-mixes#bare-width-names)
    (lazy(r"\bq4\b(?![_-])", _I), "q4_k_m"),
    (lazy(r"\bq5\b(?![_-])", _I), "q5_k_m"),
    (lazy(r"\bq8\b(?![_-])", _I), "q8_0"),
)
# An Ollama tag ("llama3:70b", then perhaps "-instruct"), the model masked: no quantisation after
OLLAMA_TAG = lazy(r":\d+(?:\.\d+)?b$", _I)
OLLAMA = lazy(r"\bollama\b", _I)
PLAIN_TAG_TAIL = lazy(r"(?: ?-(?:instruct|chat|text|code|it|base))*(?![\w.:-])", _I)
BARE_WIDTH = lazy(r"\bq[45]\b(?![_-])", _I)
GGUF_NAME = lazy(r"\b(i?q[1-8][_-](?:k(?:[_-][sml])?|[01]|xxs|xs|s|m|nl))\b", _I)
# a serving engine's launcher or flags ("vllm.entrypoints.openai.api_server",
# "--max-model-len", "--gpu-memory-utilization", "sglang.launch_server") name serving too
SERVING_WORDS = lazy(r"\bserv(?:e|es|ing)\b|\binference\b|\bdeploy|\bhost(?:ing)?\b|\bgenerat|"
                     r"\bdecod|\bkv[\s-]*cache\b|推理|部署|\bapi_server\b|\blaunch_server\b|"
                     r"--max[-_]model[-_]len\b|\bgpu[-_]memory[-_]utili[sz]ation\b|"
                     # vLLM's flag, and requests arriving ("under high request load")
                     r"--tensor-parallel-size\b|\brequest\s+(?:load|rate)\b", _I)
WORKLOADS = (
    # training on a 4-bit base trains adapters: "train_4bit", "4-bit fine-tuning" (a
    # 4-bit model's weights take no gradient; qlora-paper)
    (lazy(r"\bq-?lora\b|\btrain_4bit\b|\b4[\s-]?bit\s+(?:training|fine[\s-]?tun\w*)|"
          r"\b(?:train\w*|fine[\s-]?tun\w*)\s+(?:it\s+)?(?:in|with|at)\s+4[\s-]?bits?\b", _I),
     "qlora"),
    # "--lora_enable True", "lora_r 64": a script's LoRA flags name the method too
    (lazy(r"\blora(?:\b|_)|\badapters?\b|\bpeft\b", _I), "lora"),
    # "tune 13B model ( full parameter )": full-parameter tuning of a model is fine-tuning
    # ("the fine-tuned model" describes the model served, not a job: not read as one)
    (lazy(r"\bfull[\s_-]*(?:parameter[\s_-]*)?fine[\s_-]*tun|"
          r"\bfine[\s-]*tun(?!ed\s+(?:model|version|checkpoint|weights|llm)\b)|"
          r"\bfinetun(?!ed\s+(?:model|version|checkpoint|weights|llm)\b)|"
          r"\bsft\b|微调|\bfull[\s_-]*param(?:eter)?s?\b|全参数?训练|全量训练|"
          r"\btun(?:e|ing)\s+(?:(?:a|the|my|this|our)\s+)?(?:\w+[\s-])?\d+(?:\.\d+)?\s*b\b",
          _I), "full_finetune"),
    (lazy(r"\bpre[\s-]*train|\btrain(?:ing|ed)?\s+(?:it\s+)?from\s+scratch|预训练|从头训练",
          _I), "pretrain"),
    # the optimizer's memory is a training job's ("how much does Adam take for a 7B model?")
    # (a DeepSpeed universal checkpoint holds them too: "ds_to_universal.py")
    (lazy(r"\badam(?:w)?\b|\boptimi[sz]er[\s_-]+(?:states?|memory)\b|优化器|\buniversal\s+"
          r"checkpoint|\bds_to_universal\b", _I), "full_finetune"),
    (SERVING_WORDS, "inference"),
    # "可以训起来吗", "训得动吗": 训 alone is training, as 训练 is
    # "multinode_trainer.slurm", "torchtitan": a training launcher or framework named
    (lazy(r"\btrain(?:s|ing|ed)?\b|_?\btrainer\b|_trainer\b|\btorchtitan\b|训练|"
          r"训(?:起来|得动|不动|得起来)", _I), "pretrain"),
    (lazy(r"\brun\b|\brunning\b|\bchat\b|跑", _I), "inference"),
)
# Full fine-tuning named outright; asked first, it is the job even if LoRA is named after it
# as the fallback ("what does full fine-tuning 72B take, or can 72B only be LoRA-tuned?").
EXPLICIT_FULL = lazy(r"全量|全参|\bfull[\s_-]*(?:parameter[\s_-]*)?"
                     r"(?:fine[\s_-]*tun|finetun|ft\b|sft\b)",
                     _I)
# Whether a serving engine can run the model is an inference question, whatever training the
# model had or will have ("we will finetune a 70B model ... can vllm support to inference it?").
ENGINE_SERVES = lazy(r"\b(?:can|could|does|will|is)\s+(?:vllm|sglang|tgi|ollama|llama\.cpp|"
                     r"lmdeploy|tensorrt-llm|trt-llm)\b[^.?]{0,40}?\b(?:inference|infer|serve|"
                     r"serving|run|deploy)", _I)
# Tuning methods a question weighs against each other ("full fine-tune or LoRA?", "LoRA vs
# QLoRA"): each is sized side by side, as none of them is the job until the asker chooses.
METHODS = ((lazy(r"\bq-?lora\b", _I), "qlora"), (lazy(r"(?<!q-)\blora\b", _I), "lora"),
           (EXPLICIT_FULL, "full_finetune"))
METHOD_CHOICE = lazy(r"\bor\b|\bvs\.?(?!\w)|\bversus\b|\bcompar|\bwhich\b|\w/\w|还是|或者|对比|"
                     r"比较", _I)
ADAPTER_WORDS = lazy(r"\bq-?lora\b|\blora(?:\b|_)|\badapters?\b|\bpeft\b", _I)
OPTIMIZERS = (
    (lazy(r"\b8[\s-]?bit\s+adam", _I), "adamw_8bit"),
    (lazy(r"\badam(?:w)?\b", _I), "adamw"),
    (lazy(r"\bsgd\b", _I), "sgd_momentum"),
    (lazy(r"\badafactor\b", _I), "adafactor"),
    (lazy(r"\blion\b", _I), "lion"),
)
COLLECTIVES = (
    (lazy(r"\ball[\s-]*reduce", _I), "all_reduce"),
    (lazy(r"\ball[\s-]*gather", _I), "all_gather"),
    (lazy(r"\breduce[\s-]*scatter", _I), "reduce_scatter"),
    (lazy(r"\ball[\s-]*to[\s-]*all", _I), "all_to_all"),
    (lazy(r"\bbroadcast", _I), "broadcast"),
)
PRICE_KINDS = (
    (lazy(r"\bon[\s-]*demand\b", _I), "on_demand"),
    (lazy(r"\bspot\b|\bpreemptible\b", _I), "spot"),
    (lazy(r"\bcapacity[\s-]*blocks?\b", _I), "capacity_block"),
    # "with a 1-year commitment", "reserved for 3 years", "1yr reserved"
    (lazy(r"\b(?:1|one)[\s-]*(?:year|yr)\b[^.?!]{0,20}\b(?:commit\w*|reserv\w*|contract|term)\b|"
          r"\b(?:commit\w*|reserv\w*)\b[^.?!]{0,20}\b(?:1|one)[\s-]*(?:year|yr)\b", _I),
     "reserved_1y"),
    (lazy(r"\b(?:3|three)[\s-]*(?:year|yr)s?\b[^.?!]{0,20}\b(?:commit\w*|reserv\w*|contract|"
          r"term)\b|\b(?:commit\w*|reserv\w*)\b[^.?!]{0,20}\b(?:3|three)[\s-]*(?:year|yr)s?\b", _I),
     "reserved_3y"),
)
GENERIC_LINK = lazy(r"\bnvlink\b(?!\s*-?\s*(?:\d|gen))|\b(?:infiniband|ib)\b"
                          r"(?!\s*-?\s*(?:hdr|ndr|xdr))|\broce(?:\s*v?2)?\b", _I)
# ("Qwen2VL 72B": the variant glued to the version number counts too.)
VARIANT = lazy(r"(?:[-_ ]|(?<=\d))(?:vl|vision|coder|math|audio|omni|chat-?glm)[-_ ]?[\w.]*$", _I)
# A math or code fine-tune keeps its base model's shape (Qwen2.5-Math-7B is Qwen2.5-7B's 28
# layers of 3,584 with its 152,064-token vocabulary: model-qwen2-5#math-coder-same-shape);
# a vision or audio one adds an encoder the base does not have.
MATH_OR_CODER = r"[-_ ](?:math|coder)\b"
SAME_SHAPE_VARIANT = lazy("^" + MATH_OR_CODER, _I)
TUNED_SUFFIX = lazy(r"[-_ ](?:instruct|chat|base|it)$", _I)
MOE_NAME = lazy(r"\b\d+\s*x\s*\d+(?:\.\d+)?\s*b\b", _I)


@dataclass
class Entities:
    """What the question names, before an intent is chosen."""

    slots: dict[str, Any] = field(default_factory=dict)
    mentions: list[Mention] = field(default_factory=list)
    masked: str = ""
    readings: list[str] = field(default_factory=list)


GLUED_COUNT = lazy(r"(?<![\w.])(\d{1,3})(?=[ahvlbt]\d{2,3}\b)", _I)
# A memory label glued to the GPU after it: "8*32GV100" is 8 x "32G V100", "80GA100" "80G A100".
GLUED_MEMORY = lazy(r"(?<![\w.])(\d{2,3}\s*gb?)(?=[ahvl]\d{2,3}\b)", _I)
# A size glued to the name after it: "72Bqwen" (qwen-708) is "72B qwen"; "8bit" stays.
GLUED_SIZE = lazy(r"(?<![A-Za-z0-9_.])(\d{1,4}(?:\.\d)?b)"
                  r"(?=(?!its?\b|illion|ytes?|f16|f8)[a-z]{3,})", _I)


# "4 NVIDIA Tesla V100-32GB GPUs", "8 NVIDIA H100 80GB": the maker's and line's words between a
# count and the GPU's name hide the count, so they are dropped before a GPU mention
BRAND = r"(?:nvidia|amd|tesla|geforce|quadro|instinct|radeon)"
BRAND_BEFORE_GPU = lazy(rf"\b{BRAND}\s+(?=(?:{BRAND}\s+)*<[gu]\d+>)", _I)
DGX_GLUED = lazy(r"\b([DH]GX)[-_](?=[A-Z]\d)", _I)


def extract(text: str, catalog: Catalog) -> Entities:
    """Read every entity of `text` (already cut to a sane length)."""
    # "8x A100" -> "8 x A100"; not inside a hyphenated name ("Mixtral-8x7B-Instruct").
    text = plain_numbers(text)  # "1.5e3" -> "1500"; "1e999" and "9**9**9" are refused here
    spaced = re.sub(r"(?<!-)(\d)\s*[x×*]\s*(?=[a-z0-9])", r"\1 x ", text, flags=_I)
    # "8A100", "progress=8H100": a count glued to a GPU's name.
    spaced = GLUED_COUNT.sub(r"\1 ", spaced)
    spaced = GLUED_SIZE.sub(r"\1 ", spaced)
    spaced = GLUED_MEMORY.sub(r"\1 ", spaced)
    spaced = DGX_GLUED.sub(r"\1 ", spaced)  # "DGX-A100": the system, then its GPU's name
    mentions = find_mentions(spaced, catalog)
    masked = BRAND_BEFORE_GPU.sub("", mask(spaced, mentions))
    found = Entities(slots=read_quantities(masked), mentions=mentions, masked=masked)
    _catalog_slots(found, catalog)
    _words(found)
    _layout(found)
    _unversioned_llama(found, text)
    return found


# The first LLaMA's sizes, and its successors' rows of the same size
LLAMA_1_SUCCESSOR = {"llama-7b": "llama-2-7b", "llama-13b": "llama-2-13b"}
LLAMA_1_SAID = lazy(r"\bllama[\s_-]*(?:1|v1|one)\b|\bhuggyllama\b|\bfirst\s+llama\b|"
                    r"\bllama\s*\(1\)", _I)


def _unversioned_llama(found: Entities, text: str) -> None:
    """"Llama 7B" names no version: read as the first LLaMA (its catalog row), said so, with
    the Llama 2 row of the same size beside it (the same shape; twice the context)."""
    model = found.slots.get("model")
    if model in LLAMA_1_SUCCESSOR and not LLAMA_1_SAID.search(text):
        found.readings.append(f"'{model}' read from a name with no version: the first LLaMA "
                              f"(2,048-token context); for Llama 2 ask for "
                              f"{LLAMA_1_SUCCESSOR[model]} (same shape, 4,096 tokens)")


def _catalog_slots(found: Entities, catalog: Catalog) -> None:
    slots = found.slots
    for m in found.mentions:
        if m.fuzzy:
            found.readings.append(f"read '{m.text}' as {m.id}")
    read_gpus(found, catalog)
    named = by_kind(found.mentions, "models")
    models = [m for i, m in enumerate(named)
              if not _other_size(found, m, i, catalog) and not _vision_after(found, m, i, catalog)]
    if models:
        slots["model"] = models[0].id
    elif "params_b" not in slots or named:
        # after a name set aside for its size ("7b bloom"), only a model whose every name word
        # is written (BLOOM 7B1), never a longer one ("Deepseek R1 8B" is no R1-Distill-Llama)
        _model_by_size(found, catalog, whole_name=bool(named))
    listed = read_model_list(found.masked, slots.get("model"), [m.id for m in models], catalog)
    if listed:
        slots["model_list"] = listed
    links = [(m.start, m.id) for m in by_kind(found.mentions, "links")]
    links += _generic_links(found, catalog, slots.get("gpu"))
    if links:
        slots["links"] = list(dict.fromkeys(link for _, link in sorted(links)))
    providers = by_kind(found.mentions, "providers")
    if providers:
        slots["provider"] = providers[0].id


# the size written after a name, past a variant's words: "deepseek 67b", "deepseek coder 33b"
SIZE_AFTER = lazy(r"^\s*[-_ ]?\s*(?:(?:coder|math|chat|instruct|base|llm)[-_ ]?\s*)*"
                  r"(\d+(?:\.\d+)?)\s*b(?![a-z0-9])", _I)
SIZE_WORD_IN = lazy(r"\d(?:\.\d+)?\s*[bm]\b|\d+x\d+", _I)  # a name with its size: "qwen 7B"


# the size written right before a name: "7b bloom"
SIZE_BEFORE = lazy(r"(?<![\w.])(\d+(?:\.\d+)?)\s*b\s*[-_ ]?\s*$", _I)


def _other_size(found: Entities, m: Mention, index: int, catalog: Catalog) -> bool:
    """'deepseek 67b' names no catalog DeepSeek (the family name alone is DeepSeek-V3, 671B):
    a size written right after (or before: '7b bloom') a name without one, and not that
    model's, leaves the size."""
    at = found.masked.find(f"<m{index}>")
    said = SIZE_AFTER.match(found.masked[at + len(f"<m{index}>"):]) if at >= 0 else None
    before = None
    if said is None and at >= 0:
        said = before = SIZE_BEFORE.search(found.masked[max(0, at - 12):at])
    row = catalog.models.rows.get(m.id)
    if said is None or row is None or SIZE_WORD_IN.search(m.text):
        return False
    size = float(said[1])
    if any(abs(p - size) <= 0.05 * size for p in (row.params_b, row.active_params_b)):
        return False
    # the name's words go back into the text: the family's model of that size may be meant
    found.masked = found.masked.replace(f"<m{index}>", m.text, 1)
    written = f"{said[0].strip()} {m.text}" if before else f"{m.text} {said[0].strip()}"
    found.readings.append(f"'{written}' is not {m.id} ({num_b(row.params_b)}): read by its "
                          f"size, {num_b(size)}")
    return True


# "Qwen-2.5-72B Vision-Language", "Llama 3.2 11B Vision": a catalog name followed by words
# that make it another model, one with an image or audio encoder the catalog row lacks.
VISION_AFTER = lazy(r"^\s*[-_ ]?\s*(vision[\s-]*language|vision|vl|audio|omni)\b", _I)


def _vision_after(found: Entities, m: Mention, index: int, catalog: Catalog) -> bool:
    """A vision or audio variant written after a catalog name is not that model: it is said to
    be outside the catalog and sized by the name's own count, as 'Qwen2-VL-72B' is."""
    at = found.masked.find(f"<m{index}>")
    variant = VISION_AFTER.match(found.masked[at + len(f"<m{index}>"):]) if at >= 0 else None
    size = read_params_b(m.text)
    if variant is None or size is None:
        return False
    found.slots["params_b"] = size[0]
    said = unknown_reading(NamedSize(f"{m.text} {variant[1]}", None), size[0], catalog)
    found.readings.append(said or f"read '{m.text} {variant[1]}' as {num_b(size[0])}")
    return True


def _model_by_size(found: Entities, catalog: Catalog, whole_name: bool = False) -> None:
    """'a 70B model' is a size; '175B GPT' is the catalog model of that size and family."""
    if MOE_NAME.search(found.masked):
        return
    size = read_params_b(found.masked)
    if size is None:
        return
    params_b, said = size
    at = found.masked.find(said)
    named = read_named_size(found.masked, at, said) if at >= 0 else NamedSize(None, None)
    if named.active_b and named.active_b < params_b:
        found.slots["active_params_b"] = named.active_b
        found.masked = mask_active_words(found.masked)
    variant = VARIANT.search(found.masked[max(0, at - 25):at]) if at >= 0 else None
    if variant and SAME_SHAPE_VARIANT.search(variant[0]) and _base_model(found, named, catalog):
        return
    if variant:  # 'Qwen2-VL-72B' is not Qwen2 72B, nor 'DeepSeek-Coder-33B' a 32.8B Qwen
        _size_only(found, params_b, named, catalog)
        return
    words = set(re.findall(r"[a-z]+", found.masked.lower()))
    matches = []
    for row in catalog.models.rows.values():
        # name words of two letters or more: "GPT-2 124M" shares only its "m" with "125M"
        family = {row.family.lower(), *(w for w in re.findall(r"[a-z]+", row.name.lower())
                                        if len(w) > 1)}
        # a total size alone names a dense model, not an MoE of that total; with its active
        # count ("Qwen 235B A22") it names the MoE
        if abs(row.params_b - params_b) <= 0.03 * params_b and words & family - {"b"} \
                and not _other_version(found.masked, row) \
                and (row.active_params_b >= row.params_b * 0.99 or "moe" in words
                     or same_active(named.active_b, row.active_params_b)):
            matches.append((row, ", ".join(sorted(w for w in words & family if len(w) > 1))))
    # One catalog model of that family and size is the one meant; several ("Qwen 72B": Qwen1.5,
    # Qwen2 and Qwen2.5 all have one) leave the size, never a guessed version. Among several,
    # the only one whose every name word the question says is meant ("Llama 3.1 ... the 70B"
    # is Llama 3.1 70B, not Llama 3.1 Nemotron 70B, whose "Nemotron" it never says).
    whole = [m for m in matches if set(re.findall(r"[a-z]+", m[0].name.lower())) - {"b"} <= words]
    if (len(matches) > 1 and len(whole) == 1) or whole_name:
        matches = whole
    if len(matches) > 1:
        matches = _unversioned(found.masked, matches) or matches
    if len(matches) == 1:
        row, named = matches[0]
        found.slots["model"] = row.id
        found.slots.pop("active_params_b", None)  # the catalog model has its own
        found.readings.append(f"read '{said}' with '{named}' as {row.id}")
        return
    _size_only(found, params_b, named, catalog)
    if matches:
        found.readings.append(f"read '{said}' as a {num_b(params_b)} model: the catalog has "
                              + ", ".join(r.id for r, _ in matches) + " of that size")


def _unversioned(text: str, matches: list[tuple[Any, str]]) -> list[tuple[Any, str]]:
    """'13B LLaMA', its family named with no version after it, is the one catalog model of that
    size whose name carries no version (LLaMA 13B), not Llama 2 13B."""
    plain = [m for m in matches
             if not re.search(r"\d", re.sub(r"\d+(?:\.\d+)?\s*b\b", "", m[0].name.lower()))]
    if len(plain) != 1:
        return []
    family = re.escape(plain[0][0].family.split("-")[0].lower())
    said = re.findall(rf"\b{family}(?![a-z])(\s*[-_]?\s*v?\d(?!\d*\s*b\b))?", text, _I)
    return plain if said and not any(said) else []


def _base_model(found: Entities, named: NamedSize, catalog: Catalog) -> bool:
    """'Qwen2.5-Math-7B' is sized as the catalog's Qwen2.5-7B, whose shape it keeps; the name
    rounds the size (7.6B), so the base is found by name, not by size."""
    if named.name is None:
        return False
    base = re.sub(MATH_OR_CODER + r"(?=[-_ ])", "", named.name, flags=_I)
    base = TUNED_SUFFIX.sub("", base).lower().replace(" ", "-")
    row = catalog.models.rows.get(base)
    if row is None or row.family != "qwen2.5":  # the family model-qwen2-5 vouches for
        return False
    found.slots["model"] = base
    found.slots.pop("params_b", None)
    found.slots.pop("active_params_b", None)
    found.readings.append(f"'{named.name}' is a fine-tune of {base}, sized with its shape")
    return True


def _size_only(found: Entities, params_b: float, named: NamedSize, catalog: Catalog) -> None:
    """The model is its size (and active count): the name, if one was written, is said to be
    outside the catalog."""
    found.slots["params_b"] = params_b
    reading = unknown_reading(named, params_b, catalog)
    if reading:
        found.readings.append(reading)


def num_b(params_b: float) -> str:
    return f"{params_b:g}B"


def _generic_links(found: Entities, catalog: Catalog, gpu: str | None) -> list[tuple[int, str]]:
    """'NVLink' is the NVLink of the GPU named (else NVLink 4); 'InfiniBand' alone is NDR."""
    links: list[tuple[int, str]] = []
    for card in ETHERNET_CARD.finditer(found.masked):
        gbit = ZH_ETHERNET.get(card[0][:2]) or int(card[1] or card[2] or 1)
        if f"eth-{gbit}" in catalog.links.rows:
            links.append((card.start(), f"eth-{gbit}"))
            found.readings.append(f"read '{card[0].strip()}' as eth-{gbit} ({gbit} Gb/s "
                                  "Ethernet)")
    for m in GENERIC_LINK.finditer(found.masked):
        word = m[0]
        if NEGATED_BEFORE.search(found.masked[max(0, m.start() - 30):m.start()]):
            found.readings.append(f"'{word}': said to be absent, not read as a link")
            continue
        if word.lower() == "nvlink":
            row = catalog.gpus.rows.get(gpu or "")
            bridge_id = f"nvlink-bridge-{gpu}"  # a PCIe card's optional bridge (nvlink-generations)
            if row is not None and row.without_nvlink() and bridge_id in catalog.links.rows:
                links.append((m.start(), bridge_id))
                found.readings.append(f"read '{word}' as {bridge_id} (the optional bridge joining "
                                      f"a pair of {gpu})")
                continue
            if row is not None and row.without_nvlink():
                found.readings.append(f"'{word}': {gpu} has none (its GPUs meet over "
                                      f"{row.intra_link})")
                continue
            own = row.nvlink() if row else None
            link = own if own is not None and own in catalog.links.rows else "nvlink-4"
            bridge = row is not None and own == row.pair_link
            whose = (f"the bridge joining pairs of {gpu}" if own == link and bridge else
                     f"the link of {gpu}" if own == link else "the H100 generation")
        elif word.lower().startswith("roce"):
            beside = _port_rate(found.masked, m)
            rate = beside or _nic_rate(found.masked)
            if rate not in ROCE_BY_RATE:
                continue  # a RoCE port of no rate the catalog holds: leave the default
            link = ROCE_BY_RATE[rate]
            whose = (f"the {rate} Gb/s port written beside it" if beside else
                     f"the node's {rate} Gb/s NICs")
        elif (rate := _port_rate(found.masked, m)) in IB_BY_RATE:
            link, whose = IB_BY_RATE[rate], f"the {rate} Gb/s port written beside it"
        else:
            link, whose = "ib-ndr", "400 Gb/s per port, the common HGX fabric"
        if link in catalog.links.rows:
            links.append((m.start(), link))
            found.readings.append(f"read '{word}' as {link} ({whose})")
    return links


# An Ethernet card by its rate: "万兆网卡" (ten-gigabit), "千兆网卡" (gigabit), "a GB NIC",
# "upgrade to 40GB or 100GB NIC" (a NIC's "GB" is gigabit Ethernet; note ethernet-roce).
ZH_ETHERNET = {"万兆": 10, "千兆": 1}
ETHERNET_CARD = lazy(r"(?:万兆|千兆)(?:网卡|网络|以太网)?|"
                     r"(?<![\w.])(?:(1|10|25|40|100)\s*)?g(?:b|bit)?e?(?=\s+(?:or\s+\d+\s*g(?:b|bit)?e?"
                     r"\s+)?nics?\b)"
                     # "100 Gbps Ethernet", "25Gb/s ethernet": the rate, then the word
                     r"|(?<![\w.])(1|10|25|40|100)\s*g(?:b|bit)?(?:ps|/s|e)?\s+ethernet\b", _I)
# Weights said to be quantized with no format named: "quantized model shards", "量化模型".
QUANTIZED = lazy(r"\bquanti[sz]ed\b|\bquantified\b|量化(?:后的|的)?模型|量化版", _I)

# "IB 200Gb", "200G InfiniBand": the port rate names the generation (note infiniband-rates).
IB_BY_RATE = {200: "ib-hdr", 400: "ib-ndr", 800: "ib-xdr"}
# "200Gb RoCEv2", "RoCE 100G": RoCE over Ethernet ports of that rate (note ethernet-roce).
ROCE_BY_RATE = {100: "roce-100", 200: "roce-200", 400: "roce-400"}
RATE_AFTER = lazy(r"^\s*(100|200|400|800)\s*g(?:b|bit)?(?![a-z])", _I)
RATE_BEFORE = lazy(r"(?<!\d)(100|200|400|800)\s*g(?:b|bit)?(?:\s*/\s*s|ps)?\s*$", _I)


# "8 *100 Gbps network nic": the rate of the node's ports, written apart from the fabric's name.
NIC_RATE = lazy(r"(?<!\d)(100|200|400|800)\s*g(?:b|bit)?(?:\s*/\s*s|ps)?\s+(?:network\s+)?"
                r"(?:nics?|ports?|hcas?|network\s+cards?)\b", _I)


def _nic_rate(text: str) -> int | None:
    found = NIC_RATE.search(text)
    return int(found[1]) if found else None


def _port_rate(text: str, m: re.Match[str]) -> int | None:
    near = RATE_AFTER.match(text[m.end():m.end() + 12]) or \
        RATE_BEFORE.search(text[max(0, m.start() - 14):m.start()])
    return int(near[1]) if near else None


def _other_version(text: str, row: Any) -> bool:
    """'Llama 2 70B' names another generation than the catalog's Llama 3 70B."""
    letters = re.findall(r"[a-z]+", row.family.lower())
    if not letters:
        return False
    name = re.escape(letters[0])
    said = re.search(rf"\b{name}[\s-]*(\d+(?:\.\d+)?)(?![\d.]*\s*[bk]\b)", text, re.I)
    return said is not None and said[1] not in re.findall(r"\d+(?:\.\d+)?", row.name)


# "without peft", "not LoRA", "no QLoRA", "LoRA is not the best option", "不用LoRA", "没有IB": a
# method or a fabric named only to be ruled out.
NEGATED_BEFORE = lazy(r"(?:\b(?:without|no|not|w/o|instead\s+of|rather\s+than|other\s+than|"
                      r"except)\s+(?:using\s+|use\s+|the\s+|a\s+)?|"
                      r"\bnon[\s-]*|(?:不用|不使用|不想用|没有用?|不带|非)\s*)$", _I)
NEGATED_AFTER = lazy(r"^\s*(?:is\s+not|isn't|is\s+no|are\s+not|aren't|won't|doesn't)\b", _I)


def _negated(text: str, m: re.Match[str]) -> bool:
    return bool(NEGATED_BEFORE.search(text[max(0, m.start() - 30):m.start()])
                or NEGATED_AFTER.match(text[m.end():m.end() + 20]))


def _first(pairs: tuple[tuple[re.Pattern[str], str], ...], text: str) -> str | None:
    for pattern, value in pairs:
        if any(not _negated(text, m) for m in pattern.finditer(text)):
            return value
    return None


def _words(found: Entities) -> None:
    text, slots = found.masked, found.slots
    if FP32_GRADS.search(text):
        slots["fp32_main_grads"] = True  # gradients kept in FP32: a training job's, not weights
        text = FP32_GRADS.sub(" ", text)
    if recompute := _first(RECOMPUTE_WORDS, text):
        slots["recompute"] = recompute
    for name, pairs in (("precision", PRECISIONS), ("workload", WORKLOADS),
                        ("optimizer", OPTIMIZERS), ("op", COLLECTIVES), ("kind", PRICE_KINDS)):
        value = _first(pairs, text)
        if value:
            slots[name] = value
    if slots.get("fp32_main_grads") and "workload" not in slots:
        slots["workload"] = "pretrain"
    named = sorted((m.start(), w) for pattern, w in METHODS if (m := pattern.search(text)))
    if len(named) >= 2 and METHOD_CHOICE.search(text):
        slots["workload_list"] = [w for _, w in named]
    if slots.get("workload") in ("lora", "qlora") and _full_first(text):
        slots["workload"] = "full_finetune"
    # "非lora 的情况下 ... 可以跑起来吗", "without LoRA": all the weights are trained ("跑", "run"
    # say no more than that it runs)
    if slots.get("workload") in (None, "inference") and not SERVING_WORDS.search(text) \
            and any(_negated(text, m) for m in ADAPTER_WORDS.finditer(text)):
        slots["workload"] = "full_finetune"
    if slots.get("workload") in ("full_finetune", "lora", "qlora", "pretrain") \
            and ENGINE_SERVES.search(text):
        slots["workload"] = "inference"  # "we will finetune it; can vLLM serve it?"
    if fmt := _format(text):
        slots["precision"] = fmt
        if bare := BARE_WIDTH.search(text):
            found.readings.append(f"read '{bare[0]}' as {fmt.upper()}, the K-quant mix a bare "
                                  "width names (gguf-quant-mixes#bare-width-names)")
    elif "precision" not in slots and (tag := _ollama_tag(found)):
        slots["precision"] = "q4_k_m"
        found.readings.append(f"read the Ollama tag '{tag}' as Q4_K_M, the library's default "
                              "quantisation (gguf-quant-mixes#bare-width-names)")
    if "workload" not in slots and (OLLAMA.search(text) or GGUF_QUANT.match(
            slots.get("precision", ""))):
        slots["workload"] = "inference"  # llama.cpp and Ollama run GGUF files; neither trains
    if "precision" not in slots and QUANTIZED.search(text):
        slots["quantized"] = True  # "quantized model shards", bits not said
    read_offload(text, slots)
    if label := slots.pop("gpu_memory_label", None):
        found.readings.append(f"read '{label} GPUs' as GPUs labelled {label}: "
                              f"{label.rstrip('GBIgbi')} GiB, "
                              f"{slots['gpu_memory_gb']:g} GB each, as the driver counts it "
                              "(gpu-driver-memory#label-derived)")
    if slots.get("workload") == "qlora" and slots.get("precision") == "int4":
        slots["precision"] = "nf4"  # QLoRA's 4-bit base is NF4 (the QLoRA paper's data type)
    if slots.get("optimizer") == "adamw_8bit" and slots.get("precision") == "int8":
        del slots["precision"]


def _full_first(text: str) -> bool:
    full = next((m for m in EXPLICIT_FULL.finditer(text) if not _negated(text, m)), None)
    adapter = next((m for m in ADAPTER_WORDS.finditer(text) if not _negated(text, m)), None)
    return full is not None and adapter is not None and full.start() < adapter.start()


GGUF_QUANT = lazy(r"i?q\d", re.IGNORECASE)  # 'q4_k_m', 'q8_0', 'iq2_xxs': GGUF's own types


def _ollama_tag(found: Entities) -> str | None:
    """'llama3:70b-instruct' with no quantisation in the tag: the tag, else None. A bare
    'name:70b' counts only beside the word Ollama: 'DeepSeek-R1:671b' alone is the release."""
    for i, m in enumerate(found.mentions):
        at = found.masked.find(f"<m{i}>")
        if at >= 0 and OLLAMA_TAG.search(m.text) \
                and (tail := PLAIN_TAG_TAIL.match(found.masked, at + len(f"<m{i}>"))) \
                and (tail[0] or OLLAMA.search(found.masked)):
            return m.text + tail[0].replace(" ", "")
    return None


def _format(text: str) -> str | None:
    """A named quantisation format ('Q4_K_M', 'gptq', 'mxfp4'), as the memory tool spells it."""
    gguf = GGUF_NAME.search(text)
    if gguf and (name := gguf[1].lower().replace("-", "_")) in FORMATS:
        return name
    return _first(FORMAT_WORDS, text)


def _instance_layout(found: Entities) -> None:
    """'2 x p4d.24xlarge': two nodes of its 8 GPUs; 'a p5.48xlarge': its 8 GPUs."""
    named = instance_named(found.masked)
    slots = found.slots
    if named is None or named.gpus_each is None or "gpus" in slots or "nodes" in slots:
        return
    count = named.count or 1
    slots.update(nodes=count, gpus_per_node=named.gpus_each, gpus=count * named.gpus_each)
    found.readings.append(f"read {count} × '{named.said}' as {count} node"
                          f"{'s' if count > 1 else ''} of {named.gpus_each} {named.gpu} "
                          "(note aws-instance-gpus)")


def _setups(found: Entities) -> None:
    """'8*A100 (80GB) ... 4*A6000 (48GB)': two GPU kinds each with its own count are two setups
    (gpu_counts, in the order of gpu_list), each answered for the job, not one count for both."""
    kinds = found.slots.get("gpu_list") or []
    mentions = by_kind(found.mentions, "gpus")
    if len(kinds) < 2 or len(mentions) != len(kinds):
        return
    counts = [count_beside(found.masked, i) for i in range(len(mentions))]
    if all(counts):
        found.slots["gpu_counts"] = counts


def _layout(found: Entities) -> None:
    """GPU counts and node layouts: '8x H100', 'one 8xH100 node', '16 H100s in 2 nodes'."""
    layout_slots(found.masked, found.slots)
    slots = found.slots
    if "tp" in slots and "pp" in slots and "gpus" not in slots and "nodes" not in slots:
        # "tp 4 + pp 16": a layout spans TP x PP (x DP) GPUs
        slots["gpus"] = slots["tp"] * slots["pp"] * slots.get("dp", 1)
        found.readings.append(f"read TP {slots['tp']} × PP {slots['pp']}"
                              + (f" × DP {slots['dp']}" if "dp" in slots else "")
                              + f" as {slots['gpus']} GPUs")
    elif "tp" in slots and "nodes" not in slots and int(slots.get("gpus") or 1) == 1 \
            and slots["tp"] > 1:
        # "tensor_parallel_size 2 ... slower than a single card": the run spans the TP group;
        # the one card is what it is set against (two cards OOM, "4 cards with --tp 4" run:
        # two setups, and the count stated first is the one asked about)
        slots["gpus"] = slots["tp"]
        found.readings.append(f"read TP {slots['tp']} as {slots['tp']} GPUs")
    _instance_layout(found)
    _setups(found)
    dgx = dgx_nodes(found.masked)
    if dgx is not None and "gpus_per_node" not in found.slots:
        found.readings.append(f"read {dgx[1]} DGX/HGX systems as {dgx[1]} nodes; the GPUs "
                              "per node are assumed (such a system holds 8)")
