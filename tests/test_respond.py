"""respond(): the Answer a user sees - direct answer first, trace, sources, clarifications,
follow-ups - and never an exception, whatever is typed."""

from __future__ import annotations

import re

import pytest
from hypothesis import HealthCheck, given, settings
from hypothesis import strategies as st

from clusterplan.assistant.answer import Answer
from clusterplan.assistant.respond import respond


@pytest.fixture(autouse=True)
def _store(memory_store):
    """Every test here answers from a fresh in-memory catalog."""


def test_an_answer_leads_with_the_figure_then_tables_and_sources():
    answer = respond("How much GPU memory do I need to serve Llama 3 70B in BF16?")
    first = answer.markdown.split("\n\n")[0]
    # Llama 3 70B has 70.55e9 parameters (its config); at 2 bytes each the weights are 141.1 GB.
    assert "weights 141 GB" in first
    assert answer.markdown.index("| term |") > len(first)
    assert "**Sources**" in answer.markdown
    assert answer.data["memory"]["breakdown_gb"]["weights"] == pytest.approx(141.1, rel=0.002)


def test_the_trace_reads_parse_then_each_call_then_its_steps_then_a_conclusion():
    answer = respond("Convert 400 Gb/s to GB/s")
    labels = [s.label for s in answer.trace]
    assert labels[0].startswith("read the question as a convert question")
    assert labels[1] == "call tool interconnect: unit conversion"
    assert answer.trace[1].inputs["value"].value == "400 Gb/s"
    assert labels[-1] == "conclusion"
    assert len(labels) > 3  # the tool's own steps sit between the call and the conclusion


def test_citations_are_the_union_of_the_tools_without_repeats():
    answer = respond("What's the difference between the H100 and the H200 for 70B inference?")
    keys = [c.key for c in answer.citations]
    assert len(keys) == len(set(keys))
    # both datasheets back the bandwidth ratio step
    assert {"nvidia-h100-datasheet", "nvidia-h200-datasheet"} <= set(keys)


def test_defaults_are_listed_as_assumptions():
    answer = respond("How much memory to serve llama 3 8b?")
    assert "assumed precision of weights and compute: bf16 (not given in the question)" \
        in answer.assumptions
    assert any(a.startswith("assumed context length") and "4096" in a
               for a in answer.assumptions)


def test_a_disputed_source_is_shown_with_its_dispute():
    answer = respond("How much faster is NVLink than InfiniBand NDR, per direction?")
    disputed = [c for c in answer.citations if c.dispute]
    assert [c.key for c in disputed] == ["nvlink-vs-infiniband#ratio-18-to-1"]
    assert "**Disputed sources**" in answer.markdown and "18" in answer.markdown


def test_a_missing_model_gets_a_clarifying_question_with_catalog_choices():
    answer = respond("How much GPU memory do I need to serve it in FP8?")
    assert answer.clarification is not None
    assert answer.clarification.missing == ["model"]
    assert "which model" in answer.clarification.question
    assert "llama-3-70b" in answer.clarification.choices
    assert answer.markdown.startswith("To answer the memory question, tell me which model")
    # the reply continues the same question
    follow = respond("llama 3 70b", previous=answer.intent)
    assert follow.clarification is None
    assert follow.intent.slots["precision"] == "fp8"


@pytest.mark.parametrize("question", [
    "How much GPU memory do I need?", "Plan a cluster for llama 3 70b", "asdf",
    "How long to copy 10 TB?", "egress cost on AWS", "convert 400 Gb/s",
    "How much egress for 10 TB?", "how many GPUs do I need?", "how many H100s do I need?",
])
def test_every_choice_offered_answers_the_clarifying_question(question):
    asked = respond(question)
    assert asked.clarification is not None and asked.clarification.choices
    for choice in asked.clarification.choices:
        reply = respond(choice, previous=asked.intent)
        assert reply.clarification is None, (choice, reply.clarification)
        assert reply.error is None, (choice, reply.error)


def test_how_many_gpus_without_a_model_asks_for_the_model():
    asked = respond("how many H100s do I need?")
    assert asked.intent.kind == "cluster_size"
    assert asked.clarification.missing == ["model"]
    reply = respond("llama 3 70b", previous=asked.intent)
    assert reply.intent.kind == "cluster_size" and reply.intent.slots["gpu"] == "h100-sxm"


def test_a_missing_gpu_count_is_one_node_shown_as_assumed_and_a_follow_up_changes_it():
    first = respond("How should I split llama 3 70b over H100s?")
    assert first.clarification is None and first.error is None
    assert first.intent.assumed["gpus"] == 8
    assert any("8" in a and "GPU" in a for a in first.assumptions), first.assumptions
    assert respond("and on 16 H100s?", previous=first.intent).intent.slots["gpus"] == 16


def test_follow_ups_re_answer_with_one_slot_changed():
    first = respond("How much GPU memory do I need to serve Llama 3 70B in BF16?")
    h200 = respond("and on H200?", previous=first.intent)
    assert h200.data["memory"]["gpu"] == "h200-sxm"
    # 70.55e9 x 2 B = 141.1 GB of weights, plus KV cache and overhead, is more than one
    # H200's 143,771 MiB = 150.75 GB
    assert h200.data["memory"]["fits"] is False
    fp8 = respond("what about FP8?", previous=h200.intent)
    # FP8: one byte a parameter, 70.55 GB of weights: fits on one H200
    assert fp8.data["memory"]["breakdown_gb"]["weights"] == pytest.approx(70.55, rel=0.002)
    assert fp8.data["memory"]["fits"] is True


def test_a_price_follow_up_keeps_the_gpus_the_last_answer_settled_on():
    sized = respond("How many H100s do I need to pre-train a 405B model?")
    fewest = sized.data["memory"]["min_gpus"]["h100-sxm"]
    priced = respond("what would that cost per month?", previous=sized.intent)
    assert priced.intent.kind == "pricing"
    assert priced.data["pricing"]["billed_gpus"] == fewest
    assert f"gpus={fewest}" in " ".join(priced.intent.readings)


