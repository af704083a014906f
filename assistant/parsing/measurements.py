"""Measured figures in a question: what someone saw and wants checked.

Each figure is read with its unit and what it measures (nccl-tests algbw or busbw, tokens per
second, MFU, TFLOP/s per GPU, time per collective call, time per iteration, samples per second,
GPU memory in use), converted to one unit per kind: GB/s (decimal, one direction), tokens/s,
a fraction, TFLOP/s, seconds, samples/s, GB (decimal). Gb/s is divided by 8; MiB and GiB are
converted to decimal GB.
"""

from __future__ import annotations

import re
from dataclasses import dataclass

from clusterplan.assistant.parsing.lazy_re import lazy
from clusterplan.assistant.parsing.quantities import AFTER_GPU, SELF_COPY

_I = re.IGNORECASE
# A figure starts where its run of digits starts: tried from inside a run, a 2,000-digit
# question took seconds (each start scanned to the end of the run and failed).
NUM = r"(?<!\d)(?<!\d,)(\d[\d,]*(?:\.\d+)?)"  # (a Chinese "，" folds to "," before a figure)

BANDWIDTH = lazy(NUM + r"\s*\(?(GB/[sS]|GB/sec|GBps|Gb/[sS]|Gbps|Gbit/s)", 0)
# vLLM's start-up refusal: "The model's max seq len (131072) is larger than the maximum number of
# tokens that can be stored in KV cache (79392)": the KV room it measured, against the length.
KV_REFUSAL = lazy(r"max(?:imum)?\s+seq(?:uence)?\s+len(?:gth)?\s*\((\d+)\)\s*is\s+larger\s+than"
                  r"\s+the\s+maximum\s+number\s+of\s+tokens\s+that\s+can\s+be\s+stored\s+in\s+"
                  r"kv\s+cache\s*\((\d+)\)", re.IGNORECASE)
# vLLM's older scheduler refusing one prompt: "Input prompt (3916 tokens) is too long and
# exceeds the capacity of block_manager" (the prompt's KV blocks outnumber the cache's).
PROMPT_OVER_CACHE = lazy(r"input\s+prompt\s*\((\d+)\s*tokens\)\s*is\s+too\s+long\s+and\s+"
                         r"exceeds\s+(?:the\s+)?capacity\s+of\s+block_manager", re.IGNORECASE)
# vLLM V1's refusal: "To serve at least one request with the models's max seq len (262144),
# (24.0 GiB KV cache is needed, which is larger than the available KV cache memory (3.18 GiB)."
KV_NEEDED = lazy(r"max\s+seq(?:uence)?\s+len(?:gth)?\s*\((\d+)\)\W{0,6}(\d+(?:\.\d+)?)\s*GiB\s+"
                 r"KV\s+cache\s+is\s+needed.{0,80}?available\s+KV\s+cache\s+memory\s*\("
                 r"(\d+(?:\.\d+)?)\s*GiB", re.IGNORECASE | re.DOTALL)
# vLLM's start-up log: "Available KV cache memory: 10.55 GiB" then "GPU KV cache size: 230,528
# tokens": together they give the bytes a token of its cache takes.
KV_LOG = lazy(r"available\s+kv\s+cache\s+memory\s*:\s*(\d+(?:\.\d+)?)\s*GiB.{0,80}?"
              r"gpu\s+kv\s+cache\s+size\s*:\s*([\d,]+)\s*tokens", re.IGNORECASE | re.DOTALL)
# "KV cache size for 3000 token long sequence is just under 8GB": a KV size stated for a length.
KV_CLAIM = lazy(r"\bkv[\s-]*cache\b[^.\n]{0,60}?(?:is|=|of|takes?|needs?|uses?|about|around|"
                r"under|~)\s*(?:just\s+|only\s+)?(?:under|over|about|around|~)?\s*(\d+(?:\.\d+)?)\s*"
                r"(GiB|GB|MiB|MB)\b", re.IGNORECASE)
