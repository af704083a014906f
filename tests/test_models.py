"""Models: the catalog's shapes against real config.json files, the reader's parameter counts
against published ones, and `clusterplan models` (list, show, import that survives rebuilds)."""

from __future__ import annotations

import json
from pathlib import Path

import pytest

from clusterplan.db import store as store_module
from clusterplan.db.catalog import load_catalog
from clusterplan.db.hf_config import ConfigError, load_config, read_shape
from clusterplan.db.rows import ModelRow
from clusterplan.db.seed_data import seed_rows
from clusterplan.db.store import Store
from tests.conftest import run_cli

CONFIGS = Path(__file__).parent / "data" / "configs"

# Each saved config.json and the catalog row it describes (tests/data/configs/SOURCES.md says
# where each file was copied from).
ROW_OF = {
    "meta-llama--Llama-2-7b-hf": "llama-2-7b",
    "meta-llama--Llama-2-13b-hf": "llama-2-13b",
    "meta-llama--Llama-2-70b-hf": "llama-2-70b",
    "meta-llama--Meta-Llama-3.1-8B": "llama-3.1-8b",
    "meta-llama--Meta-Llama-3.1-70B": "llama-3.1-70b",
    "meta-llama--Meta-Llama-3.1-405B": "llama-3.1-405b",
    "meta-llama--Llama-3.2-1B": "llama-3.2-1b",
    "meta-llama--Llama-3.2-3B": "llama-3.2-3b",
    "meta-llama--Llama-3.3-70B-Instruct": "llama-3.3-70b",
    "meta-llama--Llama-4-Scout-17B-16E-Instruct": "llama-4-scout",
    "meta-llama--Llama-4-Maverick-17B-128E-Instruct": "llama-4-maverick",
    "codellama--CodeLlama-7b-hf": "codellama-7b",
    "mistralai--Mistral-7B-v0.3": "mistral-7b",
    "mistralai--Mixtral-8x7B-v0.1": "mixtral-8x7b",
    "mistralai--Mixtral-8x22B-v0.1": "mixtral-8x22b",
    "Qwen--Qwen1.5-MoE-A2.7B": "qwen1.5-moe-a2.7b",
    "Qwen--Qwen2-7B": "qwen2-7b",
    "Qwen--Qwen3-0.6B": "qwen3-0.6b",
    "Qwen--Qwen3-8B": "qwen3-8b",
    "Qwen--Qwen3-32B": "qwen3-32b",
    "Qwen--Qwen3-30B-A3B": "qwen3-30b-a3b",
    "Qwen--Qwen3-Coder-30B-A3B-Instruct": "qwen3-coder-30b-a3b",
    "Qwen--Qwen3-235B-A22B": "qwen3-235b-a22b",
    "Qwen--Qwen3-Coder-480B-A35B-Instruct": "qwen3-coder-480b-a35b",
    "deepseek-ai--DeepSeek-V2-Lite": "deepseek-v2-lite",
    "deepseek-ai--DeepSeek-V3": "deepseek-v3",
    "deepseek-ai--DeepSeek-R1": "deepseek-r1",
    "moonshotai--Kimi-K2-Instruct": "kimi-k2",
    "MiniMaxAI--MiniMax-M2.5": "minimax-m2.5",
    "google--gemma-2b": "gemma-2b",
    "google--gemma-2-2b": "gemma-2-2b",
    "google--gemma-2-9b": "gemma-2-9b",
    "google--gemma-2-27b": "gemma-2-27b",
    "google--gemma-3-1b-it": "gemma-3-1b",
    "microsoft--Phi-3.5-mini-instruct": "phi-3-mini",
    "EleutherAI--gpt-j-6b": "gpt-j-6b",
    "THUDM--chatglm3-6b": "chatglm3-6b", "THUDM--chatglm2-6b": "chatglm2-6b",
    "THUDM--chatglm-6b": "chatglm-6b",
    "bigcode--starcoder2-7b": "starcoder2-7b",
    "openai--gpt-oss-20b": "gpt-oss-20b",
    "openai--gpt-oss-120b": "gpt-oss-120b",
    "tiiuae--falcon-40b": "falcon-40b",
    "facebook--opt-13b": "opt-13b",
    "facebook--opt-66b": "opt-66b",
}
# Saved files that are refused (the reader's limits) or kept only for the parameter count.
REFUSED = {"nvidia--Llama-3_3-Nemotron-Super-49B-v1"}
# The CodeLlama 34B preset says vocab 32016 (the 7B's, with infilling tokens); 34B was released
# without infilling and its upstream config says 32000, as the catalog row does.
# The first-generation Qwen 1.8B is kept for its count: the catalog holds its 7B, 14B and 72B.
COUNT_ONLY = {"mistralai--Mistral-7B-v0.1", "codellama--CodeLlama-34b-hf", "Qwen--Qwen-1_8B"}

