"""Question -> Intent: entities, intent rules, follow-ups and the slots still missing.

Slot names are the tools' field names where a tool has one (model, params_b, workload,
precision, optimizer, gpu, gpus, nodes, gpus_per_node, seq_len, micro_batch, batch,
context_len, tokens, zero_stage, tp, pp, provider, kind, utilization, hours), so a direct
`/memory key=value` call is an Intent(kind="memory", slots=payload) that follow-ups continue.
Others: size ("140 GB"), bandwidth ("400 Gb/s"), value and to_unit (conversion), links and
gpu_list (comparisons), op (collective), period, usd, question (concept), and the flags
egress, break_even, cost, gpu_plural, quantized, oom_seen.
"""

from __future__ import annotations

import json
import re
import unicodedata
from typing import Any

from clusterplan.assistant.answer import Intent
from clusterplan.assistant.parsing import calibration, kv_arithmetic, kv_dtype, shape_words
from clusterplan.assistant.parsing.entities import extract
from clusterplan.assistant.parsing.intents import (
    CLUSTER_OR_JOB,
    COST,
    ELAPSED,
    MACHINES,
    RELEASED_FILES,
    VARIANT_ASKED,
    classify,
)
from clusterplan.assistant.parsing.lazy_re import lazy
from clusterplan.assistant.parsing.measurements import WPS, any_in, find
from clusterplan.assistant.parsing.needs import REQUIRED, complete
from clusterplan.assistant.parsing.offload_words import LABEL_GIB, offload_asked, offload_kind
from clusterplan.db.catalog import Catalog

MAX_CHARS = 2000  # a question longer than this is read only up to here (stated as a warning)
# "compare with 8x H100", "vs A100s": another cluster for the job just asked about
COMPARING = r"compared?\s+(?:it\s+|that\s+|this\s+)?(?:with|to|against)|vs\.?|versus"
COMPARED_WITH = lazy(r"^\W*(?:and\s+)?(?:" + COMPARING + r"|against)\b|和.{0,20}对比|比较一下",
                     re.IGNORECASE)
FOLLOW_UP = lazy(r"^\W*(?:and|also|what\s+about|how\s+about|same|now|instead|then|with|on|"
                 + COMPARING + r"|"
                       r"at|for|using|but|if|what\s+if|ok|okay|that|it|only|just|"
                       r"what\s+(?:would|will)\s+(?:it|that|this)\s+be)\b", re.IGNORECASE)
OPENS_AS_FOLLOW_UP = lazy(r"^\W*(?:and|also|what\s+(?:about|if)|how\s+about|same|instead)\b",
                          re.IGNORECASE)
REFERS_BACK = lazy(r"\b(?:that|same|instead|this\s+(?:setup|cluster|model|job))\b|"
                   r"\b(?:for|with|of|run|serve|train|use)\s+it\b|"
                   r"\b(?:would|will|does|did)\s+it\s+(?:cost|take|run|be)\b", re.IGNORECASE)
# "is TP 8 a good idea on these?": the GPUs of the last question, however long the sentence.
ON_THESE = lazy(r"\b(?:on|with|for|across|over)\s+(?:these|those|them)\b", re.IGNORECASE)
BARE_NUMBER = lazy(r"^\W*(\d[\d,]*)\W*$")
# Follow-ups are short ("and on 8 H100?", "how long on 2T tokens?"); a question of more words
# than this, pasted from a thread, stands on its own.
LONG_QUESTION_WORDS = 40
# A follow-up whose only figure is a plain count: "what if I use 128 instead?", "and 256?"
LONE_COUNT = lazy(r"^\W*(?:(?:and|but|so|ok|okay)\W+)?(?:what\s+(?:if|about)|how\s+about|with|on|"
                  r"using|use|try)?(?:\s+(?:i|we)\s+(?:use|try|had|have|take))?\s*(\d[\d,]{0,6})"
                  r"(?:\s+(?:instead|then))?\W*$", re.IGNORECASE)
BARE_UNIT = lazy(r"^\W*([kKMGTP]i?[bB](?:/s)?)\W*$")
EGRESS = lazy(r"\begress\b|\bdata\s+transfer\s+out\b", re.IGNORECASE)
OUT_OF_MEMORY = lazy(r"\boom\b|\bout\s+of\s+memory\b|\bruns?\s+out\b|显存不足|显存溢出|爆显存",
                     re.IGNORECASE)
# A memory figure left once the GPUs' own names ("A100 40G") are masked: "240G", "30.15GB".
MEMORY_FIGURE = lazy(r"\d\s*(?:[GM]i?B?|[GM]iB)\b", re.IGNORECASE)
KV_CACHE = lazy(r"\bkv[\s-]*cache\b|\bkv\b|键值缓存", re.IGNORECASE)
BREAK_EVEN = lazy(r"\bbreak[\s-]*even\b|\breserved\b.*\b(?:beat|cheaper|worth|pays?)\b|"
                        r"\butili[sz]ation\b.*\breserved\b", re.IGNORECASE)