# A rate named as a reference, not a measurement: "compared to the theoretical value (100 GB/s)".
NOT_MEASURED = lazy(r"theoretical|theory|nominal|line[\s-]*rate|spec(?:ification)?s?\b|"
                    # ("the output shows peak bandwidth of 475 GB/s" is the run's own best)
                    r"(?<!shows\s)(?<!showed\s)(?<!measured\s)(?<!achieved\s)(?<!observed\s)"
                    r"\bpeak\b|理论|标称|\bcapable\s+of\b", re.IGNORECASE)
# A collective's rate from a test run: "nccl-tests", "all_reduce_perf", "busbw of 200".
MEASURED_COLLECTIVE = lazy(r"\b(?:algbw|busbw)\b|\bbus\s*bandwidth\s+(?:of|is|was|reaches)\b|"
                           r"\bnccl[-_ ]?tests?\b|"
                           r"\ball_reduce_perf\b", re.IGNORECASE)
# A port's rate, not a measured one: "8 *100 Gbps network nic", "200Gb/s HDR ports".
PORT_AFTER = lazy(r"\s*(?:network\s+)?(?:nics?|hcas?|ports?|network\s+cards?|infiniband|ib|"
                  r"roce(?:v2)?|ethernet|hdr|ndr|line[\s-]*rate)\b", re.IGNORECASE)
# One connection's rate, not the collective's: "per GPU<->GPU connection capped at ~13 GB/s",
# "216.5 GB/s busbw (per rail ~27 GB/s)".
ONE_CONNECTION = lazy(r"\bper\s+(?:gpu\s*<?-+>?\s*gpu\s+)?(?:connection|channel|qp|stream|flow|"
                      r"rail|nic|hca|port)\b"
                      r"[^.]{0,30}$", re.IGNORECASE)
# A vendor's figure reported, further back in the sentence: "NV officials claim that the
# bandwidth of all reduce can reach 450GB/S".
CLAIMED = lazy(r"\bclaim(?:s|ed)?\b|\badvertised\b|\bofficial(?:ly|s)?\b|\bsupposed\s+to\b"
               r"|\bdatasheet\b|\b(?:would|should|we|i)\s+expect(?:ed)?\b", re.IGNORECASE)
BW_WHAT = lazy(r"\b(algbw|busbw|bus\s*bandwidth|alg(?:orithm)?\s*bandwidth)\b", _I)
TFLOPS = lazy(NUM + r"\s*(?:tflops?|tflop/s|teraflops?|tera\s*flops)|"
              r"\btflops?\s*[=:]\s*(?P<after>\d[\d,]*(?:\.\d+)?)", _I)
PER_TOKEN = lazy(r"\s*(?:per|a|/)\s*tokens?\b", _I)
# "420/1979": a throughput divided by a peak (checked against the catalog's peaks by the route)
# (Not a progress bar's "3/468 [03:25<8:51:40, 68.60s/it]": steps done of steps in all.)
OVER_PEAK = lazy(NUM + r"\s*/\s*(\d{3,4}(?:\.\d+)?)\b(?!\s*(?:GB|G\b|MB|tokens?|s\b|\[))", _I)
MFU = lazy(r"\bmfu\b\D{0,30}?" + NUM + r"\s*%|" + NUM + r"\s*%\s*(?:of\s+)?mfu\b", _I)
# "70B trains at 20% MFU, 32B at 47%": a later "at N%" in a sentence about MFU is one too.
MFU_MORE = lazy(r"\bat\s+" + NUM + r"\s*%", _I)
SIZE_BEFORE = lazy(r"(\d+(?:\.\d+)?\s*[bB])\b(?!.*\d+(?:\.\d+)?\s*[bB]\b)", 0)
# "9 t/s" is the tokens/s of llama.cpp and ExLlama users; "10 tps", "~10-11 TPS" too
# "1414.42 total tokens/s, 714.48 output tokens/s" (vLLM's benchmark line) read as written
TOKENS = lazy(NUM + r"\s*(k)?\s*(?:(?:(?:total|output|generated)\s+)?(?:tokens?|toks?|t(?=/s\b))"
              r"\s*(?:/|per\s*|每)\s*"
              r"(?:sec(?:ond)?s?|s|秒)|tps)(?![a-z])(\s*(?:/|per\s*)\s*gpu)?|"
              # "3300tokens/gpu/second", "3300 tokens per GPU per second": per GPU first
              + NUM + r"\s*(k)?\s*tokens?\s*(?:/|per\s*)\s*(gpu)\s*(?:/|per\s*)\s*"
              r"(?:sec(?:ond)?s?|s)(?![a-z])", _I)
