"""Real questions whose reading was right but whose answer lacked a figure a correct answer
contains (tests/data/corpus). Each test quotes its question, gives its address and works the
figure out by hand in a comment; the assertion checks the answer against that hand figure.
"""

from __future__ import annotations

import re

import pytest

from clusterplan.assistant.respond import respond


@pytest.fixture(autouse=True)
def _store(memory_store):
    """Every test here answers from a fresh in-memory catalog."""


def _figures(markdown: str) -> list[float]:
    return [float(x.replace(",", "")) for x in re.findall(r"\d[\d,]*(?:\.\d+)?", markdown)]


# --- a model larger than the cluster: the smallest cluster in whole usual nodes -------------

def test_a_72b_model_on_one_gpu_grows_to_a_whole_node_not_a_crash():
    # https://github.com/hiyouga/LlamaFactory/issues/4753: Qwen2-72B cannot be served on one
    # card. By hand: 72.7e9 params x 2 B = 145.4 GB of BF16 weights > one H100's 85.5 GB
    # (80 GiB), so it needs TP 2 at least; grown by whole 8-GPU nodes that is 8 GPUs.
    answer = respond("Qwen2 72B 推理无法使用多卡加载一个模型\n目前的推理只是单卡上推理，就算是在"
                     "多卡的机器上也只是不同显卡加载不同的模型。但这样对于72B模型而言，无法在单卡上"
                     "推理。有什么办法可以多卡加载同一模型来推理吗？期待您的解答！")
    assert answer.error is None
    assert "**8 GPUs** (1 node)" in answer.markdown
    assert any(abs(x - 145.4) <= 0.01 * 145.4 for x in _figures(answer.markdown))


def test_deepseek_r1_on_one_gpu_grows_to_two_nodes_with_uneven_stages():
    # https://github.com/deepseek-ai/DeepSeek-R1/issues/460: "what is the maximum context
    # length ... that a single GPU can support?" By hand: 671e9 params x 1 B (FP8) = 671 GB;
    # one 8-GPU H100 node holds 8 x 85.9 GB = 687 GB, less the 5% + 0.5 GB overhead per GPU
    # too little, so 2 nodes (16 GPUs). DeepSeek-V3's 61 layers are prime: 2 stages of 31/30.
    answer = respond("**Context Length and Throughput:** For DeepSeek-R1:671b, what is the "
                     "maximum context length and throughput that a single GPU can support?")
    assert answer.error is None
    assert "**16 GPUs** (2 nodes)" in answer.markdown
    assert "61 layers over 2 stages" in answer.markdown
    assert 671.0 in _figures(answer.markdown)


# --- the cluster's memory in the datasheet's terms ------------------------------------------

def test_three_a100_nodes_total_1920_gb_by_the_label():
    # https://github.com/sgl-project/sglang/issues/3640: "three A100 nodes ... each with 8 80GB
    # GPUs". By hand: 3 x 8 x 80 GB = 1,920 GB by the label; the calculators' bytes are
    # 24 x 85.9 GB (80 GiB = 85,899,345,920 B) = 2,061.6 GB. R1 in BF16: 671e9 x 2 = 1,342 GB.
    answer = respond("Hi there, I would like to ask if, based on simple parameter calculation, "
                     "**three** A100 nodes are sufficient for deploying R1？\nAs mentioned in "
                     "the following link, deployment is done using four A100 nodes, each with 8 "
                     "80GB GPUs.")
    assert "the same by the datasheet's label (24 × 80GB) | 1,920" in answer.markdown
    assert "GPU memory of all 24 GPUs | 2,062" in answer.markdown


def test_one_gpu_has_no_label_total():
    # One GPU: the total is the GPU itself, so no second row restates it.
    answer = respond("Can I serve llama-3-8b on one H100?")
    assert "datasheet's label" not in answer.markdown


# --- two measurements of one run: the change as people say it -------------------------------

def test_two_gpus_slower_than_one_states_the_share_of_the_first_time():
    # https://github.com/zai-org/ChatGLM-6B/issues/595: 51.82 s/it on one 3090, 124.55 s/it on
    # two. By hand: 124.55 / 51.82 = 2.4035 -> 240.4% of the single-GPU time per iteration.
    answer = respond("3090双卡训练比单卡慢出一倍以上\n相同数据集，脚本上区别是修改了"
                     "CUDA_VISIBLE_DEVICES=0为CUDA_VISIBLE_DEVICES=0,1。\n3090单卡是51.82s/it\n"
                     "3090双卡是124.55s/it")
    assert "51.82 → 124.55 s per step: 240.4% of the first" in answer.markdown


def test_a_rate_that_fell_states_how_much_fewer():
    # https://github.com/huggingface/peft/issues/664: 2.6 -> 0.5 samples/s with LoRA.
    # By hand: (2.6 - 0.5) / 2.6 = 0.8077 -> 80.8% fewer samples per second.
    answer = respond("in my case ,  ddp=deepspeed, progress=8A100, when using lora, triaing "
                     "speed slow down from 2.6sample/s->0.5sample/s, is it  right?")
    assert "2.6 → 0.5 per second: 80.8% fewer" in answer.markdown


# --- the KV cache at the context the question states ---------------------------------------

def test_a_request_length_range_sizes_the_kv_cache_at_its_top():
    # https://github.com/vllm-project/vllm/issues/9482: Qwen2.5-32B on 2 x A100 80GB, "each
    # query contains around 4000 to 5000 tokens". Qwen2.5-32B config.json: 64 layers, 8 KV
    # heads, head_dim 128. By hand: 2 x 64 x 8 x 128 x 2 B = 262,144 B per token;
    # x 5,000 tokens = 1,310,720,000 B = 1.31 GB for one query.
    answer = respond("I am running the Qwen-2.5 32B model on an A100 80GB * 2 setup. "
                     "Specifically, I am using VLLM to set up the server and sending several "
                     "hundred queries asynchronously from the front-end. Each query contains "
                     "around 4000 to 5000 tokens.\n\nThe issue I am encountering is that only a "
                     "portion of the queries are being processed. Could this be related to the "
                     "VLLM rate limit?")
    assert answer.intent.slots["context_len"] == 5000
    assert "| KV cache at the context named (262,144 bytes per token) | GB |" in answer.markdown
    assert "| 5,000 tokens | 1.31 |" in answer.markdown


def test_two_context_sizes_are_shown_side_by_side_with_their_difference():
    # https://github.com/ollama/ollama/issues/10529: qwen3:14b at num_ctx 16k is bigger than at
    # 8k. Qwen3-14B config.json: 40 layers, 8 KV heads, head_dim 128. By hand:
    # 2 x 40 x 8 x 128 x 2 B = 163,840 B per token; 8,192 tokens x 163,840 B = 1.342 GB,
    # 16,384 tokens = 2.684 GB; the 16k model holds 1.34 GB more.
    answer = respond("I've created two models with different sizes on num_ctx from qwen3 with a "
                     "model card file like\n\n```\nFROM qwen3:14b\nPARAMETER num_ctx SIZE\n```\n\n"
                     "For some reason the 16k model seems to be bigger than the 8k model.")
    assert "| 8,192 tokens | 1.34 |" in answer.markdown
    assert "| 16,384 tokens | 2.68 |" in answer.markdown
    assert "| difference (8,192 tokens) | 1.34 |" in answer.markdown


# --- layers in host RAM on several GPUs: the host holds every GPU's left-out share -----------

