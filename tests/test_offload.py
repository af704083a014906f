"""Offload to host RAM against DeepSpeed's documented estimator figures, the ZeRO-Offload paper
and hand arithmetic. GB = 1e9 bytes; DeepSpeed prints GiB (2^30), converted here."""

from __future__ import annotations

import json
import re

import pytest

from tests.conftest import run_cli, run_tool

GIB = 2**30 / 1e9


def memory(**payload) -> dict:
    return run_tool("memory", payload)


# https://deepspeed.readthedocs.io/en/latest/memory.html: t5-3b, 2851M params, 1 node x 8 GPUs.
T5_3B = {"params_b": 2.851, "workload": "pretrain", "precision": "fp16", "gpus": 8}


def test_deepspeed_zero2_cpu_offload_host_and_gpu_figures():
    # Docs: "127.45GB | 5.31GB | cpu_offload=1" (GiB): per CPU params x max(4 x 8, 16) x 1.5,
    # per GPU 2 x params (FP16 parameters only).
    result = memory(**T5_3B, zero_stage=2, offload="optimizer")
    assert result["offload"]["deepspeed_estimate_per_node_gb"] == pytest.approx(
        127.45 * GIB, abs=0.02)
    assert result["model_states_gb"] == pytest.approx(5.31 * GIB, abs=0.01)


@pytest.mark.parametrize(("mode", "docs_gib"), [("optimizer_and_params", 71.69),
                                                ("optimizer", 63.72)])
def test_deepspeed_zero3_cpu_offload_host_figures(mode, docs_gib):
    # Docs, ZeRO-3 cold estimate with zero_init=1: 71.69 GB (params offloaded, x 18) and
    # 63.72 GB (optimizer only, x 16), both x 1.5 and x (8 GPUs per node / 8 GPUs).
    result = memory(**T5_3B, zero_stage=3, offload=mode)
    assert result["offload"]["deepspeed_estimate_per_node_gb"] == pytest.approx(
        docs_gib * GIB, abs=0.02)


def test_zero_offload_trains_13b_on_one_32_gb_v100():
    # Ren et al. 2021: over 13B parameters on a single 32 GB V100. FP16 parameters stay
    # (2 x 13 = 26 GB); gradients and Adam states go to the CPU: (2 + 12) x 13 = 182 GB.
    base = {"params_b": 13, "workload": "pretrain", "precision": "fp16", "zero_stage": 2,
            "seq_len": 1024, "micro_batch": 1, "recompute": "full", "gpu": "v100-32gb",
            "gpus": 1}
    offloaded = memory(**base, offload="optimizer")
    assert offloaded["model_states_gb"] == pytest.approx(26.0, abs=0.01)
    assert offloaded["offload"]["host_ram_per_node_gb"] == pytest.approx(182.0, abs=0.01)
    assert offloaded["fits"] is True
    assert memory(**base)["fits"] is False  # 16 x 13 = 208 GB without offload


def test_70b_full_finetune_on_8_a100_with_1_tb_of_host_ram():
    # 70.6e9 params (Llama 3 70B). ZeRO-Offload: 14 x 70.6 = 988.4 GB on the node's host,
    # under 1 TB; offloading the FP16 parameters too adds 2 x 70.6: 1129.6 GB, over it.
    # PCIe per GPU per step: 70.6e9 / 8 ranks x 4 bytes = 35.3 GB at 31.5 GB/s = 1.12 s.
    base = {"model": "llama-3-70b", "workload": "full_finetune", "gpu": "a100", "gpus": 8,
            "host_ram_gb": 1000, "recompute": "full"}
    cpu = memory(**base, offload="optimizer")["offload"]
    assert cpu["host_ram_per_node_gb"] == pytest.approx(14 * 70.55, rel=0.002)
    assert cpu["host_fits"] is True
    assert cpu["pcie_s_per_step"] == pytest.approx(70.55e9 / 8 * 4 / 31.5e9, rel=0.002)
    both = memory(**base, offload="optimizer_and_params", zero_stage=3)["offload"]
    assert both["host_ram_per_node_gb"] == pytest.approx(16 * 70.55, rel=0.002)
    assert both["host_fits"] is False