# torchtitan's "wps" is tokens per second on each GPU ("wps: 5,739", "wps is only around ~200";
# training-throughput-units#torchtitan-wps)
WPS = lazy(r"\bwps\b\s*(?:[:=]|is|of)?\s*(?:only\s+|just\s+)?(?:around\s+|about\s+|~\s*)*"
           + NUM + r"|" + NUM + r"\s*wps\b", _I)
CALL_TIME = lazy(NUM + r"\s*(us|µs|μs|microseconds?|ms|milliseconds?)\s*(?:per|/|for\s+each|"
                 r"each|a)\s*(?:call|all-?reduce|collective|op)", _I)
COLLECTIVE_TIME = lazy(r"(?:all-?reduce|allreduce|all-?gather|collective)s?\s+(?:(?:operation|call|"
                       r"op|kernel)s?\s+)?(?:takes?|took|is|costs?|of|averages?|averaged)\s+"
                       r"(?:about\s+|around\s+|~|on\s+average\s+)?" + NUM
                       + r"\s*(us|µs|μs|microseconds?|ms|milliseconds?)", _I)
# A request's whole time, prompt to last token: "the average response time is about 7s",
# "end-to-end latency of 2.5 seconds", "响应时间约7秒"
RESPONSE_TIME = lazy(r"(?:\b(?:response|request|end[\s-]*to[\s-]*end|e2e)\s+(?:time|latency)|"
                     r"响应时间|请求耗时)\s*(?:is|was|of|=|:|约|大约)?\s*(?:about|around|roughly|"
                     r"~|≈)?\s*" + NUM + r"\s*(s|sec|secs|seconds?|ms|milliseconds?|秒)(?![a-z])",
                     _I)
# The wait for a request's first token: "TTFT is 2.1 s", "time to first token of 800 ms"
FIRST_TOKEN = lazy(r"\b(?:ttft|time\s+(?:to|for)\s+(?:the\s+)?first\s+token(?:\s+latency)?)\s*"
                   r"(?:is|was|of|=|:)?\s*"
                   r"(?:about|around|roughly|~|≈)?\s*" + NUM
                   + r"\s*(s|sec|secs|seconds?|ms|milliseconds?)(?![a-z])", _I)
STEP_TIME = lazy(NUM + r"\s*(s|sec|secs|seconds?|ms|milliseconds?|秒)\s*(?:/|per\s*|一个?)\s*"
                 r"(?:it|iter|iteration|step)s?\b|" + NUM + r"\s*(it/s)\b", _I)
# "训练20个steps需要20分钟", "20 steps took 17 seconds", "43 hours for 750 steps": a time for
# several steps, read as the time of one.
_DUR = r"(s|secs?|seconds?|mins?|minutes?|h|hrs?|hours?|秒|分钟|小时)"
_STEPS = r"(?:steps?|iterations?|iters?|步)"
STEPS_TOOK = lazy(r"(?<![\d.])(\d+)\s*个?\s*" + _STEPS + r"\s*(?:需要|要|只要|用了|花了|takes?|"
                  r"took|need(?:s|ed)?|in|lasts?|=)\s*(?:about|around|only|~)?\s*" + NUM
                  + r"\s*" + _DUR + r"(?![a-z])|" + NUM + r"\s*" + _DUR
                  + r"\s*(?:for|to\s+(?:do|run|train))\s+(\d+)\s*" + _STEPS + r"\b", _I)
