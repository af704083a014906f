"""The parser: entities, intents, defaults, follow-ups and what is missing, as a user types them."""

from __future__ import annotations

import pytest

from clusterplan.assistant.answer import Intent
from clusterplan.assistant.parsing.parse import parse
from clusterplan.db.active import catalog


@pytest.fixture
def read(memory_store):
    """parse() against the shipped catalog."""
    def _read(text: str, previous: Intent | None = None) -> Intent:
        return parse(text, catalog(), previous)
    return _read


@pytest.mark.parametrize("text, model", [
    ("serve Llama 3 70B", "llama-3-70b"),
    ("llama3 70b please", "llama-3-70b"),
    ("fine-tune llama-3-70b", "llama-3-70b"),
    ("Llama 3.1 405B on H200", "llama-3.1-405b"),
    ("Mixtral 8x7B on 2 GPUs", "mixtral-8x7b"),
    ("Can an 8xH100 node serve Maverick?", "llama-4-maverick"),
    ("train a 175B GPT", "gpt-3-175b"),
])
def test_catalog_models_by_name_alias_or_size_and_family(read, text, model):
    assert read(text).slots["model"] == model


@pytest.mark.parametrize("text, model, reading", [
    ("serve lama 3 70b", "llama-3-70b", "read 'lama 3 70b' as llama-3-70b"),
    ("fit mixtrl 8x7b on 2 H100", "mixtral-8x7b", "read 'mixtrl 8 x 7b' as mixtral-8x7b"),
    ("train a 175B GPT", "gpt-3-175b", "read '175B' with 'gpt' as gpt-3-175b"),
])
def test_a_typo_or_a_size_and_family_is_read_as_a_catalog_model_and_said(read, text, model,
                                                                        reading):
    intent = read(text)
    assert intent.slots["model"] == model and reading in intent.readings


def test_another_generation_of_a_family_is_not_read_as_the_catalog_one(read):
    # Llama 5 70B is not Llama 3 70B (the catalog's): it stays a generic 70B model.
    slots = read("memory for llama 5 70b").slots
    assert "model" not in slots and slots["params_b"] == 70
    # Llama 2 70B is in the catalog: it is read as itself, never as Llama 3 70B.
    assert read("memory for llama 2 70b").slots["model"] == "llama-2-70b"


@pytest.mark.parametrize("text, params_b", [
    ("a 70B model", 70.0), ("a 7b model", 7.0), ("a 405-billion parameter model", 405.0),
    ("a 1.8 trillion parameter model", 1800.0),
])
def test_bare_sizes_are_billions_of_parameters(read, text, params_b):
    slots = read(f"memory for {text}").slots
    assert "model" not in slots
    assert slots["params_b"] == pytest.approx(params_b)


@pytest.mark.parametrize("text, gpu, gpus", [
    ("on 8x H100", "h100-sxm", 8),
    ("on 2x4090", "rtx-4090", 2),
    ("on a single H100 80GB", "h100-sxm", 1),
    ("with 1024 A100s", "a100-sxm-80gb", 1024),
    ("with 64 B200s", "b200-sxm", 64),
    ("on 4 MI300X", "mi300x", 4),
    ("on h100 sxm x 4", "h100-sxm", 4),
])
def test_gpus_and_counts(read, text, gpu, gpus):
    slots = read(f"does llama 3 8b fit {text}?").slots
    assert (slots["gpu"], slots["gpus"]) == (gpu, gpus)


def test_node_layouts_multiply_out(read):
    slots = read("Can two 8xH100 nodes train llama 3 70b?").slots
    assert (slots["nodes"], slots["gpus_per_node"], slots["gpus"]) == (2, 8, 16)
    one = read("Does a 70B model fit on one 8xH100 node?").slots
    assert (one["nodes"], one["gpus"]) == (1, 8)
    split = read("split a 70B model across 16 H100s in 2 nodes").slots
    assert (split["gpus"], split["nodes"]) == (16, 2)


@pytest.mark.parametrize("text, gpus", [
    ("fine-tune llama 3 8b on 8*A100", 8),
    ("serve llama 3 70b on H100 80G *4", 4),
    ("serve llama 3 70b on H800 PCIE * 2", 2),
    ("train llama 3 8b on 2 nodes x 4 A100", 8),
    ("train llama 3 8b on 2Nodes * 8 A100 80G", 16),
    ("serve llama 3 70b with 2 H100*8 machines", 16),
    ("fine-tune llama 3 8b with 4x8 A100s", 32),
    ("I have 2 nodes and each of them has 4 H100", 8),
    ("serve llama 3 70b on three A100 nodes", 24),
    ("用两张4090跑llama 3 8b", 2),
    ("2台H100*8部署llama 3 70b", 16),
    ("4台8卡训练llama 3 8b", 32),
    # hiyouga/LlamaFactory#9312: "4机32卡 H20" is four machines, thirty-two cards in all
    ("qwen3-235b模型lora微调，4机32卡 H20", 32),
    # hiyouga/LlamaFactory#4620: "2机2卡训练比1机2卡慢了10倍": two machines, one card each
    ("使用A10对qwen-14b-chat进行Lora微调，2机2卡训练比1机2卡慢了10倍", 2),
    ("2台A800x80G, 每台8卡, 能全量微调llama2-70b吗", 16),
    ("两个节点，每个节点8张A100，训练llama 3 8b需要多久", 16),
    ("我有2台服务器, 每台服务器有4张3090", 8),
    # huggingface/text-generation-inference#707
    ("Is it then possible to load Llama v2 70B GPTQ with my setup (two graphics cards with 24 "
     "GB VRAM each)?", 2),
    ("在8卡A800上微调llama 3 8b", 8),
    ("4090双卡比单卡慢", 2),
    ("llama 3 70b on 8 * 4090, CPU: 80", 8),
    ("serve llama 3 70b on a pair of H100s", 2),
    ("serve llama 3 8b on dual 4090", 2),
])
def test_counts_as_people_type_them(read, text, gpus):
    intent = read(text)
    assert intent.slots.get("gpus", intent.assumed.get("gpus")) == gpus