def test_a_tool_refusal_is_a_one_line_error_answer():
    answer = respond("all-reduce of 140 GB on 1 H100")
    assert answer.error is not None and "ranks" in answer.error and "\n" not in answer.error
    assert answer.markdown.startswith("I could not answer this: invalid input for tool")
    unit = respond("Convert 400 kg/s to GB/s")
    assert unit.intent.kind == "convert" and "kg" in unit.error
    assert [s.label for s in unit.trace][:2] == ["read the question as a convert question",
                                                "call tool interconnect: unit conversion"]


def test_transfers_conversions_and_comparisons_in_other_words():
    copy = respond("How long to copy 10 TB at 10 Gb/s?")
    # 10e12 B / (10e9 b/s / 8 b per B = 1.25e9 B/s) = 8,000 s
    assert copy.data["interconnect"]["time_s"] == pytest.approx(8000, rel=1e-3)
    asked = respond("How long to copy 10 TB?")
    assert asked.clarification.missing == ["path"]
    assert asked.clarification.question.startswith("To answer the transfer time")
    gib = respond("what's 2 GiB in GB")
    # 2 x 2^30 B = 2.147483648 GB
    assert gib.data["interconnect"]["value"] == pytest.approx(2 * 2**30 / 1e9)
    versus = respond("Is the B200 better than the MI300X?")
    # datasheets: 8.0 TB/s (B200) / 5.3 TB/s (MI300X) = 1.51, the faster one named first;
    # capacity is the driver's: 183,359 MiB x 2^20 / 1e9 = 192.27 GB under the "180GB" label,
    # and rocm-smi's 206,141,652,992 bytes = 206.14 GB for the "192GB" MI300X
    assert 183_359 * 2**20 / 1e9 == pytest.approx(192.27, abs=0.005)
    assert versus.markdown.startswith("NVIDIA B200 SXM 180GB has 192 GB at 8.00 TB/s "
                                      "against 206 GB at 5.30 TB/s")
    assert "**1.51×**" in versus.markdown


def test_gpu_specs_prices_over_a_period_and_plural_gpus():
    specs = respond("What's the memory bandwidth of the B200?")
    assert specs.intent.kind == "gpu_specs"
    # the B200 row of the catalog (note nvidia-b200-datasheet): labelled 180GB, holding
    # 183,359 MiB = 192.27 GB as the driver reports it (note gpu-driver-memory), at 8.0 TB/s
    assert specs.markdown.startswith("NVIDIA B200 SXM 180GB has **192 GB** of memory at "
                                     "**8.00 TB/s**")
    assert [c.id for c in specs.citations] == ["nvidia-b200-datasheet"]
    period = respond("8 H100s for 3 months at 60% utilization, how much?")
    p = period.data["pricing"]
    rate = p["cheapest"]["effective_usd_per_gpu_hour"]
    # 8 GPUs x rate x 3 x 730 h x 0.6 busy
    assert p["total_usd"] == pytest.approx(8 * rate * 3 * 730 * 0.6, rel=1e-3)
    many = respond("Serve Llama 3 70B to 100 concurrent users at 8k context on H100s")
    assert many.intent.kind == "cluster_size"  # 'on H100s': how many is the question
    # KV: 327,680 B/token x 8,192 x 100 = 268 GB, plus 141 GB of weights: more than
    # 4 x 85.52 GB (81,559 MiB each)
    assert many.data["memory"]["min_gpus"]["h100-sxm"] == 8
    prices = respond("B200 vs H200 cost per month")
    assert [k for k in prices.data] == ["pricing", "pricing_2"]


HOSTILE = [
    "", " ", "\x00\x01\x02", "?" * 10, "A" * 100_000, "70B " * 20_000,
    "'; DROP TABLE offers; --", "egress for 10 TB on x'; DROP TABLE providers; --",
    "<script>alert(1)</script> | # heading | [link](javascript:alert(1))",
    "🚀🔥 can i run 🦙 70b on 🟩 H100?", "70 trillion B", "how much memory for a 70 trillion "
    "parameter model", "all-reduce of -5 GB on 8 H100s", "all-reduce of 1e309 GB on 8 H100s",
    "convert 400 kg to GB/s", "serve llama 3 70b on 0 H100s", "serve llama 3 70b on 99999999 H100s",
    "train a 0B model", "what is \u202e\u200b pipeline parallelism", "\ud800 broken surrogate",
    "fit llama 3 70b at 999999999k context on one H100", "price of 1,000,000,000 B200s",
]


@pytest.mark.parametrize("text", HOSTILE)
def test_hostile_questions_get_an_answer_never_an_exception(text):
    answer = respond(text)
    assert isinstance(answer, Answer)
    assert answer.markdown
    assert "<script>" not in answer.markdown
    assert "Traceback" not in answer.markdown
    if answer.error:
        assert "internal error" not in answer.error, answer.error


QUESTION_WORDS = st.sampled_from([
    "how much", "memory", "fit", "serve", "train", "fine-tune", "qlora", "llama 3 70b", "70B",
    "8x H100", "H200", "2 nodes", "all-reduce", "140 GB", "400 Gb/s", "to GB/s", "cost",
    "per month", "egress", "AWS", "NVLink", "InfiniBand NDR", "32k context", "15T tokens",
    "vs", "B200", "?", "and", "what about", "fp8", "4-bit", "$5k", "60%", "checkpoint",
    "10 GB/s", "split", "how many", "plan a cluster", "pipeline parallelism", "0", "-1",
    "1e400", "μ", "'", "|", "\n", "\x00",
])


@settings(max_examples=1500, deadline=None, suppress_health_check=[HealthCheck.too_slow])
@given(st.one_of(st.text(max_size=300), st.lists(QUESTION_WORDS, max_size=12).map(" ".join)))
def test_random_and_plausible_strings_never_raise(text):
    answer = respond(text)
    assert isinstance(answer, Answer)
    assert answer.markdown
    if answer.error:
        assert "internal error" not in answer.error, (text, answer.error)


@settings(max_examples=300, deadline=None, suppress_health_check=[HealthCheck.too_slow])
@given(st.lists(QUESTION_WORDS, min_size=1, max_size=8).map(" ".join),
       st.lists(QUESTION_WORDS, min_size=1, max_size=5).map(" ".join))
def test_random_follow_ups_never_raise(first, second):
    answer = respond(second, previous=respond(first).intent)
    assert isinstance(answer, Answer)
    if answer.error:
        assert "internal error" not in answer.error, (first, second, answer.error)