def test_half_the_layers_in_ram_bounds_decode_by_ram_bandwidth():
    # Llama 2 7B Q4_K_M is 4.08 GB (TheBloke's file); 16 of 32 layers on an RTX 4090
    # (1008 GB/s) leave 2.04 GB in dual-channel DDR5-5600 RAM (89.6 GB/s):
    # 1 / (2.04/1008 + 2.04/89.6) = 40.2 tokens/s at most (KV cache of 16 tokens: ~0.2%).
    result = memory(model="llama-2-7b", workload="inference", precision="q4_k_m",
                    gpu="rtx-4090", gpu_layers=16, context_len=16)
    off = result["offload"]
    assert off["host_weights_gb"] == pytest.approx(2.04, abs=0.005)
    assert off["decode_tokens_per_s_max"] == pytest.approx(1 / (2.04 / 1008 + 2.04 / 89.6),
                                                           rel=0.01)


def test_given_vram_and_ram_it_keeps_the_most_layers_that_fit():
    base = {"model": "falcon-40b", "workload": "inference", "precision": "q4_k_m",
            "gpu_memory_gb": 8, "host_ram_gb": 32}
    result = memory(**base)
    layers = result["offload"]["gpu_layers"]
    assert 0 < layers < 60 and result["per_gpu_gb"] <= 8 and result["fits"] is True
    assert memory(**base, gpu_layers=layers + 1)["per_gpu_gb"] > 8
    # What is not on the GPU is in RAM: the whole file, less the GPU's share.
    whole = memory(model="falcon-40b", workload="inference", precision="q4_k_m")
    assert result["offload"]["host_weights_gb"] == pytest.approx(
        whole["breakdown_gb"]["weights"] * (60 - layers) / 60, abs=0.002)
    assert result["offload"]["host_fits"] is True


@pytest.mark.parametrize(("payload", "field"), [
    ({"model": "llama-2-7b", "workload": "inference", "gpu_layers": 40}, "gpu_layers"),
    ({"model": "llama-2-7b", "workload": "full_finetune", "zero_stage": 0,
      "offload": "optimizer"}, "offload"),
    ({"model": "llama-2-7b", "workload": "full_finetune", "zero_stage": 2,
      "offload": "optimizer_and_params"}, "offload"),
    ({"model": "llama-2-7b", "workload": "inference", "offload": "optimizer"}, "offload"),
    ({"model": "llama-2-7b", "workload": "inference", "host_ram_gb": -4}, "host_ram_gb"),
])
def test_impossible_offloads_are_one_line_errors(payload, field):
    out = run_cli("tool", "memory", "--input", json.dumps(payload))
    assert out.exit_code == 2 and out.output.startswith("Error:")
    assert field in out.output and out.output.count("\n") == 1


def ask(question: str) -> dict:
    out = run_cli("ask", "--json", question)
    assert out.exit_code == 0, out.output
    return json.loads(out.output)


def test_ask_falcon_40b_with_8_gb_vram_and_32_gb_ram():
    # Falcon 40B (41.84e9 params) in BF16 is 83.7 GB: with 8 GB on the GPU, at least 75.7 GB
    # must sit in RAM, more than 32 GB. Q8_0 is 41.84 x 8.5/8 = 44.5 GB > 8 + 32; Q6_K is
    # 41.84 x 6.5625/8 = 34.3 GB, which fits the two together: the widest mix that does.
    answer = ask("Falcon-40B with 8 GB VRAM and 32 GB RAM")
    first = answer["data"]["memory"]
    assert first["offload"]["host_ram_needed_gb"] > 83.7 - 8
    assert first["offload"]["host_fits"] is False and first["per_gpu_gb"] <= 8
    assert "of 60 layers" in answer["markdown"] and "**Q6_K**" in answer["markdown"]
    assert any("gpu_layers" in a for a in answer["assumptions"])