@pytest.mark.parametrize("text, workload", [
    ("fine-tune llama 3 8b without peft on one H100", "full_finetune"),
    ("full fine-tune llama 3 8b, not lora", "full_finetune"),
    ("fine-tune llama 3 8b on A100, lora is not the best option", "full_finetune"),
    ("llama 3 8b 微调需要多少显存", "full_finetune"),
    ("llama 3 8b 推理需要多少显存", "inference"),
    ("llama 3 8b 预训练需要多少显存", "pretrain"),
])
def test_workloads_ruled_out_are_not_read_and_chinese_words_are(read, text, workload):
    assert read(text).slots["workload"] == workload


@pytest.mark.parametrize("text, kind", [
    ("llama 3 8b 推理需要多少显存", "memory"),
    ("两张4090够不够跑llama 3 8b", "fit"),
    ("部署llama 3 70b需要几张H100", "cluster_size"),
])
def test_chinese_intent_words(read, text, kind):
    assert read(text).kind == kind


@pytest.mark.parametrize("text, params_b", [
    ("未量化的14b最低要什么显卡", 14), ("一个72B的模型要多少显存", 72),
])
def test_sizes_beside_chinese_or_a_family_name(read, text, params_b):
    assert read(text).slots["params_b"] == params_b


# "Qwen-72B" and "qwen14b" are the names of the first-generation Qwen models themselves
# (note model-qwen-1), read as those, never as Qwen1.5 of the same size. From real threads:
# github.com/chatchat-space/Langchain-Chatchat/issues/3613, hiyouga/LLaMA-Factory/issues/4711,
# QwenLM/Qwen/issues/1297.
@pytest.mark.parametrize("text, model", [
    ("想用两张3090跑qwen72B-int4可行吗？", "qwen-72b"), ("qwen14b 的显存", "qwen-14b"),
    ("Qwen-72B合并LoRA权重自动被killed", "qwen-72b"), ("qwen 7B 推理只需要8.2G", "qwen-7b"),
    ("Qwen1.5-72B-Chat 推理", "qwen1.5-72b"),
])
def test_first_generation_qwen_is_read_by_its_own_name(read, text, model):
    intent = read(text)
    assert intent.slots["model"] == model and "params_b" not in intent.slots


# A typo keeps its numbers: "qwen3:14b" (github.com/ollama/ollama/issues/10529) is a Qwen3 the
# catalog lacks, not the Qwen-14B one digit away; "qwen1.5-14b" is not Qwen-14B either.
@pytest.mark.parametrize("text", ["FROM qwen3:14b with num_ctx 16384, how much memory?",
                                  "qwen1.5-14b模型用一张80g的A100爆显存了"])
def test_a_model_name_one_version_away_is_not_read_as_it(read, text):
    assert read(text).slots.get("model") not in {"qwen-14b"}


@pytest.mark.parametrize("text, kind", [
    ("the saved llama 3 8b model is 30 GB after fine-tuning", "checkpoint"),
    ("merging the LoRA of llama 3 70b runs out of memory", "checkpoint"),
    ("llama 3 70b 合并LoRA权重时显存不足", "checkpoint"),
    ("It is weird: llama 3 8b with 4-bit uses more VRAM than bf16", "diagnose"),
    ("llama 3 8b int4运行，量化似乎没有起作用", "diagnose"),
    ("llama 3 8b AWQ uses the same amount of GPU memory as bf16", "diagnose"),
    ("用A100-80G训练llama 3 8b为什么还是需要40小时", "diagnose"),
])
def test_saved_weights_and_symptoms_are_read_as_such(read, text, kind):
    assert read(text).kind == kind


@pytest.mark.parametrize("text, gpu", [
    ("fine-tune llama 3 8b on 8 40G A100", "a100-sxm-40gb"),
    ("fine-tune llama 3 8b on A100 (40GB)", "a100-sxm-40gb"),
    ("用4张40G的A100微调llama 3 8b", "a100-sxm-40gb"),
    ("fine-tune llama 3 8b on V100 16GB", "v100-sxm2-16gb"),
    ("fine-tune llama 3 8b on A100 80G", "a100-sxm-80gb"),
])
def test_a_memory_size_beside_a_gpu_picks_that_variant(read, text, gpu):
    assert read(text).slots["gpu"] == gpu


@pytest.mark.parametrize("text, model", [
    ("run TheBloke/Mixtral-8x7B-Instruct-v0.1-AWQ on 2 x A10", "mixtral-8x7b"),
    ("kv cache of Qwen2.5-7B-Instruct-GPTQ-Int8 per token", "qwen2.5-7b"),
])
def test_a_repository_name_starting_with_a_model_name_is_that_model(read, text, model):
    assert read(text).slots["model"] == model


def test_a_variant_not_in_the_catalog_is_not_read_as_its_base(read):
    assert read("fine-tune Qwen2-VL-72B-Instruct on 8 A100").slots.get("model") != "qwen2-72b"


def test_a_typo_in_a_gpu_name_is_read_and_reported(read):
    intent = read("price of an H10O")
    assert intent.slots["gpu"] == "h100-sxm"
    assert "read 'H10O' as h100-sxm" in intent.readings


def test_a_lone_a_before_a_number_is_not_an_a100(read):
    assert "gpu" not in read("I have a 100 GB dataset to copy at 10 GB/s").slots