# Where a row's max_context deliberately differs from the config's max_position_embeddings.
CONTEXT_DIFFERS = {
    # The configs allow 160K positions; the published context window is 128K.
    "deepseek-v3": 163840, "deepseek-r1": 163840, "deepseek-v2-lite": 163840,
    # The copies carry the first upload's 2048; Llama 2 was trained and published at 4096.
    "llama-2-7b": 2048, "llama-2-13b": 2048, "llama-2-70b": 2048,
}
SHAPE = ("layers", "hidden", "heads", "kv_heads", "head_dim", "ffn_hidden", "vocab", "experts",
         "experts_per_token", "shared_experts", "attention", "kv_latent_dim",
         "sliding_window", "sliding_window_layers", "window_kind")


def catalog_rows() -> dict[str, ModelRow]:
    return {r["id"]: ModelRow.model_validate(r) for r in seed_rows("models")}


def test_every_saved_config_is_accounted_for_and_listed_in_sources():
    saved = {p.stem for p in CONFIGS.glob("*.json")}
    assert saved == set(ROW_OF) | REFUSED | COUNT_ONLY
    sources = (CONFIGS / "SOURCES.md").read_text(encoding="utf-8")
    missing = [name for name in sorted(saved) if f"{name}.json" not in sources]
    assert not missing, f"not in SOURCES.md: {missing}"


@pytest.mark.parametrize("stem", sorted(ROW_OF))
def test_catalog_shape_equals_what_the_reader_gets_from_the_real_config(stem):
    config = load_config(CONFIGS / f"{stem}.json")
    got = read_shape(config).row_fields()
    row = catalog_rows()[ROW_OF[stem]]
    wrong = {f: (getattr(row, f), got[f]) for f in SHAPE if getattr(row, f) != got[f]}
    assert not wrong, f"{row.id}: field: (catalog, config) {wrong}"
    assert CONTEXT_DIFFERS.get(row.id, row.max_context) == got["max_context"]
    stated = config.get("quantization_config") or config.get("torch_dtype")
    if stated:  # some copies drop torch_dtype; then the note's source decides
        assert row.native_precision == got["native_precision"]