# Words of the field: a question using them that no rule placed is answered from the notes
# (as a concept) rather than asked what it is about.
DOMAIN = lazy(r"parallel|\btensor|\bpipeline|\bfsdp\b|\bzero|deepspeed|\bvllm\b|\blora\b|"
              r"\bpeft\b|adapt[eo]r|checkpoint|\btokens?\b|\bbatch|memory|\bvram\b|\bgpus?\b|"
              r"\bcuda\b|\boom\b|offload|throughput|latency|bandwidth|\bnccl\b|nvlink|"
              r"\bram\b|\bstorage\b|\bdisk\b|"
              r"infiniband|\bquanti[sz]|\bmodels?\b|\btrain|inference|显存|内存|微调|训练|推理|"
              r"带宽|并行|模型|显卡", re.IGNORECASE)
# A memory question that asks no figure ("relationship between KV cache and max length") is a
# concept, with no model to ask for; so is a layout question naming neither a model nor a
# cluster ("which parallelism is better"). With a cluster, the split its links dictate answers.
ASKS_FIGURE = lazy(r"\bhow\s+(?:much|big|many|large)\b|\bestimate\b|\bcalculat|多少|多大|几张|"
                   r"\bwhat\s+(?:will|would|is)\s+(?:be\s+)?the\s+size\b|"
                   r"最少|至少|最低", re.IGNORECASE)
# Sizes asked about in general, none named ("different model sizes", 不同尺寸的模型), and the
# models that stand for them: the Llama 2 family's three sizes (note model-llama-1-2).
SIZES = lazy(r"\b(?:different|various|each|all|common)\s+(?:model\s+)?sizes\b|"
             r"\bthe\s+models\s+(?:that\s+are\s+)?available\b|\ba\s+few\s+examples\b|"
             r"不同(?:大小|尺寸|规模|参数量)的?模型|各(?:个|种)尺寸", re.IGNORECASE)
GENERAL_SIZES = ("llama-2-7b", "llama-2-13b", "llama-2-70b")
# Contexts past Llama 2's 4,096 tokens stand on a family that has them: Llama 3.1's 8B and 70B
# (128k, note model-llama-3).
LONG_CONTEXT_SIZES = ("llama-3.1-8b", "llama-3.1-70b")
# Assumed cluster figures a follow-up keeps ("how much per month?" after a plan).
CARRIED = ("gpu", "gpus")
# What a served job is, beside its cluster: changed after a price, the job is served again.
SERVED_JOB = {"precision", "kv_precision", "context_len", "model", "params_b", "batch", "users"}
NOT_KEPT = (*calibration.MEASURED, "calibration", "kv_formula", "question")
# What one run was seen to do ("it took 40 minutes", "it ran out of memory"): that run's, not
# the next question's
RUN_OBSERVED = ("hours", "hours_elapsed", "oom", "oom_seen")
# Slots that mark how a question was worded, not what it is about: never listed as kept.
FLAGS = ("gpu_plural", "cost", "egress", "break_even", "question", "oom", "variants",
         "quantized", "oom_seen", "vllm_no_tp", "hours_elapsed", "released_weights",
         "max_batch_asked", "context_room_asked", "vllm", "at_home")
# A follow-up naming one of these asks about another job: a GPU count sized for the old is not kept.
RESIZES = ("model", "params_b", "shape", "workload", "precision", "seq_len", "context_len",
           "batch")
# Slots that describe the cluster size together: a new one replaces the old set.
COUNT_SLOTS = ("gpus", "nodes")
MODEL_SLOTS = ("model", "params_b")
# Keys that make a pasted JSON object a model's config.json.
CONFIG_KEYS = {"num_hidden_layers", "n_layer", "hidden_size", "n_embd", "num_attention_heads"}
# A short question naming none of these is about the previous question's subject.
SUBJECTS = ("gpu", "size", "bandwidth", "links", "provider", "tokens")


def clean(question: str) -> str:
    """The question as one line of printable text, cut to MAX_CHARS."""
    text = unicodedata.normalize("NFKC", question or "")
    text = "".join(ch if ch.isprintable() else " " for ch in text[: MAX_CHARS * 2])
    text = CJK_LATIN.sub(" ", text)
    text = SPELLED_PRODUCT.sub(_same_product, text)
    text = MARKDOWN_BOLD.sub("", text)
    text = TEMPLATE_EXAMPLE.sub(" ", text)
    return re.sub(r"\s+", " ", text).strip()[:MAX_CHARS]