@pytest.mark.parametrize("text, precision", [
    ("in BF16", "bf16"), ("at FP8", "fp8"), ("in 4-bit", "int4"), ("int4 weights", "int4"),
    ("nf4", "nf4"), ("int8", "int8"), ("fp16", "fp16"),
])
def test_precisions(read, text, precision):
    assert read(f"serve llama 3 70b {text}").slots["precision"] == precision


@pytest.mark.parametrize("text, workload", [
    ("pre-train", "pretrain"), ("pretrain", "pretrain"), ("train", "pretrain"),
    ("fine-tune", "full_finetune"), ("do full fine-tuning of", "full_finetune"),
    ("LoRA fine-tune", "lora"), ("QLoRA fine-tune", "qlora"), ("serve", "inference"),
    ("run inference on", "inference"),
])
def test_workloads(read, text, workload):
    assert read(f"how much memory to {text} llama 3 8b").slots["workload"] == workload


def test_qlora_four_bit_is_nf4_and_eight_bit_adam_is_an_optimizer(read):
    assert read("QLoRA llama 3 70b in 4-bit").slots["precision"] == "nf4"
    slots = read("train llama 3 8b with 8-bit Adam").slots
    assert slots["optimizer"] == "adamw_8bit" and "precision" not in slots


def test_quantities_with_units(read):
    slots = read("all-reduce 140 GB over 8 H100s at 400 Gb/s").slots
    assert slots["size"] == "140 GB" and slots["bandwidth"] == "400 Gb/s"
    assert read("Convert 400 Gb/s to GB/s").slots["to_unit"] == "GB/s"
    assert read("write 10 TB at 10 GB/s").slots["size"] == "10 TB"


def test_context_tokens_concurrency_and_batches(read):
    slots = read("KV cache for llama 3 70b at 32k context and 16 concurrent requests").slots
    # 32k context = 32 x 1024 = 32,768 tokens (model cards count k as 1024 here)
    assert (slots["context_len"], slots["batch"]) == (32768, 16)
    slots = read("train an 8B model on 15T tokens, seq len 4096, micro batch 4").slots
    assert slots["tokens"] == 15e12
    assert (slots["seq_len"], slots["micro_batch"]) == (4096, 4)


def test_money_durations_utilisation_providers(read):
    slots = read("8 H100s for 3 months at 60% utilization with a $50k budget").slots
    assert slots["hours"] == 3 * 730  # 730 hours a month, as the pricing tool counts
    assert slots["utilization"] == pytest.approx(0.6)
    assert slots["usd"] == 50_000
    assert read("what does an H100 cost per month").slots["period"] == "month"


@pytest.mark.parametrize("text, kind", [
    ("How much GPU memory do I need to serve Llama 3 70B in BF16?", "memory"),
    ("Does a 70B model fit for full fine-tuning on one 8xH100 node?", "fit"),
    ("How many H100s do I need to pre-train a 405B model?", "cluster_size"),
    ("How should I split a 70B model across 16 H100s in 2 nodes?", "layout"),
    ("Why shouldn't tensor parallelism cross the node boundary?", "concept"),
    ("How long does an all-reduce of 140 GB take over NVLink on 8 H100s?", "interconnect"),
    ("Convert 400 Gb/s to GB/s", "convert"),
    ("What does an 8xH200 node cost per month on-demand?", "pricing"),
    ("How long and how much to train an 8B model on 15T tokens with 256 H100s?", "training"),
    ("H100 vs B200 for training a 70B model", "gpu_compare"),
    ("How many tokens per second can 8 H100s serve llama 3 70b at?", "serving"),
    ("How big is a full checkpoint of a 70B model with Adam?", "checkpoint"),
    ("Plan a cluster to fine-tune Mixtral 8x7B", "plan"),
])
def test_intents(read, text, kind):
    assert read(text).kind == kind


def test_defaults_are_assumed_not_filled_in_silently(read):
    intent = read("How much GPU memory do I need to serve Llama 3 70B?")
    assert intent.assumed == {"precision": "bf16", "context_len": 4096, "batch": 1}
    assert "precision" not in intent.slots
    training = read("memory to pretrain llama 3 8b").assumed
    assert training == {"precision": "bf16", "seq_len": 4096, "micro_batch": 1,
                        "optimizer": "adamw"}


@pytest.mark.parametrize("text, missing", [
    ("How much GPU memory do I need?", ["model"]),
    ("asdf qwerty", ["question"]),
])
def test_what_cannot_be_assumed_is_missing(read, text, missing):
    assert read(text).missing == missing


@pytest.mark.parametrize("text, assumed", [
    ("Does llama 3 70b fit?", {"gpu": "h100-sxm", "gpus": 1}),
    ("How should I split llama 3 70b?", {"gpu": "h100-sxm", "gpus": 8}),
    # a named published model: its own pretraining tokens, Llama 3's 15T (pretraining-tokens)
    ("How long to train llama 3 8b on H100s?", {"gpus": 8, "tokens": 15e12}),
    # known only by its size: 20 tokens per parameter, 20 x 7e9
    ("How long to train a 7B model on H100s?", {"gpus": 8, "tokens": 140e9}),
    ("How many H100s do I need and how long on 1B tokens for llama 3 8b?", {"gpus": 8}),
    ("How much does it cost per month?", {"gpu": "h100-sxm", "gpus": 1}),
])
def test_what_has_a_sensible_default_is_assumed_and_shown_not_asked(read, text, assumed):
    intent = read(text)
    assert intent.missing == []
    for name, value in assumed.items():
        assert intent.assumed[name] == pytest.approx(value)