# Published parameter counts (model cards and papers; see the model-* notes) against the count
# from the shape. Tolerance: 1.5% for totals. Where the published figure is rounded or counts
# something the text model lacks, the wider tolerance is given with the reason.
PUBLISHED = {
    "meta-llama--Llama-2-7b-hf": 6.74, "meta-llama--Llama-2-13b-hf": 13.02,
    "meta-llama--Llama-2-70b-hf": 68.98, "mistralai--Mistral-7B-v0.1": 7.24,
    "mistralai--Mistral-7B-v0.3": 7.25, "meta-llama--Meta-Llama-3.1-8B": 8.03,
    "meta-llama--Meta-Llama-3.1-70B": 70.55, "meta-llama--Meta-Llama-3.1-405B": 405.85,
    "meta-llama--Llama-3.2-1B": 1.24, "meta-llama--Llama-3.2-3B": 3.21,
    "mistralai--Mixtral-8x7B-v0.1": 46.7, "mistralai--Mixtral-8x22B-v0.1": 141,
    "Qwen--Qwen3-8B": 8.2, "Qwen--Qwen3-32B": 32.8, "Qwen--Qwen3-30B-A3B": 30.5,
    "Qwen--Qwen3-235B-A22B": 235, "Qwen--Qwen3-Coder-480B-A35B-Instruct": 480,
    "Qwen--Qwen2-7B": 7.62, "Qwen--Qwen1.5-MoE-A2.7B": 14.3, "Qwen--Qwen-1_8B": 1.84,
    "deepseek-ai--DeepSeek-V3": 671, "deepseek-ai--DeepSeek-V2-Lite": 15.7,
    "google--gemma-2b": 2.51, "google--gemma-2-2b": 2.61, "google--gemma-2-9b": 9.24,
    "google--gemma-2-27b": 27.2, "microsoft--Phi-3.5-mini-instruct": 3.82,
    "EleutherAI--gpt-j-6b": 6.05, "THUDM--chatglm3-6b": 6.24,
    "THUDM--chatglm-6b": 6.2,
    "bigcode--starcoder2-7b": 7.17, "codellama--CodeLlama-34b-hf": 33.7,
    "openai--gpt-oss-20b": 20.91, "openai--gpt-oss-120b": 116.83,
    "MiniMaxAI--MiniMax-M2.5": 229, "tiiuae--falcon-40b": 41.84,
    "facebook--opt-13b": 13.0, "facebook--opt-66b": 66.0,
}
WIDER = {
    # Scout's 109B counts its vision encoder; the text model is ~107.8B.
    "meta-llama--Llama-4-Scout-17B-16E-Instruct": (109, 0.02),
    "meta-llama--Llama-4-Maverick-17B-128E-Instruct": (400, 0.01),
    # "1T" is rounded; the shape gives 1.026T.
    "moonshotai--Kimi-K2-Instruct": (1000, 0.03),
}


# Qwen3 rows known from their cards and configs (model-qwen3#qwen3-small-mid), with no saved
# config: their shape, counted by hand here, gives the card's rounded total (1.72B, 4.02B and
# 14.77B against 1.7, 4.0 and 14.8: inside 1.5%), and the catalog's count is the card's.
@pytest.mark.parametrize(("row_id", "tied", "card_b"), [
    ("qwen3-1.7b", True, 1.7), ("qwen3-4b", True, 4.0), ("qwen3-14b", False, 14.8)])
def test_a_qwen3_row_without_a_saved_config_counts_to_its_card(row_id, tied, card_b):
    row = catalog_rows()[row_id]
    attention = 2 * row.hidden * row.heads * row.head_dim + 2 * row.hidden * row.kv_heads \
        * row.head_dim
    layer = attention + 3 * row.hidden * row.ffn_hidden
    total = row.layers * layer + row.vocab * row.hidden * (1 if tied else 2)
    assert total / 1e9 == pytest.approx(card_b, rel=0.015)
    assert row.params_b == card_b


@pytest.mark.parametrize("stem", sorted({*PUBLISHED, *WIDER}))
def test_parameter_count_from_the_shape_matches_the_published_one(stem):
    published, tolerance = WIDER.get(stem, (PUBLISHED.get(stem), 0.015))
    counted = read_shape(load_config(CONFIGS / f"{stem}.json")).params / 1e9
    assert counted == pytest.approx(published, rel=tolerance), f"{stem}: {counted:.3f}B"


@pytest.mark.parametrize(("stem", "active"), [
    ("mistralai--Mixtral-8x7B-v0.1", 12.9), ("mistralai--Mixtral-8x22B-v0.1", 39.1),
    ("Qwen--Qwen3-30B-A3B", 3.3), ("Qwen--Qwen3-235B-A22B", 22),
    ("deepseek-ai--DeepSeek-V3", 37), ("meta-llama--Llama-4-Maverick-17B-128E-Instruct", 17),
    ("Qwen--Qwen1.5-MoE-A2.7B", 2.7)])