# An issue template's own examples, a field's label before its colon ("Device (e.g. MacBook Pro
# M2, PC+RTX 3080): orin 64GB"), are not the asker's hardware or model: dropped before anything
# is read. An example in the asker's own sentence ("a model (e.g. 7B)") is what they mean.
TEMPLATE_EXAMPLE = lazy(r"\(\s*(?:e\.\s?g\.?|eg\.|for\s+example|such\s+as|例如|比如)[^()]{0,200}\)"
                        r"(?=\s*[:：])", re.IGNORECASE)


# Markdown emphasis pasted from a thread ("on **all 16** GPUs") hides a count from its noun;
# stars between two digits are arithmetic ("9**9"), left to be refused as such.
MARKDOWN_BOLD = lazy(r"(?<!\d)\*\*|\*\*(?!\d)")


# "64(8*8) V100": a count followed by the product that makes it is the count alone.
SPELLED_PRODUCT = lazy(r"(?<![\d.])(\d{1,5})\s*\(\s*(\d{1,4})\s*[*x×]\s*(\d{1,4})\s*\)")


def _same_product(m: re.Match[str]) -> str:
    return m[1] + " " if int(m[1]) == int(m[2]) * int(m[3]) else m[0]


# Between a Chinese character and a Latin letter or a digit a space: to a regular expression
# both are word characters, so "就有oom的错误" would hide "oom" from every \b-bounded word rule,
# "int4量化后" its "int4" and "8192的话" the number's end.
CJK_LATIN = lazy(r"(?<=[\u4e00-\u9fff])(?=[A-Za-z0-9])|(?<=[A-Za-z0-9])(?=[\u4e00-\u9fff])")