def test_deepseek_r1_on_eight_4090s_and_256g_of_ram():
    # https://github.com/kvcache-ai/ktransformers/issues/188: "8 * 4090, 256G memory".
    # By hand: FP8 weights 671e9 x 1 B = 671 GB. The GPUs: 8 x 24GB = 192 GB by the label;
    # with the 256 GB of RAM, 192 + 256 = 448 GB < 671 GB, so FP8 cannot fit in both.
    # 16 of 61 layers on the GPUs leaves 45/61 of the model in RAM: 671 x 45 / 61 = 495 GB
    # (more with the uneven pipeline split), far more than 256 GB.
    answer = respond("How large can the Deepseek R1 model be deployed with 8 * 4090,256G "
                     "memory?\nCPU: 80\nGPU: 8 * 4090\nMemory: 256G")
    assert answer.intent.slots["host_ram_gb"] == 256.0
    off = answer.data["memory"]["offload"]
    assert off["gpu_layers"] == 16 and off["gpus_sharing_the_model"] == 8
    assert 495 <= off["host_ram_needed_gb"] <= 495 * 1.03 and off["host_fits"] is False
    assert "| host RAM given | 256 |" in answer.markdown
    assert "| the same by the GPUs' datasheet label | 448 |" in answer.markdown


@pytest.mark.parametrize(("text", "gb"), [
    ("finetuning llama 2 70b on lora on 8*a-100 (80gb) with 1T memory", 1000.0),  # LF-257
    ("全参数微调Qwen-2.5-instruct 32B，使用了zero-3-offload, 744G CPU memory", 744.0),  # LF-6755
    ("请问40核6133 CPU 、显卡 4*4090D 、256GD4内存有比distill的70B更好的部署选择吗", 256.0),
])
def test_host_memory_as_people_write_it(text, gb):
    # https://github.com/hiyouga/LlamaFactory/issues/257, .../issues/6755,
    # https://github.com/kvcache-ai/ktransformers/issues/458: RAM written as "1T memory",
    # "CPU memory" and "内存" (the host's memory; 显存 is the GPU's).
    assert respond(text).intent.slots["host_ram_gb"] == gb


def test_a_gpus_memory_is_not_host_ram():
    # https://github.com/hiyouga/LlamaFactory/issues/7929: "8 A800 GPUs with 80G memory each"
    # is the GPUs' memory, not the host's.
    answer = respond("I'm using 8 A800 GPUs with 80G memory each to LoRA fine-tune an 8B model")
    assert "host_ram_gb" not in answer.intent.slots


def test_eight_ranks_each_loading_llama_2_70b_need_more_than_a_terabyte():
    # https://github.com/hiyouga/LlamaFactory/issues/257: LoRA on Llama 2 70B, 8 x A100 80GB,
    # 1T of host memory, and loading "needs more than 1T". By hand: 68.98e9 params x 2 B =
    # 137.96 GB per copy (138.37 GB with the LoRA adapters the answer counts in the weights);
    # 8 processes x 138.37 GB = 1,107 GB > 1,000 GB.
    answer = respond("Hi, I also trying to finetuning llama 2 70b on lora on 8*a-100 (80gb) "
                     "with 1T memory. And I even can not load the llama 2 70b to GPU. I find "
                     "this framework will first load 8 model to memory than copy to GPU, and "
                     "this step need more than 1T memory. Can you share your memory amount and "
                     "how you load llama 2 70b to GPU?")
    assert "| every one of 8 processes reading a full copy of the weights | 1,107 |" \
        in answer.markdown
    assert "| host RAM given | 1,000 |" in answer.markdown
    assert "model-loading-ram" in {c.id for c in answer.citations}


# --- a time for several steps is read as the time of one ------------------------------------

def test_steps_that_took_minutes_and_seconds_are_times_per_step():
    # https://github.com/hiyouga/LlamaFactory/issues/3499: ZeRO-3 "训练20个steps需要20分钟",
    # ZeRO-2 "训练20个steps只要17秒". By hand: 20 min x 60 s / 20 = 60 s per step;
    # 17 s / 20 = 0.85 s per step; 0.85 / 60 = 1.4% of the ZeRO-3 time.
    answer = respond("使用llama-facotry默认的配置，微调llama3 8B   执行的这个脚本ds_zero3.sh "
                     "使用3个A100\ndeepspeed使用zero stage3，训练20个steps需要20分钟\n"
                     "deepspeed改成zero stage2，训练20个steps只要17秒\n\n"
                     "为啥zero stage3 比 zero stage2慢这么多")
    assert "60 → 0.85 s per step: 1.4% of the first" in answer.markdown
    assert "no context named" not in answer.markdown
    assert "KV cache at the context" not in answer.markdown


def test_hours_for_a_number_of_steps():
    # https://github.com/unslothai/unsloth/issues/1144: "43 hours for 750 steps on an A100".
    # By hand: 43 x 3600 s / 750 = 206.4 s per step.
    from clusterplan.assistant.parsing.measurements import find

    assert [(m.kind, m.value) for m in find("43 hours for 750 steps on an A100")] == \
        [("step_time", pytest.approx(206.4))]


# --- a layout with no model names the node's link and its rate ------------------------------

def test_a800_node_layout_names_its_400_gb_s_nvlink():
    # https://github.com/deepseek-ai/DeepSeek-V2/issues/35: "8卡SXM（nvlink）的A800 ...
    # 每个卡之间的网络带宽是400GB". The A800's NVLink 3 is cut to 8 links of 25 GB/s per
    # direction: 8 x 25 = 200 GB/s per direction, 2 x 200 = 400 GB/s both ways (A100: 600).
    answer = respond("对于并行方式，推理是选择张量并行还是流水线并行？\n另外我在8卡SXM（nvlink）的"
                     "A800跑也是1500tokens/s，一样用得vllm，每个卡之间的网络带宽是400GB。")
    assert "| NVIDIA NVLink 3 as cut for A800 (8 links per GPU) | 200 | 400 |" in answer.markdown
    assert "nvidia-export-variants" in {c.id for c in answer.citations}


# --- parallel degrees named together: the GPUs they need -------------------------------------

def test_fsdp_tp_cp_pp_degrees_multiply_to_64_gpus():
    # https://github.com/pytorch/torchtitan/issues/831: "Is FSDP 8, TP 2, CP 2, PP 2 different
    # from TP 2 , FSDP 8, , PP 2,  CP 2 ?" By hand: 8 x 2 x 2 x 2 = 64 GPUs either way.
    answer = respond("Thanks,  so FSDP 8  means  dividing  params, gradients and optimizer "
                     "states into 8 parts ?    \n\nIs FSDP 8, TP 2, CP 2, PP 2   different from "
                     "TP 2 , FSDP 8, , PP 2,  CP 2 ?")
    assert answer.intent.kind == "concept"
    assert "FSDP 8 × TP 2 × CP 2 × PP 2 = **64 GPUs**" in answer.markdown
    assert "megatron-lm-2021" in {c.id for c in answer.citations}


# --- every run time stated, in GPU-hours ---------------------------------------------------

def test_two_run_times_on_32_gpus_are_both_in_gpu_hours():
    # https://github.com/xiaoachen98/Open-LLaVA-NeXT/issues/11: 4x8 A100s, vicuna-7b took 12
    # hours, llama3-8b 42 hours. By hand: 12 x 32 = 384 GPU-hours; 42 x 32 = 1,344.
    answer = respond("Hi, I am finetuning llama3-8b on the dataset you provide, with 4x8 A100s, "
                     "I wonder how long does it take on your side to finish the experiment? When "
                     "finetuning vicuna-7b it only took me 12 hours, but llama3-8b took me 42 "
                     "hours. Is this the same case on your end?")
    assert "| GPU-hours of the run | 12.0 h × 32 GPUs | 384 GPU-hours |" in answer.markdown
    assert "| GPU-hours of the run | 42.0 h × 32 GPUs | 1,344 GPU-hours |" in answer.markdown


# --- a dataset's size and passes: the steps, and the time per step the run implies ----------

