"""Numbers a person types with their units: sizes, bandwidths, money, durations, tokens, counts.

Every pattern is compiled once at import; each reader takes the masked question (catalog
names already replaced by markers such as `<g0>`) and returns the slots it found.
"""

from __future__ import annotations

import re
from decimal import Decimal
from typing import Any

from clusterplan.assistant.parsing.lazy_re import lazy

# A number starts where a run of digits starts (the lookbehind): without it a long run of
# digits is tried from every position, and 2,000 digits took seconds of backtracking.
# (not inside "1,000"; a comma with no digit before it, a Chinese "，" folded to ",", is no part)
NUM = r"(?<!\d)(?<!\d,)(\d{1,3}(?:,\d{3})+|\d+(?:\.\d+)?)"
WORD_NUMBERS = {
    "a": 1, "an": 1, "one": 1, "single": 1, "two": 2, "three": 3, "four": 4, "five": 5,
    "six": 6, "seven": 7, "eight": 8, "nine": 9, "ten": 10, "twelve": 12, "sixteen": 16,
    "thirty-two": 32, "sixty-four": 64,
}
COUNT = r"((?<![\d,])\d{1,3}(?:,\d{3})+|(?<![\d,])\d+" \
        r"|a|an|one|single|two|three|four|five|six|seven|eight|nine|ten" \
        r"|twelve|sixteen|thirty-two|sixty-four)"
SCALE = {"k": 1e3, "thousand": 1e3, "m": 1e6, "million": 1e6, "b": 1e9, "billion": 1e9,
         "t": 1e12, "trillion": 1e12}

_I = re.IGNORECASE
SIZE = lazy(NUM + r"\s*([kKMGTP]i?B|bytes?)\b(?!\s*/\s*[sS]|ps)"
            r"(?!(?i:\s+(?:or\s+\d+\s*gb\s+)?nics?\b))")  # "40GB or 100GB NIC": ports
# "150M/s" with no B: a transfer speed as download tools print it, bytes (read as MB/s)
BANDWIDTH = lazy(NUM + r"\s*\(?(?:([kKMGT]i?[bB])\s*/\s*[sS](?:ec)?\b|([kKMGT])(bps|Bps)\b|"
                 r"([kKMGT])\s*/\s*[sS](?:ec)?\b)")
# p2pBandwidthLatencyTest's "GPU0-GPU0 = 2959 GB/s": a copy inside one GPU's memory, no link.
SELF_COPY = lazy(r"\bgpu\s*(\d+)\s*[-–>]+\s*gpu\s*\1\s*[=:]?\s*$", _I)
CONVERT = lazy(r"^\W*convert\s+(.{1,60}?)\s+(?:to|into|in)\s+(\S{1,20}?)\W*$", re.I)
TO_UNIT = lazy(r"\b(?:to|into|in)\s+([kKMGT]i?[bB](?:\s*/\s*s|ps)?)(?![a-z])")
MONEY = lazy(r"\$\s*" + NUM + r"\s*(k|m|thousand|million)?\b", _I)
DURATION = lazy(NUM + r"\s*-?\s*(?:(seconds?|secs?|minutes?|mins?|hours?|hrs?|h|days?|weeks?"
                      r"|months?|years?)\b(?![/-]\w)"  # not "152334H/miqu-1-70b", a user name
                      # not one stage's limit: "a time limit of 6 hours in each training step"
                      r"(?!\s+(?:in|for|per)\s+(?:each|every|one)\s+(?:\w+\s+)?"
                      r"(?:step|iteration|stage|phase)s?\b)"
                      r"|(?:个)?(秒|分钟|小时|天|周|星期|月|年)(?![A-Za-z]))", _I)
# A deadline of one unit: "in under a day", "within a week", "in less than a month"
ONE_SPAN = lazy(r"\b(?:in|within|under|inside)\s+(?:under\s+|less\s+than\s+)?(?:a|an|one)\s+"
                r"(hour|day|week|month|year)\b", _I)
PERIOD = lazy(r"\b(?:per|a|each|every|/)\s*(hour|day|week|month|year)\b|\b(hourly|daily|"
                    r"weekly|monthly|yearly|annually)\b", _I)
# not the tokens of one step ("0.5M tokens in a iteration"): that is the batch, no budget
# "2B token数据": the singular and a Chinese word after it count too; a rate ("tokens/s") never
TOKENS = lazy(NUM + r"\s*(t|b|m|k|trillion|billion|million|thousand)?\s*tokens?(?![A-Za-z])"
              r"(?!\s*(?:/|per\s+s))"
              r"(?!\s+(?:in\s+)?(?:per|a|an|each|one)\s+(?:step|batch|iteration|iter)\b)", _I)
# Chinchilla's C = 6ND written with the run's own figures ("6 * 7e10 * 1.64e7", exponents
# already written out): the parameters, then the tokens trained.
SIX_N_D = lazy(r"(?<![\d.])6\s*[*x×]\s*(\d{7,})\s*[*x×]\s*(\d{7,})(?![\d.])")
# A token count with no unit is a budget only when it is that large ("16,384,000 tokens").
PLAIN_TOKEN_BUDGET = 1e6
CONTEXT_AFTER = lazy(NUM + r"\s*(k)?\s*(?:-?\s*tokens?)?\s*(?:context|ctx|prompt|上下文|上文)", _I)
CONTEXT_BEFORE = lazy(r"(?:\b(?:context(?:\s+(?:length|window|len|size))?|input\s+length)|"
                      r"token\s*长度(?:设置的|设置为|设为|为|是)?)\s*"
                      r"(?:of|=|:|to)?\s*" + NUM + r"\s*(k)?\b", _I)