def parse(question: str, catalog: Catalog, previous: Intent | None = None) -> Intent:
    """Read `question` (continuing `previous` when it is a follow-up or an answer to it)."""
    config, text = pasted_config(clean(question))
    found = extract(text, catalog)
    slots = dict(found.slots)
    if config is not None:
        slots["config"] = config
        for name in MODEL_SLOTS:  # the config is the model; sizes in it are not a guess
            slots.pop(name, None)
        found.readings.append("read the pasted config.json as the model's shape")
    elif stated := shape_words.read(text):
        slots["shape"] = stated
        found.readings.append("read the architecture stated: " + ", ".join(
            f"{k}={v}" for k, v in stated.items()))
    _kv_arithmetic(text, slots, found.readings)
    _flags(text, slots, found.masked)
    if wps := WPS.search(text):
        found.readings.append(f"read '{wps[0].strip()}' as tokens per second on each GPU, as "
                              "torchtitan logs it (training-throughput-units#torchtitan-wps)")
    _trainer_global_batch(slots, found.readings)
    _sizes_in_general(text, slots, found.readings, catalog)
    measured = calibration.read(text)
    if measured:
        slots.update(measured)
        found.readings.append("read a measurement to calibrate the step-time model on: "
                              + ", ".join(f"{k}={v:g}" for k, v in measured.items()))
    if "hours" in slots and (ELAPSED.search(found.masked) or REPORTED_TIME.search(found.masked)):
        slots["hours_elapsed"] = True  # "it took 400 hours": the run's time, not a deadline
    kind, strong = classify(found.masked, slots)
    if kind == "fit" and slots.get("gpu_plural") and not ("gpus" in slots or "nodes" in slots):
        kind = "cluster_size"  # "serve it on H100s": how many of them is the question
    if kind in ("concept", "unknown") and previous is not None \
            and _serving_figure(text, slots, previous):
        # "what is the time per output token?" of the job just sized: that job, served
        kind, strong = "serving", True
    if previous is not None and _new_job_on_these(text, slots):
        # "fine-tune qwen2.5-32b with LoRA on them": a new job on the cluster just described
        hardware = {k: v for k, v in {**previous.assumed, **previous.slots}.items()
                    if k in HARDWARE and k not in slots}
        if hardware:
            found.readings.append("kept the cluster of the previous question: " + ", ".join(
                f"{k}={v}" for k, v in hardware.items()))
            slots = {**hardware, **slots}
    elif previous is not None and _continues(text, kind, strong, slots, previous):
        _bare_answer(text, slots, previous)
        if (not strong or kind == "unknown") and previous.kind != "unknown":
            kind = previous.kind
            served = (previous.slots.get("workload") or previous.assumed.get("workload"))
            if kind == "pricing" and served == "inference" and slots.keys() & {"users", "batch"}:
                kind = "serving"  # "what if we had 100 people?" after pricing a serving cluster
        if previous.kind == "cluster_size" and kind in ("cluster_size", "training") \
                and slots.keys() & {"tokens", "samples"} and not slots.keys() & {"gpus", "nodes"}:
            # "15T tokens" after "how many H100 to pretrain a 7B model?" (whose answer asks for
            # the budget to size the cluster by training time): the count that runs it in time
            kind = "plan"
        if kind == "diagnose" and not any_in(text) and not previous.missing \
                and "gpu" in slots:
            # "what would it be on an H100?" after a measured rate: the same job's figure there,
            # not a check of a measurement the new question does not make
            served = (previous.slots.get("workload") or previous.assumed.get("workload"))
            rates = {m.kind for m in find(str(previous.slots.get("question", "")))}
            kind = "serving" if served == "inference" or "tokens_per_s" in rates else "fit"
        before = _carried(previous, slots, kind)
        asked = set(slots)
        compared = _compared_with(text, slots, before)
        slots = merge(before, slots)
        kept = {k: v for k, v in before.items()
                if k not in asked and k not in FLAGS and k in slots}
        if kept:
            found.readings.append("kept from the previous question: " + ", ".join(
                "the pasted config.json" if k == "config" else f"{k}={v}"
                for k, v in kept.items()))
        if compared:
            # "compare with 8x H100" after a job on 8x A100: the same job on both, side by side
            slots.update(compared)
            found.readings.append("compared with the previous question's "
                                  + ("providers: " + " and ".join(compared["provider_list"])
                                     if "provider_list" in compared else
                                     "GPUs: " + " and ".join(compared["gpu_list"])))
        if kind == "pricing" and asked & SERVED_JOB and slots.get("workload") == "inference" \
                and "gpu" in slots and ("model" in slots or "params_b" in slots):
            # "and with FP8 weights?" after pricing a serving cluster: the job changed, so its
            # speed on that cluster, priced (a price list does not depend on the weights)
            kind = "serving"
            slots["cost"] = True
        if "offload" not in slots and slots.get("workload") not in (None, "inference") \
                and offload_asked(text):
            # "what about with CPU offload of the optimizer?" after sizing a fine-tune: the
            # same job, offloaded (the training it names is the previous question's)
            slots["offload"] = offload_kind(text)
    kind = calibration.retarget(kind, slots)
    if kind == "memory" and "gpu_memory_gb" not in slots and "gpu" not in slots \
            and (budget := _size_asked_enough(text, slots)):
        # "最低需要多少显存？（比如 6GB 够不够）": the memory, checked against a card of that
        # label, which counts GiB as its driver does (gpu-driver-memory#label-derived)
        slots["gpu_memory_gb"], kind = round(budget * LABEL_GIB, 2), "fit"
        found.readings.append(f"checked against a card labelled {budget:g}GB: {budget:g} GiB, "
                              f"{slots['gpu_memory_gb']:g} GB (gpu-driver-memory#label-derived)")
    if kind == "unknown" and DOMAIN.search(found.masked):
        kind = "concept"
    if kind in ("concept", "diagnose"):
        slots["question"] = _asked(text, kind, previous)
    assumed, missing = complete(kind, slots, catalog)
    if missing == ["gpu"] and kind == "fit" and _each_reading(slots, catalog, found.readings):
        assumed, missing = complete(kind, slots, catalog)
    if (previous is None or DEFINES.search(text)) and not ASKS_FIGURE.search(text) and (
            (kind == "memory" and missing == ["model"])
            or (kind == "layout" and not CLUSTER_OR_JOB & set(slots)
                and not MACHINES.search(text))):
        kind, slots["question"] = "concept", text
        assumed, missing = complete(kind, slots, catalog)
    return Intent(kind=kind, slots=slots, assumed=assumed, missing=missing,
                  readings=found.readings)


# A size put as a question of enough: "6GB 够不够", "is 6 GB enough"
SIZE_ENOUGH = lazy(r"(\d+(?:\.\d+)?)\s*gb?\s*(?:的显存|显存)?\s*(?:够不够|够吗|够用吗|是否足够)|"
                   r"\bis\s+(\d+(?:\.\d+)?)\s*gb\s+(?:of\s+vram\s+)?enough\b|"
                   # "Does this work in 48GB?", "will it fit in 24 GB?"
                   r"\b(?:work|fit|run)s?\s+(?:in|on|with(?:in)?)\s+(?:a\s+)?(\d+(?:\.\d+)?)\s*gb\b"
                   r"(?!\s*(?:of\s+)?(?:ram|system|host|cpu))", re.IGNORECASE)


def _size_asked_enough(text: str, slots: dict[str, Any]) -> float | None:
    """The GPU memory a memory question asks to be checked against, if it names one."""
    m = SIZE_ENOUGH.search(text)
    if not m:
        return None
    return float(m[1] or m[2] or m[3])