SAMPLES = lazy(NUM + r"\s*(?:samples?)\s*(?:/|per\s*)\s*(?:s|sec|second)\b", _I)
MEMORY = lazy(NUM + r"\s*(GiB|GB|G|MiB)(?![a-z/])", _I)
# "22.9/24 GB of GPU memory": in use over the card's total, as monitors print it.
MEMORY_FRACTION = lazy(NUM + r"\s*/\s*" + NUM + r"\s*(GiB|GB|G|MiB)(?![a-z/])", _I)
MEMORY_USE = lazy(r"占用|占显存|占了|使用|用了|需要|usage|\bused?\b|\buses\b|\busing\b|consum|"
                  r"\bcost\b|"
                  r"\bwhy\b.{0,80}\brequir|"
                  r"\btak(?:es?|ing)\b|\boccup", _I)
NOT_USED = lazy(r"^\s*(?:的|\s)*(?:<g\d>|a\d|h\d|显卡|卡|card|gpus?|vram\s+card|of\s+total|"
                r"total|ram\b|memory\s+each|每张|mac|laptop|file)", _I)


@dataclass(frozen=True)
class Measurement:
    """One measured figure: what it measures, its value in the kind's unit, the text read."""

    # bandwidth | tflops | mfu | tokens_per_s | call_time | step_time | samples_per_s | memory
    # | response_time | first_token
    kind: str
    value: float
    unit: str
    text: str
    what: str = ""  # bandwidth: algbw | busbw | ""; tokens_per_s: per_gpu | ""; mfu: "70B"
    divisor: float | None = None  # tflops: the peak the user divided by ("420/1979")
    # bandwidth: the words since the previous figure (where it was measured); tokens_per_s:
    # the words just before it (whose figure it is: "I get about 1000 tokens/s")
    before: str = ""


def _f(text: str) -> float:
    return float(text.replace(",", ""))


def _seconds(value: float, unit: str) -> float:
    u = unit.lower()
    if u in ("us", "µs", "μs") or u.startswith("micro"):
        return value * 1e-6
    if u == "ms" or u.startswith("milli"):
        return value * 1e-3
    return value


def _duration(value: float, unit: str) -> float:
    """Seconds in a duration written with its unit (minutes, hours, 秒, 分钟, 小时)."""
    u = unit.lower()
    if u in ("分钟",) or u.startswith("min"):
        return value * 60
    if u in ("小时", "h") or u.startswith("h"):
        return value * 3600
    return value


def _sentence(before: str) -> str:
    """The words before a figure back to the start of its sentence."""
    return re.split(r"[.!?。！？\n]\s", before)[-1]


def _restated(found: list[tuple[int, Measurement]], value: float, before: str) -> bool:
    """The figure just read, written again in brackets in another unit, within 10 %."""
    if not found or found[-1][1].kind != "bandwidth" or not re.search(r"\(\s*(?:about|~|≈)?\s*$",
                                                                       before):
        return False
    last = found[-1][1].value
    return abs(value - last) <= 0.1 * last


# nccl-tests prints busbw and algbw in GB/s, so a bare figure after the word is one:
# "busbw is 50" (not "theoretical busbw should be 200", which is no measurement).
BARE_BW = lazy(r"\b(busbw|algbw)\s*(?:is|=|:|of|was)?\s*(?:about|around|~)?\s*"
               r"(\d+(?:\.\d+)?)(?![\d.])(?!\s*(?:[%a-z]|/))", re.IGNORECASE)