# "输入长度到2w多", "输入长度可以到128k", "上下文长度为8192": a Chinese input length, where
# w and 万 are ten thousands
CONTEXT_ZH = lazy(r"(?:输入|上下文|序列|文本)\s*长度\s*(?:可以|能|最多|最长)?\s*"
                  r"(?:到|为|是|设为|设置为|达到|超过)?\s*" + NUM + r"\s*(k|w|万)?", _I)
# No context is shorter than this: "context length of 3.1" names a model version.
MIN_CONTEXT = 128
STYLED = r"[a-z]+[-\s](?:style|like|format(?:ted)?)\s+"  # "50k alpaca-style examples"
# "32k" alone is a context length, never money ("$50k", "50k USD", "50k budget").
BARE_K = lazy(r"(?<![\w.$])(?<!\$\s)(?<!\bi[3579]\s)(?<!\bi[3579]-)(\d+)k\b"
              r"(?!\s*(?:usd|dollars?|\$|budget|€|eur|rmb|元|美元))"
              # a count of things is no context: "230k data samples", "50k steps", "24K GPUs";
              # nor is a CPU's model number ("i9 14900k")
              rf"(?![\s-]*(?:data\s+|training\s+|{STYLED})?(?:samples?|examples?|rows?|steps?|"
              r"iterations?|"
              r"images?|documents?|records?|gpus?|cards?|nodes?|条|<[gu]\d+>)"
              # nor a vocabulary: "250k vocab size"
              r"|\s*(?:tokens?\s+)?vocab)", _I)
# An engine's own name for the context: "--max-model-len 29k", "num_ctx 32768", "n_ctx=4096".
CONTEXT_FLAG = lazy(r"(?:max[-_\s]model[-_\s]len|num_ctx|n_ctx|max[-_]total[-_]tokens)\s*"
                    r"(?:=|:|to|of|is)?\s*[\"']?" + NUM + r"\s*(k)?\b", _I)
# A request's length in tokens: "2048token输入", "a 5000-token query", "4k tokens input".
CONTEXT_INPUT = lazy(NUM + r"\s*(k)?\s*-?\s*tokens?\s*(?:input|输入|prompt|query|request|long)",
                     _I)
# Every way a context length is written, each read the same way
CONTEXTS = (CONTEXT_AFTER, CONTEXT_BEFORE, CONTEXT_FLAG, CONTEXT_INPUT, CONTEXT_ZH)
# Each request's length, a range read at its top: "each query contains around 4000 to 5000
# tokens" sizes the KV cache for 5,000 tokens.
CONTEXT_EACH = lazy(r"\b(?:quer(?:y|ies)|requests?|prompts?|inputs?|messages?)\s+(?:contains?|"
                    r"has|have|of|with|is|are)?\s*(?:around|about|roughly|approximately|~|up "
                    r"to)?\s*(?:" + NUM + r"\s*(?:to|-|–|~)\s*)?" + NUM + r"\s*(k)?\s*tokens\b",
                    _I)
# Also a training script's flags: "--max_num_tokens 40960", "cutoff_len: 4096",
# "--model_max_length 8192", "--max_seq_length 2048".
SEQ_LEN = lazy(r"(?:(?:\b|(?<=_))(?:seq(?:uence)?[\s_-]*len(?:gth)?|sequence\s+length)|"
               r"\b(?:max[_-]num[_-]tokens|cutoff[_-]len|model[_-]max[_-]length|max[_-]?len))"
               # "model_max_length调成8192": set to, in Chinese
               r"\s*(?:of|=|:|：|为|是|调成|调到|调为|设为|设成|设置为|设置成|改成|改为|到)?\s*"
               + NUM + r"\s*(k)?(?![0-9A-Za-z])", _I)
# A training batch: "global batch of 4096 sequences", "global batch size 2048", "batch of 16M
# tokens", "4M tokens per step". Read before the other quantities, which then do not see it
# (its tokens are not the training budget, its sequences not concurrent requests).
GLOBAL_BATCH = lazy(r"\bglobal[\s_-]*batch(?:[\s_-]*size)?\s*(?:of|=|:|is)?\s*" + NUM
                    + r"\s*(k|m|thousand|million)?\s*(sequences|seqs|samples|tokens)?\b|"
                    r"\bbatch(?:[\s_-]*size)?\s*(?:of|=|:|is)?\s*" + NUM
                    + r"\s*(k|m|thousand|million)?\s*(tokens)\b|"
                    + NUM + r"\s*(k|m|thousand|million)?\s*(tokens)\s+(?:in\s+)?"
                    r"(?:per|a|an|each|one)\s+"
                    r"(?:step|batch|iteration|optimi[sz]er\s+step)\b", _I)
MICRO_BATCH = lazy(r"\b(?:micro[\s_-]*batch(?:[\s_-]*size)?|mbs)\s*(?:of|=|:)?\s*(\d+)", _I)
CONCURRENCY = lazy(r"(?<![\d.])\b(\d[\d,]*)\s*(?:concurrent|parallel|simultaneous)?\s*"
                   # "32 concurrent 8k-token requests": each one's length between
                   r"(?:\d[\d,.]*\s*k?[\s-]*tokens?[\s-]+(?:long\s+)?)?"
                   r"(?:(?:request|client)\s+threads|requests|"
                   r"users|sequences|streams|sessions|queries|people|persons|clients)\b"
                   # not a rate: "3.28 requests/s"
                   r"(?!\s*(?:/\s*s|per\s+s(?:ec|econd)?\b))", _I)