def test_a_2000_hour_estimate_is_83_5_seconds_per_step():
    # https://github.com/hiyouga/LlamaFactory/issues/7929: 230k samples, 3 epochs, 8 A800s,
    # per-device batch 1 and accumulation 1, "over 2000 hours". By hand: 230,000 x 3 / (8 x 1
    # x 1) = 86,250 steps; 2,000 h x 3,600 s / 86,250 = 83.48 s per step. "230k" counts
    # samples, so no 235,520-token context is read from it.
    answer = respond("I wonder if anyone knows why it takes so long to perform SFT using LoRA in "
                     "Llama Factory.I have 230k data samples, with an epoch of 3, and I'm using 8 "
                     "A800 GPUs with 80G memory each. Both per_device_train_batch_size and "
                     "gradient_accumulation_steps are set to 1. And the model is LLaVA-NEXT 8B. "
                     "The data type is a VQA JSON format file. But why does it show that it will "
                     "take over 2000 hours?")
    assert "| optimizer steps | 230,000 samples × 3 epochs ÷ (8 GPUs × batch 1 × accumulation " \
        "1) | 86,250 |" in answer.markdown
    assert "| time per step the run implies | 2,000 h × 3600 ÷ 86,250 steps | 83.5 s |" \
        in answer.markdown
    assert "context_len" not in answer.intent.slots


# --- vLLM's KV-cache budget from the question's own figures ---------------------------------

def test_vllm_kv_budget_on_an_a40_is_31_gib_not_the_12_57_allocated():
    # https://github.com/guqiong96/Lvllm/issues/35: A40 with 46068 MiB, gpu-memory-utilization
    # 0.95, weights 11.55 G (vLLM logs GiB), 12.57 GiB given to the KV cache. By hand:
    # 46,068 / 1,024 = 44.99 GiB; x 0.95 = 42.74 GiB; - 11.55 = 31.19 GiB at most;
    # 12.57 / 31.19 = 0.403 of it.
    answer = respond("使用环境为NVIDIA A40 ，显存大小46068MiB，gpu-memory-utilization: "
                     "0.95，根据日志模型占用11.55G，按道理46Gx0.95-11.55=32.15,KV cache应该至少可以"
                     "使用30GB的显存，但实际分配给KV cache的只有12.57，"
                     "导致上下文长度只能到53136长度。")
    assert "KV-cache budget: 44.99 GiB × 0.95 − 11.55 GiB of weights = 31.19 GiB" \
        in answer.markdown
    assert "measured **12.6 GiB**" in answer.markdown and "ratio 0.403" in answer.markdown
    assert "assumed h100" not in answer.markdown


# --- ZeRO-3's parameter gather per forward ----------------------------------------------------

def test_zero3_forward_of_a_5b_model_against_its_29_ms_gather():
    # https://github.com/deepspeedai/DeepSpeed/issues/1174: 5B parameters under ZeRO-3, NVLink
    # "600GB/s p2p", forward 480 ms. By hand: 5e9 x 2 B = 10 GB of 16-bit parameters; on 8 GPUs
    # each receives 7/8 x 10 = 8.75 GB; at 600 / 2 = 300 GB/s each way that is 29.2 ms, so
    # 480 ms is 480 / 29.17 = 16.5 times the ideal gather.
    answer = respond("I was using ZeRO3 for training a bert model with 5B parameters. By "
                     "printing out the wall-time, I found the forward time is around 480ms. That "
                     "is much slower than expected, as in ZeRO2 configuration the forward time is "
                     "only about 60ms. This means the forward phase is largely bounded by the "
                     "parameter gathering from all GPUs. \nWhile, because I was using ZeRO3 in a "
                     "machine with nvlinks (600GB/s p2p bandwidth in theory), I would expect the "
                     "parameter gathering is much faster than 480ms.")
    assert "(29.2 ms at 300 GB/s each way)" in answer.markdown
    assert "measured **0.480 s**" in answer.markdown and "ratio 16.5" in answer.markdown
    assert "collective-algorithms" in {c.id for c in answer.citations}


def test_vllm_max_model_len_29k_is_29000_tokens():
    # https://github.com/vllm-project/vllm/issues/10517: "--max-model-len to 29k" on an RTX
    # 3090 with Llama-3.1-8B. vLLM reads a lowercase k as 1,000 (an uppercase K as 1,024).
    # By hand: 2 x 32 layers x 8 KV heads x 128 x 2 B = 131,072 B per token;
    # 29,000 x 131,072 B = 3,801,088,000 B = 3.80 GB.
    answer = respond("+1, It is strange that in my case I can run 20k,  35k, or 45k, but if I "
                     "set --max-model-len to 29k it throws an error\nGPU: RTX 3090\nMODEL: "
                     "meta-llama/Llama-3.1-8B-Instruct")
    assert answer.intent.slots["context_len"] == 29000
    assert "| 29,000 tokens | 3.80 |" in answer.markdown
    assert respond("vllm --max-model-len 29K with llama-3.1-8b").intent.slots["context_len"] \
        == 29 * 1024


def test_five_people_at_128k_context_hold_215_gb_of_kv_cache():
    # https://github.com/vllm-project/vllm/issues/12400: Llama-3.3-70B "to about 5 people with
    # a full context window of 128k tokens". Llama 3.3 70B config.json: 80 layers, 8 KV heads,
    # head_dim 128. By hand: 2 x 80 x 8 x 128 x 2 B = 327,680 B per token; x 131,072 tokens
    # = 42.95 GB per user; x 5 users = 214.7 GB.
    answer = respond("I want to use vLLM to serve Llama-3.3-70b to about 5 people with a full "
                     "context window of 128k tokens. And I'm already confused, because Llama-3.3 "
                     "isn't listed as supported model in the vLLM docs, so I guess, I'd have to "
                     "use Llama-3.1.\n\nBut how do I find out, how much VRAM I need for serving "
                     "the model at 8-bit/6-bit with its full context window? How do I find out, "
                     "how many people could use the model at the same time, how many t/s to "
                     "expect, etc.?")
    assert answer.intent.slots["batch"] == 5
    # 8-bit weights leave vLLM's cache in the 16-bit compute type (cache_dtype "auto")
    assert "**327,680 bytes per token**: **215 GB** for 131,072 tokens × 5 sequences" \
        in answer.markdown


def test_the_kv_table_beside_a_serving_layout_counts_the_users():
    # The same figures beside a serving answer: 327,680 B x 131,072 = 42.95 GB per user;
    # x 5 = 214.7 GB.
    answer = respond("Serve Llama-3.3-70b on 4 H100 to 5 people at 128k context: what "
                     "throughput per layout?")
    assert "| 131,072 tokens | 42.9 |" in answer.markdown
    assert "| 5 sequences × 131,072 tokens | 215 |" in answer.markdown


def test_a_gpu_name_is_no_run_time():
    # "256 H100s" names GPUs: no "256 h × 256 GPUs" row of GPU-hours.
    answer = respond("Pretrain llama-3-70b on 15T tokens with 256 H100s: layout and time?")
    assert "GPU-hours of the run" not in answer.markdown


def test_one_call_s_share_of_the_whole_save_time():
    # https://github.com/deepspeedai/DeepSpeed/issues/1997: save_checkpoint() takes 427 s, of
    # which create_checkpoint_file() takes 373 s. By hand: 373 / 427 = 0.8735 -> 87.4%.
    answer = respond("In one test, the whole save_checkpoint() takes 427 seconds; The second "
                     "create_checkpiont_file() takes 373 seconds, which is 87% of the total "
                     "time. I checked a little bit on the implementation and found it seems like "
                     "we can remove create_checkpiont_file(), at least for zero=1 I used. Any "
                     "comment?")
    assert "| share of the total time | 373 seconds ÷ 427 seconds | 87.4% |" in answer.markdown


# --- a run time alone is judged against a model, so the model is asked ---------------------

