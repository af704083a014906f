"""Questions copied from public threads (tests/data/corpus), answered as their askers need.

Each test quotes its question and writes the expected figure by hand; the corpus test grades
all of them, these pin one behaviour per class so a regression names itself.
"""

from __future__ import annotations

import re

import pytest

from clusterplan.assistant.respond import respond


@pytest.fixture(autouse=True)
def _store(memory_store):
    """Every test here answers from a fresh in-memory catalog."""


# --- layout with no model: the split the cluster's links dictate ------------------------

def test_two_nodes_of_two_gpus_split_tp_inside_pp_across():
    # vllm-7837: 2 nodes x 2 V100: TP = the 2 GPUs of a node, PP = the 2 nodes.
    answer = respond("I have 2 nodes and each of them has 2 v100. According to the guide, i can "
                     "use tensor parallel in each node and crossing the 2 nodes i can use "
                     "pipline parallel. My question is which card or cards will communicate "
                     "with the other card or cards in the other node.")
    assert answer.clarification is None and answer.intent.kind == "layout"
    assert "**TP 2 × PP 2**" in answer.markdown
    assert "megatron-lm-2021" in {c.id for c in answer.citations}


def test_sixteen_gpus_on_two_machines_are_tp_8_by_pp_2():
    # xinference-issue-3163: two machines of 8 GPUs each: TP 8 inside, PP 2 across; 8 x 2 = 16.
    answer = respond("秦总，如果需要用vllm在2台各8卡的机器上部署多机多卡的话，按照您的方法，"
                     "GPU count per worker目前还无法设置成16，worker count如果设置成1也无法"
                     "启动多台机器，请问这个是要修改代码吗")
    assert answer.intent.kind == "layout" and "**TP 8 × PP 2**" in answer.markdown


def test_a_strategy_choice_on_a_named_cluster_is_a_layout_not_a_price():
    # megatron-258: "30% speed up" is a measurement, not a utilisation to price.
    answer = respond("Hello, I have compared the training speed between tensor parallel and "
                     "pipeline parallel in Megatron with a DGX A100 node. I find that when the "
                     "micro-batch-size and gradient accumulation steps are big enough, pure "
                     "pipeline parallism runs faster than pure tensor parallelism, with over 30% "
                     "speed up.")
    assert answer.intent.kind == "layout"


def test_strategies_named_with_no_job_or_cluster_stay_a_concept():
    assert respond("Tensor Parallelism vs Data Parallelism").intent.kind == "concept"


# --- totals people quote ---------------------------------------------------------------

def test_an_oom_on_four_a100_states_the_16_bytes_per_parameter_total():
    # llamafactory-5553 "A100 80G *4 sft full ... 72B OOM": 72e9 x 16 B = 1152 GB of model
    # states against 4 x 85.9 GB (the A100 80GB's 80 GiB) = 343.6 GB of GPU memory.
    answer = respond("A100 80G *4 sft full 72B OOM")
    memory = answer.data["memory"]
    assert memory["whole_model_gb"]["model_states"] == pytest.approx(1152.0, abs=0.01)
    assert memory["cluster_memory_gb"] == pytest.approx(4 * 85.899, abs=0.05)


# --- several models in one question ------------------------------------------------------

def test_seven_thirteen_and_seventy_b_are_each_sized():
    # vllm-802: Llama 2 7B has 6.74e9 parameters and 13B 13.0e9 (Meta's configs): at 2 bytes
    # each their FP16 weights are 13.48 GB and 26.0 GB; 70B (68.98e9) is 138 GB.
    answer = respond("Hello, somebody please help me find suitable gpu vram for 7, 13, 70b "
                     "models for llama 2 in vllm.")
    assert answer.intent.slots["model_list"] == [
        {"model": "llama-2-7b"}, {"model": "llama-2-13b"}, {"model": "llama-2-70b"}]
    table = answer.markdown.split("\n\n")[1]
    assert "| Llama 2 7B | 6.74 | 13.5 |" in table and "| Llama 2 13B | 13.0 | 26.0 |" in table
    assert "| Llama 2 70B | 69.0 | 138 |" in table


