"""Which question was asked: intent rules over the masked question and the slots found in it.

Rules are tried in order; the first that matches names the intent. A rule match is a *strong*
signal (the words ask for that thing); an intent guessed only from the entities present is
*weak*, so a short follow-up ("and on H200?") keeps the previous question's intent.
"""

from __future__ import annotations

import re
from collections.abc import Callable
from typing import Any

from clusterplan.assistant.parsing.lazy_re import lazy
from clusterplan.assistant.parsing.measurements import (
    KV_CLAIM,
    KV_LOG,
    KV_NEEDED,
    KV_REFUSAL,
    MEASURED_COLLECTIVE,
    NCCL_ROW,
    P2P_TEST,
    PROMPT_OVER_CACHE,
    any_in,
    find,
)
from clusterplan.assistant.parsing.published_tokens import PUBLISHED_TOKENS

_I = re.IGNORECASE
KINDS = ("memory", "fit", "cluster_size", "layout", "interconnect", "convert", "link_compare",
         "pricing", "training", "gpu_compare", "serving", "checkpoint", "concept", "plan",
         "gpu_specs", "diagnose")

PLAN = lazy(r"\b(?:plan|design|build|spec)\s+(?:out\s+)?(?:a|the|my|me\s+a)?\s*cluster\b"
                  r"|\bplan\b(?!\s+to\b).*\b(?:train|fine|serve|pretrain)", _I)
GOAL = lazy(r"\bcheapest\b|\bwhat\s+(?:cluster|gpus?|hardware)\s+should\s+(?:i|we)\s+"
            r"(?:rent|use)\b|\bwhat\s+should\s+(?:i|we)\s+rent\b"
            # "the fastest way to train X for under $20,000": the search under a budget
            r"|\bfastest\s+(?:way|setup|cluster|option|configuration)\b", _I)
# Advice on what hardware suits a model ("the most suitable CPU and GPU configurations for
# LLaMA 2 70B", "recommendations for GPU models"): a plan, whatever the workload.
HARDWARE_ADVICE = lazy(r"\b(?:most\s+suitable|best\s+suited|recommended|ideal|optimal)\s+"
                       r"(?:\S+\s+){0,3}(?:configurations?|hardware|setups?|specs?|instances?)\b|"
                       r"\brecommendations?\s+for\s+(?:\S+\s+){0,3}(?:gpus?|hardware|configurations?)\b|"
                       # "can anybody recommend an instance that will run it"
                       r"\brecommend\s+(?:an?\s+|the\s+)?(?:\w+\s+)?(?:instance|gpu|machine|setup|"
                       r"hardware)s?\b", _I)
CONVERT = lazy(r"^\W*convert\b|\bhow\s+many\s+[kKMGT]i?[bB](?:/s|ps)?\b|\b(?:in|to)\s+"
                     r"[kKMGT]i?[bB](?:/s|ps)?\s*\?*\s*$", _I)
# Saved weights: checkpoints, an exported or merged model, an adapter's size (保存 save,
# 合并 merge, 导出 export, 权重文件 weights file; 权重 alone is weights in memory).
CHECKPOINT = lazy(r"\bcheckpoints?\b|\b(?:save|load)_checkpoint\b|\badapter_model\b|"
                  r"\bsaved?\b.{0,40}\b(?:model|weights)\b|\bsafetensors\b|"
                  r"\badapt(?:er|or)\b.{0,30}\b(?:size|large|big|gb)|\bmerg(?:e|ing)\b.{0,30}"
                  r"\blora\b|\blora\b.{0,30}\bmerg|\bexport\b.{0,30}\blora\b|\bzero_to_fp32\b|"
                  r"保存|合并|导出|权重文件|权重.{0,6}(?:大小|多大)", _I)
# The size of what was saved is the question (not moving a checkpoint somewhere).
# The files a model is downloaded as (its released weights)
# ("I downloaded llama3.1 8b ... the context size": a story of a download, not its size)
RELEASED_FILES = lazy(r"\bdownload(?:s|ing)?\b|\bsafetensors\b|\bhugging\s*face\s+repo\b|"
                      r"\bmodel\s+files?\b|下载|权重文件", _I)
SIZE_ASKED = lazy(r"\bhow\s+(?:big|large)\b|\bdownload\s+size\b|\bsize\s+of\s+(?:the\s+)?"
                  r"(?:download|files?|weights|safetensors)\b|多大|大小", _I)
SAVED = lazy(r"\b(?:size|large|larger|big|bigger|small)\b|多大|这么大|大小", _I)
EGRESS = lazy(r"\begress\b|\bdata\s+transfer\s+out\b|\bdownload(?:ing)?\s+cost", _I)
# A checkpoint's write or load time, not its size, is the question.
TRANSFER_TIME = lazy(r"\b(?:slow|slower|fast|faster|seconds|minutes|hours|how\s+long)\b|"
                     r"\btakes?\b|慢|多久", _I)
# Memory a running job holds: a complaint about it is a diagnosis, not a file's size.
IN_USE = lazy(r"显存|\bvram\b|\bgpu\s+memory\b|\bmemory\s+(?:usage|use|consumption)\b", _I)
GPU_MEMORY = lazy(r"显存|\bvram\b|\bgpu\s+memory\b", _I)
HOW_MUCH = lazy(r"\bhow\s+much\b|多少|多大", _I)
# The network a job needs ("what network throughput is required to handle ZeRO-3 traffic?").
NETWORK_NEEDED = lazy(r"\b(?:network|interconnect|inter-?node)\s+(?:bandwidth|throughput|speed)\s+"
                      r"(?:is\s+|would\s+be\s+)?(?:required|needed)\b|\bhow\s+much\s+(?:network\s+|"
                      r"inter-?node\s+)?bandwidth\s+(?:is\s+|would\s+be\s+|do\s+(?:i|we)\s+)?"
                      r"(?:required|needed|need)\b", _I)
NETWORK_ENOUGH = lazy(r"\b(?:is|are|would)\b[^.?!]{0,40}?\b(?:ethernet|infiniband|\bib\b|roce|"
                      r"network|nic|link|gbps|gb/s|gbe)\b[^.?!]{0,20}?\b(?:be\s+)?(?:enough|"
                      r"sufficient|fast\s+enough|adequate)\b", _I)
# "connected by 100 Gb/s Ethernet. Can we train a 30B model efficiently?": how well training
# runs over the link named, the same question as "is it enough"
TRAINS_WELL = lazy(r"\b(?:efficient(?:ly)?|well|fast|scale(?:s|\s+well)?|bottleneck(?:ed)?|"
                   r"slow(?:\s+down)?|worth\s+it|高效|瓶颈)\b", _I)