def _each_reading(slots: dict[str, Any], catalog: Catalog, readings: list[str]) -> bool:
    """A GPU outside the catalog whose model number the catalog holds under several names
    ("RTX6000": the RTX A6000 and the RTX 6000 Ada): the job on each of them, side by side,
    rather than a question back. Nothing is read as the GPU when no catalog name shares it."""
    said = str(slots.get("unknown_gpu") or "")
    number = re.search(r"\d{3,}", said)
    if not number:
        return False
    # a suffix said ("3070 Ti", "4090 D") must be in each reading: never the plain card
    suffixes = re.findall(r"[a-z]+", said[number.end():].lower())
    readings_of = [g for g in catalog.gpus.close(said, 6)
                   if number[0] in g and all(x in g.split("-") for x in suffixes)][:3]
    if len(readings_of) < 2:  # one reading would be a swap, not a comparison
        return False
    slots.update(gpu=readings_of[0], gpu_list=readings_of)
    if "gpus" in slots:
        slots["gpu_counts"] = [slots["gpus"]] * len(readings_of)
    readings.append(f"'{said}' is not one GPU in the catalog; answered for each GPU it may "
                    f"be: {', '.join(readings_of)}")
    return True


# Only the cache's size asked: a precision in the question is the cache's.
KV_SIZE_ASKED = lazy(r"^\W*(?:what(?:'s|\s+is)\s+(?:the\s+)?)?kv[\s-]*cache\s+(?:size|memory)\b",
                     re.IGNORECASE)
CACHE_PRECISIONS = ("fp8", "int8", "fp16", "bf16", "int4")


def _trainer_global_batch(slots: dict[str, Any], readings: list[str]) -> None:
    """A Trainer's per-GPU batch and accumulation on GPUs named, with no model parallelism
    said: every GPU is a data-parallel rank (as under ZeRO or FSDP), so a step holds their
    product."""
    if "grad_accum" not in slots or "gpus" not in slots or "global_batch" in slots \
            or any(k in slots for k in ("tp", "pp")):
        return
    slots["global_batch"] = slots["micro_batch"] * slots["grad_accum"] * slots["gpus"]
    readings.append(f"global batch {slots['global_batch']} sequences: {slots['micro_batch']} "
                    f"a GPU × {slots['grad_accum']} accumulation steps × {slots['gpus']} GPUs, "
                    "each a data-parallel rank")


def _kv_arithmetic(text: str, slots: dict[str, Any], readings: list[str]) -> None:
    """The asker's own KV formula, kept to check factor by factor; the cache's precision when
    set apart from the weights'; and the token count of their "<per-token size> * N" when no
    context length is stated otherwise."""
    factors = kv_arithmetic.formula(text)
    if factors:
        slots["kv_formula"] = factors
        readings.append("read the KV formula shown: " + " × ".join(f"{f:g}" for f in factors))
    cache = kv_dtype.read(text)
    if cache:
        slots["kv_precision"] = cache
        if kv_dtype.only_for_cache(text) and slots.get("precision") == cache:
            del slots["precision"]  # the weights' precision was not stated
    elif KV_SIZE_ASKED.search(text) and slots.get("precision") in CACHE_PRECISIONS:
        # "KV cache size of llama 3.1 8b at 128k context in fp8?": the cache is what is in FP8
        slots["kv_precision"] = slots.pop("precision")
        readings.append(f"read {slots['kv_precision']} as the KV cache's precision (only the "
                        f"cache's size is asked)")
    tokens = kv_arithmetic.tokens(text)
    if tokens and "context_len" not in slots:
        slots["context_len"] = tokens
        readings.append(f"read {tokens} as the tokens the KV arithmetic multiplies by")


def _asked(text: str, kind: str, previous: Intent | None) -> str:
    """The words a diagnosis reads its measurements from: a reply that only fills what was
    asked back ("llama 7b") adds to the question it answers, whose figures still stand."""
    before = previous.slots.get("question") if previous is not None else None
    if before and previous is not None and previous.missing and previous.kind == kind:
        return f"{before} {text}"
    if before and previous is not None and previous.kind == kind == "diagnose" \
            and not any_in(text):
        # "and with 4 of them?" after a diagnosed refusal: the same figures, on the new setup
        return f"{before} {text}"
    return text


def _sizes_in_general(text: str, slots: dict[str, Any], readings: list[str],
                      catalog: Catalog) -> None:
    """"Memory requirements for different model sizes", no size named: the common sizes side
    by side (Llama 2's 7B, 13B and 70B, note model-llama-1-2), shown as read, not asked."""
    if any(k in slots for k in ("model", "params_b", "config")) or not SIZES.search(text):
        return
    long = max([int(slots.get("context_len") or 0), *(slots.get("context_list") or [])]) > 4096
    listed = [m for m in (LONG_CONTEXT_SIZES if long else GENERAL_SIZES)
              if m in catalog.models.rows]
    if len(listed) < 2:
        return
    slots["model"] = listed[0]
    slots["model_list"] = [{"model": m} for m in listed]
    readings.append("models asked about in general, none named: the common sizes "
                    + ", ".join(listed) + " shown side by side")