# "并发100", "100并发", "并发数为32": requests served at once
ZH_CONCURRENCY = lazy(r"并发(?:数|量)?\s*(?:为|是|=|:|：)?\s*(\d{1,6})(?![\d.])"
                      r"|(?<![\d.])(\d{1,6})\s*(?:个|路)?\s*并发")
# "one 128k sequence", "a single request": one at a time
ONE_SEQUENCE = lazy(r"\b(?:one|a\s+single|single)\s+(?:\d+(?:\.\d+)?\s*k?\s*(?:-?\s*tokens?)?"
                    r"\s+)?(?:sequence|request|user|prompt|conversation)\b", _I)
BATCH = lazy(r"(?<!micro[\s_-])\bbatch(?:[\s_-]*size)?\s*(?:of|=|:)?\s*(\d+)", _I)
UTILISATION = lazy(NUM + r"\s*%", _I)
SHARE_OF_PEAK = lazy(r"\b(?:mfu|hfu|flops?|tflops?)\b|\bof\s+peak\b", _I)
# "ZeRO-3", "zero stage 2", and DeepSpeed configs named for it: "ds_z3_config.json",
# "llama3_lora_sft_ds3.yaml".
# "ZeRO-3", "zero stage 2", "ds_z3", "DeepSpeed Stage 3", "DeepSpeedStage3"
ZERO = lazy(r"\bzero[\s_-]*(?:stage[\s_-]*)?([0-9])\b|(?<![a-z])ds_?z?([0-3])(?![0-9a-z])|"
            r"deep[\s_-]*speed[\s_-]*stage[\s_-]*([0-3])(?![0-9])", _I)
DEGREES = lazy(r"\b(tp|pp|dp|ep)\s*(?:=|:|\bto\b)?\s*(\d+)\b", _I)
# A degree spelled out before its number, as launch flags and configs write it
# ("tensor_parallelism=2", "--pipeline-model-parallel-size 8", "data parallel size of 4").
DEGREE_WORDS = lazy(r"\b(tensor|pipeline|data|expert)[\s_-]*(?:model[\s_-]*)?parallel(?:ism)?"
                    r"(?:[\s_-]*(?:size|degree))?(?=\s*(?:=|:|of|to|is)?\s*\d)", _I)
SHORT_DEGREE = {"tensor": "tp", "pipeline": "pp", "data": "dp", "expert": "ep"}
# Every parallel degree written as a name and a number ("FSDP 8, TP 2, CP 2, PP 2").
ALL_DEGREES = lazy(r"\b(fsdp|hsdp|dp|tp|pp|cp|ep|sp)\s*(?:=|:|-)?\s*(\d+)\b", _I)
# A size in words alone, no digits: "trillion parameter model", "a trillion-parameter LLM".
WORD_SIZE = lazy(r"(?<![\d.]\s)(?<![\d.])\b(?:a\s+|one\s+)?trillion[\s-]*param(?:eter)?s?\b", _I)
LORA_RANK = lazy(r"\brank\s*(?:=|of)?\s*(\d+)\b", _I)
# A model size: "70B", "7b", "405-billion", "1.8 trillion"; not "8x7B" (an MoE name).
# Chinese text around a size ("14b最低", "72B模型") hides no word boundary, so the edges are
# ASCII; a family name glued to its size ("qwen14b", "Qwen72B-int4") is a size too.
PARAMS = lazy(r"(?<![xX0-9_.])(?<![^a-zA-Z][a-zA-Z])(?<!^[a-zA-Z])(?<![a-zA-Z][0-9])" + NUM
              + r"\s*-?\s*(b|bn|billion|t|trillion)(?![0-9A-Za-z_])"
              r"(?!\s*tokens?(?![A-Za-z]))(?:[\s-]*param(?:eter)?s?)?", _I)


MAX_DIGITS = 15  # digits before the point: nothing planned here needs 10^15 of anything


class OutOfRange(ValueError):
    """A number too long to be meant; the message names what it was read as and the limit."""


def number(text: str, what: str = "a number") -> float:
    """'1,024' -> 1024.0; a count word -> its value. Over MAX_DIGITS digits: OutOfRange."""
    low = text.lower()
    if low in WORD_NUMBERS:
        return float(WORD_NUMBERS[low])
    plain = low.replace(",", "")
    whole = plain.split(".")[0]
    if len(whole) > MAX_DIGITS:
        shown = plain if len(plain) <= 12 else f"{plain[:4]}...{plain[-4:]} ({len(whole)} digits)"
        raise OutOfRange(f"{what} {shown} is out of range: at most {MAX_DIGITS} digits "
                         f"(below 10^{MAX_DIGITS}) are read")
    return float(plain[:64])


# "1.5e3", "1e-3": read as the plain number, so a pattern of digits sees 1500, not "3".
EXPONENT = lazy(r"(?<![\w.])(\d{1,20}(?:\.\d{1,20})?)[eE]([+-]?\d{1,6})(?![\w.])")
# "9**9**9", "2^10": arithmetic is never evaluated, and reading its last digit was wrong.
ARITHMETIC = lazy(r"\d\s*(?:\*\*|\^)\s*[-+]?\d[\d\s*^+-]*")
SMALLEST = Decimal("1e-9")  # below this nothing planned here is meant (a rate, a share)


# What makes arithmetic a value the question rests on: a unit or a thing counted after it.
VALUE_AFTER = lazy(r"\s*(?:[kKMGTP]i?B\b|bytes?\b|tokens?\b|params?\b|parameters\b|gpus?\b)", _I)