@pytest.mark.parametrize("question", [
    "One RTX 3090, 88 hours, is this normal?",  # https://github.com/tloen/alpaca-lora/issues/432
    "43 hours for 750 steps on an A100 seems .... Crazy.",  # unslothai/unsloth/issues/1144
    # https://github.com/deepspeedai/DeepSpeed/issues/7019: the fabric's rate, no model
    "I am using relatively slow communication fabric (less than 100Gbps).\n-> and using 2 "
    "nodes are slower than just using one node (I think it is because of the low bandwidth, "
    "but I'm not certain)\nTherefore less communication is desired between inter nodes.",
])
def test_a_lone_run_time_asks_for_the_model(question):
    answer = respond(question)
    assert answer.clarification is not None and answer.clarification.missing == ["model"]


def test_asking_for_the_model_still_shows_the_time_per_step():
    # unsloth-1144: 43 h x 3,600 s / 750 steps = 206.4 s per step, shown beside the question.
    answer = respond("43 hours for 750 steps on an A100 seems .... Crazy.")
    assert answer.clarification is not None
    assert "| time per step | 43 hours ÷ 750 steps | 206 s |" in answer.markdown


def test_two_times_compared_need_no_model():
    # https://github.com/huggingface/peft/issues/533: the base model answers in 15-20 sec, the
    # LoRA one in 2-3 mins on the same A100: a comparison of two times, answered as it stands.
    answer = respond("Peft LoRA trained model taking lot of time to answer as compared to base "
                     "model(Open Assistant pythia). What can be done to optimize, OpenAssistant "
                     "model is taking 15-20 sec but LoRA fine-tuned taking 2-3 mins on same "
                     "hardware(A100)")
    assert answer.clarification is None


def test_a_measured_collective_rate_needs_no_model():
    # nccl-tests' algbw is checked against the link alone (issue 16's own example).
    answer = respond("nccl-tests shows algbw 250 GB/s on 8 H100 over 2 nodes, is that right?")
    assert answer.clarification is None


def test_a_run_time_beside_other_figures_is_answered():
    # https://github.com/AutoGPTQ/AutoGPTQ/issues/72: GPU utilization 0%, CPU 6000%, 10 hours:
    # the utilisation figures are checked without a model, so nothing is asked.
    answer = respond("@PanQiWei A quick update: VRAM footprint is small and constant now, and "
                     "GPU utilization is 0%. The CPU utilization is now 6000%. The program has "
                     "been running for 10 hours, is it normal? How long do you think this stage "
                     "will take? Thank you!")
    assert answer.clarification is None


def test_a_node_without_nvlink_is_not_said_to_have_it():
    # Consistency, not a corpus question: RTX 4090s talk over PCIe 4.0 x16 (31.5 GB/s each way),
    # so the layout's sentence names PCIe where an NVLink node would name NVLink.
    answer = respond("Should I use tensor parallel or pipeline parallel on 2 nodes with 4 RTX "
                     "4090 each?")
    assert "where PCIe 4.0 x16 carries its two all-reduces" in answer.markdown
    assert "| PCIe 4.0 x16 | 31.5 | 63.0 |" in answer.markdown


def test_an_offload_oom_states_the_host_ram_the_states_need():
    # https://github.com/hiyouga/LlamaFactory/issues/6755: full fine-tune of Qwen2.5-32B with
    # ZeRO-3 offload on one GPU, 744 GB of CPU memory, killed by the OOM killer. By hand with
    # the catalog's 32.5e9 parameters: FP32 master + Adam m, v = 12 B and FP16 gradients 2 B:
    # 14 x 32.5e9 = 455 GB; DeepSpeed's estimator 16 B x 32.5e9 = 520 GB, x 1.5 = 780 GB,
    # more than the 744 GB given.
    answer = respond("一张H100显卡，96G显存，全参数微调Qwen-2.5-instruct 32B，"
                     "使用了zero-3-offload, batch_size为1，744G CPU memory\nexitcode -9\n"
                     "查看dmesg发现OOM\n请问为什么会炸memory呀？理论上应该是够的")
    assert "**455 GB of host RAM per node** against the 744 GB given" in answer.markdown
    assert "DeepSpeed's estimator asks for 780 GB (520 GB before its 1.5× buffer), more than " \
        "the RAM given" in answer.markdown


# --- a run's own pace: the whole epoch from the share done ----------------------------------

def test_thirty_minutes_for_a_hundredth_of_an_epoch_is_fifty_hours():
    # https://github.com/ymcui/Chinese-LLaMA-Alpaca-2/issues/227: "renting a 4090 for 1 day
    # ... maybe 30mins for 0.01 epochs? ... How long will it take?" By hand: 30 min / 0.01 =
    # 3,000 min = 50 h = 2.08 days; the day rented covers 24 / 50 = 48 % of the epoch, so
    # three days of rental at that pace.
    answer = respond("I'm buying the service for renting a 4090 for 1 day. The progress seems "
                     "slow (idk, maybe 30mins for 0.01 epochs?). I don't know if I'm correct. "
                     "How long will it take? I'm worrying I have to expend the renting time to "
                     "more days.")
    assert answer.intent.kind == "training" and answer.clarification is None
    assert "one epoch takes about **50 h (2.08 days)**" in answer.markdown
    assert "| share of one epoch the 24 h cover | 24 h ÷ 50 h (2.08 days) | 48% |" \
        in answer.markdown
    assert "plan for 3 days" in answer.markdown


def test_a_pace_beside_a_named_model_leads_the_estimate():
    # "1% took 2h": 2 h / 0.01 = 200 h = 8.33 days for the whole run, 198 h still to go; the
    # model's own estimate (an assumed data set) follows it, not the other way round.
    answer = respond("fine-tuning llama 2 7b on 8 A100, 1% took 2h, how long will it take?")
    assert answer.markdown.startswith("At 2 h for 1% of the run, the whole run takes about "
                                      "**200 h (8.33 days)**, 198 h (8.25 days) still to go.")
    assert "Set beside that, the estimate: Full fine-tuning Llama 2 7B on" in answer.markdown


def test_a_chinese_pace_in_percent_is_the_share_of_the_run():
    # "跑完1%用了2小时" (1 % done in 2 hours): 2 h / 0.01 = 200 h for the whole run.
    answer = respond("跑完1%用了2小时，总共要多久？")
    assert "**200 h (8.33 days)**" in answer.markdown


# --- a run's reported time against the estimate ---------------------------------------------

MEDICALGPT_421 = ("耗时过长\n\n用大约2B token数据进行13B模型的增量预训练，训练一个epoch，"
                  "不使用peft，8个a800，预计耗时400小时，远超出理论时间，可能是什么原因，正常情况下一般多久")


def test_a_reported_run_time_is_set_against_the_estimate_not_taken_for_a_deadline():
    # https://github.com/shibing624/MedicalGPT/issues/421: 2B tokens, 13B, 8 A800, "预计耗时400
    # 小时 ... 正常情况下一般多久". The assumed 13B shape (40 layers, h 5,120, 4,096 tokens) does
    # 6 x 13e9 + 12 x 40 x 4,096 x 5,120 = 8.807e10 FLOPs a token; in 400 h on 8 x 312 TFLOP/s
    # that is 8.807e10 x 2e9 / (8 x 312e12 x 1.44e6 s) = 4.90 % MFU.
    answer = respond(MEDICALGPT_421)
    assert answer.intent.kind == "training"
    assert "within the" not in answer.markdown  # 400 h is the run's time, not a time allowed
    assert "The **400 h** you report is" in answer.markdown
    assert "an MFU of about **4.9%**" in answer.markdown