# "Is NVLink needed for TP 8 on L40S?", "do I need NVLink for tensor parallel?": whether a
# split over these GPUs' links pays, which the layout answers from the links it runs over.
FABRIC_NEEDED = lazy(r"\b(?:is|are)\s+nvlinks?\s+(?:really\s+)?(?:needed|required|necessary|"
                     r"a\s+must)\b|\b(?:need|require)s?\s+(?:an?\s+)?nvlinks?\b(?!\s+(?:is|are)\b)",
                     _I)
MEMORY_NEEDED = lazy(r"\bhow\s+much\s+(?:gpu\s+)?(?:vram|memory)\s+(?:(?:do|would|will|does)\s+)?"
                     r"(?:i|we|you|it)\s+(?:need|require)|需要多少显存", _I)
# The GPU memory a job needs, asked as such: "最低需要多少显存", "minimum VRAM"
VRAM_ASKED = lazy(r"多少显存|显存(?:最低|至少)?(?:需要|要)多少|\bminimum\s+(?:vram|gpu\s+memory)\b|"
                  r"\bhow\s+much\s+(?:vram|gpu\s+memory)\b", _I)
TRANSFER = lazy(r"\b(?:transfer|copy|move|upload|download|write|send)\b", _I)
COMPARE = lazy(r"\b(?:vs\.?|versus|compare[ds]?|comparison|difference|faster|slower|"
                     r"better|than|which)\b", _I)
# Two things set side by side; "which" only where it picks one ("which GPU", "which is"), not
# where it relates ("scripts which can help").
CHOICE = lazy(r"\b(?:vs\.?|versus|compare[ds]?|comparison|difference|faster|slower|better|than)\b|"
              r"\bwhich\s+(?!seems?\b|means?\b|makes?\b)(?:\w+\s+)?"
              r"(?:is|are|one|gpus?|cards?|should|would|to|of)\b|"
              r"^\W*which\b", _I)
LINK_RATE = lazy(r"\bbandwidth\b|带宽|\bGB/s\b|\bGbps\b|\bGb/s\b|单向|双向|"
                 r"\bper\s+direction\b|\bbidirectional\b|\bunidirectional\b", _I)
PAPER_SOURCE = lazy(r"\bpaper\b|\.pdf\b|\btechnical\s+report\b|论文|技术报告", _I)
LINK_WORDS = lazy(r"\bnvlink|\binfiniband\b|\bib\b|\bpcie\b|\broce\b|\bethernet\b", _I)
# "pretrain" is training too: "how long to pretrain llama 3 8b" asks a time, not a fit
TIME_TO_TRAIN = lazy(r"\bhow\s+(?:long|much\s+time)\b.*\b(?:pre-?)?(?:train|fine-?tun)|"
                     r"\b(?:pre-?)?(?:train|fine-?tun).*\bhow\s+long\b|\bgpu[\s-]*hours\b|"
                     r"\bhow\s+many\s+(?:hours|days|weeks)\b.*\b(?:pre-?)?(?:train|fine-?tun)|"
                           r"\btraining\s+(?:time|days|cost)\b|\bcost\s+(?:of|to)\s+(?:pre-?)?train|"
                           r"多长时间|多久|耗时|训练时长|训练时间|花费了多长|多少时间|卡时|GPU\s*时|"
                           r"GPU\s*小时|"
                           # "训练一个GPT-3规模的模型，需要多少钱": the cost of a training run
                           r"训练[^。？?！!]{0,40}(?:多少钱|费用|成本|花费)",
                           _I)
# "Training Memory Cost (GB)", "compute cost in FLOPs": a cost in bytes or work, not money.
COST = lazy(r"\b(?<!memory\s)(?<!vram\s)(?<!compute\s)costs?\b(?!\s*\((?:gb|gib|mb)\))|"
                  r"\bcostly\b|\bprices?\b|\bpricing\b|\bcheap|\bexpensive\b|"
                  r"\brent(?:al|ing)?\b|"
                  r"\$\s*(?=[\d.]|/)|\d\s*\$|\bper\s+(?:hour|month|day|year)\b|\bmonthly\b|"
                  r"\bon[\s-]*demand\b|"
                  r"(?<![bB]\s)\breserved\b(?!\s+(?:for|by|to|in\s+total)\b)|\bspot\b|\bbudget\b|\bbreak[\s-]*even\b|\bpay\b|\bspend\b|"
                  r"\bhow\s+much\s+(?:would|will|does|is)\s+(?:it|that|this)\b|\bbill\b|"
                  r"多少钱|费用|花费多少(?!时间)|美元|人民币|成本", _I)
# "what TP and PP should I use", "which tensor parallel size for": degrees asked of a job
TP_ASKED = lazy(r"\b(?:what|which|best|optimal|right)\s+(?:tp|tensor[\s-]parallel\w*)"
                r"(?:\s*(?:and|/|,|&)\s*(?:pp|pipeline[\s-]parallel\w*))?"
                r"(?:\s+(?:size|degree)s?)?\s+(?:should|to\s+use|do\s+i|would|for)\b", _I)
LAYOUT = lazy(r"\bvalues?\s+for\s+`?tp`?\s+and\s+`?pp\b|"
              r"\bsplit\b|\bshard(?!s\b)|\blayout\b|\bpartition|\b(?:proper|right|optimal|best|"
                    r"recommended|suitable|what|which)\s+parallelism\b|\bparallel(?:ism)?\s+(?:plan|"
                    r"strategy|config|layout|setup)|\bbest\s+parallel|\bdistribute\b|\btp\s*x\s*pp"
                    r"|\bhow\s+should\s+i\s+(?:lay|arrange|parallel|split|shard)|"
                    r"\bhow\s+should\s+(?:i|we)\s+set\s+(?:up\s+)?(?:the\s+)?(?:parameters|params|"
                    r"settings|config(?:uration)?)\b[^.?!]{0,40}\b(?:train|fine-?tun|sft)|张量并行|流水线并行|"
                    r"管道并行|模型并行|多机多卡", _I)
EXPLAIN_SUM = lazy(r"\bhow\s+(?:is\s+|was\s+)?(?:this|that|the)\s+(?:calculation|number|figure|"
                   r"estimate)\s+(?:is\s+|was\s+)?(?:derived|calculated|computed|obtained)|"
                   r"\bhow\s+(?:this|that|the)\s+(?:calculation|number|figure)\s+is\s+derived|"
                   r"\bhow\s+(?:do|did)\s+(?:you|they|we)\s+(?:come\s+up\s+with|calculate|derive|"
                   r"get)\b|这个?(?:数|公式|结果)?是?怎么(?:算|计算|来)的", _I)