def plain_numbers(text: str) -> str:
    """`text` with each number in exponent form written out ('1.5e3' -> '1500'); one that
    is out of range, or arithmetic such as '9**9**9 GB' given as a value, is OutOfRange naming
    the range. Arithmetic in the asker's working ("3*10^9*0.5=1.5GB" with its stars lost) is
    set aside: the question around it is still answered."""
    return EXPONENT.sub(_written_out, ARITHMETIC.sub(_set_aside, text))


def _set_aside(m: re.Match[str]) -> str:
    if VALUE_AFTER.match(m.string, m.end()):
        raise OutOfRange(f"{m[0].strip()[:40]} is arithmetic, which is not evaluated: "
                         f"write the number itself, at most {MAX_DIGITS} digits "
                         f"(below 10^{MAX_DIGITS})")
    return " "


# "6 * 7e10 * 1.64e7 = 6.89e18 FLOPS": in a question that counts FLOPs a huge number is a
# count of operations, rightly huge; no slot reads it, so it is set aside rather than refused
# with the question (huggingface/blog#1649 asks about exactly such sums).
FLOP_TALK = lazy(r"\bflops?\b|\bflop/s\b", _I)


def _written_out(m: re.Match[str]) -> str:
    value = Decimal(m[1]).scaleb(int(m[2]))
    if value >= Decimal(10) ** MAX_DIGITS and FLOP_TALK.search(m.string):
        return "many"
    if value >= Decimal(10) ** MAX_DIGITS or (value and value < SMALLEST):
        raise OutOfRange(f"the number {m[0]} is out of range: numbers are read from "
                         f"{SMALLEST:.0e} to below 10^{MAX_DIGITS}")
    return format(value.normalize(), "f")


def count(text: str, what: str = "the count") -> int:
    return int(number(text, what))


# A run's pace as elapsed time for a share of the work: "30mins for 0.01 epochs", "2 hours for
# 5% of the epoch", "0.01 epoch in 30 minutes", "1% took 2h", "30分钟跑了0.01个epoch",
# "跑完1%用了2小时". The share and its time are read together (and taken from the text) so
# neither is read alone as an epoch count, a utilisation or a deadline.
_SPAN = (r"(\d+(?:\.\d+)?)\s*(hours?|hrs?|h|minutes?|mins?|seconds?|secs?|s|days?|分钟|小时|秒|天)"
         r"(?![A-Za-z])")
_DONE = (r"(\d*\.\d+|\d+(?:\.\d+)?|一|半)\s*(%\s*(?:of\s+(?:the|an|one|a)\s+epoch\b)?|(?:个\s*)?"
         r"epochs?\b)")
PROGRESS = (
    lazy(_SPAN + r"\s*(?:for|per|to\s+(?:do|run|finish|complete|get\s+through)|=|->|→|才?跑了?"
         r"|才?训练了?|才?完成了?)\s*(?:about\s+|~|only\s+)?" + _DONE, _I),
    lazy(r"(?<![A-Za-z\d.])" + _DONE + r"\s*(?:in|takes?|took|after|needs?|done\s+in"
         r"|completed?\s+in|用了|花了|耗时|需要|要)\s*(?:about\s+|~|roughly\s+|around\s+)?"
         + _SPAN, _I),
    # "even after 24 hours it only managed to go up to 7%", "in 3 days it reached 40%"
    lazy(r"\b(?:after|in|within)\s+" + _SPAN + r"[^.?!%\d]{0,40}?\b(?:managed\s+to\s+(?:go\s+up"
         r"\s+to|reach|get\s+to|complete|do)|reached|got\s+to|completed|finished|is\s+at|was\s+at|"
         r"(?:went|go)\s+up\s+to)\s+(?:only\s+)?(?:about\s+|~|around\s+)?" + _DONE, _I),
)
TO_SECONDS = {"h": 3600.0, "hr": 3600.0, "hour": 3600.0, "小时": 3600.0, "min": 60.0,
              "minute": 60.0, "分钟": 60.0, "s": 1.0, "sec": 1.0, "second": 1.0, "秒": 1.0,
              "day": 86400.0, "天": 86400.0}


def _progress(text: str, slots: dict[str, Any]) -> str:
    """The elapsed time and the share of an epoch (or of the run) it covered; the text
    without them."""
    for first_span, pattern in zip((True, False, True), PROGRESS, strict=True):
        m = pattern.search(text)
        if not m:
            continue
        (value, unit, done, of) = (m[1], m[2], m[3], m[4]) if first_span else \
            (m[3], m[4], m[1], m[2])
        word = unit.lower()
        seconds = number(value, "the elapsed time") * TO_SECONDS.get(
            word, TO_SECONDS.get(word.rstrip("s"), 1.0))
        share = {"一": 1.0, "半": 0.5}.get(done) or number(done, "the share done")
        if of.strip().startswith("%"):
            share /= 100
        if seconds <= 0 or share <= 0:
            return text
        slots["progress_s"] = seconds
        slots["progress_done"] = share
        slots["progress_of"] = "epoch" if "epoch" in of.lower() else "run"
        return text[:m.start()] + " " * (m.end() - m.start()) + text[m.end():]
    return text


# nccl-tests' message sizes and step ("all_reduce_perf -b 64k -e 4G -f 2"): bytes swept, not a
# context, a model or a memory size.
NCCL_SWEEP = lazy(r"(?<=\s)-[bef]\s*\d+[kmgt]?(?![\w.])", _I)
NCCL_PERF = lazy(r"\w_perf\b")