def test_a_size_after_a_named_model_is_that_familys_model():
    # vllm-8188: "Llama 3.1 70B and 405B": the 405B is Llama 3.1 405B (405e9 x 2 B = 810 GB,
    # the catalog's 405.85e9 x 2 = 811.7 GB), not dropped.
    answer = respond("I want to run Llama 3.1 70B and 405B with 120K context length. How much "
                     "memory do I need?")
    listed = answer.intent.slots["model_list"]
    assert {"model": "llama-3.1-405b"} in listed
    assert "Llama 3.1 405B" in answer.markdown


def test_nodes_asked_for_are_counted_in_whole_nodes_for_each_model():
    # vllm-8188 (github.com/vllm-project/vllm/issues/8188): "several 8xH100 nodes ... how many
    # nodes". By hand at 120K (122,880) tokens in BF16: Llama 3.1 405B's weights are
    # 405.85e9 x 2 B = 811.7 GB and its KV cache 126 layers x 8 heads x 128 x 2 x 2 B =
    # 516,096 B/token x 122,880 = 63.4 GB, 875 GB in all: more than 10 H100 of 85.5 GB, so it
    # needs 2 nodes of 8; the 70B (141 GB + 40.3 GB of KV) fits in 1 node.
    answer = respond("I want to run Llama 3.1 70B and 405B with 120K context length. I have "
                     "access to several 8xH100 nodes. How many nodes do I need?")
    assert "(1 node of 8)" in answer.markdown
    assert "Llama 3.1 405B" in answer.markdown and "(2 nodes of 8)" in answer.markdown
    assert "unsharded" not in answer.markdown  # the figure is one GPU's share of 8, not the whole


def test_a_token_count_is_not_a_model_size():
    answer = respond("How long to train a 7B model on 300B tokens on 64 H100?")
    assert "model_list" not in answer.intent.slots


# --- the model's own figures beside an answer that did not size it --------------------------

def test_a_concurrency_question_also_states_the_weights_and_kv_per_token():
    # qwen25-issue-933 "2*A100部署qwen2.5-72B-instruct的并发大概是多少": Qwen2.5-72B has 72.7e9
    # parameters, x 2 B = 145.4 GB of BF16 weights; its KV cache per token is 2 (K, V) x 80
    # layers x 8 KV heads x 128 x 2 B = 327,680 B = 0.328 MB.
    answer = respond("你好 使用vllm框架 默认配置 \n"
                     "2*A100部署qwen2.5-72B-instruct的并发大概是多少啊")
    assert answer.intent.kind == "serving"
    glance = [t for t in answer.markdown.split("\n\n") if "at a glance" in t]
    assert glance, answer.markdown
    assert "| weights as BF16 / FP16 | 145 |" in glance[0]
    assert "| KV cache per token (MB) | 0.328 |" in glance[0]


# --- a checkpoint question with no model ------------------------------------------------------

def test_a_saved_model_larger_than_expected_gets_bytes_per_parameter_of_each_save():
    # transformers-22822: 16-bit weights 2 B/param, FP32 4 B, a training checkpoint
    # 2 + 12 (FP32 master, Adam m, v; zero-paper K = 12) = 14 B.
    answer = respond("Size of saved model checkpoints after trainer.train() is much larger when "
                     "using trainer with deepspeed stage2")
    assert answer.clarification is None and answer.intent.kind == "checkpoint"
    assert "**2 B**" in answer.markdown and "**4 B**" in answer.markdown
    assert "**14 B**" in answer.markdown


def test_a_quoted_checkpoint_size_is_turned_into_the_parameters_it_implies():
    # 56 GB / 4 B = 14B parameters in FP32, / 2 B = 28B in 16 bits.
    answer = respond("my saved checkpoint is 56 GB, why is it so large?")
    assert answer.intent.kind == "checkpoint"
    assert "14.0B parameters in FP32 or 28.0B in 16 bits" in answer.markdown