def test_follow_ups_change_one_slot(read):
    first = read("How much memory to serve llama 3 70b on one H100?")
    h200 = read("and on H200?", first)
    assert (h200.kind, h200.slots["gpu"], h200.slots["model"]) == ("memory", "h200-sxm",
                                                                    "llama-3-70b")
    fp8 = read("what about FP8?", h200)
    assert (fp8.slots["precision"], fp8.slots["gpu"]) == ("fp8", "h200-sxm")
    nodes = read("with 4 nodes?", fp8)
    assert (nodes.slots["nodes"], nodes.assumed["gpus"]) == (4, 32)
    assert "gpus" not in nodes.slots
    monthly = read("how much per month?", nodes)
    assert monthly.kind == "pricing" and monthly.slots["gpu"] == "h200-sxm"


def test_a_reply_to_a_clarifying_question_continues_it(read):
    asked = read("Does it fit on 8 H100s for inference?")
    assert asked.missing == ["model"]
    answered = read("the 70B", asked)
    assert (answered.kind, answered.slots["params_b"], answered.slots["gpus"]) == ("fit", 70, 8)
    assert answered.missing == []
    count = read("How many GPUs to serve it?")
    assert read("llama 3 70b", count).slots["model"] == "llama-3-70b"


def test_a_new_question_is_not_merged_into_the_last(read):
    first = read("How much memory to serve llama 3 70b on 8 H100s at 32k context?")
    second = read("How much would egress cost for 10 TB of checkpoints on AWS?", first)
    assert second.kind == "pricing" and "model" not in second.slots


@pytest.mark.parametrize("text, slot, value", [
    ("train 405B on 15T tokens on 16384 H100 with a global batch of 4096 sequences",
     "global_batch", 4096),
    ("70B on 15T tokens on 1024 H100, global batch size 2048", "global_batch", 2048),
    ("405B, global batch of 16M tokens, 15T tokens on 16384 H100", "global_batch_tokens",
     16_000_000),
    ("train llama 3 70B on 15T tokens on 1024 H100 with 4M tokens per step",
     "global_batch_tokens", 4_000_000),
])
def test_a_stated_training_batch_is_read_and_not_taken_for_the_budget(read, text, slot, value):
    slots = read(text).slots
    assert slots[slot] == value
    assert slots["tokens"] == 15e12  # the batch's tokens are not the training budget
    assert "batch" not in slots  # nor its sequences concurrent requests


# A training script pasted into the question (github.com/PolyU-ChenLab/UniPixel/issues/8): its
# flags name the method and the sequence length, and its shell variables are not money.
SCRIPT = ("How many GPUs are required to fine-tune a 7B model? Can two RTX 5090 GPUs suffice?\n"
          "export CUDA_VISIBLE_DEVICES=0,1\nexport PYTHONPATH=\"./:$PYTHONPATH\"\n"
          "torchrun --nproc_per_node 8 unipixel/train/train.py --deepspeed scripts/zero2.json "
          "--lora_enable True --lora_r 64 --max_num_tokens 40960 "
          "--per_device_train_batch_size 1")


def test_a_pasted_training_script_is_read_by_its_flags(read):
    intent = read(SCRIPT)
    assert intent.kind == "cluster_size" and "cost" not in intent.slots
    assert (intent.slots["workload"], intent.slots["seq_len"]) == ("lora", 40960)
    assert (intent.slots["gpu"], intent.slots["gpus"]) == ("rtx-5090", 2)


@pytest.mark.parametrize("text, seq_len", [
    ("qlora on llama 3 8b with cutoff_len: 4096", 4096),
    ("full finetune qwen2.5 7b --model_max_length 8192", 8192),
    ("lora llama 3 8b --max_seq_length 2048", 2048),
])
def test_sequence_length_flags_of_training_scripts(read, text, seq_len):
    assert read(text).slots["seq_len"] == seq_len


@pytest.mark.parametrize("text", ["what does 8 H100 cost at $2.5/h for a month",
                                  "price of 8 H100 at 2.5$ per hour"])
def test_a_dollar_before_or_after_a_number_is_still_money(read, text):
    assert read(text).kind == "pricing"


# Counts people imply rather than write (addresses beside each):
@pytest.mark.parametrize("text, gpus", [
    # github.com/vllm-project/vllm/issues/6938: TP 4 x PP 16 spans 4 x 16 = 64 GPUs (and the
    # "tp 64" it is compared with, 64 too)
    ("what is he difference between doing tp 4 + pp 16 vs doing tp 64?", 64),
    # github.com/vllm-project/vllm/issues/7958: GPU0..GPU3 named, four distinct devices
    ("tensor parallelism requires [GPU0, GPU2] and [GPU1, GPU3], and pipeline parallelism "
     "should occur between [GPU0, GPU2] and [GPU1, GPU3] within a single node", 4),
    # github.com/PolyU-ChenLab/UniPixel/issues/8: two visible devices, 0 and 1
    ("export CUDA_VISIBLE_DEVICES=0,1\ntorchrun train.py --lora_enable True, how much memory "
     "for a 7B model?", 2),
])
def test_counts_implied_by_a_layout_or_a_device_list(read, text, gpus):
    assert read(text).slots["gpus"] == gpus


def test_a_value_on_the_line_before_a_gpu_label_is_not_a_gpu_count(read):
    # github.com/ollama/ollama/issues/9753: "RAM : 32GB * 2" then "GPU: ..." on the next line;
    # the 2 is two RAM sticks, and one RTX A5000 is the GPU.
    intent = read("My computer specifications are like this\nCPU : Intel i9-10920X 3.5GHZ\n"
                  "RAM : 32GB * 2\nGPU: NVIDIA RTX A5000 24GB\nmodel : llama 3.3 70B-q4_K_M")
    assert "gpus" not in intent.slots and intent.slots["gpu"] == "rtx-a5000"