def test_active_parameters_of_a_moe_match_the_published_count(stem, active):
    counted = read_shape(load_config(CONFIGS / f"{stem}.json")).active_params / 1e9
    assert counted == pytest.approx(active, rel=0.03), f"{stem}: {counted:.3f}B"


def test_gpt_oss_active_count_is_published_without_the_input_embedding():
    # OpenAI's 3.61B / 5.13B active leave out the input embedding (a lookup, vocab x hidden);
    # the reader's active count includes it, so it is larger by exactly that much.
    for stem, published in (("openai--gpt-oss-20b", 3.61), ("openai--gpt-oss-120b", 5.13)):
        shape = read_shape(load_config(CONFIGS / f"{stem}.json"))
        embedding = shape.vocab * shape.hidden / 1e9
        assert shape.active_params / 1e9 - embedding == pytest.approx(published, rel=0.005)


def test_config_shapes_that_need_the_special_cases():
    v3 = read_shape(load_config(CONFIGS / "deepseek-ai--DeepSeek-V3.json"))
    assert (v3.attention, v3.kv_latent_dim, v3.head_dim, v3.native_precision) == \
        ("mla", 512 + 64, 128 + 64, "fp8")
    oss = read_shape(load_config(CONFIGS / "openai--gpt-oss-120b.json"))
    assert (oss.native_precision, oss.sliding_window, oss.sliding_window_layers) == \
        ("mxfp4", 128, 18)
    gemma = read_shape(load_config(CONFIGS / "google--gemma-2b.json"))
    assert (gemma.attention, gemma.kv_heads, gemma.head_dim) == ("mqa", 1, 256)
    scout = read_shape(load_config(CONFIGS / "meta-llama--Llama-4-Scout-17B-16E-Instruct.json"))
    assert (scout.window_kind, scout.sliding_window, scout.shared_experts) == ("chunked", 8192, 1)


@pytest.mark.parametrize(("config", "published", "tolerance"), [
    # No saved file for these: the published shapes (papers, model cards) in config form.
    ({"model_type": "falcon", "hidden_size": 4544, "num_hidden_layers": 32,
      "num_attention_heads": 71, "multi_query": True, "vocab_size": 65024,
      "new_decoder_architecture": False, "bias": False}, 7.22, 0.01),
    ({"model_type": "gpt_neox", "hidden_size": 6144, "num_hidden_layers": 44,
      "num_attention_heads": 64, "intermediate_size": 24576, "vocab_size": 50432,
      "tie_word_embeddings": False}, 20.55, 0.01),
    ({"model_type": "bloom", "hidden_size": 14336, "n_layer": 70, "n_head": 112,
      "vocab_size": 250880}, 176.25, 0.01),
])
def test_parameter_count_of_families_without_a_saved_config(config, published, tolerance):
    assert read_shape(config).params / 1e9 == pytest.approx(published, rel=tolerance)


# First-generation Qwen (model_type qwen) from the model cards' tables (note model-qwen-1); its
# config gives intermediate_size as both SwiGLU input matrices together (22016 = 2 x 11008).
QWEN_1 = {
    "qwen-7b": {"hidden_size": 4096, "num_hidden_layers": 32, "num_attention_heads": 32,
                "intermediate_size": 22016, "vocab_size": 151936, "seq_length": 8192},
    "qwen-14b": {"hidden_size": 5120, "num_hidden_layers": 40, "num_attention_heads": 40,
                 "intermediate_size": 27392, "vocab_size": 152064, "seq_length": 2048},
    "qwen-72b": {"hidden_size": 8192, "num_hidden_layers": 80, "num_attention_heads": 64,
                 "intermediate_size": 49152, "vocab_size": 152064, "seq_length": 32768},
}


@pytest.mark.parametrize("row_id", sorted(QWEN_1))
def test_first_generation_qwen_rows_match_their_config_layout(row_id):
    config = {"model_type": "qwen", "kv_channels": 128, "no_bias": True,
              "tie_word_embeddings": False, **QWEN_1[row_id]}
    got = read_shape(config).row_fields()
    row = catalog_rows()[row_id]
    wrong = {f: (getattr(row, f), got[f]) for f in SHAPE if getattr(row, f) != got[f]}
    assert not wrong and row.max_context == got["max_context"], wrong