# --- counts, money and memory budgets read as meant --------------------------------------------

def test_a_budget_in_thousands_of_dollars_is_not_a_context_length():
    answer = respond("I have a $50k budget, what cluster should I rent to fine-tune Llama 3 70B?")
    assert answer.intent.slots["usd"] == 50000.0
    assert "context_len" not in answer.intent.slots


def test_gpu_memory_with_no_gpu_kind_is_a_budget_not_an_h100():
    # "6GB VRAM": Llama 2 7B's FP16 weights alone are 6.74e9 x 2 B = 13.5 GB > 6 GB.
    answer = respond("I have 6GB VRAM, can I run llama 2 7b?")
    assert answer.clarification is None and answer.intent.kind == "fit"
    memory = answer.data["memory"]
    assert memory["gpu"] is None and memory["gpu_memory_gb"] == 6.0 and memory["fits"] is False
    assert "H100" not in answer.markdown.split("\n\n")[0]


def test_a_memory_size_picks_a_variant_of_that_gpu_never_another_gpu():
    # vllm-2080ti-issue-61-5090 "5090 24G": the 24G must not turn it into the 24 GB RTX 3090,
    # nor into the catalog's 32 GB RTX 5090: a 24 GB 5090 is the China-market RTX 5090 D v2
    # (github.com/kekzl/imp/issues/876), a card the catalog lacks. It is named unknown, nearest
    # the RTX 5090, and its stated 24 GB is the memory each GPU holds.
    answer = respond("太折腾了，5090 24G和这套2080方案，哪个好？我手上有5090 24G")
    slots = answer.intent.slots
    assert slots.get("gpu") is None and slots["gpu_memory_gb"] == 24
    assert any("nearest: rtx-5090" in r for r in answer.intent.readings)


def test_a_range_of_gpu_counts_is_answered_at_each_end():
    # Llama 3 70B's BF16 weights are 70.55e9 x 2 B = 141.1 GB: 70.5 GB per GPU on 2, 35.3 on 4.
    answer = respond("Can I serve Llama 3 70B on 2-4 A100 80GB?")
    assert answer.intent.slots["gpus"] == 2 and answer.intent.slots["gpus_range"] == [2, 4]
    rows = answer.markdown.split("\n\n")[1]
    assert rows.startswith("| GPUs | per GPU (GB) |")
    assert "| 2 |" in rows and "| 4 |" in rows
    assert "Across the range 2-4 GPUs asked" in answer.markdown


def test_a_released_fp8_model_keeps_its_kv_cache_in_16_bits():
    # sglang-3344: DeepSeek-R1's MLA cache per token is 61 layers x (512 latent + 64 RoPE) x
    # 2 B = 70,272 B; its FP8 weights do not make the cache FP8 (the engines' "auto" dtype).
    answer = respond("Using 2 H100*8 machines to deploy deepseek-R1 671 B, can the context "
                     "length consistently support up to 128k?")
    assert answer.data["memory"]["kv_cache_bytes_per_token"] == 70272


def test_a_context_window_in_tokens_is_not_a_training_budget():
    answer = respond("I want to use vLLM to serve Llama-3.3-70b to about 5 people with a full "
                     "context window of 128k tokens. How much VRAM do I need?")
    assert "tokens" not in answer.intent.slots and answer.intent.kind != "training"
    assert answer.intent.slots["context_len"] == 131072


# --- measurements people want checked ------------------------------------------------------