@pytest.mark.parametrize(("text", "slot"), [
    ("Serve Llama 3 70B to 200 users at 20 tok/s, how many H100s?", "user_tokens_per_s"),
    ("Serve Llama 3 70B to 200 users at 2,000 tokens/s in total, how many H100s?",
     "tokens_per_s"),
])
def test_a_reading_speed_beside_a_user_count_is_each_users(read, text, slot):
    # 20 tokens/s for 200 users in all would be a tenth of a token a second each.
    intent = read(text)
    assert slot in intent.slots and intent.kind == "plan"


def test_a_number_or_format_glued_to_chinese_is_read(read):
    # baichuan-inc/Baichuan2#101: "baichaun2-13b int4量化后占显存15g,这个是因为什么" (INT4,
    # 15 GB in use: a measurement to check); QwenLM/Qwen#1043: "model_max_length调成8192的话".
    quantized = read("baichaun2-13b int4量化后占显存15g,这个是因为什么")
    assert quantized.slots["precision"] == "int4" and quantized.kind == "diagnose"
    assert read("qlora微调Qwen-72B, model_max_length调成8192的话就会报OOM").slots["seq_len"] == 8192


@pytest.mark.parametrize(("text", "samples", "epochs"), [
    # huggingface/alignment-handbook#126
    ("Estimated Time for SFT Fine-Tuning of Mistral-7B Model. I have been using the following "
     "configuration for SFT fine-tuning on a dataset of 60,000 entries, utilizing an 8xA100 80GB "
     "setup. Could someone please provide an estimate of the expected completion time? "
     "num_train_epochs: 3", 60000, 3),
    # hiyouga/LlamaFactory#4620
    ("使用A10对qwen-14b-chat进行Lora微调，共4000条数据，需要多久", 4000, None),
])
def test_a_datasets_rows_and_epochs_as_written_make_a_training_question(read, text, samples,
                                                                       epochs):
    intent = read(text)
    assert intent.kind == "training" and intent.slots["samples"] == samples
    assert intent.slots.get("epochs") == epochs


def test_a_run_time_in_words_is_the_runs_own(read):
    # huggingface/alignment-handbook#126: "Currently, it has been running for approximately
    # three days": 72 hours the run has taken, not a deadline.
    intent = read("SFT fine-tuning of Mistral-7B on 60,000 entries on 8xA100 80GB: an estimate "
                  "of the expected completion time? Currently, it has been running for "
                  "approximately three days.")
    assert intent.slots["hours"] == 72 and intent.slots.get("hours_elapsed")


def test_a_llama_size_with_no_version_says_which_llama_it_read(read):
    # vllm-project/vllm#17003: "for Llama 7B on H100": read as the first LLaMA (its own row),
    # and the answer says so, with the Llama 2 row of that size; "llama 1 7b" needs no word.
    said = read("back of envelope memory for batch_size 16 for Llama 7B on H100 GPU?")
    assert said.slots["model"] == "llama-7b"
    assert any("no version" in r and "llama-2-7b" in r for r in said.readings)
    assert not any("no version" in r for r in read("llama 1 7b on an H100").readings)


def test_gpu_hours_are_compute_and_a_gpus_speed_ratio_is_no_symptom(read):
    # nomic-ai/gpt4all#45: ">59 GPU-hours", ">135 GPU-hours" measure compute, not 59 GPUs; "My
    # GPU trains models ~10x slower than one A100" scales the asker's hardware and is not a
    # complaint to diagnose: the question asks the GPU-hours and cost of a 7B fine-tune.
    intent = read("How many GPU hours were used to train the model? Test run: >59 GPU-hours, "
                  "full model: >135 GPU-hours. I want to determine how costly it is to fine-tune "
                  "the 7B model. My GPU trains models ~10x slower than one A100.")
    assert intent.slots.get("gpus") in (None, 1)
    assert intent.kind == "training"


def test_a_log_lines_size_is_not_the_label_of_gpus_on_the_next_line(read):
    # vllm-project/vllm#25350: "Available KV cache memory: 10.55 GiB" then "GPU KV cache size:
    # 230,528 tokens" on the next line; the 10.55 GiB is the cache's room, not a GPU's label.
    intent = read("with kv-cache-dtype fp8 and --max-model-len 100000\n"
                  "Available KV cache memory: 10.55 GiB\nGPU KV cache size: 230,528 tokens")
    assert "gpu_memory_gb" not in intent.slots
    assert not any("labelled" in r for r in intent.readings)


def test_a_typo_inside_a_repository_name_reads_the_model_and_says_so(read):
    # github.com/unslothai/unsloth/issues/1820: "disstill" in a repository name; the size and
    # version numbers match DeepSeek-R1-Distill-Qwen-7B, so the typo is read, with a reading.
    intent = read("How much video memory is required to train "
                  "`deepseek-r1-disstill-qwen-7b-unsloth-bnb-4bit` in Unsloth 4-bit Dynamic "
                  "Quants using the GRPO strategy?")
    assert intent.slots["model"] == "deepseek-r1-distill-qwen-7b"
    assert "read 'deepseek-r1-disstill-qwen-7b' as deepseek-r1-distill-qwen-7b" in intent.readings


def test_a_family_name_with_another_size_is_that_size_not_the_familys_model(read):
    # github.com/huggingface/open-r1/issues/113: "Deepseek R1 8B" is no 671B DeepSeek-R1 (it is
    # an 8B distill); the size is kept and said. The "RTX 3050 8GB" is outside the catalog and
    # its 8 GB is each GPU's memory.
    intent = read("I ran the Deepseek R1 8B model with Ollama on an old PC with an RTX 3050 8GB "
                  "graphics card.")
    assert intent.slots.get("model") is None and intent.slots["params_b"] == 8
    assert "'Deepseek R1 8B' is not deepseek-r1 (671B): read by its size, 8B" in intent.readings
    assert intent.slots["unknown_gpu"] == "RTX 3050" and intent.slots["gpu_memory_gb"] == 8