def test_a_price_asked_again_after_an_import_uses_the_new_offer(memory_store):
    from clusterplan.db.offers import import_offers

    question = "What is the cheapest H100 per hour?"
    before = respond(question).data["pricing"]["cheapest"]["effective_usd_per_gpu_hour"]
    assert before > 1.0
    report = import_offers(memory_store, (
        "provider,gpu,gpus_per_node,kind,usd_per_gpu_hour,verified_on,source_note\n"
        "my-colo,h100-sxm,1,on_demand,0.99,2026-11-30,gpu-prices-2026\n"))
    assert not report.problems and len(report.added) == 1
    after = respond(question).data["pricing"]["cheapest"]
    assert (after["provider"], after["effective_usd_per_gpu_hour"]) == ("my-colo", 0.99)


@pytest.mark.parametrize("question", [
    "Tensor Parallelism vs Data Parallelism",
    "What's the relationship between KV cache and max sequence length?",
    "对于并行方式，推理是选择张量并行还是流水线并行？",
])
def test_a_question_of_the_field_with_no_figure_to_compute_is_answered_not_asked_back(question):
    answer = respond(question)
    assert answer.clarification is None and answer.error is None
    assert answer.intent.kind == "concept" and answer.markdown.strip()


def test_gibberish_is_still_asked_about():
    assert respond("asdf qwerty").clarification is not None


@pytest.mark.parametrize("question, nearest", [
    ("does llama 3 8b fit on an A5500?", "rtx-a5000"),
    # "RTX4000" is a Quadro RTX 4000 or an RTX 4000 Ada, neither the A4000 nor the 4090
    ("does llama 3 8b fit on an RTX4000?", "rtx-a4000"),
])
def test_a_gpu_outside_the_catalog_is_named_as_unknown_never_swapped(question, nearest):
    answer = respond(question)
    assert "gpu" not in answer.intent.slots and "gpu" not in answer.intent.assumed
    assert answer.clarification is not None
    assert "not a GPU in the catalog" in answer.clarification.question
    assert nearest in answer.clarification.choices


def test_a_typo_in_a_gpu_name_is_still_read():
    assert respond("does llama 3 8b fit on a H10O?").intent.slots["gpu"] == "h100-sxm"


def test_a_follow_up_without_a_model_keeps_the_model_and_counts_them():
    # "with 64 of them" counts the H100s just sized; the model is kept, not asked again.
    first = respond("I want to fine-tune Llama 3 70B with full parameters on H100s. "
                    "How many GPUs do I need?")
    later = respond("How long would it take on 2T tokens with 64 of them?", previous=first.intent)
    assert later.clarification is None, later.markdown
    assert later.intent.kind == "training"
    assert later.intent.slots["model"] == "llama-3-70b"
    assert later.intent.slots["gpus"] == 64
    assert later.data["parallelism"]["gpus"] == 64


def test_how_fast_a_quantised_model_decodes_is_answered_in_tokens_per_second():
    # r/LocalLLaMA-style: "how fast will it decode?" wants tokens/s, not a fit check. Decoding
    # one sequence reads the weights and its KV cache each token: Meta-Llama-3-8B Q4_K_M.gguf is
    # 4.92 GB, the KV cache at 4,096 tokens 4,096 x 32 layers x 2 x 8 heads x 128 x 2 B =
    # 0.537 GB, over the RTX 4090's 1,008 GB/s with weights read at 80% of it and the paged KV
    # at 50% (serving-latency#weights-read-efficiency, #kv-read-efficiency):
    # (4.92 / 0.8 + 0.537 / 0.5) / 1008 = 7.17 ms a token, plus 32 layers x 54 us of fixed
    # cost (serving-latency#layer-overhead) = 1.73 ms: 8.90 ms.
    answer = respond("Q4_K_M Llama 3 8B on an RTX 4090, how fast will it decode?")
    assert answer.intent.kind == "serving"
    best = answer.data["parallelism"]["plans"][0]
    assert best["time_per_output_token_ms"] == pytest.approx(7.17 + 1.728, rel=0.01)
    assert "tokens/s" in answer.markdown


def test_a_kv_cache_question_leads_with_the_bytes_per_token():
    # Llama 3 70B: 80 layers, 8 KV heads of 128 dims, BF16: 2 (K and V) x 80 x 8 x 128 x 2 B
    # = 327,680 bytes per token; at the default 4,096 tokens, 1.342 GB.
    answer = respond("How much KV cache does Llama 3 70B need per token?")
    first = answer.markdown.split(". ")[0]
    assert "**327,680 bytes per token**" in first
    assert "1 sequence;" in answer.markdown and "1 sequences" not in answer.markdown


def test_a_kv_answer_names_the_cache_precision_and_sets_fp8_beside_bf16():
    # Llama 3.1 70B in FP8 weights keeps a BF16 cache: 327,680 B a token (2 x 80 x 8 x 128 x 2)
    # x 32,768 tokens x 16 users = 171.8 GB; an FP8 cache, 1 byte an element, is half: 85.9 GB.
    answer = respond("How much KV cache does Llama 3.1 70B need for 32k context and 16 "
                     "concurrent users in fp8?")
    first = answer.markdown.split("\n\n")[0]
    assert "kept in BF16" in first and "**172 GB**" in first
    assert "halves it to 85.9 GB" in first


def test_how_many_gpus_shows_the_split_on_that_many_not_the_whole_on_one():
    # Llama 3.1 70B in FP8 with a BF16 cache for 16 x 32,768 tokens: 171.8 GB of cache and
    # 70.55 GB of weights do not fit one H100 (85.5 GB); on 4 each holds a quarter of both:
    # 70.55 / 4 = 17.6 GB of weights and 171.8 / 4 = 42.9 GB of cache.
    answer = respond("How many H100 do I need to serve Llama 3.1 70B in fp8 with 32k context "
                     "for 16 concurrent users?")
    assert answer.intent.kind == "cluster_size"
    assert "**4× NVIDIA H100 SXM 80GB**" in answer.markdown
    shares = answer.data["memory_2"]["breakdown_gb"]  # the second call: on the 4 GPUs
    assert answer.data["memory_2"]["layout"]["gpus"] == 4
    assert shares["weights"] == pytest.approx(70.55 / 4, rel=0.005)
    assert shares["kv_cache"] == pytest.approx(327_680 * 32_768 * 16 / 4 / 1e9, rel=0.002)
    assert "GPU memory of all 4 GPUs" in answer.markdown and "all 1 GPUs" not in answer.markdown