# cuda-samples' p2pBandwidthLatencyTest and its matrices ("GPU0-GPU1 = 260.89 GB/s")
P2P_TEST = lazy(r"\bp2p\b|p2pBandwidthLatencyTest|\bpeer[\s-]to[\s-]peer\b|\bGPU\d\s*-\s*GPU\d\b",
                re.IGNORECASE)
# A row of nccl-tests' table: size, count, type, redop, root, then the out-of-place time (us),
# algbw and busbw (GB/s); "1073741824  268435456  float  sum  -1  9306.7  115.37  115.37  0".
# (Rows are read anywhere: the question arrives with its line breaks folded into spaces.)
NCCL_ROW = lazy(r"(?<![\d.])(\d{1,13})\s+\d+\s+(?:float|half|bfloat16|double|u?int(?:8|32|64)|"
                r"fp8\w*)\s+(?:sum|prod|max|min|avg|none)\s+-?\d+\s+[\d.]+\s+([\d.]+)\s+"
                r"([\d.]+)\b", re.IGNORECASE)


def _nccl_table(text: str) -> tuple[int, Measurement] | None:
    """The busbw of a pasted nccl-tests table at its largest message, where the rate levels off
    (the small messages measure latency, not the link)."""
    rows = list(NCCL_ROW.finditer(text))
    if not rows:
        return None
    top = max(rows, key=lambda m: int(m[1]))
    return top.start(), Measurement("bandwidth", _f(top[3]), "GB/s", top[0].strip(), "busbw",
                                    before=text[:top.start()][-80:])