@pytest.mark.parametrize("text, model", [
    # Ollama tags keep their colon: github.com/ollama/ollama/issues/10529 ("FROM qwen3:14b",
    # not in the catalog: a size only) and the catalog's own tags
    ("ollama run deepseek-r1:7b, how much memory?", "deepseek-r1-distill-qwen-7b"),
    ("qwen2.5:72b on 2 4090", "qwen2.5-72b"),
    # "gemma 12b" is Gemma 3 12B, never Gemma 1's 2B ("gemma 1 2b" folds to the same letters)
    ("gemma 12b memory", "gemma-3-12b"),
])
def test_ollama_tags_and_sizes_keep_their_numbers(read, text, model):
    assert read(text).slots["model"] == model


def test_a_token_count_in_thousands_is_thousands_not_trillions(read):
    # "300 thousand tokens" is 300 x 1,000 = 300,000 tokens, not 300 x 1e12.
    assert read("How long to train a 7B model on 300 thousand tokens on 8 H100?") \
        .slots["tokens"] == 300_000


def test_a_singular_token_count_before_a_chinese_word_is_the_budget_not_the_model(read):
    # shibing624/MedicalGPT#421: "用大约2B token数据进行13B模型的增量预训练" (2B tokens of data,
    # a 13B model): 2e9 tokens, and the model is the 13B, not a 2B one.
    slots = read("用大约2B token数据进行13B模型的增量预训练，训练一个epoch，不使用peft，8个a800，"
                 "预计耗时400小时").slots
    assert (slots["tokens"], slots["params_b"]) == (2e9, 13.0)


@pytest.mark.parametrize(("text", "seconds", "done", "of"), [
    # Chinese-LLaMA-Alpaca-2#227
    ("The progress seems slow (idk, maybe 30mins for 0.01 epochs?)", 1800, 0.01, "epoch"),
    ("2 hours for 5% of the epoch on 8 A100", 7200, 0.05, "epoch"),
    ("0.2 epochs in 3 hours, how long for 3 epochs", 10800, 0.2, "epoch"),
    ("30分钟跑了0.01个epoch，要多久", 1800, 0.01, "epoch"),
    ("跑完1%用了2小时", 7200, 0.01, "run"),
])
def test_a_share_done_in_a_time_is_the_runs_pace(read, text, seconds, done, of):
    slots = read(text).slots
    assert (slots["progress_s"], slots["progress_done"], slots["progress_of"]) == \
        (seconds, done, of)
    assert "utilization" not in slots and slots.get("epochs", 3) == 3


@pytest.mark.parametrize(("text", "recompute"), [
    # NVIDIA/Megatron-LM#1031: the run the asker measured used it.
    ("running on 70B on TP8 PP8 and DP2 on 128 GPUs (H100s) with activation checkpointing was "
     "only 296.5 TFLOPs/s/GPU for me", "full"),
    ("llama 3 8b lora on a 4090 with gradient_checkpointing=False", "none"),
    ("fine-tune llama 3 8b without gradient checkpointing on one 4090", "none"),
    ("70B on 64 H100 with selective recompute, --recompute-granularity selective", "selective"),
    ("全参数微调 qwen 7b 开启梯度检查点 需要多少显存", "full"),
    ("全参数微调 qwen 7b 不开梯度检查点 需要多少显存", "none"),
])
def test_activation_recompute_is_read_on_off_or_selective(read, text, recompute):
    assert read(text).slots["recompute"] == recompute


def test_a_saved_checkpoint_is_not_activation_recompute(read):
    assert "recompute" not in read("I save a checkpoint every 1000 steps of llama 70b").slots


def test_ports_times_a_rate_are_network_ports_not_gpus(read):
    intent = read("bandwidth between nodes with 8x400Gb/s infiniband per node, all-reduce of "
                  "140 GB over 16 nodes")
    assert intent.slots["nics_per_node"] == 8
    assert intent.slots["nodes"] == 16
    assert "gpus" not in intent.slots  # not eight GPUs of 400 GB


@pytest.mark.parametrize(("text", "samples", "each", "epochs"), [
    ("I have a chat dataset with about 1 million samples ... My sample size is probably 5-6 "
     "hundred tokens", 1e6, 550, None),
    ("fine-tune mistral 7b on 230k examples of 512 tokens each for 3 epochs", 230e3, 512, 3),
    ("50,000 conversations, 800 tokens per conversation, two epochs", 5e4, 800, 2),
    # a style word between the count and the noun: still samples, not a 50k context
    ("how long would it take on 50k alpaca-style examples?", 5e4, None, None),
])
def test_a_dataset_is_read_by_samples_length_and_epochs(read, text, samples, each, epochs):
    slots = read(text).slots
    assert slots["samples"] == samples
    assert slots.get("tokens_per_sample") == each
    assert slots.get("epochs") == epochs
    assert "context_len" not in slots


def test_a_count_glued_to_a_gpu_and_a_gpu_the_asker_lacks(read):
    # https://github.com/huggingface/huggingface-llama-recipes/issues/21
    intent = read("I am trying to run Llama 3.1 405B with fp8 quantization on 8-A100. since I do "
                  "not have H100, I tried a 8-A100 setup and received \"ValueError: FP8 "
                  "quantized models is only supported on GPUs with compute capability >= 9.0 "
                  "(e.g H100).\" Is there a way to run Llama 3.1 405B fp8 on 8-A100?")
    assert (intent.slots["gpu"], intent.slots["gpus"]) == ("a100-sxm-80gb", 8)
    assert "gpu_list" not in intent.slots  # H100 is the GPU they lack, not a second option
    assert intent.kind == "fit"