def pasted_config(text: str) -> tuple[dict[str, Any] | None, str]:
    """A Hugging Face config.json pasted into the question, and the words around it."""
    start, end = text.find("{"), text.rfind("}")
    if start < 0 or end <= start:
        return None, text
    try:
        found = json.loads(text[start:end + 1])
    except ValueError:
        return None, text
    if not isinstance(found, dict) or not CONFIG_KEYS & set(found):
        return None, text
    return found, (text[:start] + " " + text[end + 1:]).strip()


def _compared_with(text: str, new: dict[str, Any], before: dict[str, Any]) -> dict[str, Any]:
    """The GPU list of "compare with 8x H100" after a job on other GPUs: the earlier kind
    first (it stays the answer's main cluster), then the one named, with their counts."""
    old_gpu, new_gpu = before.get("gpu"), new.get("gpu")
    old_where, new_where = before.get("provider"), new.get("provider")
    if COMPARED_WITH.search(text) and old_where and new_where and old_where != new_where:
        # "compare with coreweave" after a price on lambda: both providers, the earlier first
        return {"provider": old_where, "provider_list": [old_where, new_where]}
    if not COMPARED_WITH.search(text) or not old_gpu or not new_gpu or old_gpu == new_gpu:
        return {}
    out: dict[str, Any] = {"gpu": old_gpu, "gpu_list": [old_gpu, new_gpu]}
    if before.get("gpus") and new.get("gpus"):
        out.update(gpus=before["gpus"], gpu_counts=[before["gpus"], new["gpus"]])
    return out


def _carried(previous: Intent, new: dict[str, Any], kind: str) -> dict[str, Any]:
    """What a follow-up builds on: the slots given, and the GPUs the last answer settled on,
    unless the follow-up changes what that count was sized for (the model, the workload, the
    precision): "what about QLoRA?" after sizing a full fine-tune is sized afresh. A plan
    searches GPU kinds and counts itself: what the last plan chose is its answer, not a
    constraint on "and within 30 days?"."""
    settled = {k: previous.assumed[k] for k in CARRIED if k in previous.assumed}
    if any(k in previous.slots for k in ("gpus", "nodes")) or any(k in new for k in RESIZES) \
            or kind == "plan":
        settled.pop("gpus", None)
    if kind == "plan":
        settled.pop("gpu", None)
    # A measurement belongs to the cluster it was taken on; the session carries what it taught.
    kept = {k: v for k, v in previous.slots.items() if k not in NOT_KEPT}
    if previous.slots.get("hours_elapsed"):
        kept = {k: v for k, v in kept.items() if k not in RUN_OBSERVED}
    return {**settled, **kept}


def _flags(text: str, slots: dict[str, Any], masked: str = "") -> None:
    if EGRESS.search(text):
        slots["egress"] = True
    if BREAK_EVEN.search(text):
        slots["break_even"] = True
    if COST.search(text):
        slots["cost"] = True
    if KV_CACHE.search(text):
        slots["kv_focus"] = True
    if VARIANT_ASKED.search(text):
        slots["variants"] = True
    if OUT_OF_MEMORY.search(text):
        slots["oom_seen"] = True  # the run ran out of memory, whatever figures are quoted
    if VLLM.search(text):
        slots["vllm"] = True  # served by vLLM: its cache gets gpu_memory_utilization's share
    if VLLM.search(text) and not TP_FLAG.search(text):
        slots["vllm_no_tp"] = True  # vLLM with no tensor parallelism set runs on one GPU
    if OUT_OF_MEMORY.search(text) and not MEMORY_FIGURE.search(masked):
        slots["oom"] = True  # an OOM with no memory figure quoted beside it
    if MAX_BATCH.search(text):
        slots["max_batch_asked"] = True  # "maximum batch size", "how many sequences at once"
    if AT_HOME.search(text):
        slots["at_home"] = True  # "run it locally at home": consumer cards and quantised weights
    if CONTEXT_ROOM.search(text):
        slots["context_room_asked"] = True  # "how many tokens of context can I fit?"
    if RELEASED_FILES.search(text):
        slots["released_weights"] = True  # the files one downloads: the weights as released