def read_quantities(text: str) -> dict[str, Any]:
    """Every numeric slot found in the (masked) question."""
    slots: dict[str, Any] = {}
    if NCCL_PERF.search(text):
        text = NCCL_SWEEP.sub(lambda m: " " * len(m[0]), text)
    text = DEGREE_WORDS.sub(lambda m: SHORT_DEGREE[m[1].lower()], text)
    text = _progress(text, slots)
    text = _global_batch(text, slots)
    for reader in _READERS:
        reader(text, slots)
    return slots


def _global_batch(text: str, slots: dict[str, Any]) -> str:
    """The training batch as sequences or tokens per step; the text without it."""
    m = GLOBAL_BATCH.search(text)
    if not m:
        return text
    groups = [g for g in m.groups()]
    value, scale, unit = next((groups[i], groups[i + 1], groups[i + 2])
                              for i in (0, 3, 6) if groups[i] is not None)
    amount = number(value, "the global batch") * {"k": 1e3, "t": 1e3, "m": 1e6}.get(
        (scale or "").lower()[:1], 1)
    if unit and unit.lower() == "tokens":
        slots["global_batch_tokens"] = int(amount)
    else:
        slots["global_batch"] = int(amount)
    return text[:m.start()] + " " * (m.end() - m.start()) + text[m.end():]


# A GPU's memory label right after its name ("H100 SXM 80GB", "A100 (80GB)"): the card, not
# a size to convert or a memory measured.
AFTER_GPU = lazy(r"(?:<g\d+>|\b(?:[abhl]\d{2,3}[a-z]?|mi\d{3}[a-z]?|rtx\s*[a-z]?\d{4})\b)\s*"
                 r"(?:(?:sxm\d?|pcie|nvl|hbm\d?e?)\s*)*[-(（]?\s*$", _I)


# A file's size written with a bare "G" ("模型文件大小为30G", "the checkpoint is 30G"): bytes,
# as the file words before it say (a bare "24G" elsewhere may be a card's memory).
# A size is a file's when file words come just before it: "optimizer state files (> 105 GB)".
FILE_WORDS = (r"(?:文件|\bfiles?\b|\bcheckpoints?\b|权重|\bsafetensors\b|\.bin\b)"
              r"[^\n。.,，;；]{0,12}?")
FILE_SIZE_G = lazy(FILE_WORDS + NUM + r"\s*G(?![A-Za-z/])", _I)
FILE_SIZE = lazy(FILE_WORDS + NUM + r"\s*([kKMGTP]i?B)\b", _I)


def _sizes(text: str, slots: dict[str, Any]) -> None:
    size = next((m for m in SIZE.finditer(text)
                 if not AFTER_GPU.search(text[max(0, m.start() - 20):m.start()])), None)
    if size:
        slots["size"] = f"{size[1].replace(',', '')} {_byte_unit(size[2])}"
    if file_size := FILE_SIZE.search(text):
        slots["file_size"] = f"{file_size[1].replace(',', '')} {file_size[2]}"
    elif file_size := FILE_SIZE_G.search(text):
        slots["file_size"] = f"{file_size[1].replace(',', '')} GB"
        slots.setdefault("size", slots["file_size"])
    rates = []
    for m in BANDWIDTH.finditer(text):
        if SELF_COPY.search(text[max(0, m.start() - 30):m.start()]):
            continue
        unit = f"{m[2]}/s" if m[2] else f"{m[5]}B/s" if m[5] else \
            f"{m[3]}{'b' if m[4] == 'bps' else 'B'}/s"
        rates.append(f"{m[1].replace(',', '')} {unit}")
    if rates:
        slots["bandwidth"] = rates[0]
    to = TO_UNIT.search(text)
    if to:
        slots["to_unit"] = re.sub(r"\s+", "", to[1]).replace("ps", "/s")
    asked = CONVERT.match(text)
    if asked:  # whatever is asked to convert goes to the tool, which names a bad unit
        slots["value"] = slots.get("bandwidth") or slots.get("size") or asked[1]
        slots.setdefault("to_unit", asked[2])
    elif "to_unit" in slots and ("bandwidth" in slots or "size" in slots):
        slots["value"] = slots.get("bandwidth") or slots["size"]


def _byte_unit(unit: str) -> str:
    return "B" if unit.lower().startswith("byte") else unit


HOURS_IN = {"second": 1 / 3600, "sec": 1 / 3600, "minute": 1 / 60, "min": 1 / 60, "hour": 1,
            "hr": 1, "h": 1, "day": 24, "week": 168, "month": 730, "year": 8760,
            "秒": 1 / 3600, "分钟": 1 / 60, "小时": 1, "天": 24, "周": 168, "星期": 168,
            "月": 730, "年": 8760}


# A duration in words: "running for approximately three days", "two weeks"
WORD_DURATION = lazy(r"\b(one|two|three|four|five|six|seven|eight|nine|ten|twelve|"
                     r"a\s+couple\s+of)\s+(hours?|days?|weeks?|months?)\b", _I)

def durations(text: str) -> list[tuple[int, float]]:
    """Each duration the text states, in hours, with where it starts ("30.5hrs", "25 hours",
    "three days")."""
    found = [(m.start(), number(m[1], "the duration")
              * HOURS_IN[(m[2] or m[3]).lower().rstrip("s")]) for m in DURATION.finditer(text)]
    found += [(m.start(), float(WORD_NUMBERS.get(m[1].lower(), 2))
               * HOURS_IN[m[2].lower().rstrip("s")]) for m in WORD_DURATION.finditer(text)]
    return sorted(found)