def test_a_cache_dtype_flag_says_nothing_of_the_weights():
    # "--kv-cache-dtype fp8" on Llama 3.1 8B: the cache is 2 x 32 x 8 x 128 x 1 B = 65,536 B a
    # token; the weights stay BF16: 8.03e9 parameters x 2 B = 16.06 GB.
    answer = respond("KV cache of Llama 3.1 8B at 128k context with --kv-cache-dtype fp8")
    assert answer.intent.slots["kv_precision"] == "fp8"
    assert "precision" not in answer.intent.slots
    assert "**65,536 bytes per token**" in answer.markdown
    assert answer.data["memory"]["breakdown_gb"]["weights"] == pytest.approx(16.06, rel=0.002)
    assert "halves it" not in answer.markdown


def test_a_served_models_max_sequence_length_is_its_context():
    # kvcached#210-style: "max sequence length 32k" when serving sizes the KV cache at 32,768
    # tokens: 327,680 B x 32,768 = 10.74 GB, a 1/8 share on each of 8 GPUs = 1.342 GB.
    answer = respond("Can Llama 3.3 70B be served on 8x 40GB A100s with a max sequence "
                     "length of 32k?")
    assert answer.intent.slots["context_len"] == 32_768
    assert answer.data["memory"]["breakdown_gb"]["kv_cache"] == pytest.approx(1.342, abs=0.001)


def test_a_comparison_on_several_gpus_says_per_gpu_not_before_sharding():
    # 8 GPUs named: the figure is each GPU's share, and must not be called the unsharded total.
    answer = respond("Llama 3 70B inference on 8 A100 40GB vs 8 A100 80GB?")
    assert "per GPU when split over 8 GPUs" in answer.markdown
    assert "before sharding" not in answer.markdown


def test_users_at_a_speed_each_on_no_named_cluster_is_planned():
    # Issue example: 200 users x 30 tokens/s = 6,000 output tokens/s in all, and each user's
    # stream at most 1,000 / 30 = 33.3 ms a token.
    answer = respond("Serve Llama 3 70B to 200 concurrent users at 30 tokens/s each")
    assert answer.intent.kind == "plan"
    best = answer.data["plan"]["recommendation"]
    assert best["tokens_per_s"] >= 6000
    assert best["time_per_output_token_ms"] <= 1000 / 30
    assert best["replicas"] * best["concurrency_per_replica"] >= 200


def test_a_gpu_named_bare_and_again_with_its_memory_is_one_gpu():
    # https://github.com/ovg-project/kvcached/issues/210: "8 x A100s (8x 40GB A100s)" is one
    # cluster of A100 40GB, not a comparison of the 80 GB and 40 GB variants.
    answer = respond("Running Llama3.1 + Llama3.3 70bs on 8 x A100s (8x 40GB A100s), max "
                     "sequence length 32k: the available KV cache memory is insufficient")
    assert answer.intent.slots["gpu"] == "a100-sxm-40gb"
    assert "gpu_list" not in answer.intent.slots
    assert answer.intent.kind != "gpu_compare"


def test_memory_a_model_requires_under_vllm_is_checked_against_what_it_needs():
    # https://github.com/vllm-project/vllm/issues/17891: a 7B model in BF16 needs 7e9 x 2 B =
    # 14 GB of weights; 70 GB in use is vLLM reserving most of the GPU for its KV cache.
    answer = respond("Why does loading a 7b model with VLLM require 70GB of vram?")
    assert answer.intent.kind == "diagnose"
    assert "**70.0 GB**" in answer.markdown and "a 7B-parameter model" in answer.markdown
    assert "custom-" not in answer.markdown.split("\n")[0]
    assert "serving-memory-preallocation#vllm-default" in answer.markdown.split("| 1 |")[1]


def test_what_if_lora_instead_trains_faster_on_the_same_cluster():
    # After a full fine-tune's time, "what if I used LoRA instead?" keeps the model, tokens
    # and GPUs; the frozen weights skip 2 of 6 FLOPs per parameter, so the run is shorter.
    first = respond("How long to fully fine-tune Llama 3 70B on 2T tokens with 64 H100s?")
    lora = respond("What if I used LoRA instead?", previous=first.intent)
    assert lora.intent.slots["workload"] == "lora"
    full_days = first.data["parallelism"]["training_days"]
    lora_days = lora.data["parallelism"]["training_days"]
    assert lora_days < 0.8 * full_days
    assert any("qlora-paper#lora-compute" in s.notes for s in lora.trace)


def test_a_training_fit_missed_only_for_lack_of_recompute_says_recompute_fits():
    # LoRA on Llama 3 8B (8.03e9 parameters) on one RTX 4090 (24 GiB = 25.8 GB): the assumed
    # default keeps every activation (32 layers at s = 4,096) and misses; with gradient
    # checkpointing only each layer's input stays (2·s·h = 33.5 MB a layer, 1.07 GB in all),
    # so the 16.06 GB of BF16 weights (8.03e9 x 2 B) and a layer's working set fit. The answer
    # keeps the default's verdict and says what fits, with the price: the forward runs twice,
    # 2 of LoRA's 4 FLOPs a parameter more (50%).
    answer = respond("how much memory to fine-tune llama 3 8b with lora on one 4090?")
    default, least = answer.data["memory"], answer.data["memory_2"]
    assert not default["fits"] and least["fits"]
    assert 16.06 < least["per_gpu_gb"] < 25.8 < default["per_gpu_gb"]
    assert f"it needs **{least['per_gpu_gb']:.3g} GB per GPU** and fits" in answer.markdown
    assert "50% more compute" in answer.markdown
    assert "recompute: none" in " ".join(answer.assumptions)  # the default stays the answer's


@pytest.mark.parametrize("question", [
    "how much memory to fine-tune llama 3 8b with lora on one 4090 without gradient "
    "checkpointing?",
    "how much memory to fine-tune llama 3 8b with qlora on one 4090?",
])
def test_a_recompute_the_question_set_or_already_assumed_is_not_offered_again(question):
    assert "memory_2" not in respond(question).data