def test_memory_in_use_over_the_cards_total_is_a_measurement_to_check():
    # ollama-6008: "22.9/24 GB of dedicated GPU memory is used": 22.9 GB in use.
    from clusterplan.assistant.parsing.measurements import find

    [first, *_] = find("I can see that 22.9/24 GB of dedicated GPU memory is used")
    assert (first.kind, first.value) == ("memory", 22.9)
    answer = respond('When I run "ollama run llama3.1:70b", I can see that 22.9/24 GB of '
                     "dedicated GPU memory is used, and 18.9/31.9 GB of shared GPU memory is "
                     "used. Memory should be enough to run this model, then why only 42/81 "
                     "layers are offloaded to the GPU?")
    assert answer.intent.kind == "diagnose"


def test_an_estimate_set_against_what_training_used_is_a_diagnosis():
    # deepspeed-4527: the estimator's 0.49 GB against 14678 MiB (15.39 GB) in training.
    answer = respond("I run deepspeed.runtime.zero.stage3.estimate_zero3_model_states_mem_needs_"
                     "all_live(). It says in stage 3, with offload_optimizer and offload_param "
                     "enabled, it requires 0.49GB of GPU memory for params, optim states and "
                     "gradients But in training, the GPU memory usage is 14678MiB.")
    assert answer.intent.kind == "diagnose"


# --- a link's own rate ----------------------------------------------------------------------

def test_a_links_quoted_rate_is_set_against_its_line_rate_each_way():
    # deepseek-v3-issue-28: H800 NVLink keeps 8 of the H100's 18 links: 8 x 25 GB/s = 200 GB/s
    # per direction, 400 GB/s both ways (nvidia-export-variants); 160 / 200 = 80 %.
    answer = respond("May I know why the bandwidth of NVLink on H800 is 160GB/s, instead of "
                     "400GB/s?")
    assert answer.clarification is None and answer.intent.kind == "interconnect"
    assert "**200 GB/s per direction**, 400 GB/s both ways" in answer.markdown
    assert "80.0 %" in answer.markdown


def test_two_links_compared_stay_a_link_comparison():
    answer = respond("How much faster is NVLink than InfiniBand NDR, per direction?")
    assert answer.intent.kind == "link_compare"


def test_a_count_glued_to_a_gpu_name_is_read():
    # peft-664-b "progress=8A100": eight A100s.
    answer = respond("in my case, ddp=deepspeed, progress=8A100, when using lora, training "
                     "speed slow down from 2.6sample/s->0.5sample/s, is it right?")
    assert answer.intent.slots["gpus"] == 8 and answer.intent.slots["gpu"].startswith("a100")


def test_torchtitans_flavour_name_is_llama_4_scout():
    # torchtitan-1543 "llama4_17bx16e": 17B active, 16 experts, 109B in all (Meta's card).
    answer = respond("Minimum number of GPUs needed to pretrain llama4_17bx16e - 8 ? Going by "
                     "the config files it would be 8 H100 class GPUs, Is 8 a reasonable number ?")
    assert answer.intent.slots["model"] == "llama-4-scout" and answer.clarification is None


# --- a run's own figures ---------------------------------------------------------------------

def test_hours_for_steps_are_turned_into_seconds_per_step():
    # unsloth-1144: 43 h x 3600 s / 750 steps = 206.4 s per step.
    answer = respond("43 hours for 750 steps on an A100 seems .... Crazy.")
    [step] = [s for s in answer.trace if s.label == "time per step"]
    assert step.result.value == pytest.approx(43 * 3600 / 750, rel=1e-4)


def test_hours_on_a_cluster_are_turned_into_gpu_hours():
    # 42 h on 4 x 8 A100s: 42 x 32 = 1,344 GPU-hours.
    answer = respond("I am finetuning llama3-8b with 4x8 A100s and it took me 42 hours, how long "
                     "does it take on your side?")
    assert "42.0 h × 32 GPUs" in answer.markdown and "1,344 GPU-hours" in answer.markdown


def test_an_engines_own_name_for_the_context_is_read():
    # qwen-issue-415 "2048token输入"; ollama "num_ctx 32768"; vLLM "--max-model-len 4096".
    assert respond("qwen14b 在2048token输入下的显存最高占用30.15GB，可以让32G-GPU跑起来？"
                   ).intent.slots["context_len"] == 2048
    assert respond("llama 3.1 8b with num_ctx 32768, how much memory?"
                   ).intent.slots["context_len"] == 32768
    assert respond("serve llama 3 8b with --max-model-len 4096 on an A10G, memory?"
                   ).intent.slots["context_len"] == 4096


