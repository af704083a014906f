"""The step-time maths against Narayanan et al. 2021 and hand arithmetic written out here."""

from __future__ import annotations

import dataclasses

import pytest

from clusterplan.tools.memory.optimizers import optimizer_bytes, update_traffic_bytes
from clusterplan.tools.parallelism.matmul_efficiency import gemm_intensity, layer_efficiency
from clusterplan.tools.parallelism.step_time import (
    TP_ALL_REDUCE,
    StepShape,
    bubble_fraction,
    busiest_stage_flops,
    chunk_choices,
    compute_time_factor,
    fastest_schedule,
    hardware_flops_per_token,
    model_flops_per_token,
    narayanan_flops_per_iteration,
    optimizer_update_s,
    paper_training_seconds,
    step_time,
)

DAY = 86400


def test_flops_per_iteration_of_the_1t_configuration_by_hand():
    # Narayanan et al. 2021, Table 1, last row: 128 layers, h = 25,600, batch 3,072,
    # s = 2,048, V = 51,200 (Section 5.1). By hand:
    # 96·B·s·l·h² = 96 · 3072 · 2048 · 128 · 655,360,000 = 5.0665e19
    # 1 + s/6h = 1 + 2048/153,600 = 1.0133333; V/16lh = 51,200/52,428,800 = 0.00097656
    # F = 5.0665e19 · 1.0143099 = 5.1390e19
    flops = narayanan_flops_per_iteration(3072, 2048, 128, 25600, 51200)
    assert flops == pytest.approx(5.1390e19, rel=1e-4)


def test_flops_per_iteration_of_the_145b_configuration_by_hand():
    # Table 1: 80 layers, h = 12,288, batch 2,304, s = 2,048, V = 51,200.
    # 96·2304 = 221,184; ·2048 = 452,984,832; ·80 = 3.62388e10; ·12288² (1.50995e8) = 5.47187e18
    # times (1 + 2048/73,728 + 51,200/15,728,640) = 1 + 0.0277778 + 0.0032552 = 1.0310330
    # -> 5.64168e18
    flops = narayanan_flops_per_iteration(2304, 2048, 80, 12288, 51200)
    assert flops == pytest.approx(5.64168e18, rel=1e-5)


def test_per_token_counts_add_up_to_the_papers_formula():
    # With GPT's layer parameters 12·l·h² and the head V·h, 6 FLOPs a parameter plus attention
    # plus one recomputed forward of the layers is exactly the 96·B·s·l·h²(...) of the paper;
    # without recompute it is 72·B·s·l·h²(1 + s/6h + V/12lh).
    layers, h, vocab, s, batch = 96, 12288, 51200, 2048, 1536
    params = 12 * layers * h**2 + vocab * h
    # Recompute does not repeat the head: subtract its 2·V·h forward from the full-recompute sum.
    full = hardware_flops_per_token(params, layers, s, h, "full") - 2 * vocab * h
    assert full * batch * s == pytest.approx(
        96 * batch * s * layers * h**2 * (1 + s / (6 * h) + vocab / (16 * layers * h)), rel=1e-12)
    none = model_flops_per_token(params, layers, s, h)
    assert none * batch * s == pytest.approx(
        narayanan_flops_per_iteration(batch, s, layers, h, vocab, recompute=False), rel=1e-12)


def test_gpt3_on_1024_a100s_takes_about_34_days():
    # Section 5.1: GPT-3 175B, 300B tokens, 1,024 A100s at 140 TFLOP/s each: "about 34 days".
    # By hand: 8 · 300e9 · 175e9 / (1024 · 140e12) = 2.930e6 s = 33.9 days.
    seconds = paper_training_seconds(300e9, 175e9, 1024, 140e12)
    assert seconds / DAY == pytest.approx(34, abs=0.5)


def test_one_trillion_parameters_take_about_84_days():
    # Section 5.1: 1T parameters, 450B tokens, 3,072 A100s at 163 TFLOP/s: "about 84 days".
    # By hand: 8 · 450e9 · 1e12 / (3072 · 163e12) = 7.19e6 s = 83.2 days.
    assert paper_training_seconds(450e9, 1e12, 3072, 163e12) / DAY == pytest.approx(84, rel=0.02)


def test_bubble_is_p_minus_one_over_m():
    # Section 2.2.1: bubble fraction (p-1)/m; 8 stages and 32 micro-batches -> 7/32.
    assert bubble_fraction(8, 32) == 7 / 32
    assert bubble_fraction(1, 1) == 0