@pytest.mark.parametrize(("text", "model"), [
    # https://github.com/kvcache-ai/ktransformers/issues/740
    ("请教为什么配置512G内存，1张L40s 48G显卡，2个Intel(R) Xeon(R) Gold 6338 CPU @ 2.00GHz"
     "会因内存不足而运行不了DeepSeek-R1-Q4_K_M，非常感谢！", "deepseek-r1"),
    ("Llama-3.1-8B-Instruct-AWQ on a T4", "llama-3.1-8b"),
])
def test_a_model_name_with_a_format_tag_is_the_model(read, text, model):
    assert read(text).slots["model"] == model


def test_memory_reserved_for_the_kv_cache_is_no_price(read):
    # https://github.com/vllm-project/vllm/issues/13061
    intent = read("I'm new to vllm, I want to run inference of a "
                  "deepseek-ai/DeepSeek-R1-Distill-Qwen-14B on two 4090s. ... Why the rest of the "
                  "memory reserved for KV Cache is only 8.69GiB?")
    assert intent.kind != "pricing" and "cost" not in intent.slots


def test_tp_and_pp_asked_of_a_training_job_is_a_layout(read):
    # "what TP and PP should I use" asks for degrees, not whether the job fits
    intent = read("What TP and PP should I use for Qwen2.5 72B full fine-tuning on 16 A100 80GB?")
    assert intent.kind == "layout"
    assert intent.slots["gpus"] == 16


def test_a_definition_asked_after_a_sizing_is_a_concept_not_a_follow_up(read):
    sized = read("70B Q4_K_M on a Mac with 64GB?")
    asked = read("what does ZeRO-3 do?", sized)
    assert asked.kind == "concept" and "params_b" not in asked.slots
    assert read("what does ZeRO-3 do?").kind == "concept"  # the same, asked first


@pytest.mark.parametrize(("text", "slots"), [
    # LianjiaTech/BELLE#360: "7b bloom" is BLOOM 7B1 (the bare name is the 176B), and "非lora"
    # (not LoRA) trains every weight, whatever "跑起来" (get it running) says.
    ("大佬 7b bloom 大约需要多大的内存在非lora 的情况下，单机三张24 3090可以吗？或者局域网环境下"
     "两张3090两张4090可以跑起来吗？",
     {"model": "bloom-7b1", "workload": "full_finetune", "gpus": 3}),
    ("fine-tune llama 2 7b without lora on 2 A100", {"workload": "full_finetune"}),
    # QwenLM/Qwen3#201: two machines of eight A100 80G
    ("lora微调72b模型需要多少2台8xA100 80G够吗", {"gpus": 16, "nodes": 2, "params_b": 72.0}),
    # Alpha-VLLM/LLaMA2-Accessory#26: the launcher's flag is the count
    ("llama2 13b out of memory on A800 ... torchrun --master_port=1112 --nproc_per_node=2 "
     "main_finetune.py", {"gpus": 2, "model": "llama-2-13b"}),
    ("torchrun --nnodes 2 --nproc_per_node 8 train.py llama 3 8b on H100", {"gpus": 16}),
])
def test_sizes_negations_and_launcher_counts_as_written(read, text, slots):
    got = read(text).slots
    assert {k: got.get(k) for k in slots} == slots


def test_a_vision_variant_glued_to_its_version_is_not_the_text_model(read):
    # modelscope/ms-swift#3387: "Qwen2VL 72B" has a vision encoder Qwen2 72B lacks.
    intent = read("请问4张A800-40G能进行Qwen2VL 72B的Lora微调吗")
    assert "model" not in intent.slots and intent.slots["params_b"] == 72.0


@pytest.mark.parametrize(("text", "gpus"), [
    # Facico/Chinese-Vicuna#202: four cards in the machine, three given to the run; the
    # PyTorch message's "29.21 GiB reserved in total" is memory, not a reserved price.
    ("显卡是v100，有4张卡,单张是32G，我配置了3张。OutOfMemoryError: CUDA out of memory. Tried to "
     "allocate 2.38 GiB (GPU 0; 31.75 GiB total capacity; 29.21 GiB reserved in total by "
     "PyTorch) 微调13B需要多少显存", 3),
])
def test_the_cards_a_run_was_given_are_its_count(read, text, gpus):
    intent = read(text)
    assert intent.slots["gpus"] == gpus and intent.kind != "pricing"


def test_a_user_name_ending_in_h_is_no_duration(read):
    # tdrussell/qlora-pipe#1: "152334H/miqu-1-70b-sf" is a Hugging Face repository, not
    # 152,334 hours.
    intent = read("I have 4x 3090 but always OOM. I replaced `model` with a 70B one "
                  "(152334H/miqu-1-70b-sf). Could you provide an example of a 70B model QLoRA "
                  "training config?")
    assert "hours" not in intent.slots and intent.kind == "fit"


def test_an_issue_templates_examples_are_not_the_askers_hardware(read):
    # mlc-ai/mlc-llm#3310, the template's field "Device (e.g. MacBook Pro M2, PC+RTX 3080): orin
    # 64GB": the RTX 3080 is the template's example, not the device. An example in the asker's
    # own sentence still counts: "请问微调一个模型（例如7B）需要多大的显存？" means a 7B.
    intent = read("[Speed] MLC is much slower than Ollama when running Qwen Coder 30b - Device "
                  "(e.g. MacBook Pro M2, PC+RTX 3080): orin 64GB - Decode speed (Token/s): "
                  "approximately 6, and ollama is 20")
    assert "gpu" not in intent.slots and intent.slots["model"] == "qwen3-coder-30b-a3b"
    assert read("请问微调一个模型（例如7B）需要多大的显存？").slots["params_b"] == 7


def test_a_count_glued_to_gpus_counts_when_nothing_else_does(read):
    # hpcaitech/ColossalAI#5139: "How to run llama2 70B pretrain on 32gpus?"
    assert read("How to run llama2 70B pretrain on 32gpus? I got OOM error").slots["gpus"] == 32