def test_ask_70b_full_finetune_on_8_a100_with_1_tb_ram_offload():
    # 14 bytes per parameter on the host (ZeRO-Offload): 14 x 70e9 = 980 GB, within 1 TB.
    answer = ask("70B full fine-tune on 8 A100 with 1 TB RAM offload")
    off = answer["data"]["memory"]["offload"]
    assert off["host_ram_per_node_gb"] == pytest.approx(980.0, abs=0.5)
    assert off["host_fits"] is True and "980 GB of host RAM per node" in answer["markdown"]


def test_ask_opt_66b_zero_2_how_much_host_ram():
    # OPT-66B has 65.72e9 parameters (catalog, from the OPT paper): 14 x 65.72 = 920.1 GB.
    answer = ask("OPT-66B ZeRO-2, how much host RAM")
    result = answer["data"]["memory"]
    assert result["workload"] == "full_finetune"
    assert result["offload"]["host_ram_per_node_gb"] == pytest.approx(14 * 65.72, abs=0.5)
    assert "host RAM per node" in answer["markdown"]


def test_ask_tokens_per_second_with_vram_and_ram_but_no_gpu_kind_is_an_offload_answer():
    # Mixtral 8x7B in Q5_K_M is about 46.7e9 x 5.5/8 = 32 GB: more than 12 GB of VRAM, less
    # than 12 + 64 GB; with no GPU kind the speed bound is the RAM part alone.
    answer = ask("Mixtral 8x7B q5_k_m with 12 GB VRAM and 64 GB RAM, tokens per second?")
    result = answer["data"]["memory"]
    assert result["per_gpu_gb"] <= 12 and result["offload"]["host_fits"] is True
    assert "tokens/s" in answer["markdown"]


def test_ollama_split_on_one_gpu_beside_a_cpus_ram_is_the_gpu_and_ram_split():
    # ollama issue 3301: llama3:70b (Q4_K_M, 42.5 GB: 70.55e9 x 4.82/8) on an RTX 4090 24 GiB
    # (25.8 GB) beside "i9 14900k 96GB": the split asked is layers between the GPU and the
    # CPU's 96 GB of RAM, not a training layout over GPUs. 42.5 - 25.8 = 16.7 GB at least
    # goes to RAM, well within 96 GB.
    answer = ask("loading llama3:70b-instruct on an Nvidia RTX 4090, Intel i9 14900k 96GB. "
                 "Is there a size limit to what Ollama can even split among available resources?")
    result = answer["data"]["memory"]
    assert answer["intent"]["kind"] == "fit" and result["workload"] == "inference"
    assert result["offload"]["host_ram_gb"] == 96.0 and result["offload"]["host_fits"] is True
    assert result["offload"]["host_ram_needed_gb"] >= 42.5 - 25.8
    assert "layers** on the GPU" in answer["markdown"] and "TP" not in answer["markdown"]


def test_the_largest_model_beside_system_ram_fits_the_ram_too():
    # 2 RTX 4090 (2 x 25.8 GB) and 128 GB of RAM hold at most 179.6 GB: Llama 3.1 405B in
    # BF16 (811 GB) is out, whatever share of it the GPUs hold. The answer names the model
    # whose RAM part fits, says how slow reading layers from RAM makes it, and the largest
    # that runs on the GPUs alone (at most 2 x 25.8 = 51.6 GB, so under ~25B in BF16).
    answer = ask("I have 2x RTX 4090 and 128GB RAM. What's the biggest model I can run at a "
                 "decent speed?")
    lead = answer["markdown"].split("\n")[0]
    assert "405B" not in lead
    assert "layers on the GPUs and reads the rest from system RAM every token" in lead
    alone = re.search(r"Entirely on the GPUs, at their memory's speed, the largest is "
                      r"\*\*.+? \(([\d.]+)B\)\*\*", lead)
    assert alone and float(alone[1]) < 25.8