def test_uneven_stages_pay_for_the_busiest_stage():
    # 126 layers on 16 stages: the busiest has ceil(126/16) = 8 layers, 8/126 of the work
    # (8·16/126 = 1.0159 times an even share); 80 on 2 split evenly, 40 each.
    assert busiest_stage_flops(126.0, 0.0, 126, 16) * 16 / 126 == pytest.approx(128 / 126)
    assert busiest_stage_flops(80.0, 0.0, 80, 2) == 40


def _shape(**change) -> StepShape:
    base = StepShape(
        gpus=16, tp=8, pp=2, dp=1, ep=1, zero_stage=1, micro_batch=1, microbatches=8,
        recompute="none", seq_len=2048, layers=80, hidden=8192, params=70e9,
        dense_params=70e9, expert_params=0.0, attn_dim=8192, experts_per_token=1, moe=False,
        act_bytes=2, grad_bytes=2, peak_flops=989.4e12, efficiency=0.6, ranks_per_node=8)
    return dataclasses.replace(base, **change)


def _free(op, size, ranks, per_node):
    return 0.0


def test_with_free_communication_and_no_pipeline_mfu_equals_the_efficiency():
    # Nothing but compute at 60% of peak and no recompute: MFU is 0.6 by definition.
    result = step_time(_shape(pp=1, tp=8, dp=2, microbatches=4), _free)
    assert result.mfu == pytest.approx(0.6, rel=1e-12)
    assert result.comm_s == 0 and result.bubble_s == 0


def test_compute_time_by_hand():
    # 16 GPUs, 1 · 8 · 2048 = 16,384 tokens; FLOPs per token 6·70e9 + 12·80·2048·8192
    # = 4.2e11 + 1.6106e10 = 4.36106e11; over 16 · 989.4e12 · 0.6 = 9.49824e15 FLOP/s
    # -> 16,384 · 4.36106e11 / 9.49824e15 = 0.75227 s.
    result = step_time(_shape(), _free)
    assert result.compute_s == pytest.approx(0.75227, rel=1e-4)
    # The bubble: (2-1)/8 of it.
    assert result.bubble_s == pytest.approx(0.75227 / 8, rel=1e-4)


def test_full_recompute_costs_one_more_forward():
    # Extra 2·P + 4·l·s·d per token: (1.4e11 + 5.369e9) / 4.36106e11 = 33.3% more compute.
    plain = step_time(_shape(), _free).compute_s
    full = step_time(_shape(recompute="full"), _free).compute_s
    assert full / plain == pytest.approx(1 + (1.4e11 + 4 * 80 * 2048 * 8192) / 4.36106e11,
                                         rel=1e-4)


def test_tensor_parallel_all_reduces_per_layer():
    # Each all-reduce costs 1 ms here; 40 layers a stage, 8 micro-batches, 4 a layer -> 1.28 s;
    # with full recompute 6 a layer -> 1.92 s.
    def comm(op, size, ranks, per_node):
        return 1e-3 if op == TP_ALL_REDUCE and ranks == 8 else 0.0

    assert step_time(_shape(), comm).tp_s == pytest.approx(1.28)
    assert step_time(_shape(recompute="full"), comm).tp_s == pytest.approx(1.92)


def test_pipeline_sends_use_the_inter_node_link_and_slices_of_tp():
    # Activation 1 · 2048 · 8192 · 2 B = 33.55 MB; each TP rank sends 1/8 of it across nodes.
    seen = []

    def comm(op, size, ranks, per_node):
        seen.append((op, size, ranks, per_node))
        return 0.0

    step_time(_shape(), comm)
    assert ("send_recv", 2048 * 8192 * 2 / 8, 2, 1) in seen


def test_interleaved_bubble_is_p_minus_one_over_v_m():
    # Narayanan et al. 2021 Section 2.2.2 (note megatron-lm-2021#interleaved-bubble): v chunks
    # per device give (p-1)/(v·m). 8 stages, 32 micro-batches, 2 chunks -> 7/64, half of 1F1B;
    # 16 stages, 16 micro-batches, 4 chunks -> 15/64 instead of 15/16.
    assert bubble_fraction(8, 32, 2) == 7 / 64
    assert bubble_fraction(16, 16, 4) == 15 / 64
    assert bubble_fraction(8, 32, 1) == bubble_fraction(8, 32)
    with pytest.raises(ValueError, match="at least 1"):
        bubble_fraction(8, 32, 0)