def test_a_run_time_checked_gives_the_hours_its_tokens_should_take():
    # The same run asked as a check: its hours at the expected MFU. By hand the ideal (100 %
    # MFU) time is 6 x 13e9 x 2e9 / (8 x 312e12) = 62,500 s = 17.36 h, so the expected hours
    # times the expected MFU must come to 17.36 h.
    answer = respond("13B model, 2B tokens of continued pretraining took 400 hours on 8 A800, "
                     "is this normal?")
    assert answer.intent.kind == "diagnose"
    hours = re.search(r"\| hours 2\.00B tokens take [^|]+\| ([\d.]+) h \| 400 h \|",
                      answer.markdown)
    mfu = re.search(r"\| MFU of the run [^|]+\| ([\d.]+) % \|", answer.markdown)
    assert hours and mfu
    # both figures are shown to 3 significant digits: 0.5 % between them
    assert float(hours[1]) * float(mfu[1]) / 100 == pytest.approx(17.36, rel=0.005)


# --- a file size quoted for a named model --------------------------------------------------

def test_a_30g_file_of_baichuan2_7b_is_its_fp32_weights():
    # https://github.com/FreedomIntelligence/HuatuoGPT-II/issues/10: "7B模型的模型文件大小为30G，
    # 而baichuan2 7B只有14G". Baichuan2-7B (note model-baichuan-2): 32 x (4 x 4096² + 3 x 4096
    # x 11008 + 2 x 4096) + 2 x 125,696 x 4096 + 4096 = 7,505,973,248 parameters; 30e9 B over
    # them is 4.00 B each, FP32; 16-bit is 15.01 GB = 13.98 GiB, the "14G" of the release.
    answer = respond("checkpoint文件过大？\n\n7B模型的模型文件大小为30G，而baichuan2 7B只有14G的"
                     "文件大小，请问这是正常的么")
    assert answer.intent.slots["model"] == "baichuan2-7b"
    assert "**4.00 bytes per parameter** of Baichuan2-7B" in answer.markdown
    assert "its **weights in FP32** (30.0 GB)" in answer.markdown
    assert "15.0 GB (14.0 GiB)" in answer.markdown


# --- "is it possible to load it" beside a GPU split -----------------------------------------

def test_a_70b_gptq_on_two_24_gb_cards_is_a_fit_with_its_whole_kv_cache():
    # https://github.com/huggingface/text-generation-inference/issues/707: "Is it then possible
    # to load Llama v2 70B GPTQ with my setup (two graphics cards with 24 GB VRAM each)? ...
    # GPU split like in Ooba WebUI". Whether it loads is the question, not the split. Llama 2
    # 70B config.json: 80 layers, 8 KV heads of 128; by hand 2 x 80 x 8 x 128 x 2 B = 327,680
    # B a token; x 4,096 tokens (the context assumed) = 1.342 GB for the sequence.
    answer = respond("Is it then possible to load Llama v2 70B GPTQ with my setup (two graphics "
                     "cards with 24 GB VRAM each)?\n\nI thought exllama in TGI supports GPU split "
                     "like in Ooba WebUI. 30GB GPTQ model - 20GB split on GPU1 and 10GB split on "
                     "GPU2.")
    assert answer.intent.kind == "fit" and answer.intent.slots["gpus"] == 2
    assert "| KV cache of the context and batch, all GPUs together | 1.34 |" in answer.markdown


# --- one sequence's decode against the memory bandwidth ------------------------------------

def test_one_sequence_on_an_a800_is_capped_by_its_memory_bandwidth():
    # https://github.com/baichuan-inc/Baichuan-7B/issues/138: "7B模型 ... A800 上单卡 ... 70
    # tokens/s 比较怀疑". The A800 SXM's HBM2e moves 2.039 TB/s (nvidia-export-variants); a 7B
    # model's 16-bit weights are 7e9 x 2 B = 14.0 GB, each read once per token: 2,039 / 14.0 =
    # 145.6 tokens/s for one sequence at most.
    answer = respond("想问一下在A800上测试的吞吐量，换算到推理速度的话有多少tokens/s？\n\n"
                     "7B模型实现了A800 上单卡吞吐的情况下实现了 70tokens/s 比较怀疑，")
    assert answer.intent.kind == "serving"
    assert "Memory bandwidth caps one sequence at **146 tokens/s**" in answer.markdown
    assert "inference-roofline" in {c.id for c in answer.citations}


def test_a_measured_rate_is_checked_at_the_split_and_requests_the_run_used():
    # https://github.com/sgl-project/sglang/issues/2246: "8*a800 ... 8 request threads, tp 8,
    # a 70b model like llama3.1 ... about 500 tokens/second". The check must be at TP 8 with 8
    # requests decoding together, not one request on the best split. By hand the ceiling of
    # that run: 8 x 2.039 TB/s over 141.1 GB of BF16 weights is 115.6 steps a second, each
    # giving 8 tokens: 925 tokens/s at most, so the estimate lies below it.
    answer = respond("[question] i wander what's the normal speed of sglang at a 8 * a800 "
                     "machine.\n\nyes, i only have a 8*a800 machine. i set the 8 request "
                     "threads, tp 8, with a 70b model like llama3.1\nthe final throughput is "
                     "about 500 tokens/second\n\ni wander is this speed normal.")
    row = re.search(r"\| decode tokens/s, 8 requests at once, 8 x a800-sxm-80gb \(TP 8; [^|]+\| "
                    r"([\d,.]+) tokens/s \| 500 tokens/s \|", answer.markdown)
    assert row and 0 < float(row[1].replace(",", "")) < 925


# --- nccl-tests output pasted as it prints -------------------------------------------------

NCCL_TESTS_194 = (
    "all_reduce_perf between NVLINK connected H100 PCIe GPUs lower than A100 SXM4 GPUs\n\n"
    "`./nccl-tests/build/all_reduce_perf -b 1G -e 8G -f 2 -g 2`\n\nH100 PCIe\n...\n"
    "  1073741824     268435456     float     sum      -1   9306.7  115.37  115.37      0   "
    "9291.5  115.56  115.56      0\n"
    "  2147483648     536870912     float     sum      -1    18535  115.86  115.86      0    "
    "18524  115.93  115.93      0")


def test_a_pasted_nccl_table_on_bridged_h100_pcie_is_checked_against_the_bridge():
    # https://github.com/NVIDIA/nccl-tests/issues/194: "-g 2" is two GPUs; the table's busbw at
    # its largest message (2 GiB) is 115.86 GB/s. "NVLINK connected H100 PCIe" is the optional
    # bridge: 12 NVLink 4 links, which NCCL plans at 12 x 20.6 = 247.2 GB/s one way
    # (nccl-link-bandwidths); a 2-rank all-reduce's busbw equals its algbw, so 247 is expected.
    answer = respond(NCCL_TESTS_194)
    assert answer.intent.kind == "diagnose" and answer.intent.slots["gpus"] == 2
    assert "nvlink-bridge-h100-pcie" in answer.intent.slots["links"]
    assert "measured **116 GB/s** against about **247 GB/s** expected" in answer.markdown


def test_an_h200_all_reduce_above_the_wire_rate_names_nvls():
    # https://github.com/NVIDIA/nccl-tests/issues/272: 8 x H200 on NVLink 4 (450 GB/s one way),
    # "peak bandwidth of 475 GB/s": above the line rate, which NVLink SHARP explains
    # (collective-algorithms#nvls-offload). "-b 64k" is a message size, not a context.
    answer = respond("[H200] NCCL's All-reduce Performance Exceed 4th Gen NVLINK Spec.\n\n"
                     "`all_reduce_perf` was performed on a server with 8x H200 connected via "
                     "NVLINK4 as follow:\n```\nsrun -N 1 -n 8 --ntasks-per-node 8 nccl-tests/"
                     "build/all_reduce_perf -b 64k -e 4G -f 2 -g 1\n```\nThe output shows peak "
                     "bandwidth of 475 GB/s")
    assert answer.intent.kind == "diagnose" and "context_len" not in answer.intent.slots
    assert "measured **475 GB/s**" in answer.markdown
    assert "collective-algorithms\\#nvls-offload" in answer.markdown


