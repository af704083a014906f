"""A Hugging Face config.json read into a model row: the shape the calculators need.

Covers the config layouts of Llama, Mistral, Mixtral, Qwen (first generation), Qwen2/2.5/3
(dense and MoE), DeepSeek-V2/V3 and Kimi K2 (MLA: kv_lora_rank + qk_rope_head_dim), Gemma
1/2/3, Phi-3, Falcon (old multi_query and new_decoder_architecture), GPT-NeoX, GPT-J, OPT,
BLOOM, gpt-oss, Llama 4 and MiniMax-M2.
A config that names no parameter count gets one counted from its shape: embeddings, attention,
MLP or experts, norms and an untied output head (see note model-config-import).
"""

from __future__ import annotations

import json
import math
import re
from dataclasses import dataclass
from pathlib import Path
from typing import Any

# Families whose output head shares the input embedding unless the config says otherwise
# (the default of their transformers config class).
# Falcon's published counts (7.22B, 41.8B) include a separate output head, so it is not here.
TIED_BY_DEFAULT = {"gemma", "gemma2", "gemma3", "gemma3_text", "opt", "bloom", "gpt2",
                   "starcoder2", "glm"}
# Families with a plain (ungated) two-matrix MLP with biases, and LayerNorm with a bias.
PLAIN_MLP = {"opt", "bloom", "gpt_neox", "gptj", "falcon", "RefinedWeb", "RefinedWebModel",
             "gpt2", "gpt_bigcode", "starcoder2", "nemotron", "glm"}
# Families whose attention projections carry biases when the config does not say.
QKV_BIAS = {"qwen", "qwen2", "qwen2_moe", "opt", "bloom", "gpt_neox", "gpt2", "gpt_bigcode",
            "starcoder2", "glm"}


class ConfigError(ValueError):
    """A config.json that cannot be read as a model; the message is one line."""


@dataclass(frozen=True)
class ConfigShape:
    """What a config.json says (or implies) about a model, in the catalog's columns."""

    model_type: str
    layers: int
    hidden: int
    heads: int
    kv_heads: int
    head_dim: int
    ffn_hidden: int
    vocab: int
    experts: int
    experts_per_token: int
    shared_experts: int
    attention: str
    kv_latent_dim: int | None
    max_context: int
    sliding_window: int | None
    sliding_window_layers: int | None
    window_kind: str | None
    native_precision: str
    params: int
    active_params: int

    def row_fields(self) -> dict[str, Any]:
        """The ModelRow columns this shape fills."""
        return {
            "params_b": round(self.params / 1e9, 3),
            "active_params_b": round(self.active_params / 1e9, 3),
            "layers": self.layers, "hidden": self.hidden, "heads": self.heads,
            "kv_heads": self.kv_heads, "head_dim": self.head_dim,
            "ffn_hidden": self.ffn_hidden, "vocab": self.vocab, "experts": self.experts,
            "experts_per_token": self.experts_per_token,
            "shared_experts": self.shared_experts, "attention": self.attention,
            "kv_latent_dim": self.kv_latent_dim, "max_context": self.max_context,
            "sliding_window": self.sliding_window,
            "sliding_window_layers": self.sliding_window_layers,
            "window_kind": self.window_kind, "native_precision": self.native_precision,
        }


def load_config(path: Path) -> dict[str, Any]:
    """The JSON object in `path`; anything else is a one-line ConfigError."""
    try:
        text = path.read_text(encoding="utf-8")
    except FileNotFoundError:
        raise ConfigError("no such file") from None
    except IsADirectoryError:
        raise ConfigError("is a directory; give its config.json") from None
    except (OSError, UnicodeDecodeError) as exc:
        raise ConfigError(f"cannot read it ({getattr(exc, 'strerror', None) or exc})") \
            from None
    try:
        data = json.loads(text)
    except json.JSONDecodeError as exc:
        raise ConfigError(f"not valid JSON (line {exc.lineno}: {exc.msg})") from None
    if not isinstance(data, dict):
        raise ConfigError(f"a config.json is a JSON object, this is a "
                          f"{type(data).__name__}")
    return data