# --- a count asked is answered with the count first --------------------------------------

def test_how_many_blocks_of_a100_leads_with_the_count():
    # github.com/meta-llama/llama/issues/389: "blocks" is 块 (cards) translated word for word.
    # Full fine-tuning 70B holds 16 B/param of model states: 70e9 x 16 = 1,120 GB; an
    # A100-80GB holds 81,920 MiB = 85.9 GB, so the states alone need 1,120 / 85.9 = 13.04, i.e.
    # at least 14; activations and the CUDA context add a little more per GPU. A reply in the
    # thread says "roughly 16". The answer leads with that count, not a one-GPU fit.
    answer = respond("How many blocks of 80g a100 are needed to fine-tune the 70b model")
    assert answer.intent.kind == "cluster_size"
    first = answer.markdown.split("\n")[0]
    count = re.search(r"at least \*\*(\d+)× NVIDIA A100 SXM 80GB\*\*", first)
    assert "does not fit" not in first and count and 14 <= int(count[1]) <= 16


def test_vllm_memory_per_gpu_is_diagnosed_as_its_reservation():
    # github.com/vllm-project/vllm/issues/823: 38 GB on each of 2 A100s whatever the TP size,
    # against 26 GB under transformers. vLLM reserves 0.9 of each GPU: on a 40 GB A100,
    # 0.9 x 40,960 MiB x 1,048,576 = 38,654,705,664 B = 38.65 GB; 38 / 38.65 = 0.983.
    answer = respond("I am using a system with 2 A100 GPUs to run Llama2-13b chat model on "
                     "vLLMs.\nIf I use tensor_parallel_size = 2, then the model takes up to 38GB "
                     "on each GPU -- total 76GB.\nIf I use tensor_parallel_size = 1, then the "
                     "model takes up to 38GB on just one GPU.\n\nIf I use huggingface pipeline, "
                     "then the model in total takes around 26GB.\n\nCan anyone explain the "
                     "reason for this discrepancy")
    assert answer.intent.kind == "diagnose"
    assert answer.markdown.startswith("vLLM's reservation on an NVIDIA A100 SXM 40GB")
    step = next(s for s in answer.trace if "vLLM's reservation" in s.label)
    assert step.inputs["expected"].value == pytest.approx(38.654705664, rel=1e-9)
    assert "serving-memory-preallocation" in {c.id for c in answer.citations}


def test_a_trained_models_context_is_its_training_sequence_length():
    # jquesnelle/yarn#23: "OOM error ... on 8*A100 ... GPU requirements for fine-tuning ? (7b
    # model, 64k context)". The 64k is the length it trains at, not a default 4,096. By hand:
    # even with full recompute each of 32 layers keeps its input, 65,536 tokens x 4,096 x 2 B =
    # 0.537 GB, so activations are at least 32 x 0.537 = 17.2 GB per sequence.
    answer = respond("I run into OOM error with default setup on 8*A100 with train.sh script, "
                     "could you please share the GPU requirements for fine-tuning ? (7b model, "
                     "64k context)")
    assert answer.intent.slots["seq_len"] == 65536
    assert "seq_len" not in answer.intent.assumed
    # data parallel: every GPU holds its own sequence's activations
    assert answer.data["memory"]["breakdown_gb"]["activations"] >= 17.2