def _money_and_time(text: str, slots: dict[str, Any]) -> None:
    money = MONEY.search(text)
    if money:
        slots["usd"] = number(money[1], "the amount") * SCALE.get((money[2] or "").lower()[:1], 1)
    spans = durations(text)
    if not spans and (one := ONE_SPAN.search(text)):  # "in under a day", "within a week"
        slots["hours"] = {"hour": 1, "day": 24, "week": 168, "month": 730, "year": 8760}[
            one[1].lower()]
    if spans:
        slots["hours"] = spans[0][1]
    period = PERIOD.search(text)
    if period:
        word = (period[1] or period[2]).lower()
        slots["period"] = {"hourly": "hour", "daily": "day", "weekly": "week", "monthly": "month",
                           "yearly": "year", "annually": "year"}.get(word, word)


def _tokens_and_context(text: str, slots: dict[str, Any]) -> None:
    tokens = TOKENS.search(text)
    # each unit the pattern takes is a SCALE key ("thousand"[:1] would read as "t"rillion)
    scale = SCALE[tokens[2].lower()] if tokens and tokens[2] else None
    if scale == 1e3 and tokens[2].lower() == "k" and "context_len" not in slots:
        # "KV cache ... at 128k tokens": "k" tokens are one sequence's length, never a
        # training budget (the smallest fine-tunes run millions)
        slots["context_len"] = _k(tokens[1], "k")
    elif scale:
        slots["tokens"] = number(tokens[1], "the token count") * scale
    elif tokens and number(tokens[1], "the token count") >= PLAIN_TOKEN_BUDGET:
        slots["tokens"] = number(tokens[1], "the token count")
    for pattern in (SEQ_LEN,):
        m = pattern.search(text)
        if m:
            slots["seq_len"] = _k(m[1], m[2])
    m = next((m for pattern in CONTEXTS
              for m in pattern.finditer(text) if _k(m[1], m[2]) >= MIN_CONTEXT), None)
    each = CONTEXT_EACH.search(text)
    if m:
        slots["context_len"] = _k(m[1], m[2], vllm=_is_vllm_flag(m))
        if tokens and tokens.start() < m.end() and m.start() < tokens.end():
            slots.pop("tokens", None)  # "a context window of 128k tokens" is no token budget
    elif each:
        slots["context_len"] = _k(each[2], each[3])
        if tokens and tokens.start() < each.end() and each.start() < tokens.end():
            slots.pop("tokens", None)  # the length of one request is no token budget
    elif "seq_len" not in slots:
        bare = BARE_K.search(text)
        if bare and not (tokens and bare.start() == tokens.start()):
            slots["context_len"] = _k(bare[1], "k")
    if "context_len" in slots:
        _context_list(text, slots)


def _six_n_d(text: str, slots: dict[str, Any]) -> None:
    """The parameters and tokens of a run stated in its FLOP count (6 x N x D)."""
    m = SIX_N_D.search(text)
    if m:
        slots.setdefault("params_b", number(m[1], "the parameter count") / 1e9)
        slots.setdefault("tokens", number(m[2], "the token count"))


def _context_list(text: str, slots: dict[str, Any]) -> None:
    """Every context length the question names ("the 16k model is bigger than the 8k one"),
    when it names more than one: the KV cache is then shown at each, side by side."""
    found = {slots["context_len"]}
    spans = []
    for pattern in CONTEXTS:
        for m in pattern.finditer(text):
            if _k(m[1], m[2]) >= MIN_CONTEXT:
                found.add(_k(m[1], m[2], vllm=_is_vllm_flag(m)))
            spans.append(m.span())
    if "seq_len" not in slots:
        found |= {_k(m[1], "k") for m in BARE_K.finditer(text)
                  if not any(a <= m.start() < b for a, b in spans)}
    if len(found) > 1:
        slots["context_list"] = sorted(found)[:8]


def _is_vllm_flag(m: re.Match[str]) -> bool:
    return m.re.pattern == CONTEXT_FLAG.pattern and "model" in m[0].lower()


def _k(value: str, k: str | None, vllm: bool = False) -> int:
    # "32k" context means 32 x 1024 tokens, as model cards count them (32k = 32,768); vLLM's
    # --max-model-len reads a lowercase k as 1,000 (serving-memory-preallocation#
    # max-model-len-suffix).
    if k in ("w", "W", "万"):
        return int(number(value, "the context length") * 10_000)
    scale = 1000 if vllm and k == "k" else 1024
    return int(number(value, "the context length") * (scale if k else 1))


# Hugging Face Trainer's per-GPU batch and accumulation ("per_device_train_batch_size: 2",
# "gradient_accumulation_steps: 8", "bs = 1 and grad. accum=4", "bs1, grad. accum_4").
PER_DEVICE_BATCH = lazy(r"\b(?:per[_\s-]*device[_\s-]*train[_\s-]*batch[_\s-]*size|bs)\s*"
                        r"(?:=|:)?\s*(\d+)\b", _I)
GRAD_ACCUM = lazy(r"\b(?:gradient[_\s-]*accumulation[_\s-]*steps|grad\.?[_\s-]*accum"
                  r"(?:ulation)?(?:[_\s-]*steps)?)\s*(?:=|:|_)?\s*(\d+)\b", _I)