POSSIBLE = lazy(r"\b(?:is|would)\s+it\s+(?:\w+\s+)?possible\s+to\s+(?:load|run|fit|serve|host|"
                r"use|deploy)\b|\bcan\s+i\s+(?:load|run|fit|serve|host|deploy)\b", _I)
# A choice between parallel strategies, or how to spread one model over GPUs or machines: the
# question is the layout even when it reports a measurement ("PP is slower than TP, which?").
STRATEGY = r"(?:tensor|pipeline|pipe|data|expert|model)[\s-]*parr?all\w*|" \
           r"\btp\s*=?\s*\d|\bpp\s*=?\s*\d|" \
           r"\b(?:tp|pp|fsdp|dp)\s*\+\s*(?:tp|pp|fsdp|dp)\b|--tensor-parallel-size|--dp\b|" \
           r"\bhybrid[\s_-]*shard\w*|" \
           r"\bzero[\s-]*(?:stage[\s-]*)?3\b.{0,80}\b(?:same|one|each|single)\s+node|" \
           r"张量并行|流水线并行|管道并行|模型并行|数据并行|多机多卡|多卡加载|" \
           r"多卡.{0,6}(?:加载|部署)|并行度|并行策略|并行方式"
LAYOUT_CHOICE = lazy(r"(?:" + STRATEGY + r").{0,200}(?:\bor\b|\bvs\.?|\bversus\b|\bwhich\b|"
                     r"\bbetter\b|\bbest\b|\bfaster\b|\bslower\b|\blower\s+performance\b|"
                     r"\bhow\s+(?:to|can|do|should)\b|\btoml\b|\bconfig|\bspecify\b|"
                     r"\bcommunicate|\berror\b|\bis\s+there\s+a\s+way\b|"
                     r"还是|推荐|怎么|如何|哪种|哪个|比较|方案|办法)"
                     r"|(?:\bwhich\b|\bis\s+there\s+a\s+way\b|\bhow\s+(?:to|can|do|should)\b|"
                     r"\bbetter\b|\btoml\b|\bconfig|\bexample\b|还是|推荐|怎么|如何|"
                     r"有什么办法).{0,200}(?:" + STRATEGY + r")"
                     # "with tp=8 the throughput is lower than with tp=4": two degrees compared
                     r"|\btp\s*=\s*\d+\b.{0,150}?\b(?:lower|higher|slower|faster|worse|better|"
                     r"drops?)\b.{0,80}?\btp\s*=\s*\d+\b", _I | re.DOTALL)
OPTIONS = lazy(r"\b(?:the\s+following|these|two|three)\s+(?:two\s+|three\s+)?(?:ways|options|"
               r"approaches|setups|deployments)\b|两种(?:方式|方案|部署)", _I)
VARIANT_ASKED = lazy(r"\bsxm\d?\b.{0,40}(?:\bor\b|还是|\bvs\.?).{0,20}\bpcie\b|"
                     r"\bpcie\b.{0,40}(?:\bor\b|还是|\bvs\.?).{0,20}\bsxm\d?\b", _I)
CONCEPT = lazy(r"^\W*(?:what\s+is|what's\s+a\b|what\s+are|what\s+does\s+\w+\s+mean|why|"
                     r"when\s+should|when\s+to|explain|define|tell\s+me\s+about|how\s+does|"
                     r"how\s+do\s+\w+\s+work|should\s+i\s+use|is\s+it\s+better)", _I)
# "how many blocks of 80g a100": 块 (cards) translated word for word, the memory before the name.
SLASHED_GPUS = lazy(r"<g\d>\s*/\s*<g\d>")  # "H100/H800": one GPU and its variant
HOW_MANY = lazy(r"\bhow\s+many\s+(?:blocks?\s+of\s+)?(?:\d+\s*g(?:i?b)?\s+)?"
                r"(?:<g\d>|gpus?|nodes?|cards?|accelerators?)|\bminimum\s+"
                      r"(?:number\s+of\s+)?(?:gpus?|nodes?)|\bsmallest\s+cluster|\bfewest\b|"
                      r"(?:几|多少)\s*[张块台个]|多少\s*卡|多少资源|什么(?:等级的)?显卡|哪些显卡",
                _I)
# A count asked in other words than "how many": a minimum requirement, the number of GPUs
# needed, "is one or two enough?" (最低要求/最低配置: minimum requirement/configuration).
COUNT_ASKED = lazy(r"\bminimum\s+(?:hardware\s+|gpu\s+|system\s+)?requirements?\b|"
                   r"\bminim(?:al|um)\s+(?:hardware|setup|gpu\s+setup)\b|"
                   r"\b(?:optimal|minimum|minimal|required|right)\s+number\s+of\s+(?:\S+\s+){0,2}"
                   r"(?:<g\d>|gpus?|nodes?|cards?)|\bnumber\s+of\s+(?:\S+\s+){0,2}(?:<g\d>\s*)?"
                   r"(?:gpus?|nodes?|cards?)\s+(?:is\s+|are\s+)?(?:required|needed)\b|"
                   r"\bis\s+(?:one|two|three|four|\d+)(?:\s+or\s+(?:two|three|four|\d+))?\s+"
                   r"(?:\w+\s+)?enough\b|最低要求|最低配置", _I)
# A served job's speed asked in words, not a rate given as a goal ("at 20 tokens/s each")
SPEED_ASKED = lazy(r"\bspeed\b|\bhow\s+fast\b|\bthroughput\b|\blatency\b|"
                   r"\btime\s+per\s+output\s+token\b|速度|多快", _I)
SERVING = lazy(r"\btokens?\s*(?:/|per)\s*s(?:ec(?:ond)?)?\b|\btok/s\b|\bt/s\b|\btps\b|"
               r"\btime\s+per\s+output\s+token\b|\btpot\b|\binter[\s-]*token\b|"
               r"\btime\s+to\s+first\s+token\b|"
                     r"\bthroughput\b|\bqps\b|"
                     r"\bhow\s+fast\b|\bdecod(?:e|ing)\b|\bgeneration\s+speed\b|"
                     r"\brequests?\s+per\s+second\b|\bhow\s+many\s+(?:concurrent\s+|simultaneous\s+|"
                     r"inference\s+)*(?:users|requests)\b|\blatency\b|多少个?(?:推理)?请求|"
                     r"并发|吞吐|\bttft\b|\btokens?\b.{0,30}\bper\s+(?:second|sec|minute)\b|每秒|"
                     r"每一?分钟|生成多少|\bmax[_\s-]*total[_\s-]*tokens|"
                     r"\bqueries\b|\bspeed\s+comparable\b|"
                     # "能够满足什么量级的用户数量", "支持多少用户": how many users it serves
                     r"用户数|多少(?:个)?用户|多少人(?:同时)?(?:使用|用)|\bhow\s+many\s+people\b",
                     _I)