VLLM = lazy(r"\bvllm\b", re.IGNORECASE)
MAX_BATCH = lazy(r"\bmax(?:imum)?\s+batch(?:\s+size)?\b|\bhow\s+many\s+(?:concurrent\s+|"
                 r"parallel\s+|simultaneous\s+|inference\s+)*(?:sequences|requests|users|people)"
                 r"\b|最大\s*(?:batch|并发|批)|"
                 r"用户数|多少(?:个)?(?:用户|并发|(?:推理)?请求)|多少人(?:同时)?(?:使用|用)",
                 re.IGNORECASE)

# A run's time told as what it is observed to need, then checked ("it needs more than 50
# hours to complete. Is this expected?"): the run's own time, not a deadline asked
REPORTED_TIME = lazy(r"\bneeds?\s+(?:more\s+than\s+|over\s+|about\s+|around\s+)?[\d.,]+\s*"
                     r"(?:hours?|hrs?|h|days?)\s+to\s+(?:complete|finish)\b|"
                     r"\bis\s+(?:this|that|it)\s+(?:expected|normal|reasonable)\b|"
                     r"(?:这|这个速度|这个时间)?\s*(?:正常吗|合理吗)", re.IGNORECASE)

# A model run on one's own machine: consumer cards, and the weight formats that fit them
AT_HOME = lazy(r"\bat\s+home\b|\blocally\b|\bhome\s*(?:lab|server|rig|pc)\b|"
               r"\bconsumer\s+(?:gpus?|cards?|hardware)\b|\bmy\s+(?:own\s+)?(?:pc|rig|desktop|"
               r"computer|workstation)\b|\bgaming\s+(?:pc|gpus?|cards?)\b|\bgpus?\s+should\s+i\s+buy\b|"
               r"本地|家用|个人电脑", re.IGNORECASE)

# The longest context one sequence can have: the KV room asked as a length
CONTEXT_ROOM = lazy(r"\bhow\s+(?:many|much)\s+(?:tokens\s+of\s+)?context\b|"
                    r"\bhow\s+many\s+tokens\b.{0,40}\b(?:fit|hold|context)\b|"
                    r"\bmax(?:imum)?\s+(?:context(?:\s+length)?|model[_\s-]len|"
                    r"sequence\s+length)\b.{0,40}\b(?:can|could|fit|possible|support)|"
                    r"\b(?:longest|largest|biggest)\s+context\b|\bhow\s+long\s+(?:a\s+)?context\b|"
                    r"最大上下文|最长上下文", re.IGNORECASE)

# vLLM's tensor-parallel setting in any of its spellings: "--tensor-parallel-size 4", "-tp 8",
# "tensor_parallel_size=2"
TP_FLAG = lazy(r"tensor[-_]parallel[-_]size|(?<![\w-])-tp\b|\btp\s*[=:]?\s*\d", re.IGNORECASE)


# A serving figure asked of a job already on the table: its speed, not the idea.
SERVING_FIGURE = lazy(r"\btime\s+per\s+output\s+token\b|\btpot\b|\bttft\b|"
                      r"\btime\s+to\s+first\s+token\b|\btokens?\s*(?:/|per)\s*s(?:ec(?:ond)?)?\b|"
                      r"\bthroughput\b|\blatency\b|\bhow\s+fast\b", re.IGNORECASE)


def _serving_figure(text: str, slots: dict[str, Any], previous: Intent) -> bool:
    """'What is the time per output token?' after sizing a served model: that job's figure."""
    had_model = "model" in previous.slots or "params_b" in previous.slots
    serving = (previous.slots.get("workload") or previous.assumed.get("workload")) == "inference"
    new_model = "model" in slots or "params_b" in slots
    return had_model and serving and not new_model and bool(SERVING_FIGURE.search(text))


# What "on them" keeps for a new job: the cluster, not the last job's settings.
HARDWARE = ("gpu", "gpus", "nodes", "gpus_per_node", "links", "nics_per_node")


def _new_job_on_these(text: str, slots: dict[str, Any]) -> bool:
    return bool(ON_THESE.search(text)) and ("model" in slots or "params_b" in slots)


# "what does ZeRO-3 do?", "explain pipeline bubbles": a definition asked, whatever came before
# (unless it names a model or GPU of its own).
SUBJECTS_NAMED = {"model", "params_b", "gpu"}
DEFINES = lazy(r"^\W*(?:what\s+does\s+[\w-]+(?:\s+[\w-]+)?\s+(?:do|mean)\b|explain\b|"
               r"define\b|tell\s+me\s+about\b|how\s+does\s+[\w-]+(?:\s+[\w-]+)?\s+work\b)",
               re.IGNORECASE)