def _batches(text: str, slots: dict[str, Any]) -> None:
    m = MICRO_BATCH.search(text)
    if m:
        slots["micro_batch"] = count(m[1], "the micro-batch")
    accum = GRAD_ACCUM.search(text)
    per_device = PER_DEVICE_BATCH.search(text)
    if accum and per_device and not m:
        slots["micro_batch"] = count(per_device[1], "the micro-batch")
        slots["grad_accum"] = count(accum[1], "the gradient accumulation")
    m = CONCURRENCY.search(text) or BATCH.search(text) or ZH_CONCURRENCY.search(text)
    if m:
        slots["batch"] = count(m[1] or m[2], "the batch")
    elif ONE_SEQUENCE.search(text):
        slots["batch"] = 1  # "one 128k sequence": a single one, whatever was served before
    m = next((u for u in UTILISATION.finditer(text)
              if not SHARE_OF_PEAK.search(text, max(0, u.start() - 60), u.start())), None)
    if m:  # a share of the hours rented; a share of peak (MFU) is a measurement, not this
        slots["utilization"] = number(m[1], "the utilisation") / 100
    m = ZERO.search(text)
    if m:
        slots["zero_stage"] = int(m[1] or m[2] or m[3])
    stages = sorted({int(z[1] or z[2] or z[3]) for z in ZERO.finditer(text)} - {0})
    if len(stages) >= 2 and all(z <= 3 for z in stages):
        slots["zero_stages"] = stages  # "ZeRO-2 vs ZeRO-3": each is sized side by side
    for name, value in DEGREES.findall(text):  # the layout stated first ("tp 4 + pp 16 vs tp 64")
        slots.setdefault(name.lower(), count(value, f"the {name.upper()} degree"))
    tps = list(dict.fromkeys(int(v) for n, v in DEGREES.findall(text) if n.lower() == "tp"))
    if len(tps) >= 2:
        slots["tp_compared"] = tps  # "tp=8 is slower than tp=4": the degrees set side by side
    named: dict[str, int] = {}
    for name, value in ALL_DEGREES.findall(text):
        named.setdefault(name.upper(), count(value, f"the {name.upper()} degree"))
    if len(named) >= 2:
        slots["degrees"] = named
    m = LORA_RANK.search(text)
    if m:
        slots["lora_rank"] = count(m[1], "the LoRA rank")


# A small model counted in millions, said to be parameters: "600M parameters", "125 million
# params" (a bare "600M" may be tokens or rows).
MILLION_PARAMS = lazy(r"(?<![\w.])" + NUM + r"\s*-?\s*(?:m|million)[\s-]*(?:trainable\s+)?"
                      r"param(?:eter)?s?\b", _I)


def read_params_b(text: str) -> tuple[float, str] | None:
    """A bare model size ('70B', '405-billion', '1.8 trillion', '600M parameters') in
    billions, with its text."""
    m = PARAMS.search(text)
    if not m and (small := MILLION_PARAMS.search(text)):
        return number(small[1], "the model size") / 1000.0, small[0].strip()
    if not m:
        word = WORD_SIZE.search(text)  # "a trillion parameter model": 1,000B
        return (1000.0, word[0].strip()) if word else None
    scale = 1000.0 if m[2].lower().startswith("t") else 1.0
    return number(m[1], "the model size") * scale, m[0].strip()


RATE = lazy(NUM + r"\s*(k)?\s*(?:output\s+)?tok(?:en)?s?\s*(?:/\s*s(?:ec)?|per\s+sec(?:ond)?)\b"
            r"(\s*(?:each|per\s+user|a\s+user))?", _I)
USERS = lazy(r"\b(\d{1,3}(?:,\d{3})+|\d+)\s*(?:concurrent\s+|simultaneous\s+)?(?:users|people|"
             r"persons|customers|clients)\b|\bteam\s+of\s+(\d{1,6})\b", _I)
OBJECTIVE = lazy(r"\b(cheapest|fastest)\b", _I)
# A rate said to be the whole cluster's: "1,000 tokens/s in total", "aggregate throughput"
TOTAL_RATE = lazy(r"\bin\s+(?:total|all)\b|\btotal\b|\baggregate\b|\boverall\b|总", _I)
PER_USER_MAX_TOKENS_S = 300  # faster than anyone reads: above it a rate is the cluster's
REQUESTS = lazy(NUM + r"\s*(?:requests?|reqs?|queries)\s*(?:/\s*s(?:ec)?\b|per\s+sec(?:ond)?\b"
                r"|a\s+second\b)", _I)
# "2000 input tokens", "1k-token prompts"; "500 output tokens", "300-token answers"
PROMPT_TOKENS = lazy(NUM + r"\s*(k)?\s*(?:(?:input|prompt)\s+tokens\b|-?\s*tokens?\s+"
                     r"(?:prompts?|inputs?)\b)", _I)
OUTPUT_TOKENS = lazy(NUM + r"\s*(k)?\s*(?:(?:output|generated|completion)\s+tokens\b"
                     r"(?!\s*/|\s+per\s+s)|-?\s*tokens?\s+(?:answers?|outputs?|responses?|"
                     r"completions?|replies)\b)", _I)
TTFT = lazy(r"\b(?:time\s+(?:to|for)\s+first\s+token|ttft)\b\D{0,25}?" + NUM
            + r"\s*(ms|s|secs?|seconds?)\b", _I)
TPOT = lazy(NUM + r"\s*ms\s*(?:per|/|a)\s*(?:output\s+)?token\b|\b(?:tpot|time\s+per\s+output\s+"
            r"token|inter[\s-]*token\s+latency)\b\D{0,25}?" + NUM + r"\s*ms\b", _I)
LARGEST = lazy(r"\b(?:biggest|largest)\s+(?:\w+\s+)?model\b", _I)
DISCOUNT = lazy(r"(\d+(?:\.\d+)?)\s*%\s*(?:off|discount)|discount\s+of\s+(\d+(?:\.\d+)?)\s*%",
               _I)
# "on-demand or reserved?": both sides of a commitment named in one question
COMMITMENTS = lazy(r"\bon[\s-]*demand\b.*\b(?:reserved|committed|commitment|capacity\s+block)"
                   r"|\b(?:reserved|committed|commitment)\b.*\bon[\s-]*demand\b", _I)