def test_interleaving_cuts_the_bubble_and_multiplies_the_pipeline_sends():
    # Same layout with v = 1 and v = 4: the bubble shrinks 4x (over compute + TP, which do not
    # change) and the pipeline sends, 2 per micro-batch per chunk, grow 4x. With every send
    # costing 1 ms: 2 · 8 · 1 ms = 16 ms at v = 1, 64 ms at v = 4.
    def comm(op, size, ranks, per_node):
        return 1e-3 if op == "send_recv" else 0.0

    plain = step_time(_shape(), comm)
    interleaved = step_time(_shape(virtual_stages=4), comm)
    assert plain.pp_s == pytest.approx(0.016)
    assert interleaved.pp_s == pytest.approx(0.064)
    assert interleaved.bubble_s == pytest.approx(plain.bubble_s / 4)
    assert interleaved.compute_s == plain.compute_s


def test_the_search_picks_the_chunk_count_that_balances_bubble_and_sends():
    # 80 layers on 2 stages: 40 a stage, so v may be any divisor of 40. Free compute-side
    # communication, every pipeline send 1 ms. Bubble at v = 1: 0.75227 / 8 = 0.09403 s; sends
    # 2 x 8 x 1 ms = 0.016 s. Step beyond compute: v = 1 0.1100, v = 2 0.0470 + 0.032 = 0.0790,
    # v = 4 0.0235 + 0.064 = 0.0875, v = 5 0.0188 + 0.080 = 0.0988: v = 2 is the best.
    def comm(op, size, ranks, per_node):
        return 1e-3 if op == "send_recv" else 0.0

    best = fastest_schedule(_shape(), comm)
    assert best.virtual_stages == 2
    assert best.step_s == pytest.approx(0.75227 + 0.09403 / 2 + 0.032, rel=1e-4)
    assert best.step_s == pytest.approx(step_time(_shape(virtual_stages=2), comm).step_s)
    assert chunk_choices(80, 2) == [1, 2, 4, 5, 8, 10, 20, 40]
    assert chunk_choices(126, 16) == [1, 2, 4, 8]  # uneven: the busiest stage's 8 layers
    assert chunk_choices(80, 1) == [1]


def test_gemm_intensity_by_hand():
    # 2048 x 4096 by 4096 x 4096 in 16-bit: 2·M·K·N / 2(MK + KN + MN) = 1 / (1/2048 + 2/4096)
    # = 1,024 FLOPs a byte; 8-bit operands move half the bytes: 2,048.
    assert gemm_intensity(2048, 4096, 4096) == pytest.approx(1024)
    assert gemm_intensity(2048, 4096, 4096, operand_bytes=1) == pytest.approx(2048)


def test_efficiency_grows_with_the_gemms_and_falls_with_tensor_parallelism():
    # Narayanan et al.'s reading of their Table 1: larger GEMMs run closer to peak. On an A100
    # (ridge 312 / 2.039 = 153 FLOPs a byte) the 1T model's layer at tp 8 beats the 1.7B's at
    # tp 1, and splitting a layer 8 ways lowers its efficiency.
    ridge = 312e12 / 2.039e12
    small = layer_efficiency(2048, 2304, 2304, 2304, 4 * 2304, 1, ridge)
    large = layer_efficiency(2048, 25600, 25600, 25600, 4 * 25600, 8, ridge)
    split = layer_efficiency(2048, 2304, 2304, 2304, 4 * 2304, 8, ridge)
    assert split < small < large < 0.84


def test_selective_recompute_and_sequence_parallelism_cost_what_table_4_measured():
    # Korthikanti et al. Table 4, one 22B layer (h = 6,144, s = 2,048, tp 8): selective
    # recompute 20.9 ms against 19.6 (+6.6%), sequence parallelism 19.0 against 19.6.
    # Figure 8: selective recompute about 2% at 530B (h = 20,480).
    selective = compute_time_factor("selective", False, 8, 2048, 6144)
    assert selective == pytest.approx(20.9 / 19.6, rel=0.01)
    with_sp = compute_time_factor("selective", True, 8, 2048, 6144)
    assert with_sp == pytest.approx(20.3 / 19.6, rel=0.01)
    assert compute_time_factor("selective", True, 8, 2048, 20480) == pytest.approx(
        1.02 * 19.0 / 19.6, rel=0.005)
    assert compute_time_factor("none", True, 1, 2048, 6144) == 1  # no TP: nothing to split
    # Through the step: sequence parallelism at tp 8 cuts the compute to 19.0/19.6 of it.
    plain = step_time(_shape(), _free).compute_s
    assert step_time(_shape(sequence_parallel=True), _free).compute_s == pytest.approx(
        plain * 19.0 / 19.6)