def test_a_cards_memory_written_before_de_xiancun_is_its_memory(read):
    # zai-org/VisualGLM-6B#80: "总共4张卡，单卡11G 的显存" (four cards, 11G of memory each).
    slots = read("总是报错CUDA out of memory。总共4张卡，单卡11G 的显存。").slots
    assert (slots["gpus"], slots["gpu_memory_gb"]) == (4, 11.0)


def test_a_macs_unified_memory_is_the_memory_the_model_must_fit(read):
    # An Apple chip is outside the catalog; its unified memory is what the weights must fit in.
    slots = read("Can I run Llama 3 70B Q4_K_M on a Mac Studio M2 Ultra with 192GB unified "
                 "memory?").slots
    assert slots["gpu_memory_gb"] == 192.0 and "gpu" not in slots


@pytest.mark.parametrize(("text", "rate"), [
    ("Mixtral tokens-per-second slower than expected, 10 tps", 10.0),  # vllm-project/vllm#2069
    ("I'm seeing ~10-11 TPS", 11.0),
])
def test_tps_is_a_measured_tokens_per_second(text, rate):
    from clusterplan.assistant.parsing.measurements import find
    assert [(m.kind, m.value) for m in find(text)] == [("tokens_per_s", rate)]


@pytest.mark.parametrize(("text", "span"), [
    ("Can I run llama 3 70b q4 on a single 3090, or 2x 3090?", [1, 2]),  # seen in the terminal
    ("will 70b fit on 4 or 8 H100", [4, 8]),
])
def test_two_counts_put_as_alternatives_are_both_answered(read, text, span):
    slots = read(text).slots
    assert slots["gpus_range"] == span and slots["gpus"] == span[0]


def test_a_count_said_of_every_node_is_per_node(read):
    # NVIDIA/nccl-tests#175: "A100 of two nodes, eyery node the configuration is as follows:
    # A100 * 8" is 2 x 8 = 16 GPUs.
    slots = read("We ary trying to test all-reduce performance for A100 of two nodes, eyery node "
                 "the configuration is as follows: A100 * 8, IB 200Gb * 4 (dual port)").slots
    assert (slots["gpus"], slots["nodes"], slots["gpus_per_node"]) == (16, 2, 8)


def test_the_fastest_way_under_a_budget_is_a_plan(read):
    # Seen in the terminal: answered as a training time on one default node.
    intent = read("What's the fastest way to train Llama 3 8B on 100B tokens for under $20,000?")
    assert intent.kind == "plan" and intent.slots["usd"] == 20000


def test_a_time_per_output_token_asked_is_a_serving_question(read):
    # Seen while trying the app: answered as a fit with the KV cache of 32 sequences.
    assert read("What's the time per output token for Llama 3 70B on 4x H100 at batch "
                "32?").kind == "serving"


@pytest.mark.parametrize(("text", "hours"), [
    ("fine-tune Mistral 7B with LoRA on 50M tokens in under a day", 24),
    ("pretrain a 1B model on 20B tokens within a week", 168),
    # IBM/Dromedary#3: "a time limit of 6 hours in each training step" limits one stage; the
    # run's time is the "1 day of renting" after it
    ("You have set a time limit of 6 hours in each training step, and you are using a 64 * 6 "
     "V100GPU cluster. So the training cost will be approximately 1 day of renting?", 24),
])
def test_a_deadline_of_one_unit_is_read(read, text, hours):
    assert read(text).slots["hours"] == hours


def test_is_my_runs_figure_good_is_a_check(read):
    # answered as a layout search that found none; the measured 380 TFLOPS is what to check
    assert read("Is my 8x H100 training of Llama 3 70B at 380 TFLOPS per GPU good?").kind \
        == "diagnose"


@pytest.mark.parametrize(("text", "slot", "value"), [
    # a Chinese "，" folds to "," and no longer hides the figure after it
    ("用8张H800训练70B模型，1T token需要多久？", "tokens", 1e12),
    ("我想用vllm部署qwen3 32b，并发100，需要几张卡？", "batch", 100),
    ("qwen3 32b 100路并发需要几张卡", "batch", 100),
])
def test_chinese_punctuation_and_concurrency_keep_their_figures(read, text, slot, value):
    assert read(text).slots[slot] == value


def test_a_24g_card_before_xianka_is_its_memory(read):
    # "Llama-3-8B lora 微调，24G 显卡够吗？": a 24G card, asked whether it is enough
    intent = read("Llama-3-8B lora 微调，24G 显卡够吗？")
    assert intent.slots["gpu_memory_gb"] == pytest.approx(25.77, abs=0.01)
    assert intent.kind in ("fit", "memory")  # both answer whether it fits the memory named


def test_gpu_hours_asked_in_chinese_is_a_training_time(read):
    assert read("训练175B需要多少GPU小时？").kind == "training"


def test_a_tp_asked_for_inference_ranks_serving_layouts(read):
    assert read("What TP should I use for Llama 3 70B inference on 8 L40S?").kind == "serving"


def test_how_many_nodes_of_a_shape_asks_for_the_count(read):
    # "nodes of 8x H100" is the node's shape; the count is the question (a plan to the deadline)
    intent = read("How many nodes of 8x H100 do I need to pretrain a 30B model on 2T tokens in "
                  "60 days?")
    assert intent.kind == "plan" and "gpus" not in intent.slots
    assert intent.slots["gpus_per_node"] == 8


def test_a_training_batch_size_is_each_gpus_micro_batch(read):
    intent = read("I get OOM when fine-tuning Llama 2 13B with LoRA on a single A100 40GB with "
                  "batch size 8 and seq len 2048")
    assert intent.slots["micro_batch"] == 8 and "batch" not in intent.slots