FIT = lazy(r"\bfits?\b|\bcan\s+(?:i|we|you|it|an?|one|the)\b|\bcould\b|\bwill\s+it\b|"
                 r"\benough\b|\bpossib(?:le|ility)\b|\b(?:can'?t|cannot|unable\s+to)\s+(?:load|run|fit)\b|"
                 r"显存不足|\bdoes\s+it\b|\bable\s+to\b|\bwork\s+on\b|\boom\b|"
                 r"够不够|能不能|能否|可以|行不行|可行|跑得?起来|跑不起来|支持吗|够用", _I)
SPECS = lazy(r"\bbandwidth\b|\bspecs?\b|\bspecifications?\b|\btflops?\b|\bflops\b|"
                   r"\bmemory\b|\bhbm\b|\bvram\b|\btdp\b|\bpower\b|\bwatts?\b", _I)
FITS = lazy(r"\bfits?\b", _I)
MEMORY = lazy(r"\bmemory\b|\bvram\b|\bhbm\b|\bfootprint\b|\bkv[\s-]*cache\b|\bhow\s+big\b|"
                    r"\bhow\s+much\s+(?:gpu\s+)?(?:memory|vram|ram|space)\b|\bbytes\b|\bgb\s+of\b|"
                    r"\b(?:size|footprint)\s+of\s+(?:the|a|this|my)\s+model\b|显存|内存|多大",
                    _I)

# A measurement someone wants checked: words of doubt or surprise (with a measured figure), or
# a symptom of slowness or excess that is itself the question.
CHECK = lazy(r"\bis\s+(?:this|that|it|this\s+\w+)\s+(?:normal|right|correct|expected|reasonable|"
             r"ok|okay|realistic)|\bnormal\b|\bexpected?\b|\bwhy\b|\bstrange\b|\bweird\b|"
             r"\bcrazy\b|\breason\b|\bwrong\b|\bmatch\b|\bshould\s+be\b|\bjumps?\s+(?:up\s+)?to\b|"
             r"\bspeed\s+(?:this|it|things)\s+up\b|"
             r"\bgood\s+or\s+(?:it'?s\s+|is\s+it\s+)?(?:slow|bad)\b|"
             # "is my 8x H100 training ... at 380 TFLOPS per GPU good?"
             r"\bis\s+(?:my|our|this|that)\b[^.?!]{0,80}\b(?:good|decent|reasonable|normal|ok|"
             r"okay)\s*\?|"
             r"\bonly\s+(?:about\s+|around\s+|~\s*)?\d|正常|为什么|为啥|"
             r"原因|理论|怎么回事|实测|实际|只占用|"
             r"\bbut\s+(?:in\s+(?:training|practice|reality)|actually|it\s+(?:uses|takes|shows))\b",
             _I)
SYMPTOM = lazy(r"\bis\s+(?:this|that|it)\s+(?:normal|right|expected|correct)\b|"
               r"正常吗|正常的吗|正常不|正常么|"
               # memory in use reported: "I see it taking up 67GB of VRAM"
               r"\b(?:see|seeing)\s+it\s+(?:taking|using|occupying)\s+(?:up\s+)?"
               r"(?:about\s+|around\s+|~)?\d+(?:\.\d+)?\s*gi?b\b|"
               r"\b(?:too|so|very|much|really|super|extremely)\s+slow|"
               # "takes longer than reported", "9 hours instead of the reported ~3 hours"
               r"\btakes?\s+(?:much\s+|way\s+|far\s+)?longer\s+than\b|"
               r"\binstead\s+of\s+the\s+(?:reported|expected|advertised|claimed|stated)\b|"
               r"\bslow(?:er|s|ed)?\s+(?:than|down)|不能充分利用|利用率(?:低|不高|很低)|"
               r"\bslower\b|\blow\s+(?:throughput|mfu|utili[sz]ation|tflops)|"
               r"\bslow\s+(?:training|inference|generation|speed|step)|"
               r"\b(?:training|inference|generation|it)\s+(?:is|was|runs?|seems)\s+(?:\w+\s+)?slow\b|"
               r"\b(?:throughput|speed|performance)\s+(?:\w+ly\s+)?(?:drops|dropped|falls|fell)\b|"
               r"\bdoes(?:n't|\s+not)\s+seem\s+to\s+go\s+through\b|\bonly\s+"
               r"(?:achieves?|gets?|getting|reach(?:es)?|about|around)\b|\bno\s+speed\s*up\b|"
               r"\bunable\s+to\s+reproduce\b|\b(?:more|higher)\s+(?:gpu\s+)?(?:memory|vram)\b|"
               r"\bnot\s+using\b|慢|没有提升|变慢|显存.{0,6}(?:非常高|太高|这么大|这么多|高达)|"
               r"\bweird\b|\bstrange(?:ly)?\b|\bdoing\s+(?:something\s+)?wrong\b|"
               r"\bset\s+\w+\s+up\s+wrong\b|\btakes?\s+so\s+long\b|\bnot\s+being\s+used\b|"
               r"\bthrows?\s+an?\s+error\b|没有?起作用|不一样|怎么回事|"
               r"\balmost\s+\W*2\s*x\b|\bno\s+change\s+in\s+performance\b|\bi\s+(?:would\s+)?expected\b|"
               r"\bi\s+would\s+(?:have\s+)?expect(?:ed)?\b|"
               r"\bdo(?:es)?\s+not\s+support\s+this\b|\bseems?\s+to\s+be\s+bigger\b|"
               r"\b(?:the\s+)?same\s+amount\s+of\s+(?:gpu\s+)?memory\b|\balmost\s+the\s+same\s+as\b|"
               r"\bconsumes?\s+a\s+lot\b|\btaking\s+(?:a\s+)?lot\s+of\s+time\b|为什么还是|出了问题|"
               r"速度.{0,6}下降|还?没占用|为什么会|应该是够的|理论值|基本一样|"
               # a gap to a published or another run's figure, or a cause asked for
               r"\bsignificant(?:ly)?\s+(?:difference|gap|lower|higher|slower)\b|"
               r"\bseems?\W+(?:\w+\W+)?(?:crazy|insane|absurd|ridiculous|excessive)\b|"
               r"\bwhat\s+(?:could|might|can)\s+(?:be\s+|go\s+)?wrong\b|"
               r"\b(?:did\s+i|have\s+i|am\s+i)\s+miss(?:ed|ing)?\s+(?:something|anything)\b|"
               r"\bwhat\s+am\s+i\s+missing\b|"
               # "I am not getting a substantial training time improvement with LoRA"
               r"\bnot\s+(?:getting|seeing)\s+(?:a\s+|any\s+)?(?:substantial|significant|much|"
               r"big|real)?\s*(?:\w+\s+){0,2}(?:improvement|speed[\s-]?up)\b|"
               r"\b(?:\d+(?:\.\d+)?|two|three|four|five|ten)\s+times\s+(?:as\s+(?:large|big|much|"
               r"slow|long)|larger|bigger|more|slower|longer)\b", _I)