def test_an_all_reduce_over_nodes_counts_eight_gpus_a_node_and_the_ports_named():
    # 16 nodes x 8 GPUs (assumed, said) = 128 ranks; 8 NDR ports of 50 GB/s share 400 GB/s,
    # above NVLink 4's usable 370.8, so the rings run at 370.8: 2 x 127/128 x 140 / 370.8 =
    # 0.7491 s, plus 254 steps x 2.7 us = 0.69 ms: 0.7499 s.
    answer = respond("bandwidth between nodes with 8x400Gb/s infiniband per node, all-reduce of "
                     "140 GB over 16 nodes")
    result = answer.data["interconnect"]
    assert (result["ranks"], result["nodes"]) == (128, 16)
    assert result["time_s"] == pytest.approx(2 * 127 / 128 * 140 / 370.8 + 254 * 2.7e-6,
                                             rel=1e-3)
    assert "assumed GPUs per node: 8" in " ".join(answer.assumptions)


@pytest.mark.parametrize(("question", "lead"), [
    ("what is MFU?", "mfu-calibration#mfu-definition"),
    ("what is a KV cache", "kv-cache#per-token"),
    ("what is pipeline parallelism?", "parallelism-strategies#pipeline-parallel"),
])
def test_what_is_x_leads_with_the_claim_that_defines_x(question, lead):
    first = respond(question).markdown.split("\n\n")[0]
    assert first.split("[`", 1)[1].startswith(lead), first


def test_what_a_timed_run_would_cost_at_a_provider_is_the_runs_gpu_hours_there():
    # After "how long to train it on 20B tokens?" (8 A100, about 1,560 GPU-hours), "how much
    # would that cost on lambda?" prices those GPU-hours at Lambda's A100 rate, not a month of
    # the cluster: cost = GPU-hours x Lambda's $/GPU-hour, both read from the answer's data.
    first = respond("what about full fine-tuning llama 3 8b on 8 A100 80GB with zero-3?")
    timed = respond("how long to train it on 20B tokens?", previous=first.intent)
    priced = respond("how much would that cost on lambda?", previous=timed.intent)
    hours = priced.data["parallelism"]["gpu_hours"]
    offer = priced.data["pricing"]["cheapest"]
    assert offer["provider"] == "lambda"
    assert priced.data["pricing"]["run_usd"] == pytest.approx(
        hours * offer["effective_usd_per_gpu_hour"], rel=0.01)
    assert "a month" not in priced.markdown.split("\n\n")[0]


def test_a_dataset_follow_up_is_timed_and_then_priced_at_the_provider_asked():
    # Qwen3-30B-A3B full fine-tuning does not fit one A100 80GB (30.5e9 x 16 B = 488 GB); the
    # follow-ups time 1M samples x 800 tokens x 2 epochs = 1.6e9 tokens on the smallest cluster
    # and as LoRA on the one GPU, then price those GPU-hours at RunPod: cost / GPU-hours is
    # RunPod's A100 rate for each.
    first = respond("can I fine-tune qwen3-30b-a3b on one A100 80GB?")
    timed = respond("how long on 1 million samples of 800 tokens each, 2 epochs?",
                    previous=first.intent)
    assert timed.intent.kind == "training" and timed.intent.assumed["tokens"] == 1.6e9
    priced = respond("what would that cost on runpod?", previous=timed.intent)
    runs = [v for k, v in priced.data.items() if k.startswith("parallelism") and v.get("gpu_hours")]
    prices = [v for k, v in priced.data.items() if k.startswith("pricing") and v.get("run_usd")]
    assert len(runs) == len(prices) == 2
    for run, price in zip(runs, prices, strict=True):
        assert price["cheapest"]["provider"] == "runpod"
        assert price["run_usd"] == pytest.approx(
            run["gpu_hours"] * price["cheapest"]["effective_usd_per_gpu_hour"], rel=0.01)


def test_ports_named_with_their_fabric_set_the_rings_network():
    # 4 nodes of 8 A100, 4 HDR ports each: the rings share 4 x 25 = 100 GB/s a node, below
    # NVLink 3's usable 240, so 2 x 31/32 x 20 GB / 100 GB/s = 0.3875 s (+ 62 x 2.7 us).
    answer = respond("all-reduce of 20 GB across 4 nodes of 8 A100 with 4 HDR ports each")
    result = answer.data["interconnect"]
    assert answer.intent.slots["nics_per_node"] == 4
    assert result["time_s"] == pytest.approx(2 * 31 / 32 * 20 / 100 + 62 * 2.7e-6, rel=1e-3)


def test_a_serving_figure_asked_after_sizing_a_served_model_is_that_jobs_figure():
    # Mixtral 8x7B on 2 H100 for 8 users at 4k: each decode step reads the dense 1.63e9
    # parameters and 8(1-(6/8)^8) = 7.2 of 8 experts (of 45.07e9): 2 B x (1.63 + 45.07 x 0.9)e9
    # = 84.4 GB over 2 GPUs, plus 8 x 4,096 x 131,072 B = 4.29 GB of KV cache, at 3.35 TB/s a
    # GPU, weights read at 80% of it and the KV cache at 50% (serving-latency): (42.2 / 0.8 +
    # 2.15 / 0.5) / 3,350 = 17.0 ms a token, plus 32 layers x (54 us + 2 all-reduces x 9 us)
    # of fixed cost (serving-latency#layer-overhead) = 2.3 ms: 19.3 ms (the all-reduces'
    # bandwidth adds a little).
    sized = respond("serve mixtral 8x7b on 2 H100 for 8 users at 4k context")
    asked = respond("what is the time per output token?", previous=sized.intent)
    assert asked.intent.kind == "serving"
    best = asked.data["parallelism"]["plans"][0]
    assert best["time_per_output_token_ms"] == pytest.approx(17.0 + 2.304, rel=0.02)
    assert respond("what is a KV cache?", previous=sized.intent).intent.kind == "concept"