def find(text: str) -> list[Measurement]:
    """Every measured figure in `text`, in the order they appear."""
    found: list[tuple[int, Measurement]] = []
    if table_rate := _nccl_table(text):
        found.append(table_rate)
    for m in BARE_BW.finditer(text):
        if not NOT_MEASURED.search(text[max(0, m.start() - 30):m.start()]):
            found.append((m.start(), Measurement("bandwidth", float(m[2]), "GB/s", m[0],
                                                 m[1].lower(), before=text[:m.start()][-80:])))
    last = 0
    for m in BANDWIDTH.finditer(text):
        before, last = text[max(last, m.start() - 80):m.start()], m.end()
        if NOT_MEASURED.search(before[-30:]) or CLAIMED.search(_sentence(before)[-70:]) \
                or PORT_AFTER.match(text, m.end()) or ONE_CONNECTION.search(before[-60:]) \
                or SELF_COPY.search(before):
            continue  # "the theoretical value (100 GB/s)": what they compare against
        value = _f(m[1]) / (8 if m[2] in ("Gb/s", "Gb/S", "Gbps", "Gbit/s") else 1)  # bits to bytes
        if _restated(found, value, before):
            continue  # "9.84 GB/s (about 80Gbps)": the same figure again in other units
        near = text[max(0, m.start() - 40): m.end() + 25]
        what = BW_WHAT.search(near)
        label = ""
        if what:
            label = "busbw" if "bus" in what[1].lower() else "algbw"
        found.append((m.start(), Measurement("bandwidth", value, "GB/s", m[0], label,
                                             before=before)))
    for m in TFLOPS.finditer(text):
        if PER_TOKEN.match(text, m.end()):
            continue  # "0.05 TFLOP per token": a count of work, not a rate
        value = m[1] if m[1] is not None else m["after"]  # "33 TFLOPS" or "TFLOPS=33"
        found.append((m.start(), Measurement("tflops", _f(value), "TFLOP/s", m[0])))
    for m in OVER_PEAK.finditer(text):
        found.append((m.start(), Measurement("tflops", _f(m[1]), "TFLOP/s", m[0],
                                             divisor=_f(m[2]))))
    mfu_at = [(m, m[1] or m[2]) for m in MFU.finditer(text)]
    if mfu_at:
        spans = [m.span() for m, _ in mfu_at]
        mfu_at += [(m, m[1]) for m in MFU_MORE.finditer(text, spans[0][0])
                   if not any(a <= m.start() < b or m.start() <= a < m.end() for a, b in spans)]
    for m, figure in mfu_at:
        size = SIZE_BEFORE.search(text[max(0, m.start() - 30): m.start()])
        found.append((m.start(), Measurement("mfu", _f(figure) / 100, "", m[0],
                                             size[1].replace(" ", "") if size else "")))
    for m in TOKENS.finditer(text):
        figure, thousand, per_gpu = (m[1], m[2], m[3]) if m[1] else (m[4], m[5], m[6])
        value = _f(figure) * (1000 if thousand else 1)
        found.append((m.start(), Measurement("tokens_per_s", value, "tokens/s", m[0],
                                             "per_gpu" if per_gpu else "",
                                             before=text[max(0, m.start() - 60):m.start()])))
    for m in WPS.finditer(text):
        value = _f(m[1] or m[2])
        found.append((m.start(), Measurement("tokens_per_s", value, "tokens/s",
                                             f"{value:,g} wps (tokens/s per GPU)", "per_gpu")))
    for rx in (CALL_TIME, COLLECTIVE_TIME):
        for m in rx.finditer(text):
            found.append((m.start(), Measurement("call_time", _seconds(_f(m[1]), m[2]), "s",
                                                 m[0])))
    for m in STEP_TIME.finditer(text):
        if m[3]:
            rate = _f(m[3])
            if rate > 0:
                found.append((m.start(), Measurement("step_time", 1 / rate, "s", m[0])))
        else:
            found.append((m.start(), Measurement("step_time", _seconds(_f(m[1]), m[2]), "s",
                                                 m[0])))
    for m in STEPS_TOOK.finditer(text):
        steps, value, unit = (m[1], m[2], m[3]) if m[1] else (m[6], m[4], m[5])
        if int(steps) > 0:
            found.append((m.start(), Measurement("step_time", _duration(_f(value), unit)
                                                 / int(steps), "s", m[0])))
    for m in FIRST_TOKEN.finditer(text):
        found.append((m.start(), Measurement("first_token", _seconds(_f(m[1]), m[2]), "s",
                                             m[0])))
    for m in RESPONSE_TIME.finditer(text):
        found.append((m.start(), Measurement("response_time", _seconds(_f(m[1]), m[2]), "s",
                                             m[0])))
    for m in SAMPLES.finditer(text):
        found.append((m.start(), Measurement("samples_per_s", _f(m[1]), "samples/s", m[0])))
    found.extend(_memory(text))
    found.sort(key=lambda pair: pair[0])
    seen: set[tuple[str, float]] = set()
    unique = []
    for _, m in found:
        if (m.kind, m.value) not in seen:
            seen.add((m.kind, m.value))
            unique.append(m)
    return unique


CLAUSE_BREAK = lazy(r"[,，。;；\n]|\.(?!\d)")
# A clause that works out the KV cache ("the kv-cache usage for one user will use 4.59 GB"):
# a size reasoned about, checked by the KV checks, not memory seen in use.
KV_SIZE = lazy(r"\bkv[\s-]*cache\b", re.IGNORECASE)
# A figure a README or document gives, not one seen in use: "我在readme发现一张图显示...只需要48GB".
DOCUMENTED = lazy(r"readme|文档|官方|\bdocs?\b|\bdocumentation\b|\bthe\s+table\b|图显示",
                  re.IGNORECASE)
# A clause about a file on disk: its sizes are not GPU memory in use.
FILE_SIZE = lazy(r"模型文件|文件大小|\bfiles?\b|\bon\s+disk\b|\bsafetensors\b|\.bin\b|"
                 r"\bgguf\s+file", re.IGNORECASE)