def test_qwen_72b_parameter_count_by_hand():
    # Per layer: QKV 8192 x 24576 + its bias 24576, output 8192 x 8192, SwiGLU 3 x 8192 x 24576,
    # two RMSNorms 2 x 8192 = 872,456,192; x 80 = 69,796,495,360. Embedding and untied head
    # 2 x 152064 x 8192 = 2,491,416,576; final norm 8192. Total 72,287,920,128 = 72.29B, and
    # 2 bytes each is 144.6 GB: the card's "at least 144GB" for BF16.
    config = {"model_type": "qwen", **QWEN_1["qwen-72b"]}
    assert read_shape(config).params == 72_287_920_128
    assert catalog_rows()["qwen-72b"].params_b == pytest.approx(72.29, abs=0.005)


def test_baichuan2_7b_parameter_count_by_hand():
    # Baichuan 2 paper (note model-baichuan-2): 32 layers of 4096, FFN 11008, vocabulary 125696,
    # untied head. Per layer 4 x 4096² + 3 x 4096 x 11008 + 2 x 4096 = 202,383,360; x 32 =
    # 6,476,267,520; embedding and head 2 x 125,696 x 4096 = 1,029,701,632; final norm 4096.
    # Total 7,505,973,248. The 13B: 40 x (4 x 5120² + 3 x 5120 x 13696 + 2 x 5120) + 2 x
    # 125,696 x 5120 + 5120 = 13,896,668,160.
    config = {"model_type": "baichuan", "hidden_size": 4096, "intermediate_size": 11008,
              "num_hidden_layers": 32, "num_attention_heads": 32, "vocab_size": 125696,
              "tie_word_embeddings": False}
    assert read_shape(config).params == 7_505_973_248
    assert catalog_rows()["baichuan2-7b"].params_b == pytest.approx(7.506, abs=0.0005)
    assert catalog_rows()["baichuan2-13b"].params_b == pytest.approx(13.897, abs=0.0005)


def test_internlm2_5_7b_parameter_count_by_hand():
    # internlm/internlm2_5-7b-chat config.json (note model-internlm2). Per layer: q and o 2 x
    # 4096², k and v 2 x 4096 x 1024, SwiGLU 3 x 4096 x 14336, two norms 2 x 4096 =
    # 218,112,000; x 32 = 6,979,584,000; embedding and head 2 x 92,544 x 4096 = 758,120,448;
    # final norm 4096. Total 7,737,708,544, the count a public loaded-weights report of an
    # InternLM2-based 7B gives (embedding 758,120,448 of it).
    config = {"model_type": "internlm2", "hidden_size": 4096, "intermediate_size": 14336,
              "num_hidden_layers": 32, "num_attention_heads": 32, "num_key_value_heads": 8,
              "vocab_size": 92544, "tie_word_embeddings": False}
    assert read_shape(config).params == 7_737_708_544
    assert catalog_rows()["internlm2.5-7b"].params_b == pytest.approx(7.738, abs=0.0005)


def test_glm_130b_parameter_count_by_hand():
    # THUDM/GLM-130B configs/model_glm_130b.sh (note model-glm#glm-130b): 70 layers of 12288,
    # GeGLU inner width 32768, vocabulary 150528, output head tied. Per layer: QKV 3 x 12288²
    # = 452,984,832, output 12288² = 150,994,944, GeGLU 3 x 12288 x 32768 = 1,207,959,552:
    # 1,811,939,328; x 70 = 126,835,752,960; embedding 150,528 x 12,288 = 1,849,688,064.
    # Total 128,685,441,024 without biases and norms (under 0.01% more): 128.7B.
    assert catalog_rows()["glm-130b"].params_b == pytest.approx(128.69, abs=0.02)