def test_nvlink_asked_of_a_card_without_it_says_so_and_sets_pcie_beside_nvlink():
    # The L40S is a PCIe 4.0 x16 card without NVLink (its datasheet). PCIe 4.0 x16 carries
    # 16 GT/s x 16 lanes x 128/130 / 8 = 31.5 GB/s a direction; NVLink 4 on an H100 SXM 450 GB/s
    # a direction: 450 / 31.5 = 14.3x by line rate. NCCL's usable rates differ by link, so the
    # ratio of the all-reduces is held to 20 % of that.
    answer = respond("Is NVLink needed for tensor parallel 8 on L40S or is PCIe fine?")
    first = answer.markdown.split("\n\n")[0]
    assert "**NVIDIA L40S 48GB has no NVLink**" in first
    assert not any("as pcie-4" in r for r in answer.intent.readings)
    found = re.search(r"about \*\*([\d.]+) GB/s\*\* bus bandwidth against ([\d.]+) GB/s", first)
    assert found, first
    pcie, nvlink = float(found.group(1)), float(found.group(2))
    assert pcie < 31.5
    assert 0.8 * 14.3 <= nvlink / pcie <= 1.2 * 14.3
    assert "nvidia-l40s-datasheet" in {c.id for c in answer.citations}


def test_nvlink_asked_without_saying_tensor_parallel_is_still_the_layout():
    # "TP 8" and "is NVLink needed" name the split and the fabric: the layout over the card's
    # links answers it, not the card's datasheet alone.
    answer = respond("Is NVLink needed for TP 8 on L40S?")
    assert answer.intent.kind == "layout"
    assert "**NVIDIA L40S 48GB has no NVLink**" in answer.markdown


def test_a_bridged_card_says_its_bridge_joins_only_a_pair():
    # GA102 whitepaper: the RTX 3090's NVLink bridge is 4 x4 links of 14.0625 GB/s each way,
    # 4 x 14.0625 = 56.25 GB/s each way between two cards, and joins one pair only. A 2-rank
    # ring all-reduce's bus bandwidth is the link's one-way rate: 56.25 GB/s (line rate; no
    # measured figure). TP 4 spans two pairs, so it runs over PCIe 4.0 x16 (< 31.5 GB/s).
    answer = respond("Do I need NVLink for tensor parallel on 4 RTX 3090?")
    first = answer.markdown.split("\n\n")[0]
    assert "**NVIDIA GeForce RTX 3090 24GB's NVLink bridge joins only 2 cards** (56.2 GB/s" \
        in first
    found = re.search(r"across 4 of them reaches about \*\*([\d.]+) GB/s\*\*", first)
    assert found and float(found.group(1)) < 31.5, first
    assert "**TP 2 × PP 2**: each bridged group of 2 keeps its all-reduces on NVLink" in first
    assert "no NVLink" not in first


def test_nvlink_on_two_bridged_cards_is_the_bridge():
    # Two RTX 3090 with a bridge: "nvlink" is the GA102 bridge, not PCIe and not an H100's
    # NVLink 4; 2 ranks of a 4-GPU box fill one partly used node. Busbw 4 x 14.0625 = 56.25.
    answer = respond("all-reduce bandwidth on 2x RTX 3090 with nvlink")
    assert answer.error is None and answer.clarification is None
    assert answer.intent.slots["links"] == ["nvlink-bridge-ga102"]
    # (rel 1e-3: the ring's per-step latency takes < 0.01 % of a 1 GB message's time.)
    assert answer.data["interconnect"]["busbw_gbps"] == pytest.approx(56.25, rel=1e-3)
    assert answer.data["interconnect"]["bottleneck"] == "nvlink-bridge-ga102"


def test_an_a40_fit_uses_its_ecc_on_capacity():
    # vLLM#11192-style: Llama 3 70B in FP16 on 2 A40. The A40 ships with ECC on and reports
    # 46,068 MiB = 48.31 GB; FP16 weights alone are 70.55e9 x 2 B / 2 = 70.55 GB a GPU: no fit.
    answer = respond("does llama 3 70b fit on 2 A40 in fp16?")
    assert answer.intent.slots["gpu"] == "a40"
    memory = answer.data["memory"]
    assert memory["gpu_memory_gb"] == pytest.approx(46_068 * 2**20 / 1e9, rel=1e-9)
    assert memory["fits"] is False
    assert "nvidia-a40-datasheet" in {c.id for c in answer.citations}
    # the GPU asked about heads the fewest-GPUs table: 64 heads split 4 ways (3 does not
    # divide them), 141.1 / 4 = 35.3 GB of weights a GPU
    assert "| GPU | fewest GPUs that hold it |\n| --- | --- |\n| NVIDIA A40 48GB | 4 |" \
        in answer.markdown


def test_a_served_model_that_misses_says_which_smaller_weights_fit():
    # Llama 3 70B on 2 A100 40GB (42.9 GB each, 40 GiB): BF16 weights alone are 70.55e9 x 2 B /
    # 2 = 70.6 GB a GPU and miss; FP8 weights are 70.55e9 x 1 B / 2 = 35.3 GB a GPU, which with
    # the cache and overhead still fits under 42.9 GB.
    first = respond("Can I serve Llama 3 70B on 2 A100 40GB?").markdown.split("\n\n")[0]
    assert first.startswith("No, it does not fit")
    found = re.search(r"With FP8 / INT8 weights it needs \*\*([\d.]+) GB per GPU\*\* and fits",
                      first)
    assert found, first
    assert 35.3 < float(found.group(1)) <= 42.9


def test_one_gpu_is_not_called_all_1_gpus():
    answer = respond("Can I serve Llama 3 8B on one L4?")
    assert "all 1 GPUs" not in answer.markdown and "GPU memory of the GPU" in answer.markdown


def test_a_session_on_bridged_a40s_keeps_the_cluster_and_says_what_the_bridge_joins():
    # A user's session: 8 A40 with NVLink bridges. Each follow-up keeps the cluster; TP 8
    # spans four bridged pairs, so it runs over PCIe 4.0 x16 (< 31.5 GB/s a direction), and an
    # all-reduce over the 8 cards is set by PCIe, not by the 56.25 GB/s bridge.
    first = respond("I have 8x A40 with NVLink bridges. Can I serve Llama 3 70B in fp16 with "
                    "vLLM?")
    speed = respond("how many tokens/s would I get at 16 concurrent users?",
                    previous=first.intent)
    assert speed.intent.kind == "serving" and speed.intent.slots["gpu"] == "a40"
    split = respond("is TP 8 a good idea on these or should I use pipeline?",
                    previous=first.intent)
    assert split.intent.slots["gpu"] == "a40" and split.intent.slots["model"] == "llama-3-70b"
    assert "**NVIDIA A40 48GB's NVLink bridge joins only 2 cards**" in split.markdown
    busbw = respond("what all-reduce bandwidth should I expect across the 8 cards?",
                    previous=split.intent)
    assert busbw.data["interconnect"]["bottleneck"] == "pcie-4"
    assert busbw.data["interconnect"]["busbw_gbps"] < 31.5
    tune = respond("we want to fine-tune qwen2.5-32b with LoRA on them, does it fit?",
                   previous=busbw.intent)
    slots = tune.intent.slots
    assert (slots["gpu"], slots["gpus"], slots["model"]) == ("a40", 8, "qwen2.5-32b")
    assert "precision" not in slots and "batch" not in slots  # the serving job's settings