# --- how many GPUs, with no model named ----------------------------------------------------

def test_how_many_gpus_for_a_fine_tune_with_no_model_compares_sizes_and_methods():
    # https://github.com/stas00/ml-engineering/issues/9: "estimating the number of GPUs required
    # ... full-finetuning or using LoRA or QLoRA" with no model named. By hand on an H100 (85.5
    # GB the driver reports): a 7B full fine-tune keeps 7e9 x 16 B = 112 GB of states, more
    # than one GPU holds, so at least 2; a 70B QLoRA base is 70e9 x 0.52 B = 36 GB, one GPU.
    answer = respond("GPU requirements and cost estimation. One of the key things before getting "
                     "started is estimating the number of GPUs required and the estimated cost "
                     "for doing the fine-tuning. Now there are so many variables like: 1. What "
                     "GPU you use. 2. How many GPUs we are using. 3. Is this full-finetuning or "
                     "using LoRA or QLoRA, etc.")
    assert answer.clarification is None and answer.intent.kind == "cluster_size"
    rows = {tuple(c.strip() for c in line.strip("|").split("|")[:3])
            for line in answer.markdown.splitlines() if line.startswith("| ")}
    fewest_7b_full = next(int(n) for size, work, n in rows if (size, work) == ("7B",
                                                                               "full fine-tune"))
    assert fewest_7b_full >= 2
    assert ("70B", "QLoRA", "1") in rows


# --- a quantisation's average bits per weight ----------------------------------------------

def test_llama_2_70b_exl2_at_4_65_bpw_fits_two_3090s():
    # https://github.com/turboderp-org/exllamav2/issues/91: "2 RTX 3090s with NVLink ... Llama2-70B
    # with EXL2 quants at 4.65 bits per weight". Llama 2 70B config.json: 68.98e9 parameters;
    # by hand 68.98e9 x 4.65 / 8 = 40.1 GB of weights, 20.0 GB on each of two cards, which fits
    # a 3090's 24 GiB (25.8 GB) with room for the KV cache.
    answer = respond("EXL2 quants at 4.65 bits in dual 3090 gpu's. I have 2 RTX 3090s with "
                     "NVLink, 128 GB of DDR4 RAM, and a Ryzen 9 5950x. Will I be able to run the "
                     "Llama2-70B model with EXL2 quants at 4.65 bits per weight using this setup?")
    assert answer.intent.slots["bits_per_weight"] == 4.65
    assert answer.markdown.startswith("Yes, it fits: serving Llama 2 70B in 4.65 bits per weight "
                                      "on 2× NVIDIA GeForce RTX 3090 24GB")
    assert "| weights | 40.1 |" in answer.markdown
    assert "gptq-awq-formats" in {c.id for c in answer.citations}


def test_a_link_rate_quoted_from_a_models_paper_is_a_link_question():
    # https://github.com/deepseek-ai/DeepSeek-V3/issues/479: "an NVLink bandwidth of 160GB/s"
    # in DeepSeek_V3.pdf against H800's "400GB/s". The H800 keeps 8 NVLink 4 links of 25 GB/s
    # each way (nvidia-export-variants): 200 GB/s one way, 400 both ways; 160 / 200 = 80 %.
    answer = respond("Question about NVLink bandwidth mentioned in DeepSeek_V3.pdf\n\nI noticed "
                     "that in the DeepSeek-V3 paper, it mentions an NVLink bandwidth of 160GB/s. "
                     "However, according to the published specifications for H800 GPUs, the "
                     "NVLink bandwidth is often cited as 400GB/s.")
    assert answer.intent.kind == "interconnect"
    assert "**200 GB/s per direction**, 400 GB/s both ways" in answer.markdown
    assert "80.0 %" in answer.markdown


def test_a_measured_busbw_is_also_set_against_the_figure_the_asker_expected():
    # https://github.com/NVIDIA/nccl-tests/issues/232: "busbw is 50, theoretical busbw should be
    # 200" on 2 nodes of 1 H100 with 4 NDR ports each: 4 x 50 GB/s = 200 GB/s one way, the
    # asker's own figure; 50 / 200 = 25 %.
    answer = respond("NCCL Tree allreduce test cannot reach the theoretical bus bandwidth on 2 "
                     "nodes with 4 nics ... 2 nodes allreduce test，1 H100 each node，"
                     "using 4 nics，busbw is 50，theoretical busbw should be 200。")
    assert "(25 % of the 200 GB/s the question expected)" in answer.markdown


# --- cuda-samples' p2p copy test ------------------------------------------------------------

def test_p2p_figures_are_set_against_one_way_or_both_ways_as_the_test_counts_them():
    # https://github.com/NVIDIA/nccl/issues/1264: "bidirectional of 749GB/s out of the marketed
    # theoretical 900GB/s and unidirectional 380GB/s out of 450GB/s theoretical on H100 SXM".
    # p2pBandwidthLatencyTest adds both directions in its bidirectional matrix
    # (nvlink-generations#p2p-test): 749 / (2 x 450) = 83.2 %; one way 380 / 450 = 84.4 %. The
    # "450GB/s theoretical" after "out of" is the yardstick, not a third measurement.
    answer = respond("Only ~783GByte/s out of theoretical 900GB/s HGX H100 SXM Nvlink4 ... Hi! I "
                     "am running the nvidia provided p2p bandwidth test and only achieved "
                     "bidirectional of 749GB/s out of the marketed theoretical 900GB/s and "
                     "unidirectional 380GB/s out of 450GB/s theoretical  on H100 SXM Nvlink4.")
    assert answer.intent.kind == "diagnose"
    assert "both ways added (83.2 %" in answer.markdown
    assert "one way (84.4 %" in answer.markdown
    assert "| 450 GB/s | 450 GB/s |" not in answer.markdown


def test_a_4_gpu_boards_pair_is_checked_against_the_spec_the_asker_gives():
    # https://github.com/NVIDIA/cuda-samples/issues/392: 4 x H100, "bidirectional GPU0-GPU1 =
    # 260.89 (GB/s)", "The spec says GPU0-GPU1 NVlink bandwidth is 300 GB/s": 260.89 / 300 =
    # 87 %; against the GPU's whole 900 GB/s it is 29 %, which a board without NVSwitch explains.
    answer = respond("Seeing the following on a 4xH100-80GB  system \n\nbidirectional \n"
                     "GPU0-GPU0 = 2959.19 GB/s\nGPU0-GPU1 = 260.89 (GB/s) \n\nThe spec says "
                     "GPU0-GPU1 NVlink bandwidth  is 300 GB/s.   Is it possible to close the gap?")
    assert answer.clarification is None
    assert "(87 % of the 300 GB/s the question expected)" in answer.markdown
    assert "no NVSwitch on a 4-GPU board" in answer.markdown


def test_a_chinese_epoch_time_extrapolates_to_the_epochs_asked_even_after_a_sizing():
    # Seen in the terminal: "训练一个epoch用了3小时，跑完5个epoch要多久？" (one epoch took 3 h; how
    # long for 5?) right after a 405B sizing was answered as that 405B. By hand: 3 h x 5 = 15 h,
    # 12 h after the first.
    first = respond("Llama 3.1 405B FP8 on 8x H100: how much KV cache room is left at 32k?")
    answer = respond("训练一个epoch用了3小时，跑完5个epoch要多久？", previous=first.intent)
    assert "model" not in answer.intent.slots
    assert "5 epochs take **15 h**, 12 h still to go." in answer.markdown