def _memory(text: str) -> list[tuple[int, Measurement]]:
    """GPU memory in use: a size in a clause that speaks of using memory, not a card's size."""
    out = []
    shown: set[int] = set()
    for m in MEMORY_FRACTION.finditer(text):
        used, total = _f(m[1]), _f(m[2])
        if 0 < used <= total:
            out.append((m.start(), Measurement("memory", _gb(used, m[3]), "GB", m[0])))
            shown.add(m.end())
    for m in MEMORY.finditer(text):
        if m.end() in shown:
            continue
        # the clause begins after the last separator (a decimal point is none: "38.7G")
        clause_start = max((b.end() for b in CLAUSE_BREAK.finditer(text, 0, m.start())),
                           default=0)
        clause = text[clause_start: m.end() + 12]
        before = text[max(0, m.start() - 8): m.start()]
        if not MEMORY_USE.search(clause) or NOT_USED.match(text[m.end():]) \
                or FILE_SIZE.search(clause) or KV_SIZE.search(clause) \
                or DOCUMENTED.search(text[max(0, clause_start - 40):m.start()]):
            continue  # not in use, a file's size, a KV size worked out, or a README's figure
        if re.search(r"[x×*]\s*$", before) or \
                AFTER_GPU.search(text[max(0, m.start() - 20):m.start()]):
            continue  # "8x40GB", "A100 80G", "H100 SXM 80GB": a card's size
        out.append((m.start(), Measurement("memory", _gb(_f(m[1]), m[2]), "GB", m[0])))
    return out


def _gb(value: float, unit: str) -> float:
    return {"gib": value * 2**30 / 1e9, "mib": value * 2**20 / 1e9}.get(unit.lower(), value)


def any_in(text: str) -> bool:
    """Whether `text` states a measured figure."""
    return bool(find(text))


# A request's prompt and answer in tokens: "1500 input tokens", "an input of 35 tokens",
# "about 50-100 output tokens" (a range is read at its middle), "an output of 250 tokens"
# A benchmark's settings: "set the number of input tokens to 1000", "--input-len 1000",
# '"min_tokens" to 1000', "--output-len 512".
INPUT_TOKENS = lazy(NUM + r"\s*(k)?\s*(?:input|prompt)\s+tokens?|\b(?:input|prompt)s?\s+(?:of|"
                    r"with)\s+(?:about\s+|around\s+|~)?" + NUM + r"\s*(k)?\s*tokens?|"
                    r"(?:\b(?:input|prompt)\s+tokens|--(?:input|prompt)[_-]len)\W{0,3}\s*"
                    r"(?:to|=|:)?\s*" + NUM + r"\b", _I)
OUTPUT_TOKENS = lazy(r"(?:" + NUM + r"\s*(?:-|–|to|~)\s*)?" + NUM + r"\s*(?:output|generated|"
                     r"new)\s+tokens?|\boutputs?\s+of\s+(?:about\s+|around\s+|~)?" + NUM
                     + r"\s*tokens?|(?:\b(?:output|min|max)_tokens|\boutput\s+tokens|"
                     r"--output[_-]len)\W{0,3}\s*(?:to|=|:)?\s*" + NUM + r"\b", _I)


def prompt_tokens(text: str) -> float | None:
    """A request's prompt in tokens, when the question gives it."""
    into = INPUT_TOKENS.search(text)
    if into is None:
        return None
    prompt = _f(into[1] or into[3] or into[5]) * (1000 if (into[2] or into[4]) else 1)
    return prompt if prompt > 0 else None


def request_tokens(text: str) -> tuple[float, float] | None:
    """(prompt tokens, output tokens) of one request, when the question gives both; a range
    of outputs ("50-100 output tokens") is read at its middle, the average request's."""
    prompt, out = prompt_tokens(text), OUTPUT_TOKENS.search(text)
    if prompt is None or out is None:
        return None
    if out[3] or out[4]:
        answer = _f(out[3] or out[4])
    else:
        answer = (_f(out[1]) + _f(out[2])) / 2 if out[1] else _f(out[2])
    return (prompt, answer) if answer > 0 else None