def test_a_precision_beside_a_kv_cache_size_is_the_caches():
    # Llama 3.1 8B keeps 2 x 32 layers x 8 KV heads x 128 x 1 B = 65,536 B a token in FP8;
    # x 131,072 tokens = 8.59 GB.
    answer = respond("KV cache size of llama 3.1 8b at 128k context in fp8?")
    assert answer.intent.slots["kv_precision"] == "fp8"
    assert "The KV cache, kept in FP8, takes **65,536 bytes per token**: **8.59 GB**" \
        in answer.markdown


def test_another_gpu_asked_after_a_measured_rate_is_that_jobs_rate_there():
    # After "Llama-2-70B-GPTQ on one A100 40G at 9 t/s, expected?", "what would it be on an
    # H100?" asks the same model's decode rate on an H100: 4-bit weights of 68.98e9 x 0.5 B plus
    # scales and 16-bit embeddings, 36.9 GB, read at 80% of 3.35 TB/s: 13.8 ms a token, plus
    # 80 layers x 54 us of fixed cost (serving-latency#layer-overhead), 4.3 ms: 18.1 ms at least.
    measured = respond("I am testing Llama-2-70B-GPTQ with 1 * A100 40G, the speed is around "
                       "9 t/s. Is this the expected speed?")
    there = respond("what would it be on an H100?", previous=measured.intent)
    assert there.intent.kind == "serving"
    assert there.intent.slots["model"] == "llama-2-70b" and there.intent.slots["gpu"] == "h100-sxm"
    best = there.data["parallelism"]["plans"][0]
    floor_ms = 36.9 / (3350 * 0.8) * 1000 + 80 * 54 / 1000
    assert floor_ms < best["time_per_output_token_ms"] < 1.1 * floor_ms


def test_a_gguf_model_is_offered_llama_cpp_s_8_bit_cache_not_vllm_s():
    # Qwen2.5-32B (64 layers, 8 KV heads of 128): 2 x 64 x 8 x 128 x 2 B = 262,144 B a token;
    # at 16,384 tokens 4.295 GB in 16 bits. llama.cpp's Q8_0 cache stores 34 bytes per 32
    # values (8.5 bits, gguf-quant-types#block-sizes): 4.295 x 8.5 / 16 = 2.28 GB.
    text = respond("How much VRAM does Qwen2.5-32B need in Q4_K_M GGUF with 16k context?").markdown
    head = text.splitlines()[0]
    assert "**262,144 bytes per token**: **4.29 GB**" in head
    assert "--cache-type-k q8_0" in head and "takes 2.28 GB" in head
    assert "vLLM" not in head


def test_training_efficiently_over_a_named_link_is_the_layout_over_that_link():
    # "2 nodes with 8x A100 each connected by 100 Gb/s Ethernet. Can we train a 30B model
    # efficiently?" asks how training runs over that link: the best layout on 16 GPUs and the
    # share of its step the link leaves exposed, not only whether the bytes fit.
    answer = respond("We have 2 nodes with 8x A100 each connected by 100 Gb/s Ethernet. Can "
                     "we train a 30B model efficiently?")
    assert answer.intent.kind == "layout"
    head = answer.markdown.splitlines()[0]
    assert "Best layout on 16× NVIDIA A100 SXM 80GB (2 nodes)" in head
    exposed, step = (float(x) for x in re.search(
        r"exposed communication is \*\*([\d.]+) s\*\* of ([\d.]+) s", head).groups())
    share = float(re.search(r"\(\*\*([\d.]+)%\*\*\)", head).group(1))
    assert share == pytest.approx(100 * exposed / step, abs=0.05)
    assert "Ethernet 100 GbE" in head


def test_two_gpus_compared_for_a_job_are_timed_even_when_one_has_no_price():
    # The RTX A6000 has no on-demand offer on record; the comparison still runs the job on the
    # fewest whole nodes of each and says how their speeds compare (the ratio of the two
    # tokens/s shown, and each per GPU), and that the price is missing.
    text = respond("Which is better for fine-tuning 7B models: RTX 4090 or A6000?").markdown
    head = text.splitlines()[0]
    fast, slow = (float(x.replace(",", "")) for x in re.search(
        r"runs ([\d,]+) tokens/s against ([\d,]+) on", head).groups())
    ratio = float(re.search(r"\(([\d.]+)× faster", head).group(1))
    assert ratio == pytest.approx(fast / slow, rel=0.01)
    assert "RTX A6000 48GB has no on-demand offer on record" in head
    assert "I could not price" not in head


def test_a_model_run_at_home_is_sized_on_consumer_cards_in_each_weight_format():
    # "What GPU should I buy to run Llama 3.1 70B locally at home?": besides the BF16 bytes,
    # the fewest RTX 3090 / 4090 (24 GiB = 25.77 GB each) and 5090 (32 GiB) in BF16, 8-bit and
    # the 4-bit GGUF most home setups run. By hand, Q4_K_M weights of 42.5 GB plus a 1.34 GB
    # cache and overhead exceed one 25.77 GB card and fit two (51.5 GB).
    answer = respond("What GPU should I buy to run Llama 3.1 70B locally at home?")
    assert answer.intent.slots.get("at_home")
    rows = {line.split("|")[1].strip(): line for line in answer.markdown.splitlines()
            if line.startswith(("| BF16 |", "| 8-bit |", "| GGUF Q4\\_K\\_M |"))
            and line.count("|") == 6}  # the consumer-card table, not the weights table
    assert set(rows) == {"BF16", "8-bit", "GGUF Q4\\_K\\_M"}
    four = [cell.strip() for cell in rows["GGUF Q4\\_K\\_M"].split("|")[2:6]]
    assert four == ["42.5", "2", "2", "2"]
    assert "At home in GGUF Q4_K_M" in answer.markdown.splitlines()[0]