# A failure reported against what should have worked: "but ... OOM", "still runs out",
# "batch 2 leads to OOM while another framework runs 6" (但是 but, 却 yet, 显存不足 out of memory).
OOM = r"(?:\boom\b|\bout\s+of\s+memory\b|\bruns?\s+out\b|显存不足|爆显存)"
SYMPTOM_OOM = lazy(r"(?:\bbut\b|\bhowever\b|\bstill\b|但是?|却|还是|仍然|依然|仍)"
                   r"[^.?!。？！]{0,80}" + OOM, _I)
TWO_RUNS_OOM = lazy(OOM + r"[^.?!。？！]{0,120}(?:\bwithout\s+(?:an?\s+)?oom\b|\bno\s+oom\b)", _I)
# Someone reporting their own run (发现 found, 我这边 on my side, 实测 measured).
OWN_RUN = lazy(r"\b(?:i|we)\s+(?:found|find|see|saw|observed?|noticed?|got|get|am\s+getting|"
               r"measured|tried|ran|run)\b|\bmy\b|发现|我这边|我的|实测|测试", _I)
# Several users at once ("两人同时使用" two people at once) and a way to go faster asked
# (加速方案 speed-up plan, 有什么办法 what way).
CONCURRENT_SPEEDUP = lazy(r"(?:同时使用|同时请求|多人同时|两人同时|\bconcurrent(?:ly)?\b|"
                          r"\bsimultaneous(?:ly)?\b|\bat\s+the\s+same\s+time\b).{0,200}"
                          r"(?:加速|提速|优化|有什么办法|\bspeed\s+(?:it\s+)?up\b|"
                          r"\boptimi[sz]ed?\b|\befficiently\s+handle\b)", _I)
# A named cluster put up for a yes or no (行不行 will it do, 能不能 can it, 够不够 enough?).
PROPOSAL = lazy(r"行不行|能不能|可不可以|够不够|\bwould\s+\w+\s+(?:do|work|suffice|be\s+enough)\b|"
                r"\bis\s+(?:that|it|this)\s+enough\b|\bwill\s+(?:it|that)\s+(?:work|do|fit)\b", _I)
FIT_CLAIMED = lazy(r"\b(?:in\s+theory|theoretically)\b[^.?!]{0,60}\b(?:enough|fits?)\b|"
                   r"\b(?:i|we)\s+(?:have|had)\s+enough\s+(?:gpu\s+)?(?:memory|vram)\b", _I)
WHY_ASKED = lazy(r"\bwhy\b|为什么|为啥|原因|的意义|"
                 r"\bwhat(?:'s|\s+is)\s+the\s+(?:point|reason)\b", _I)

Slots = dict[str, Any]
# A strategy question about a job or a cluster (not "tensor vs data parallelism" in general).
CLUSTER_OR_JOB = {"model", "params_b", "config", "gpu", "gpus", "nodes", "tp", "pp"}
# "how long on 1 million samples...": a duration asked of a dataset.
HOW_LONG = lazy(r"\bhow\s+long\b|\bhow\s+many\s+(?:hours|days)\b|多久|多长时间", _I)
UTILISATION_ASKED = lazy(r"\bmfu\b|\bmodel\s+flops\s+utili[sz]ation\b|\bhfu\b|"
                         r"\btflop/?s\s+(?:per|a|each)\s+gpu\b", _I)
# Time a run already took, not a deadline: "it took 3 days", "completed in ~13.5 hours".
ELAPSED = lazy(r"\btook\b|\btaking\b|\bcompleted\b|\bfinished\b|\bran\s+for\b|\bspent\b|"
               r"\b(?:been\s+)?running\s+for\b|"
               r"用了|花了|耗时|跑了", _I)
CLUSTER = {"gpu", "gpus", "nodes"}
WHY_FIRST = lazy(r"^\W*(?:why|为什么|为啥)", _I)
# The asker's hardware put against a named GPU ("my GPU trains models ~10x slower than one
# A100"): a speed to scale by, not a symptom to diagnose
GPU_RATIO = lazy(r"~?\d+(?:\.\d+)?\s*(?:x|×|times)\s+slower\s+than\s+(?:one|an?|the|my)?\s*<g\d>",
                 _I)
# A published figure the asker could not reach
NOT_REPRODUCED = lazy(r"\b(?:unable|not\s+able|cannot|can't|couldn't|could\s+not|fail(?:ed)?)\s+"
                      r"to\s+(?:re)?produce\b|复现不了|无法复现|没有复现|没复现", _I)
ESTIMATED_TIME = lazy(r"\bestimated?\s+(?:of\s+the\s+)?(?:expected\s+)?(?:completion|training|"
                      r"finishing|run(?:ning)?|total)?\s*time\b|\b(?:expected|estimated)\s+"
                      r"(?:completion|finish(?:ing)?)\s+time\b|\beta\s+(?:for|of)\b", _I)
# A run reported worse than another: "performance degradation", "drops to only 17 tokens/s"
DEGRADED = lazy(r"\bperformance\s+(?:degradation|drop|regression)\b|"
                r"\bperf(?:ormance)?\s+(?:is\s+)?(?:low|poor|bad)\b|"
                r"\b(?:is|got|gets|became|was)\s+(?:much\s+)?worse\b|"
                r"\bdrops?\s+to\s+(?:only\s+|just\s+)?\d|\bdropped\s+to\b|性能下降|变慢", _I)
MACHINES = lazy(r"多机|多台|\bmulti[\s-]*nodes?\b|"
                r"\b(?:several|multiple)\s+(?:machines|nodes|servers)\b",
                _I)


def _has_model(s: Slots) -> bool:
    return "model" in s or "params_b" in s or "config" in s


def _deadline(t: str, s: Slots) -> bool:
    """A training job of a named model with a time to finish in (not one it already took)."""
    return "hours" in s and float(s["hours"]) >= 24 and _has_model(s) \
        and s.get("workload") in ("pretrain", "full_finetune", "lora", "qlora") \
        and not ELAPSED.search(t)


def _measured(t: str) -> bool:
    return any_in(t)


def _measured_twice(t: str) -> bool:
    """Two measured rates or times of one kind: a run set against another ("60 vs 13 tokens/s")."""

    kinds = [m.kind for m in find(t) if m.kind in ("tokens_per_s", "step_time", "samples_per_s",
                                                   "tflops", "mfu")]
    return len(kinds) > len(set(kinds))