def test_a_training_time_on_two_gpu_kinds_is_given_for_each():
    # Visual-Agent/DeepEyes#35: "how long it will take to train the 7B model with 32 A100/H100
    # GPUs". The same run on each: the days scale as the dense BF16 peaks (A100 312, H100 989
    # TFLOP/s, the datasheets) times each row's MFU, so A100 days / H100 days =
    # (989 x MFU_H100) / (312 x MFU_A100).
    answer = respond("how long it will take to train the 7B model with 32 A100/H100 GPUs")
    table = answer.markdown.split("\n\n")[1]
    rows = {line.split(" | ")[0].strip("| "): line.split(" | ") for line in table.splitlines()[2:]}
    a100, h100 = rows["NVIDIA A100 SXM 80GB"], rows["NVIDIA H100 SXM 80GB"]
    days = {k: float(r[2]) for k, r in (("a100", a100), ("h100", h100))}
    mfu = {k: float(r[4].strip(" |%")) for k, r in (("a100", a100), ("h100", h100))}
    expected = (989 * mfu["h100"]) / (312 * mfu["a100"])
    assert days["a100"] / days["h100"] == pytest.approx(expected, rel=0.02)  # 3-figure rounding
    assert "NVIDIA H100 SXM 80GB" in answer.markdown.split("\n")[0]  # said in the lead too


def test_tuning_a_sized_model_with_full_parameters_is_full_fine_tuning():
    # meta-llama/llama-cookbook#25: "How many A100 GPUs (40GB) required to tune 13B model ( full
    # parameter )? ... lora is not the best option": neither pre-training nor LoRA.
    answer = respond("How many A100 GPUs (40GB) required to tune 13B model ( full parameter )? "
                     "I want to train llama2 for new language, so lora is not the best option")
    assert answer.intent.slots["workload"] == "full_finetune"
    assert answer.markdown.startswith("Full fine-tuning Llama 2 13B")
    # "A100 GPUs (40GB)": the 40 GB A100, not the 80 GB one
    assert answer.intent.slots["gpu"] == "a100-sxm-40gb"
    assert "**8× NVIDIA A100 SXM 40GB**" in answer.markdown


def test_thousands_of_tokens_are_a_context_not_a_training_budget():
    # huggingface/blog#2345: "KV cache size for FP16 ... at 128k tokens". 128k is one sequence's
    # length (128 x 1,024 = 131,072 tokens), not a training run of 128,000 tokens. By hand for
    # Llama 3.1 70B (config: 80 layers, 8 KV heads of 128): 2 x 80 x 8 x 128 x 2 B = 327,680 B
    # per token; x 131,072 tokens = 42.95e9 B = 42.9 GB.
    answer = respond("Please tell me about the calculation of inference memory requirements. "
                     "KV cache size for FP16 of Llama 3.1 70B at 128k tokens?")
    assert answer.intent.kind == "memory"
    assert answer.intent.slots["context_len"] == 131072 and "tokens" not in answer.intent.slots
    assert answer.data["memory"]["kv_cache_bytes_per_token"] == 327680
    assert answer.data["memory"]["breakdown_gb"]["kv_cache"] == pytest.approx(42.95, abs=0.01)


def test_what_a_fine_tune_costs_is_its_cheapest_plan_not_a_monthly_gpu_price():
    # nomic-ai/gpt4all#45: "I want to determine how costly it is to fine-tune the 7B model".
    # The cost of the job, done the cheapest way (assumed, shown), on the default data size
    # (finetune-dataset-default: 52,000 x 512 x 3 = 79,872,000 tokens), not an H100's month.
    answer = respond("I want to determine how costly it is to fine-tune the 7B model for local "
                     "execution.")
    assert answer.intent.kind == "plan"
    assert "assumed objective: cheapest (not given in the question)" in answer.assumptions
    assert answer.markdown.startswith("Goal: full fine-tuning on 79,872,000 tokens, cheapest.")
    rec = answer.data["plan"]["recommendation"]
    # the run's cost is what the offer bills: GPUs x $/GPU-hour x billed hours
    assert rec["cost_usd"] == pytest.approx(
        rec["billed_gpus"] * rec["usd_per_gpu_hour"] * rec["billed_hours"], rel=0.01)
    assert "a month" not in answer.markdown.split("\n")[0]