def _continues(text: str, kind: str, strong: bool, slots: dict[str, Any],
               previous: Intent) -> bool:
    """A follow-up changes a slot of the last question; a reply fills a slot it asked for."""
    if previous.kind in ("unknown", "concept", "notes") and not previous.missing:
        return False
    if "progress_done" in slots:
        return False  # "one epoch took 3 hours, how long for 5?": the asker's own run's pace
    if slots.get("largest_model") and not ("model" in slots or "params_b" in slots):
        return False  # "the biggest model I can fine-tune on a 4090?": the catalog is searched
    if DEFINES.search(text) and not previous.missing and not SUBJECTS_NAMED & set(slots):
        return False  # "what does ZeRO-3 do?" after sizing a model asks what it is
    if previous.missing and (not strong or kind == previous.kind):
        return True
    if previous.missing and BARE_NUMBER.match(text):
        return True
    new_model = "model" in slots or "params_b" in slots
    if _run_of_the_last_job(text, kind, new_model, slots, previous):
        return True
    if strong and not _same_subject(kind, previous):
        return False
    if len(text.split()) > LONG_QUESTION_WORDS:
        return False  # a paragraph of its own (a thread pasted) is a new question, not a tweak
    if _lacks_the_model(kind, new_model, previous):
        return True  # "how long on 2T tokens?" after sizing Llama 3 70B is about Llama 3 70B
    if ON_THESE.search(text) and not new_model:
        return True
    if len(text.split()) > 12:
        # longer, it follows on only when it opens as a follow-up does ("what if I use bf16
        # mixed precision with flash attention and 2k context?") and names no model of its own
        return bool(OPENS_AS_FOLLOW_UP.search(text)) and not new_model
    if FOLLOW_UP.search(text):
        return True
    own_subject = new_model or any(k in slots for k in SUBJECTS)
    return not own_subject or (bool(REFERS_BACK.search(text)) and not new_model)


# "it runs at 166 s per step, why so slow?": the run of the job just asked about.
THE_RUN = lazy(r"^\W*(?:it|this|that|the\s+(?:run|training|job|step))\b|"
               r"^\W*(?:training|inference)\s+(?:runs|is|takes)\b", re.IGNORECASE)


def _run_of_the_last_job(text: str, kind: str, new_model: bool, slots: dict[str, Any],
                         previous: Intent) -> bool:
    """A measurement to explain that names neither model nor GPU, said of "it" right after a
    job was sized: that job's run, its model and cluster kept (and shown as kept)."""
    had_job = ("model" in previous.slots or "params_b" in previous.slots) and \
        "gpu" in previous.slots
    return kind == "diagnose" and had_job and not new_model and "gpu" not in slots \
        and bool(THE_RUN.search(text))


def _lacks_the_model(kind: str, new_model: bool, previous: Intent) -> bool:
    """A question that needs a model and names none, after one that named it: the model is
    kept (and shown as kept) rather than asked for again."""
    needs_model = "model" in REQUIRED.get(kind, ())
    had_model = "model" in previous.slots or "params_b" in previous.slots
    return needs_model and not new_model and had_model


def _same_subject(kind: str, previous: Intent) -> bool:
    # "how much per month?" after a fit question keeps its GPUs; a new model means a new question.
    return kind in ("pricing", "interconnect", "training", "fit", "memory", "layout", "serving",
                    "cluster_size", "checkpoint", "plan")


def _bare_answer(text: str, slots: dict[str, Any], previous: Intent) -> None:
    """'16' in reply to "how many GPUs?" is the GPU count; 'GB/s' to "which unit?" the unit;
    "what if I use 128 instead?" after a job on 64 GPUs is 128 GPUs."""
    wanted = previous.missing[0] if previous.missing else ""
    m = BARE_NUMBER.match(text)
    if m and wanted in ("gpus", "nodes", "batch", "context_len"):
        slots[wanted] = int(m[1].replace(",", ""))
    lone = LONE_COUNT.match(text)
    if lone and not wanted and "gpus" in previous.slots and not slots.keys() & {"gpus", "nodes"}:
        slots["gpus"] = int(lone[1].replace(",", ""))
    unit = BARE_UNIT.match(text)
    if unit and wanted == "to_unit":
        slots["to_unit"] = unit[1]


def merge(old: dict[str, Any], new: dict[str, Any]) -> dict[str, Any]:
    """The previous slots with the new ones laid over, keeping related slots consistent."""
    merged = dict(old)
    for group in (COUNT_SLOTS, MODEL_SLOTS):
        if any(k in new for k in group):
            for k in group:
                merged.pop(k, None)
    if any(k in new for k in MODEL_SLOTS) and "shape" not in new:
        merged.pop("shape", None)  # dimensions stated for one model are not another's
    if "gpu" in new and "gpu_list" not in new:
        merged.pop("gpu_list", None)
    if "provider" in new and "provider_list" not in new:
        merged.pop("provider_list", None)
    if "workload" in new and "workload_list" not in new:
        merged.pop("workload_list", None)  # "LoRA then": the choice between methods is made
    merged.update(new)
    return merged