def read_shape(config: dict[str, Any]) -> ConfigShape:
    """The model's shape from its config; a missing or nonsensical size is a ConfigError."""
    top = config
    if "text_config" in config and isinstance(config["text_config"], dict) \
            and not _has(config, "hidden_size", "n_embd", "d_model"):
        config = {**config["text_config"], "_outer": top}
    kind = str(config.get("model_type") or top.get("model_type") or "")
    if kind == "qwen":
        config = _qwen_first_generation(config)
    if kind == "chatglm" and "inner_hidden_size" in config:
        # the first ChatGLM (6B) shares model_type with ChatGLM2/3 but not their layout: a
        # plain GELU MLP of inner_hidden_size, biases on every projection, LayerNorm, and an
        # output head tied to the embedding (note model-glm#chatglm-6b)
        config = {**config, "intermediate_size": config["inner_hidden_size"]}
        kind = "glm"
    if config.get("block_configs"):
        raise ConfigError("its layers differ in shape (block_configs, as in Nemotron NAS "
                          "models); only models of identical layers can be read")
    layers = _int(config, "layers", "num_hidden_layers", "n_layer", "num_layers", "n_layers")
    hidden = _int(config, "hidden size", "hidden_size", "n_embd", "d_model", "n_embed")
    heads = _int(config, "attention heads", "num_attention_heads", "n_head", "num_heads",
                 "n_heads")
    kv_heads = _kv_heads(config, kind, heads)
    mla = _opt_int(config, "kv_lora_rank")
    rope_dim = _opt_int(config, "qk_rope_head_dim") or 0
    if mla:
        head_dim = (_opt_int(config, "qk_nope_head_dim") or 0) + rope_dim
        kv_heads = heads
    else:
        head_dim = _opt_int(config, "head_dim") or hidden // heads
    if heads % kv_heads:
        raise ConfigError(f"{kv_heads} key/value heads do not divide {heads} attention heads")
    experts = _opt_int(config, "num_local_experts", "n_routed_experts", "num_experts",
                       "moe_num_experts") or 1
    top_k = _opt_int(config, "num_experts_per_tok", "experts_per_token",
                     "num_experts_per_token", "moe_top_k") or 1
    if experts == 1:
        top_k = 1
    if top_k > experts:
        raise ConfigError(f"{top_k} experts per token but only {experts} experts")
    ffn = _ffn(config, kind, hidden, experts)
    vocab = _int(config, "vocabulary size", "vocab_size", "padded_vocab_size", "n_vocab")
    context = _opt_int(config, "max_position_embeddings", "n_positions", "seq_length",
                       "max_sequence_length", "n_ctx", "model_max_length") or 2048
    window, window_layers, window_kind = _windows(config, kind, layers)
    attention = ("mla" if mla else "mha" if kv_heads == heads
                 else "mqa" if kv_heads == 1 else "gqa")
    params, active = count_params(config, kind, layers, hidden, heads, kv_heads, head_dim,
                                  ffn, vocab, experts, top_k)
    return ConfigShape(
        model_type=kind, layers=layers, hidden=hidden, heads=heads, kv_heads=kv_heads,
        head_dim=head_dim, ffn_hidden=ffn, vocab=vocab, experts=experts,
        experts_per_token=top_k, shared_experts=_shared_experts(config, kind, experts),
        attention=attention, kv_latent_dim=(mla + rope_dim) if mla else None,
        max_context=context, sliding_window=window, sliding_window_layers=window_layers,
        window_kind=window_kind, native_precision=_precision(config, top),
        params=params, active_params=active)


def _qwen_first_generation(config: dict[str, Any]) -> dict[str, Any]:
    """A first-generation Qwen config (model_type qwen) in the layout the reader knows: its
    intermediate_size counts both SwiGLU input matrices, so each is half of it, and its
    trained context is seq_length (note model-qwen-1)."""
    out = dict(config)
    if isinstance(out.get("intermediate_size"), int):
        out["intermediate_size"] = out["intermediate_size"] // 2
    if isinstance(out.get("seq_length"), int):
        out["max_position_embeddings"] = out["seq_length"]
    return out