def _goals(text: str, slots: dict[str, Any]) -> None:
    """A plan's goal: a throughput (in all, or per user), users at once, cheapest/fastest."""
    rate = RATE.search(text)
    users = USERS.search(text)
    if rate:
        value = number(rate[1]) * (1e3 if rate[2] else 1)
        # "200 users at 20 tok/s": beside a user count, a reading speed is each user's (20 in
        # all would be a tenth of a token a second each), unless said to be the total
        each = bool(rate[3]) or (users is not None and value <= PER_USER_MAX_TOKENS_S
                                 and not TOTAL_RATE.search(text))
        slots["user_tokens_per_s" if each else "tokens_per_s"] = value
    if users:
        slots["users"] = count(users[1] or users[2])
    objective = OBJECTIVE.search(text)
    if objective:
        slots["objective"] = objective[1].lower()
    _serving_goals(text, slots)
    if LARGEST.search(text):
        slots["largest_model"] = True
    if COMMITMENTS.search(text):
        slots["commitments"] = True
    discount = DISCOUNT.search(text)
    if discount:
        slots["discount"] = number(discount[1] or discount[2]) / 100


def _serving_goals(text: str, slots: dict[str, Any]) -> None:
    """Requests a second with their prompt and output lengths, and latency targets."""
    requests = REQUESTS.search(text)
    if requests:
        slots["requests_per_s"] = number(requests[1])
        if slots.get("batch") == int(slots["requests_per_s"]):
            slots.pop("batch")  # "10 requests/s" is a rate, not 10 sequences at once
    for name, pattern in (("input_tokens", PROMPT_TOKENS), ("output_tokens", OUTPUT_TOKENS)):
        m = pattern.search(text)
        if m:
            slots[name] = int(number(m[1]) * (1000 if m[2] else 1))
    ttft = TTFT.search(text)
    if ttft:
        slots["ttft_ms"] = number(ttft[1]) * (1 if ttft[2].lower() == "ms" else 1000)
    tpot = TPOT.search(text)
    if tpot:
        slots["tpot_ms"] = number(tpot[1] or tpot[2])


# A fine-tuning dataset by its size: "1 million samples", "230k examples", "50,000
# conversations"; and the length of one: "5-6 hundred tokens" a sample, "about 512 tokens each".
SAMPLES = lazy(NUM + r"\s*(k|m|thousand|million)?\s*(?:training\s+|chat\s+|data\s+|"
               rf"instruction\s+|{STYLED})?(?:samples|examples|conversations|dialogues|rows|instances|"
               r"records|pairs|documents|entries)\b|"
               # "共4000条数据", "6万条样本"
               + NUM + r"\s*(万)?\s*条(?:训练)?(?:数据|样本|对话)?", _I)
PER_SAMPLE = lazy(r"(?:sample|example|conversation|dialogue|row|instance|record|document)s?\s+"
                  r"(?:size|length|len)?\s*(?:is|are|of)?\s*(?:probably|about|around|roughly|"
                  r"approximately|~|on\s+average)?\s*(?:" + NUM + r"\s*(?:-|–|to|~)\s*)?" + NUM
                  + r"\s*(hundred|k)?\s*tokens\b|" + NUM + r"\s*(hundred|k)?\s*tokens\s+"
                  r"(?:per|each|a|an)\s+(?:sample|example|conversation|row|instance|record)",
                  _I)
EPOCHS = lazy(r"(?<![A-Za-z\d.])(one|two|three|four|five|\d+)\s*(?:个\s*)?epochs?\b|"
              # a trainer's setting: "num_train_epochs: 3", "--num_train_epochs 3"
              r"\bnum[_-]train[_-]epochs\W{0,3}\s*(\d+(?:\.\d+)?)\b", _I)
EPOCH_WORDS = {"one": 1, "two": 2, "three": 3, "four": 4, "five": 5}


# A quantisation's average width: "EXL2 quants at 4.65 bits per weight", "4.65bpw"
BITS_PER_WEIGHT = lazy(NUM + r"\s*(?:bpw|bits?\s*(?:per|/)\s*weight)\b", _I)


def _bits_per_weight(text: str, slots: dict[str, Any]) -> None:
    if m := BITS_PER_WEIGHT.search(text):
        bits = number(m[1], "the bits per weight")
        if 1.5 <= bits <= 16:
            slots["bits_per_weight"] = bits


def _dataset(text: str, slots: dict[str, Any]) -> None:
    """A fine-tuning dataset's samples, the tokens of one, and the epochs over it."""
    if m := SAMPLES.search(text):
        if m[1]:
            slots["samples"] = number(m[1], "the sample count") * SCALE.get((m[2] or "").lower(),
                                                                            1)
        else:  # "共4000条数据", "6万条": a Chinese count of rows
            slots["samples"] = number(m[3], "the sample count") * (1e4 if m[4] else 1)
    if m := PER_SAMPLE.search(text):
        low, high, scale = (m[1], m[2], m[3]) if m[2] else (None, m[4], m[5])
        unit = {"hundred": 100, "k": 1000}.get((scale or "").lower(), 1)
        ends = [number(v) * unit for v in (low, high) if v]
        slots["tokens_per_sample"] = sum(ends) / len(ends)
    if m := EPOCHS.search(text):
        said = m[1] or m[2]
        slots["epochs"] = EPOCH_WORDS.get(said.lower()) or count(said.split(".")[0],
                                                                 "the epochs")


_READERS = (_sizes, _money_and_time, _tokens_and_context, _six_n_d, _batches, _goals, _dataset,
            _bits_per_weight)