def test_is_an_ethernet_link_enough_is_answered_with_its_share_of_the_step():
    # Seen in the terminal: answered as a memory fit. 100 GbE is 12.5 GB/s a port; the layout
    # runs over it (one port a node, as a server has) and the step's exposed communication is
    # given as a share of the step.
    answer = respond("is 100 Gbps Ethernet enough for data parallel training of a 7B model "
                     "across 2 nodes?")
    assert answer.intent.kind == "layout" and answer.intent.slots["links"] == ["eth-100"]
    assert "Over Ethernet 100 GbE (TCP sockets) between the nodes, the step's exposed " \
        "communication is" in answer.markdown
    assert answer.data["parallelism"]["nodes"] == 2


def test_a_download_size_is_the_weights_as_released_not_a_training_checkpoint():
    # Seen in the terminal: "how big is the safetensors download for DeepSeek R1?" was answered
    # with a 9,394 GB training checkpoint. The release is FP8: 671e9 x 1 B = 671 GB of weights;
    # Llama 3 8B's is BF16: 8.03e9 x 2 B = 16.06 GB (its four safetensors files, 16.1 GB).
    r1 = respond("how big is the safetensors download for DeepSeek R1?")
    assert r1.intent.kind == "checkpoint"
    assert "as released in FP8 are about **671 GB**" in r1.markdown
    llama = respond("download size of llama 3 8b?")
    assert "as released in BF16 are about **16.1 GB**" in llama.markdown


def test_the_biggest_model_a_4090_can_qlora_is_searched_in_the_catalog():
    # Seen in the terminal: answered with a note about sizing a cluster. QLoRA's paper fits a
    # 33B model on one 24 GB GPU (qlora-paper); by hand a 34.4B base in NF4 is 34.4e9 x 0.516 B
    # = 17.7 GB of weights, under a 4090's 25.8 GB, while the catalog model just above needs
    # more than the card holds.
    answer = respond("I have a single RTX 4090 and 64GB RAM. What's the biggest model I can "
                     "fine-tune with QLoRA?")
    assert answer.intent.kind == "fit" and answer.clarification is None
    rows = [line for line in answer.markdown.splitlines() if line.endswith("| yes |")
            or line.endswith("| no |")]
    fits = [float(r.split("|")[2]) for r in rows if r.endswith("| yes |")]
    above = [float(r.split("|")[3]) for r in rows if r.endswith("| no |")]
    assert fits and 30 <= fits[0] <= 40  # a 30-40B model, as the QLoRA paper's 33B
    assert above and above[0] > 25.8


def test_zero_2_and_zero_3_named_are_sized_side_by_side():
    # Seen while trying the app: only one stage was sized. By hand, ZeRO-3 also shards the 16-bit
    # weights: 13e9 x 2 B x (1 - 1/8) = 22.75 GB less per GPU on 8 GPUs, 23.89 GB with the 5 %
    # the allocator fragments of what is allocated (gpu-memory-overhead#fragmentation), less
    # the layers it gathers at a time (13e9 / 40 layers x 2 B = 0.65 GB each): 22.5 to 23.9.
    answer = respond("What's the difference between ZeRO-2 and ZeRO-3 in memory for a 13B model "
                     "on 8 A100?")
    rows = dict(re.findall(r"\| (ZeRO-[23]) \| ([\d.]+) \|", answer.markdown))
    assert set(rows) == {"ZeRO-2", "ZeRO-3"}
    gap = float(rows["ZeRO-2"]) - float(rows["ZeRO-3"])
    assert 22.5 <= gap <= 23.95


def test_vllms_kv_room_on_a_card_known_by_its_memory_is_checked():
    # Seen while trying the app. A "24GB card" holds 24 GiB = 25.77 GB; vLLM keeps 0.9 of it,
    # 23.19 GB, less Llama 3 8B's 8.03e9 x 2 B = 16.06 GB of BF16 weights: 7.13 GB before the
    # runtime's overhead. That overhead is at least the 0.5 GB CUDA context and at most that
    # plus 5 % of the 23.19 GB in use (gpu-memory-overhead): 7.13 - 0.5 = 6.63 down to
    # 7.13 - 1.66 = 5.47 GB of room expected, against the 2.5 GiB (2.68 GB) it reported.
    answer = respond("vLLM says KV cache is only 2.5GiB with Llama 3 8B on a 24GB card, why?")
    assert answer.intent.kind == "diagnose"
    found = re.search(r"measured \*\*2\.68 GB\*\* against about \*\*([\d.]+) GB\*\* expected",
                      answer.markdown)
    assert found, answer.markdown
    assert 5.47 <= float(found.group(1)) <= 6.63


def test_a_training_speed_comparison_of_two_gpus_uses_their_compute():
    # "A100和H100训练速度差多少？" (how much faster does an H100 train): dense BF16 989.4 against
    # 312 TFLOP/s (the two datasheets) is 3.17x; memory bandwidth (decoding's yardstick) would
    # say 1.64x.
    answer = respond("A100和H100训练速度差多少？")
    assert "at the same MFU it trains about **3.17×** as fast per GPU" in answer.markdown


def test_a_maximum_batch_asked_is_the_kv_room_in_sequences():
    # By hand: an A100 40GB holds 40 GiB = 42.95 GB; Llama 2 7B's 6.74e9 x 2 B = 13.48 GB of
    # FP16 weights leave 29.47 GB, less at least the 0.5 GB CUDA context and at most that plus
    # 5 % of the 42.95 GB in use (gpu-memory-overhead): 26.82 to 28.97 GB. One 2,048-token
    # sequence keeps 2 x 32 layers x 32 KV heads x 128 x 2 B = 524,288 B a token, 1.074 GB:
    # floor(26.82 / 1.074) = 24 to floor(28.97 / 1.074) = 26 sequences.
    answer = respond("What is the maximum batch size for Llama 2 7B inference on an A100 40GB at "
                     "2048 context?")
    found = re.search(r"a batch of at most \*\*(\d+) sequences\*\*", answer.markdown)
    assert found, answer.markdown
    assert 24 <= int(found.group(1)) <= 26


def test_the_optimizer_asked_is_a_training_jobs_memory():
    # Adam keeps 12 B a parameter (FP32 master, m and v: zero-paper#k-12): 7e9 x 12 = 84 GB
    answer = respond("How much memory does the optimizer take for Adam on a 7B model?")
    assert answer.intent.slots["workload"] == "full_finetune"
    assert "optimizer states 84.0 GB" in answer.markdown


def test_the_mfu_of_a_stated_training_rate_is_worked_out():
    # By hand: 8,000 tokens/s x 6 x 8.03e9 FLOPs a token / 989.4e12 = 38.96 % MFU (the
    # 6N yardstick of mfu-calibration#mfu-definition) on an H100's dense BF16 peak.
    answer = respond("what's the MFU if 8 H100 train Llama 3 8B at 8000 tokens/s per GPU?")
    assert answer.intent.kind == "diagnose"
    assert "measured **39.0 %**" in answer.markdown


def test_a_pace_reported_as_a_complaint_still_leads_the_answer():
    # github.com/philschmid/sagemaker-huggingface-llama-2-samples/issues/15: "even after 24
    # hours it only managed to go up to 7% on ml.g4dn.12xlarge": 24 h / 0.07 = 342.9 h for the
    # whole run (14.3 days), 342.9 - 24 = 318.9 h still to go; the 4 T4 of the instance then
    # hold no full fine-tune of Llama 2 13B, which the estimate says after the pace.
    answer = respond("So I was fine tuning LLAMA2 13B on a different dataset. The training was "
                     "running great but it was very slow and even after 24 hours it only managed "
                     "to go up to 7% on ml.g4dn.12xlarge instance. Can anyone please guide me "
                     "how I can increase the speed of training.")
    assert answer.markdown.startswith("At 24 h for 7% of the run, the whole run takes about "
                                      "**343 h (14.3 days)**, 319 h (13.3 days) still to go.")
    assert "Set beside that, the estimate: No layout fits on 4× NVIDIA Tesla T4" \
        in answer.markdown