def test_a_choice_of_tuning_methods_sizes_each_method_named():
    # "full fine-tune or LoRA" weighs two methods: both are sized. Llama 3 8B (8.03e9 params)
    # fully fine-tuned keeps 16 bytes a parameter of model states (BF16 weights and gradients,
    # FP32 master weights and two Adam moments): 128.5 GB, more than a 4090's 25.8 GB, so
    # at least 128.5 / 25.8 = 5 GPUs. QLoRA's NF4 base is about 8.03e9 x 0.5 B = 4 GB, on one.
    answer = respond("should I use qlora or full finetuning for llama-3-8b on a 4090?")
    rows = {line.split("|")[1].strip(): [c.strip() for c in line.split("|")[2:-1]]
            for line in answer.markdown.splitlines() if line.startswith("| QLoRA")
            or line.startswith("| full fine-tuning")}
    assert set(rows) == {"QLoRA", "full fine-tuning"}
    full, qlora = rows["full fine-tuning"], rows["QLoRA"]
    assert float(full[0].replace(",", "")) > 128.5 and full[2] == "no" and int(full[1]) >= 5
    assert 4 < float(qlora[0]) < 25.8 and qlora[1:] == ["1", "yes"]


def test_a_count_of_examples_is_not_a_sequence_length():
    # "our 50k-example dataset" counts examples; the sequence stays the stated default.
    answer = respond("We want to fine-tune Qwen2.5-72B on our 50k-example dataset. "
                     "Full fine-tune or LoRA, what hardware do we need?")
    assert "assumed sequence length (tokens): 4096 (not given in the question)" \
        in answer.assumptions
    assert "| LoRA |" in answer.markdown and "| full fine-tuning |" in answer.markdown


def test_a_dataset_given_whole_is_worked_out_not_assumed():
    # 50,000 examples x 1,000 tokens x 3 epochs = 150,000,000 tokens: all three are the
    # question's, so the line says so rather than "not given".
    answer = respond("LoRA Qwen2.5-72B on 8 H100s, 50k examples of about 1,000 tokens each, "
                     "3 epochs: how long and what does it cost?")
    assert "tokens: 150,000,000 = 50,000 samples x 1,000 tokens x 3 epochs (worked out from " \
           "the question)" in answer.assumptions
    assert not any(line.startswith("assumed tokens") for line in answer.assumptions)


def test_a_choice_made_in_a_follow_up_is_not_said_to_be_kept():
    first = respond("Full fine-tune or LoRA for Qwen2.5-72B, what hardware do we need?")
    then = respond("ok, LoRA then, on 8 H100", first.intent)
    assert "kept from the previous question: model=qwen2.5-72b" in then.assumptions
    assert "| full fine-tuning |" not in then.markdown


def test_serving_the_fine_tuned_model_to_users_plans_the_cluster():
    # After a fine-tune of Qwen2.5-72B, "serve the fine-tuned model to 200 concurrent users at
    # 20 tokens/s each, how many H100s?" is a serving goal on that model: 200 x 20 = 4,000
    # output tokens/s in all, 1,000 tokens in and 300 out each; not another fine-tune.
    first = respond("LoRA Qwen2.5-72B on 8 H100s, 50k examples of about 1,000 tokens each, "
                    "3 epochs: how long?")
    then = respond("Then we need to serve the fine-tuned model to about 200 concurrent users, "
                   "1k-token prompts and 300-token answers, at least 20 tokens/s each. How many "
                   "H100s?", first.intent)
    assert then.intent.kind == "plan" and then.intent.slots["model"] == "qwen2.5-72b"
    assert then.intent.slots["workload"] == "inference"
    assert (then.intent.slots["input_tokens"], then.intent.slots["output_tokens"]) == (1000, 300)
    assert then.markdown.startswith("Goal: serve 200 users x 20 tokens/s, 1000 tokens in, 300 out.")
    rate = float(re.search(r"([\d,]+) tokens/s, [\d.]+ ms per output token",
                           then.markdown)[1].replace(",", ""))
    assert rate >= 200 * 20


def test_concurrent_requests_with_their_length_between_are_the_batch():
    # "32 concurrent 8k-token requests": 32 sequences of 8,192 tokens. Llama 3.1 70B keeps
    # 80 layers x 2 x 8 KV heads x 128 x 2 B = 327,680 B a token: x 8,192 x 32 = 85.9 GB.
    answer = respond("how much KV cache does llama 3.1 70b need for 32 concurrent 8k-token "
                     "requests?")
    assert answer.intent.slots["batch"] == 32
    assert "**85.9 GB** for 8,192 tokens × 32 sequences" in answer.markdown


def test_how_much_faster_one_gpu_is_compares_per_gpu_speed():
    # "how much faster is B200 than H100?": each on the fewest nodes that hold the job, so
    # the counts differ; the speed asked is per GPU, tokens/s over GPUs from the table itself.
    answer = respond("how much faster is B200 than H100 for training llama 3 405b?")
    rows = {}
    for line in answer.markdown.splitlines():
        cells = [c.strip() for c in line.strip("|").split("|")]
        if len(cells) == 5 and cells[0] in ("NVIDIA B200 SXM 180GB", "NVIDIA H100 SXM 80GB"):
            rows[cells[0]] = float(cells[2].replace(",", "")) / int(cells[1])
    ratio = rows["NVIDIA B200 SXM 180GB"] / rows["NVIDIA H100 SXM 80GB"]
    said = float(re.search(r"\*\*([\d.]+)× faster\*\*", answer.markdown)[1])
    assert said == pytest.approx(ratio, rel=0.01)


def test_a_checkpoint_written_to_nvme_is_timed_at_the_drives_rate():
    # 13e9 parameters x 14 B (BF16 weights, FP32 master, Adam m and v) = 182 GB; a Micron 9400
    # writes sequentially at 7,000 MB/s (storage-bandwidth#nvme-write): 182 / 7 = 26.0 s.
    answer = respond("How big is the checkpoint of a 13B model trained with Adam, and how long "
                     "to write it to NVMe?")
    assert "is **182 GB**. Writing it to Local NVMe SSD" in answer.markdown
    assert "takes **26.0 s**" in answer.markdown