def _links(s: Slots, t: str) -> int:
    """Kinds of link named: each catalog link once, and each generic word ('NVLink', 'PCIe')
    whose kind is not already among them ('InfiniBand' read as ib-ndr is one link, not two)."""
    named = set(s.get("links", []))
    kinds = {k.split("-")[0] for k in named}
    words = {_LINK_KIND.get(w.lower(), w.lower())
             for w in LINK_WORDS.findall(re.sub(r"<l\d>", "", t))}
    return len(named) + len(words - kinds)


_LINK_KIND = {"infiniband": "ib"}


RULES: tuple[tuple[str, Callable[[str, Slots], bool]], ...] = (
    ("plan", lambda t, s: bool(PLAN.search(t))),
    # "What's the biggest model I can fine-tune with QLoRA on my single 4090?": the GPUs are
    # fixed, so the catalog is searched for the largest model they hold (no rent, no budget)
    ("fit", lambda t, s: bool(s.get("largest_model")) and "gpu" in s and not _has_model(s)
     and "usd" not in s and "hours" not in s),
    ("plan", lambda t, s: bool(s.get("largest_model")) and ("usd" in s or "hours" in s)),
    # A memory figure's arithmetic asked ("7 x 4 x 4 = 112 GB of VRAM ... explain how this
    # calculation is derived"): the job's bytes, term by term, with no GPU to fit them on.
    ("memory", lambda t, s: bool(EXPLAIN_SUM.search(t)) and _has_model(s) and "gpu" not in s
     and "gpus" not in s),
    # Which form factor of a GPU ("on SXM A100, or the PCIe version?"): the GPU's own figures.
    ("gpu_specs", lambda t, s: "gpu" in s and bool(VARIANT_ASKED.search(t))),
    # vLLM refusing a context for want of KV room wins over the layout the command line set
    # ("--pipeline-parallel-size 2 ... ValueError: ... KV cache is needed"): the room is asked.
    ("diagnose", lambda t, s: bool(KV_REFUSAL.search(t) or KV_NEEDED.search(t)
                                   or PROMPT_OVER_CACHE.search(t))
     and _has_model(s) and not HOW_MANY.search(t)),
    # the refusal quoted with no model named: its two figures are still the question
    ("diagnose", lambda t, s: bool(KV_REFUSAL.search(t)) and not HOW_MANY.search(t)),
    # vLLM V1's refusal beside its own start-up log of the room: the log gives the rate
    ("diagnose", lambda t, s: bool(KV_NEEDED.search(t)) and bool(KV_LOG.search(t))),
    # A KV-cache size claimed for a length ("for 3000 tokens is just under 8GB"), or the room a
    # server reported on GPUs named ("KV Cache is only 8.69GiB"): checked.
    ("diagnose", lambda t, s: bool(KV_CLAIM.search(t)) and _has_model(s)
     and ("context_len" in s or "gpu" in s or "gpu_memory_gb" in s) and not HOW_MANY.search(t)),
    ("layout", lambda t, s: bool(FABRIC_NEEDED.search(t)) and bool({"gpu", "tp"} & set(s))
     and not _has_model(s)),
    # Two runs measured and one found wanting ("29 tokens/s on one GPU ... drops to only 17
    # with tensor parallelism"): the measurements are the question, not the choice of layout.
    ("diagnose", lambda t, s: _measured_twice(t) and bool(DEGRADED.search(t))),
    # "Estimated Time for SFT Fine-Tuning of Mistral-7B ... an estimate of the expected
    # completion time": the run's time, whatever "could someone" sounds like
    ("training", lambda t, s: bool(ESTIMATED_TIME.search(t)) and _has_model(s)
     and s.get("workload") not in (None, "inference")),
    # A published result not reproduced, with the run's own figure ("not able to produce the
    # result of the dashboard ... Throughput: 1414.42 total tokens/s"): that figure is checked.
    ("diagnose", lambda t, s: bool(NOT_REPRODUCED.search(t)) and _measured(t)),
    # ("why is TP=2 slower than TP=1?" asks for a measurement to be explained: diagnose.)
    ("layout", lambda t, s: bool(LAYOUT_CHOICE.search(t)) and not WHY_FIRST.search(t)
     and (bool(CLUSTER_OR_JOB & set(s)) or bool(MACHINES.search(t)))),
    # Options laid out for deploying a model on a cluster ("I have the following two ways"):
    # the ways to split it over those GPUs are the question, whatever each option measured.
    ("layout", lambda t, s: bool(OPTIONS.search(t)) and _has_model(s)
     and ("gpus" in s or "nodes" in s)),
    # A collective's measured rate ("the algbw is about 250GB/S", "nccl tests show a busbw of
    # ~200 GB/s"): checked against what the link should reach, not timed again.
    # (A pasted nccl-tests table is such a rate too, in GB/s without the unit.)
    ("diagnose", lambda t, s: ("bandwidth" in s or bool(NCCL_ROW.search(t)))
     and bool(MEASURED_COLLECTIVE.search(t)) and not _has_model(s)),
    # A p2p copy test's figures ("bidirectional GPU0-GPU1 = 260.89 GB/s, the spec says 300"):
    # a measurement of the pair's link, checked.
    ("diagnose", lambda t, s: "bandwidth" in s and bool(P2P_TEST.search(t))
     and not _has_model(s)),
    # A link's own rate questioned ("why is H800 NVLink 160 GB/s instead of 400?").
    # (A collective's measured rate on those links is a run to check, not the link's rate.)
    # (A model named only as the paper the rate is quoted from, "the NVLink bandwidth in
    # DeepSeek_V3.pdf is 160GB/s", is the source, not a job.)
    ("interconnect", lambda t, s: bool(s.get("links")) and bool(LINK_RATE.search(t))
     and "size" not in s and "op" not in s
     and (not _has_model(s) or bool(PAPER_SOURCE.search(t)))
     and not (_links(s, t) >= 2 and bool(COMPARE.search(t)))),
    # The size of saved files doubted ("optimizer state files of 105 GB, is this expected?",
    # "adapter_model.bin is just 1kB, is it normal?"): the bytes each save holds answer it.
    ("checkpoint", lambda t, s: bool(CHECKPOINT.search(t)) and bool(SAVED.search(t))
     and not TRANSFER_TIME.search(t) and not IN_USE.search(t)),
    # "download size of llama 3 8b?", "how big is the safetensors download": the released files
    ("checkpoint", lambda t, s: bool(RELEASED_FILES.search(t)) and bool(SIZE_ASKED.search(t))
     and _has_model(s) and not TRANSFER_TIME.search(t) and not IN_USE.search(t)),
    # "Why is inference slower after quantization?" with nothing measured and no job named
    # asks about the idea, not about someone's run.
    ("concept", lambda t, s: bool(WHY_ASKED.search(t)) and not _measured(t)
     and not CLUSTER_OR_JOB & set(s) and "size" not in s and not OWN_RUN.search(t)),
    # A fit claimed in theory and doubted ("in theory I have enough GPU memory to hold the
    # 40GB model, or am I missing something?"): the fit is what to check.
    ("fit", lambda t, s: bool(FIT_CLAIMED.search(t)) and _has_model(s)
     and ("gpu" in s or "gpu_memory_gb" in s)),
    # Slower when several use it at once, and how to serve them faster: serving capacity.
    ("serving", lambda t, s: bool(CONCURRENT_SPEEDUP.search(t)) and _has_model(s)),
    # A run's pace reported as time for a share of it ("30mins for 0.01 epochs, how long will
    # it take?", "after 24 hours only 7%, very slow"): the whole run at that pace, whatever
    # else (a rental, a GPU, a complaint) is named, with the estimate set beside it.
    ("training", lambda t, s: "progress_done" in s),
    # An OOM with a model and a GPU named is a fit question ("33b on 8*A100 40G, but always
    # OOM"); one set against a claim or another run is a diagnosis.
    ("diagnose", lambda t, s: bool(SYMPTOM.search(GPU_RATIO.sub(" ", t)))
     or bool(TWO_RUNS_OOM.search(t))
     or (bool(SYMPTOM_OOM.search(t)) and not (_has_model(s) and "gpu" in s))
     or (bool(CHECK.search(t)) and _measured(t)) or _measured_twice(t)),
    # A run's tokens and hours with its MFU asked, or doubted ("20B tokens took 3 days, is
    # that normal?"): the run's own MFU, set against the planner's.
    # (... unless the time it should take is asked: "正常情况下一般多久", the training estimate
    # with the reported time set beside it.)
    ("diagnose", lambda t, s: "tokens" in s and "hours" in s and _has_model(s)
     and bool(CLUSTER & set(s)) and (bool(UTILISATION_ASKED.search(t))
                                     or bool(CHECK.search(t) and ELAPSED.search(t)))
     and not HOW_LONG.search(t)),
    # Training against a time budget ("train a 2B model on 8*A800 within 1 month?"): on the
    # GPUs counted, the run's time set against it; with none counted ("how many H100 to
    # pretrain 65B in 5 months?"), the fewest GPUs that meet it.
    ("training", lambda t, s: _deadline(t, s) and bool(s.keys() & {"gpus", "nodes"})),
    ("plan", lambda t, s: _deadline(t, s) and not s.keys() & {"gpus", "nodes"}
     and bool(HOW_MANY.search(t) or COUNT_ASKED.search(t) or "gpu" in s)),
    ("plan", lambda t, s: bool(GOAL.search(t)) and _has_model(s) and "gpu" not in s
     and s.get("workload") != "inference"),
    ("plan", lambda t, s: bool(HARDWARE_ADVICE.search(t)) and _has_model(s) and "gpu" not in s),
    # what a named training run costs, on no cluster named: the cheapest way to run it (a
    # pretraining run needs its tokens, given or the model's published count)
    ("plan", lambda t, s: bool(COST.search(t)) and _has_model(s)
     and (s.get("workload") in ("full_finetune", "lora", "qlora")
          or (s.get("workload") == "pretrain"
              and ("tokens" in s or s.get("model") in PUBLISHED_TOKENS)))
     and not s.keys() & {"gpu", "gpus", "nodes", "hours", "usd", "provider", "kind",
                         "model_list"}),
    # "serve it to 200 users at 30 tokens/s each" on no cluster named: what to rent for that
    ("plan", lambda t, s: _has_model(s) and not any(k in s for k in ("gpus", "nodes"))
     and (("users" in s and "user_tokens_per_s" in s) or "requests_per_s" in s)),
    ("convert", lambda t, s: bool(CONVERT.search(t)) and ("bandwidth" in s or "size" in s
                                                          or "value" in s)),
    ("pricing", lambda t, s: bool(EGRESS.search(t))),
    # A checkpoint with a size is moved somewhere only when a move or a rate is named
    # ("convert my checkpoint" with a 443-byte file is about the file).
    ("checkpoint", lambda t, s: bool(CHECKPOINT.search(t))
     and (_has_model(s) or not (s.keys() & {"size", "bandwidth"}) or bool(SAVED.search(t))
          or not (TRANSFER.search(t) or "bandwidth" in s or s.get("links")))),
    ("interconnect", lambda t, s: "op" in s),
    # "what's the minimal hardware to fine-tune llama 2 70b?" after a "copy of the model" in
    # passing: the count is asked, not a transfer.
    # "显卡最低需要多少显存？" asks the memory, not a count, however "最低配置" reads
    ("memory", lambda t, s: bool(VRAM_ASKED.search(t)) and _has_model(s)
     and not s.keys() & {"gpus", "nodes"}),
    ("cluster_size", lambda t, s: bool(COUNT_ASKED.search(t)) and _has_model(s)),
    ("interconnect", lambda t, s: bool(TRANSFER.search(t) or CHECKPOINT.search(t))
     and "size" in s),
    # The network a job needs: with no job named, an interconnect question (asked back); with
    # a model on GPUs, the layout, whose communication share is the network's load.
    ("interconnect", lambda t, s: bool(NETWORK_NEEDED.search(t)) and not _has_model(s)),
    ("layout", lambda t, s: bool(NETWORK_NEEDED.search(t)) and "gpu" in s),
    # "is 100 Gbps Ethernet enough for data parallel training of a 7B model across 2 nodes?":
    # the network's share of a training step on that link is the answer
    ("layout", lambda t, s: bool(NETWORK_ENOUGH.search(t)) and _has_model(s)
     and bool(s.get("links") or "bandwidth" in s) and s.get("workload") != "inference"),
    ("layout", lambda t, s: bool(TRAINS_WELL.search(t)) and _has_model(s)
     and bool(s.get("links")) and s.get("workload") not in (None, "inference")
     and bool(s.keys() & {"nodes", "gpus"})),
    ("link_compare", lambda t, s: _links(s, t) >= 2 and bool(COMPARE.search(t))),
    ("training", lambda t, s: "tokens" in s or bool(TIME_TO_TRAIN.search(t))
     or ("samples" in s and bool(HOW_LONG.search(t)))),
    # "What MFU does Llama 3 405B reach on 16,384 H100?": the utilisation a training layout
    # reaches is the layout search's answer, with no token budget to time.
    # ("... at 8000 tokens/s per GPU, what's the MFU?": the run's own MFU, worked out)
    ("diagnose", lambda t, s: bool(UTILISATION_ASKED.search(t)) and _has_model(s)
     and any(m.kind in ("tokens_per_s", "tflops") for m in find(t))
     and s.get("workload") != "inference"),
    # "7b trained at 3300 tokens/gpu/second on 2000 GPUs; would 40 GPUs be faster?": a
    # training run's per-GPU rate, worked out as its MFU and set against the model's
    ("diagnose", lambda t, s: _has_model(s) and s.get("workload") not in (None, "inference")
     and any(m.kind == "tokens_per_s" and m.what == "per_gpu" for m in find(t))),
    ("layout", lambda t, s: bool(UTILISATION_ASKED.search(t)) and _has_model(s)
     and bool(CLUSTER_OR_JOB & set(s)) and not _measured_twice(t)),
    ("cluster_size", lambda t, s: bool(COUNT_ASKED.search(t))),
    # vLLM refusing a context for want of KV room, pasted with a named model: the room it
    # measured against what the GPUs should leave (unless the question asks how many).
    ("diagnose", lambda t, s: bool(KV_REFUSAL.search(t)) and _has_model(s)
     and not HOW_MANY.search(t)),
    # A job on two setups each with its own count ("8*A100 (80GB) ... 4*A6000 (48GB)"), not
    # put as a comparison ("vs", "or": the GPU comparison below): the job on each.
    ("fit", lambda t, s: _has_model(s) and len(s.get("gpu_counts", [])) >= 2
     and not COST.search(t) and not COMPARE.search(t)),
    # Two GPUs named beside a model whose memory or fit is asked: the GPUs are the setting,
    # not the question ("fine-tune it on a 24G A100 or four 16G V100, both OOM").
    # ... nor a layout asked of a mixed cluster ("two 3080 and two 4090 each: values for TP and
    # PP?"), unless the GPUs are set against each other.
    # ... nor a count asked of GPUs written as one ("how many H100/H800 GPUs": the export
    # twin), counted on the first.
    ("gpu_compare", lambda t, s: len(s.get("gpu_list", [])) >= 2 and not s.get("oom")
     and not (HOW_MANY.search(t) and SLASHED_GPUS.search(t))
     and not (not CHOICE.search(t) and bool(MEMORY.search(t) or FIT.search(t)
                                            or LAYOUT.search(t)))),
    ("concept", lambda t, s: bool(CONCEPT.search(t)) and not _has_model(s) and "gpu" not in s
     and not COST.search(t)),
    # "serve it on 2x B200: what speed and cost?": the served job's speed, priced
    ("serving", lambda t, s: bool(COST.search(t)) and bool(SPEED_ASKED.search(t))
     and _has_model(s) and "gpu" in s and s.get("workload") == "inference"),
    ("pricing", lambda t, s: bool(COST.search(t))),
    ("pricing", lambda t, s: "gpu" in s and not _has_model(s)
     and any(k in s for k in ("hours", "utilization", "usd"))),
    ("gpu_specs", lambda t, s: "gpu" in s and "gpu_list" not in s and not _has_model(s)
     and bool(SPECS.search(t))),
    ("layout", lambda t, s: bool(TP_ASKED.search(t)) and s.get("workload") != "inference"
     and not SERVING.search(t)),
    # "What TP should I use for Llama 3 70B inference on 8 L40S?": the serving layouts, ranked
    ("serving", lambda t, s: bool(TP_ASKED.search(t)) and s.get("workload") == "inference"
     and _has_model(s) and "gpu" in s),
    # "Is it then possible to load Llama v2 70B GPTQ with my setup (two cards with 24 GB each)?
    # ... GPU split like in Ooba": whether it loads is asked; the split is how.
    ("fit", lambda t, s: bool(POSSIBLE.search(t)) and _has_model(s) and "tp" not in s
     and bool({"gpu", "gpus", "gpu_memory_gb"} & set(s))),
    # "Nvidia RTX 4070 (16GB), i9 14900k 96GB ... a size limit to what Ollama can split among
    # available resources?": serving on one GPU beside RAM, the split is between the two.
    ("fit", lambda t, s: bool(LAYOUT.search(t)) and s.get("workload") == "inference"
     and "host_ram_gb" in s and s.get("gpus", 1) == 1 and _has_model(s)),
    ("layout", lambda t, s: bool(LAYOUT.search(t))),
    # "the minimum GPU for 14b? would two 24G P40s do?": a count and a GPU named and a fit
    # asked of them is checked as proposed (the fit answer lists the fewest of each kind too).
    ("fit", lambda t, s: bool(HOW_MANY.search(t)) and bool(PROPOSAL.search(t)) and "gpu" in s
     and ("gpus" in s or "nodes" in s) and _has_model(s)),
    # "serve it to 200 concurrent users at 20 tokens/s each, how many H100s?": a serving goal,
    # planned (a count that only holds the weights would not meet it)
    ("plan", lambda t, s: bool(HOW_MANY.search(t)) and s.get("workload") == "inference"
     and "users" in s and bool({"user_tokens_per_s", "tokens_per_s"} & set(s))),
    ("cluster_size", lambda t, s: bool(HOW_MANY.search(t))),
    # "how much VRAM do I need for serving it ... and how many t/s to expect": the memory is
    # asked first and sizes the rest.
    ("memory", lambda t, s: bool(MEMORY_NEEDED.search(t))),
    # Host RAM with no GPU kind ("12 GB VRAM and 64 GB RAM") is a layer-offload question.
    ("serving", lambda t, s: bool(SERVING.search(t)) and _has_model(s)
     and not ("host_ram_gb" in s and "gpu" not in s)),
    # GPU memory named without a GPU ("the max GPU memory is 45G, can I fine-tune it?") is
    # the budget the fit is asked against.
    ("fit", lambda t, s: bool(FIT.search(t)) and ("gpu" in s or "gpus" in s or "nodes" in s
                                                  or "gpu_memory_gb" in s
                                                  or bool(FITS.search(t))
                                                  or (bool(GPU_MEMORY.search(t))
                                                      and not HOW_MUCH.search(t)))),
    ("memory", lambda t, s: bool(MEMORY.search(t))),
)


def classify(masked: str, slots: Slots) -> tuple[str, bool]:
    """The intent of a question and whether its words asked for it (strong) or not (weak)."""
    for kind, rule in RULES:
        if rule(masked, slots):
            return kind, True
    if _has_model(slots):
        return ("fit" if "gpu" in slots else "memory"), False
    if "bandwidth" in slots and "to_unit" in slots:
        return "convert", False
    if CONCEPT.search(masked) or _links(slots, masked):
        return "concept", False
    return "unknown", False