def test_zero3_gathers_per_layer_and_exposes_only_what_a_layer_cannot_hide():
    # 80 layers on one stage (pp 1), tp 8, dp 2, 8 micro-batches: twice the tokens of the
    # hand-checked case above on the same 16 GPUs, compute 2 x 0.75227 = 1.50454 s, so
    # 0.188068 s a micro-batch, forward a third: 0.78362 ms a layer, backward 1.56723 ms.
    # Every all-gather and reduce-scatter of one layer's shard costs 1 ms: exposed a layer
    # (1 - 0.78362) + (2 - 1.56723) = 0.64915 ms; x 80 layers x 8 micro-batches = 0.41546 s.
    def comm(op, size, ranks, per_node):
        return 1e-3 if op in ("all_gather", "reduce_scatter") else 0.0

    shape = _shape(pp=1, dp=2, gpus=16, zero_stage=3)
    per_mb = step_time(shape, _free).compute_s / 8
    layer_fwd, layer_bwd = per_mb / 3 / 80, per_mb * 2 / 3 / 80
    assert layer_fwd == pytest.approx(0.78362e-3, rel=1e-4)
    assert layer_bwd == pytest.approx(1.56723e-3, rel=1e-4)
    assert step_time(shape, comm).dp_s == pytest.approx(0.41546, rel=1e-4)
    # Each collective is one layer's shard: 70e9 / 8 (tp) x 2 bytes / 80 layers = 218.75 MB.
    seen = []
    step_time(shape, lambda op, size, ranks, per_node: seen.append((op, size)) or 0.0)
    assert ("all_gather", 70e9 / 8 * 2 / 80) in seen