def count_params(config: dict[str, Any], kind: str, layers: int, hidden: int, heads: int,
                 kv_heads: int, head_dim: int, ffn: int, vocab: int, experts: int,
                 top_k: int) -> tuple[int, int]:
    """(total, active) parameters counted from the shape, both including embeddings.

    Per layer: attention (query, key, value, output; MLA's low-rank query and compressed KV
    projections), the MLP (three matrices when gated, two with biases when not) or the
    experts (each a gated MLP, plus the router and any shared experts), and the norms.
    Then the token embedding, learned position embeddings (OPT, GPT-2), the final norm and
    the output head unless it is tied to the embedding.
    """
    h = hidden
    plain = kind in PLAIN_MLP
    norm = 2 * h if plain else h  # LayerNorm has a bias, RMSNorm does not
    attn = _attention_params(config, kind, h, heads, kv_heads, head_dim)
    norms = 2 * norm + (2 * head_dim if config.get("use_qk_norm") or kind.startswith("qwen3")
                        else 0)
    if kind in ("gemma2", "gemma3", "gemma3_text"):
        norms += 2 * norm  # pre- and post-norms around attention and the MLP
    dense_ffn = _opt_int(config, "intermediate_size", "ffn_dim", "n_inner", "ffn_hidden_size",
                         "intermediate_size_mlp") or 4 * h
    if kind == "llama4_text":
        dense_ffn = _opt_int(config, "intermediate_size_mlp") or dense_ffn
    dense_mlp = _mlp(h, dense_ffn, plain)
    total = active = 0
    moe_layers = _moe_layers(config, kind, layers, experts)
    for index in range(layers):
        total += attn + norms
        active += attn + norms
        if index in moe_layers:
            expert = _expert_params(config, kind, h, ffn)
            shared = _shared_params(config, kind, h, ffn)
            router = h * experts + (experts if kind == "gpt_oss" else 0)
            total += experts * expert + shared + router
            active += top_k * expert + shared + router
        else:
            total += dense_mlp
            active += dense_mlp
    embed = vocab * h
    if kind == "opt":
        positions = (_opt_int(config, "max_position_embeddings") or 2048) + 2
        projected = _opt_int(config, "word_embed_proj_dim") or h
        embed = vocab * projected + positions * h + (2 * h * projected if projected != h else 0)
    if kind == "bloom":
        embed += norm  # the LayerNorm right after the word embeddings
    tied = config.get("tie_word_embeddings")
    if tied is None:
        tied = kind in TIED_BY_DEFAULT
    head = 0 if tied else vocab * h
    if kind == "gptj" and not tied:
        head += vocab  # GPT-J's output head has a bias
    final = norm
    return total + embed + head + final, active + embed + head + final


def _attention_params(config: dict[str, Any], kind: str, h: int, heads: int, kv_heads: int,
                      head_dim: int) -> int:
    if config.get("kv_lora_rank"):
        rank = int(config["kv_lora_rank"])
        rope = int(config.get("qk_rope_head_dim") or 0)
        nope = int(config.get("qk_nope_head_dim") or 0)
        v_dim = int(config.get("v_head_dim") or nope)
        q_rank = config.get("q_lora_rank")
        query = (h * q_rank + q_rank + q_rank * heads * (nope + rope)) if q_rank \
            else h * heads * (nope + rope)
        kv = h * (rank + rope) + rank + rank * heads * (nope + v_dim)
        return query + kv + heads * v_dim * h
    q_out, kv_out = heads * head_dim, kv_heads * head_dim
    weights = h * q_out + 2 * h * kv_out + q_out * h
    bias = config.get("attention_bias", config.get("bias", kind in QKV_BIAS))
    if kind in ("opt", "bloom", "gpt_neox", "gpt2"):
        bias = True
    if kind == "gptj":
        bias = False
    if kind in ("qwen", "qwen2", "qwen2_moe"):
        return weights + q_out + 2 * kv_out  # biases on query, key and value only
    return weights + (q_out + 2 * kv_out + h if bias else 0)


def _mlp(h: int, ffn: int, plain: bool) -> int:
    return 2 * h * ffn + ffn + h if plain else 3 * h * ffn


def _expert_params(config: dict[str, Any], kind: str, h: int, ffn: int) -> int:
    if kind == "gpt_oss":
        return 3 * h * ffn + 2 * ffn + h  # gate_up with a bias of 2·ffn, down with a bias of h
    return 3 * h * ffn


def _shared_params(config: dict[str, Any], kind: str, h: int, ffn: int) -> int:
    if kind in ("qwen2_moe",):
        size = _opt_int(config, "shared_expert_intermediate_size") or 0
        return 3 * h * size + h  # the shared expert and its one-output gate
    if kind.startswith("llama4"):
        return 3 * h * ffn
    count = _opt_int(config, "n_shared_experts", "num_shared_experts") or 0
    if count:
        return 3 * h * ffn * count
    size = _opt_int(config, "shared_intermediate_size") or 0
    return 3 * h * size


def _shared_experts(config: dict[str, Any], kind: str, experts: int) -> int:
    if experts <= 1:
        return 0
    if kind.startswith("llama4"):
        return 1
    if kind == "qwen2_moe":
        size = _opt_int(config, "shared_expert_intermediate_size") or 0
        each = _opt_int(config, "moe_intermediate_size") or 1
        return math.ceil(size / each) if size else 0
    return _opt_int(config, "n_shared_experts", "num_shared_experts") or 0