def test_falcon_kv_heads_follow_multi_query_and_the_new_decoder():
    old = {"model_type": "falcon", "hidden_size": 4544, "num_hidden_layers": 32,
           "num_attention_heads": 71, "multi_query": True, "vocab_size": 65024}
    assert read_shape(old).kv_heads == 1
    new = {**old, "new_decoder_architecture": True, "num_kv_heads": 8,
           "num_attention_heads": 128, "hidden_size": 8192}
    assert read_shape(new).kv_heads == 8


def test_refused_config_is_a_one_line_error():
    with pytest.raises(ConfigError, match="block_configs"):
        read_shape(load_config(CONFIGS / "nvidia--Llama-3_3-Nemotron-Super-49B-v1.json"))


def test_catalog_has_at_least_sixty_models_each_citing_a_model_note():
    rows = catalog_rows()
    assert len(rows) >= 60
    assert all(r.source_note.startswith("model-") for r in rows.values())


@pytest.mark.parametrize(("typed", "row_id"), [
    ("llama2-13b-chat", "llama-2-13b"), ("Llama-3.3-70B-Instruct", "llama-3.3-70b"),
    ("qwen2.5:72b", "qwen2.5-72b"), ("R1 671B", "deepseek-r1"),
    ("meta-llama/Llama-2-7b-hf", "llama-2-7b"), ("gpt-oss:120b", "gpt-oss-120b"),
    ("Qwen/Qwen3-235B-A22B", "qwen3-235b-a22b"), ("mistral nemo", "mistral-nemo-12b"),
    ("Qwen-72B", "qwen-72b"), ("Qwen-7B-Chat", "qwen-7b"), ("Qwen1.5-72B", "qwen1.5-72b"),
])
def test_names_people_write_find_the_row(memory_store, typed, row_id):
    assert load_catalog(memory_store).models.find(typed).id == row_id


# --- the command -------------------------------------------------------------------------

def test_models_list_and_show():
    listed = run_cli("models", "list")
    assert listed.exit_code == 0, listed.output
    assert "deepseek-r1" in listed.output and "gpt-oss-120b" in listed.output
    shown = run_cli("models", "show", "qwen2.5:72b")
    assert shown.exit_code == 0 and "Qwen2.5 72B" in shown.output
    as_json = json.loads(run_cli("models", "show", "gpt-oss-20b", "--json").output)
    assert as_json["native_precision"] == "mxfp4"
    unknown = run_cli("models", "show", "llama-9-9000b")
    assert unknown.exit_code == 2 and "unknown model" in unknown.output
    assert len(unknown.output.strip().splitlines()) == 1


def test_import_lists_shows_and_feeds_the_calculators(tmp_path):
    path = tmp_path / "config.json"
    config = json.loads((CONFIGS / "mistralai--Mistral-7B-v0.1.json").read_text())
    path.write_text(json.dumps({**config, "_name_or_path": "acme/house-model-7b"}))
    done = run_cli("models", "import", str(path))
    assert done.exit_code == 0, done.output
    assert "imported house-model-7b" in done.output and "7.242B" in done.output
    user = json.loads(run_cli("models", "list", "--origin", "user", "--json").output)
    assert [m["id"] for m in user] == ["house-model-7b"]
    assert run_cli("models", "show", "acme/house-model-7b").exit_code == 0
    from tests.conftest import run_tool

    result = run_tool("memory", {"model": "house-model-7b", "workload": "inference",
                                 "precision": "bf16"})
    assert result["breakdown_gb"]["weights"] == pytest.approx(14.48, rel=0.01)
    again = run_cli("models", "import", str(path))
    assert "replaced house-model-7b" in again.output