def test_zero3_at_fixed_batch_loses_throughput_per_gpu_as_the_ring_grows():
    # A fixed global batch of 64 sequences on ever more ZeRO-3 ranks: each rank's compute per
    # layer halves with every doubling while a ring collective's latency grows with its ranks
    # (here 20 us a step, (n - 1) steps). Tokens per second per GPU must fall once the gathers
    # no longer fit under a layer's compute.
    def comm(op, size, ranks, per_node):
        return 20e-6 * (ranks - 1) if op in ("all_gather", "reduce_scatter") else 0.0

    per_gpu = []
    for dp in (8, 16, 32, 64):
        shape = _shape(pp=1, tp=8, dp=dp, gpus=8 * dp, zero_stage=3, microbatches=64 // dp)
        t = step_time(shape, comm)
        per_gpu.append(t.tokens_per_s / shape.gpus)
    assert per_gpu == sorted(per_gpu, reverse=True) and per_gpu[-1] < 0.8 * per_gpu[0]


def test_lora_skips_the_weight_gradients_as_the_lora_paper_measured_on_gpt_3():
    # GPT-3 175B (96 layers, d = 12,288, s = 2,048) with full recompute, same split: full
    # fine-tuning runs 8·N + 16·l·s·d FLOPs a token (6·N, 12·l·s·d attention, and the
    # recomputed forward 2·N + 4·l·s·d); LoRA's frozen weights take no weight gradients,
    # 6·N + 16·l·s·d. 16·96·2048·12288 = 3.8655e10; (1.05e12 + 3.8655e10) / (1.4e12 +
    # 3.8655e10) = 0.75672. The LoRA paper measured 32.5 against 43.1 tokens/s per V100:
    # 32.5 / 43.1 = 0.75406 of the time, 0.35% from the FLOP count.
    gpt3 = dict(params=175e9, dense_params=175e9, layers=96, hidden=12288, attn_dim=12288,
                recompute="full", seq_len=2048, pp=1, dp=2, microbatches=4)
    full = step_time(_shape(**gpt3), _free)
    lora = step_time(_shape(**gpt3, frozen_weights=True), _free)
    assert lora.compute_s / full.compute_s == pytest.approx(0.75672, rel=1e-4)
    assert lora.compute_s / full.compute_s == pytest.approx(32.5 / 43.1, rel=0.005)
    assert model_flops_per_token(175e9, 96, 2048, 12288, frozen=True) == \
        pytest.approx(4 * 175e9 + 12 * 96 * 2048 * 12288)


def test_the_last_stage_runs_the_output_layer_and_a_balanced_split_moves_layers_off_it():
    # megatron-lm-2021#last-stage-head. In units of one layer's cost L = 1: 72 layers on 12
    # stages and a head costing 1.46 L (BLOOM's 250,880-word vocabulary at h = 14,336 is of
    # that order). Per token the stages hold 72 L + 1.46 L = 73.46 L in all.
    #   No pipeline: one stage runs everything, 73.46.
    #   Even split (Megatron-LM): 6 layers a stage, the last adds the head: 6 + 1.46 = 7.46.
    #   Balanced (uneven stages allowed): 7 layers on each of the first 11 stages (77 >= 72)
    #   leaves the last stage the head alone, so the slowest stage costs 7.
    assert busiest_stage_flops(73.46, 1.46, 72, 1) == pytest.approx(73.46)
    assert busiest_stage_flops(73.46, 1.46, 72, 12) == pytest.approx(7.46)
    assert busiest_stage_flops(73.46, 1.46, 72, 12, balanced=True) == pytest.approx(7.0)
    # A head lighter than a layer changes nothing when the layers split unevenly: 126 layers
    # on 16 stages put ceil(126/16) = 8 on the first stages and floor(126/16) = 7 + 0.66 on
    # the last (Llama 3 405B's head is about 0.66 of a layer).
    assert busiest_stage_flops(126.66, 0.66, 126, 16) == pytest.approx(8.0)


def test_the_head_slows_a_pipeline_of_few_layers_a_stage_by_hand():
    # 39.1B-like: 48 layers on 8 stages (6 a stage), h = 8,192, V = 51,200, no recompute.
    # FLOPs per token: 6 x 39.1e9 + 12 x 48 x 2,048 x 8,192 = 2.346e11 + 9.664e9 = 2.44264e11,
    # of which the head is 6 x 8,192 x 51,200 = 2.51658e9. Spread evenly each stage would run
    # 6/48 of it; the last runs 6 layers of the rest plus the head:
    # (6/48 x (2.44264e11 - 2.51658e9) + 2.51658e9) / (6/48 x 2.44264e11) = 1.07210.
    shape = _shape(gpus=64, tp=8, pp=8, layers=48, params=39.1e9, dense_params=39.1e9)
    plain = step_time(shape, _free).compute_s
    headed = step_time(dataclasses.replace(shape, vocab=51200), _free).compute_s
    assert headed / plain == pytest.approx(1.07210, rel=1e-4)


def test_the_optimizer_update_runs_at_memory_bandwidth_by_hand():
    # optimizer-states#update-traffic: AdamW with a master copy moves 2 x (4 + 8) + 4 + 2 = 30
    # bytes a parameter; 7e9 parameters on one A100 80GB (2.039 TB/s): 7e9 x 30 / 2.039e12
    # = 0.10299 s. ZeRO-1 over 8 ranks updates an eighth each: 0.012874 s.
    adamw = optimizer_bytes("adamw", True, 4096)
    assert update_traffic_bytes(adamw, "bf16") == 30
    assert update_traffic_bytes(optimizer_bytes("adamw", False, 4096), "fp32") == 28
    assert update_traffic_bytes(optimizer_bytes("sgd_momentum", True, 4096), "bf16") == 22
    assert update_traffic_bytes(optimizer_bytes("adamw_8bit", True, 4096), "bf16") == \
        pytest.approx(2 * (4 + 2 * (1 + 4 / 2048)) + 4 + 2)
    one = _shape(gpus=8, tp=1, pp=1, dp=8, zero_stage=0, params=7e9, dense_params=7e9,
                 layers=32, hidden=4096, attn_dim=4096, update_bytes=30,
                 hbm_bytes_per_s=2.039e12)
    assert optimizer_update_s(one) == pytest.approx(0.10299, rel=1e-4)
    assert optimizer_update_s(dataclasses.replace(one, zero_stage=1)) == \
        pytest.approx(0.012874, rel=1e-4)
    # It is a part of the step: after the backward pass, nothing hides it.
    result = step_time(one, _free)
    assert result.step_s == pytest.approx(result.compute_s + 0.10299, rel=1e-4)