def _moe_layers(config: dict[str, Any], kind: str, layers: int, experts: int) -> set[int]:
    if experts <= 1:
        return set()
    first_dense = _opt_int(config, "first_k_dense_replace") or 0
    step = _opt_int(config, "moe_layer_freq", "decoder_sparse_step") or 1
    if kind.startswith("llama4"):
        step = _opt_int(config, "interleave_moe_layer_step") or 1
        return {i for i in range(layers) if (i + 1) % step == 0}
    only_dense = set(config.get("mlp_only_layers") or [])
    if first_dense or kind.startswith("deepseek") or kind == "kimi_k2":
        return {i for i in range(first_dense, layers) if (i - first_dense) % step == 0}
    return {i for i in range(layers) if (i + 1) % step == 0 and i not in only_dense}


def _kv_heads(config: dict[str, Any], kind: str, heads: int) -> int:
    explicit = _opt_int(config, "num_key_value_heads", "num_kv_heads", "n_head_kv",
                        "multi_query_group_num", "n_kv_heads")
    if kind in ("falcon", "RefinedWeb", "RefinedWebModel"):
        if config.get("new_decoder_architecture") or kind == "RefinedWeb":
            return explicit or heads
        return 1 if config.get("multi_query", kind == "falcon") else heads
    if config.get("multi_query") is True:
        return 1
    return explicit or heads


def _ffn(config: dict[str, Any], kind: str, hidden: int, experts: int) -> int:
    """The MLP width: of one routed expert in a MoE (as the catalog keeps it)."""
    if experts > 1:
        moe = _opt_int(config, "moe_intermediate_size", "expert_intermediate_size")
        if moe:
            return moe
    size = _opt_int(config, "intermediate_size", "ffn_dim", "n_inner", "ffn_hidden_size",
                    "d_ff")
    return size or 4 * hidden


def _windows(config: dict[str, Any], kind: str,
             layers: int) -> tuple[int | None, int | None, str | None]:
    """(window, layers using it, 'sliding' or 'chunked'), or Nones for full attention."""
    chunk = _opt_int(config, "attention_chunk_size")
    if chunk:
        step = 4  # Llama 4: every fourth layer is global (no RoPE), the rest chunked
        return chunk, layers - layers // step, "chunked"
    window = _opt_int(config, "sliding_window")
    if not window or config.get("use_sliding_window") is False:
        return None, None, None
    types = config.get("layer_types")
    if isinstance(types, list) and types:
        return window, sum(1 for t in types if t == "sliding_attention"), "sliding"
    if kind == "gemma2":
        return window, layers - layers // 2, "sliding"
    if kind.startswith("gemma3"):
        pattern = _opt_int(config, "sliding_window_pattern") or 6
        return window, layers - layers // pattern, "sliding"
    if window >= (_opt_int(config, "max_position_embeddings") or 0):
        return None, None, None  # a window as long as the context is no window
    return window, layers, "sliding"


def _precision(config: dict[str, Any], top: dict[str, Any]) -> str:
    quant = config.get("quantization_config") or top.get("quantization_config") or {}
    method = str(quant.get("quant_method") or "").lower() if isinstance(quant, dict) else ""
    if method in ("fp8", "mxfp4"):
        return method
    dtype = str(config.get("torch_dtype") or top.get("torch_dtype") or config.get("dtype")
                or top.get("dtype") or "bfloat16")
    return {"float16": "fp16", "float32": "fp32", "bfloat16": "bf16"}.get(dtype, "bf16")


def _has(config: dict[str, Any], *keys: str) -> bool:
    return any(k in config for k in keys)


def _int(config: dict[str, Any], what: str, *keys: str) -> int:
    value = _opt_int(config, *keys)
    if value is None:
        raise ConfigError(f"no {what} ({' or '.join(keys)}); is this a language model's "
                          "config.json?")
    return value


def _opt_int(config: dict[str, Any], *keys: str) -> int | None:
    for key in keys:
        value = config.get(key)
        if value is None or value == 0:
            continue  # absent, or 0 as in "no shared experts"
        if isinstance(value, bool) or not isinstance(value, int | float) \
                or value != int(value) or value <= 0:
            raise ConfigError(f"{key} is {value!r}; expected a positive whole number")
        return int(value)
    return None


def model_id(name: str) -> str:
    """A row id from a model name or repo id: 'Qwen/Qwen2.5-7B' -> 'qwen2.5-7b'."""
    tail = name.strip().rstrip("/").split("/")[-1]
    slug = re.sub(r"[^a-z0-9.]+", "-", tail.lower()).strip("-.")
    return slug or "imported-model"