def test_an_oom_on_gpus_that_hold_the_job_only_sharded_names_replication():
    # github.com/QwenLM/Qwen/issues/916: "单机8*32GV100 QLora微调 Qwen-72B-Chat-Int4仍然OOM".
    # Qwen-72B in 4 bits is about 72.3e9 x 0.5 B ~ 36 GB (41.4 GB with the NF4 constants and
    # the 16-bit embeddings), already more than a V100's 32 GiB = 34.4 GB: only sharded over
    # the 8 GPUs does it fit, and kept whole on each (DDP, ZeRO-1/2) it cannot.
    answer = respond("单机8*32GV100 QLora微调 Qwen-72B-Chat-Int4仍然OOM")
    assert (answer.intent.slots["gpu"], answer.intent.slots["gpus"]) == ("v100-sxm2-32gb", 8)
    [step] = [s for s in answer.trace if s.label.startswith("the whole model on each GPU")]
    assert step.inputs["per GPU, whole model"].value > 36 > 34.4
    assert "more GPUs do not help" in answer.markdown


def test_how_many_users_is_the_sequences_the_kv_cache_holds_at_once():
    # github.com/chatchat-space/Langchain-Chatchat/issues/2684: ChatGLM3-6B on one A10. Its
    # KV cache is 28 layers x 2 (K, V) x 2 groups x 128 x 2 B = 28,672 B a token, 0.117 GB
    # for a 4,096-token user; the spare room (about 9.9 GB) holds some 84 more of them, so
    # the count is at most 85, less as activations grow with the batch.
    answer = respond("A10 24G使用chatglm3-6B，大概能够满足什么量级的用户数量正常使用？"
                     "多个用户同时提问会导致显存占用明显增大吗？")
    assert answer.intent.kind == "serving"
    [step] = [s for s in answer.trace if s.label == "sequences the KV cache holds at once"]
    assert 60 <= step.result.value <= 85
    assert "0.117 GB per 4,096-token sequence" in answer.markdown
    each = float(re.search(r"each gets about \*\*([\d.]+) tokens/s", answer.markdown)[1])
    assert each < 48.1  # one sequence alone is capped at 600 GB/s / 12.5 GB = 48 tokens/s


def test_a_long_prompts_first_token_is_its_prefill_at_compute():
    # github.com/sgl-project/sglang/issues/922: Llama 3.1 70B AWQ on one RTX A6000, 16K RAG
    # prompts, "Time for first token latency is around 15 seconds". By hand: 16,384 x (2 x
    # 70.55e9 + 2 x 80 layers x 16,384 x 8,192) = 16,384 x 1.6258e11 = 2.664e15 FLOPs; at the
    # A6000's dense 16-bit peak of 154.8 TFLOP/s (AWQ weights are dequantised) that is 17.2 s,
    # so 15 s is below the floor.
    answer = respond("I am experimenting with SGLang and vLLM for long context(16K) RAG "
                     "application. I am using single Nvidia A6000 48GB GPU and llaam3.1 70b awq 4 "
                     "bit model. Currently I am seeing Time for first token latency is around 15 "
                     "seconds which is very high.")
    [step] = [s for s in answer.trace if s.label == "time to first token: the prompt's prefill"]
    flops = step.inputs["prompt"].value * step.inputs["FLOPs a prompt token"].value
    assert flops == pytest.approx(2.664e15, rel=0.002)
    assert "(17.2 s even at the dense peak)" in answer.markdown
    assert "The 15.0 s stated is below even that floor" in answer.markdown


def test_two_tp_degrees_compared_in_serving_are_set_side_by_side():
    # github.com/vllm-project/vllm/issues/16300: QwQ-32B on 8 A100 80GB, "tp=8 throughput is
    # lower than tp=4". Its 65 GB of BF16 weights fit 4 GPUs (16.3 GB each), so tp 4 runs two
    # replicas: twice the sequences at once, each paying half tp 8's all-reduce partners.
    answer = respond("I have noticed a performance issue when increasing --tensor-parallel-size: "
                     "When setting tp=8, the model throughput under high request load is lower "
                     "than when using tp=4. gpu: 8*A100(80GB) model: QwQ-32B")
    assert answer.intent.kind == "layout"
    said = re.search(r"tp 8 \(1 replica\) ([\d.]+) tokens/s in all.*tp 4 \(2 replicas\) "
                     r"([\d.]+) tokens/s in all", answer.markdown)
    assert said and float(said[2]) > float(said[1])
    assert "run 2 replicas of tp 4" in answer.markdown


def test_a_quoted_training_size_is_explained_as_bytes_a_parameter():
    # github.com/tatsu-lab/stanford_alpaca/issues/322: "fine-tuning a 7B model requires about
    # 7 x 4 x 4 = 112 GB of VRAM. Could you explain how this calculation is derived?" The 112
    # is the model states: (2 + 2 + 4 + 4 + 4) = 16 bytes a parameter x 7e9 = 112e9 B; the
    # 112 GB is what the job needs, not the GPU the asker has.
    answer = respond('In the README it states: "Addressing OOM - Naively, fine-tuning a 7B model '
                     'requires about 7 x 4 x 4 = 112 GB of VRAM." Could you please explain in '
                     'detail how this calculation is derived?')
    assert answer.intent.kind == "memory" and "gpu_memory_gb" not in answer.intent.slots
    assert answer.markdown.startswith("The 112 GB quoted is the model states alone: **16.0 "
                                      "bytes a parameter** × 7.00B = 112 GB")


def test_a_disk_filled_by_a_checkpoint_conversion_is_set_against_one_checkpoint():
    # github.com/bigscience-workshop/Megatron-DeepSpeed/issues/343: converting
    # bigscience/bloom-7b1-optimizer-states to a universal checkpoint fills a 3.5 TB disk.
    # BLOOM 7B1 has 7.07e9 parameters: 14 bytes each (BF16 weights, FP32 master, Adam m and
    # v) = 99.0 GB for one checkpoint; 3,500 / 99.0 = 35.4 copies.
    answer = respond("I am attempting to convert [bigscience/bloom-7b1-optimizer-states]"
                     "(https://huggingface.co/bigscience/bloom-7b1-optimizer-states) to am "
                     "universal checkpoint. At your step 3, the temp files generated by "
                     "ds_to_universal.py run out of my 3.5TB disk. Have you met the problem?")
    assert answer.intent.slots["model"] == "bloom-7b1"
    assert "A full training checkpoint of BLOOM 7B1 (BF16 weights and optimizer states) is " \
           "**99.0 GB**. The 3,500 GB quoted is 35.4× that" in answer.markdown


def test_a_run_time_on_an_instance_is_priced_even_while_the_model_is_asked():
    # github.com/databrickslabs/dolly/issues/15: "Alpaca took around 3 hours on a
    # p4d.24xlarge ... trying to gauge how much this will cost". p4d.24xlarge is 8 A100 40GB
    # (aws-instance-gpus): 3 h x 8 = 24 GPU-hours, priced at the cheapest on-demand rate on
    # record, before the unnamed model's own estimate is asked for.
    answer = respond("Anyone know how long Dolly took to train on a p4d.24xlarge instance? I know "
                     "that Alpaca took around 3 hours to train on an identical instance, so now "
                     "I'm wondering how long it takes to train Dolly. Trying to gauge how much "
                     "this will cost.")
    [step] = [s for s in answer.trace if s.label == "cost of the run's GPU-hours"]
    assert step.inputs["GPU-hours"].value == 24
    assert step.result.value == pytest.approx(24 * step.inputs["rate"].value, abs=0.01)
    assert "| GPU-hours of the run | 3.00 h × 8 GPUs | 24.0 GPU-hours |" in answer.markdown