def test_import_refuses_a_catalog_id_and_bad_files_in_one_line(tmp_path):
    taken = run_cli("models", "import", str(CONFIGS / "Qwen--Qwen3-8B.json"), "--id", "qwen3-8b")
    assert taken.exit_code == 2 and "catalog model" in taken.output
    alias = run_cli("models", "import", str(CONFIGS / "Qwen--Qwen3-8B.json"),
                    "--id", "llama2-13b-chat")
    assert alias.exit_code == 2 and "'llama-2-13b'" in alias.output
    cases = {"missing.json": None, "list.json": "[1, 2]", "broken.json": "{\"hidden_size\": ",
             "empty.json": "{}", "negative.json": json.dumps(
                 {"num_hidden_layers": -2, "hidden_size": 8, "num_attention_heads": 2,
                  "vocab_size": 10})}
    for name, text in cases.items():
        path = tmp_path / name
        if text is not None:
            path.write_text(text)
        result = run_cli("models", "import", str(path))
        assert result.exit_code == 2, (name, result.output)
        assert "Traceback" not in result.output
        assert len(result.output.strip().splitlines()) == 1, (name, result.output)
    binary = tmp_path / "binary.json"
    binary.write_bytes(b"\xff\xfe\x00")
    assert len(run_cli("models", "import", str(binary)).output.strip().splitlines()) == 1


def test_imported_model_survives_a_catalog_upgrade(tmp_path, monkeypatch):
    path = tmp_path / "store.db"
    store = Store.open(path)
    from clusterplan.db.models import import_model

    import_model(store, CONFIGS / "google--gemma-2-9b.json", name="My Gemma")
    store.conn.close()
    monkeypatch.setattr(store_module, "SCHEMA_VERSION", "next")
    reopened = Store.open(path)
    row = load_catalog(reopened).models.find("my gemma")
    assert (row.origin, row.layers, row.sliding_window_layers) == ("user", 42, 21)


def test_dry_run_stores_nothing():
    result = run_cli("models", "import", str(CONFIGS / "openai--gpt-oss-20b.json"),
                     "--name", "oss test", "--dry-run")
    assert result.exit_code == 0 and "would import oss-test" in result.output
    assert run_cli("models", "list", "--origin", "user", "--json").output.strip() == "[]"


def test_import_takes_a_hugging_face_snapshot_folder(tmp_path):
    snapshot = tmp_path / "models--acme--tiny-qwen" / "snapshots" / "0123abcd"
    snapshot.mkdir(parents=True)
    config = json.loads((CONFIGS / "Qwen--Qwen3-0.6B.json").read_text())
    (snapshot / "config.json").write_text(json.dumps(config))
    result = run_cli("models", "import", str(snapshot), "--params-b", "0.6")
    assert result.exit_code == 0, result.output
    assert "imported tiny-qwen" in result.output and "0.6B parameters," in result.output


def test_gpt2_rows_by_hand():
    # GPT-2 small (note model-gpt-2): 12 x (12 x 768² + 13 x 768) = 85,054,464 in the blocks,
    # embedding 50,257 x 768 = 38,597,376 (tied with the head), positions 1,024 x 768 =
    # 786,432, final norm 2 x 768: 124,439,808, Hugging Face's count for openai-community/gpt2.
    blocks = 12 * (12 * 768**2 + 13 * 768)
    assert blocks + 50257 * 768 + 1024 * 768 + 2 * 768 == 124_439_808
    assert catalog_rows()["gpt2-124m"].params_b == pytest.approx(0.1244, abs=0.00005)
    assert catalog_rows()["gpt2-xl"].max_context == 1024


def test_first_generation_internlm_20b_is_not_internlm2_20b():
    # xorbitsai/inference#1115 loads "internlm-chat-20b": the 2023 model (internlm/internlm-20b
    # config.json, note model-internlm2): 60 layers of 5120 with 40 full heads, so by hand
    # 2 x 60 x 40 x 128 x 2 B = 1,228,800 B of KV cache a token; InternLM2-20B's grouped 8
    # heads over 48 layers keep 2 x 48 x 8 x 128 x 2 = 196,608.
    rows = catalog_rows()
    first, second = rows["internlm-20b"], rows["internlm2-20b"]
    assert 2 * first.layers * first.kv_heads * first.head_dim * 2 == 1_228_800
    assert 2 * second.layers * second.kv_heads * second.head_dim * 2 == 196_608
