"""Catalog names in free text: GPUs, models, links and providers, exact or read as the nearest.

The index of every id, name and alias is built once per catalog; a question is cut into
words and the longest run of words (up to five) whose folded spelling is a known name wins.
"""

from __future__ import annotations

import difflib
import re
from dataclasses import dataclass
from typing import Any

from clusterplan.assistant.parsing.lazy_re import lazy
from clusterplan.db.catalog import Catalog, normalise

# An Ollama tag keeps its colon and size in one word: "deepseek-r1:7b", "qwen2.5:72b".
WORD = lazy(r"[a-z0-9]+(?:[.\-_+][a-z0-9]+)*(?::\d+(?:\.\d+)?[bm](?![a-z0-9]))?", re.IGNORECASE)
KINDS = ("gpus", "models", "links", "providers")
MARK = {"gpus": "g", "models": "m", "links": "l", "providers": "p"}
# Tokens that look like a product code but are units, sizes or precisions, never a GPU typo.
NOT_A_GPU = lazy(r"^(\d+(\.\d+)?[kmbtgx]?|bf16|fp\d+|int\d+|nf4|mxfp\d+|gpt\d*|x\d+|"
                       r"\d+(gb|tb|gib|gbps|ms|us|s|h|k|b|t)|zero\d|tp\d+|pp\d+|dp\d+|llama\d*)$")
PRODUCT_CODE = lazy(r"^[a-z]{1,4}\d[0-9a-z]{1,5}$")
# 'rtx3090ti', 'rtx4080super': another card than the plain one, never a typo of it.
SUFFIXED_CARD = lazy(r"^[a-z]*\d{4}(?:ti|super)$")
# Link aliases that are everyday words in a question ("egress cost"), never read as a link.
COMMON_WORDS = {"egress", "internet", "wan", "bucket", "google", "microsoft", "amazon"}
# A word that ends a model name: its size ('70b', '8x7b', '405b'; BLOOM's '7b1' is 7.1B).
SIZE_WORD = lazy(r"(?<![a-z])\d+(\.\d+)?(x\d+)?b$|^\d+(\.\d+)?(x\d+)?b$|(?<![a-z])\d+b\d$")
# 'lama370b' is llama-3-70b (0.94) but 'llama270b' is not (0.89: Llama 2 is another model).
MODEL_CUTOFF = 0.9
LONE = {"a", "an", "i", "on", "in", "of", "to", "at", "for", "and", "the", "with", "x"}


@dataclass(frozen=True)
class Mention:
    """One catalog name found in the question: which row, where, and how it was read."""

    kind: str
    id: str
    start: int
    end: int
    text: str
    fuzzy: bool = False


class NameIndex:
    """Every folded name of one catalog: name -> (kind, id), and every prefix of a name."""

    def __init__(self, catalog: Catalog):
        self.names: dict[str, tuple[str, str]] = {}
        self.gpus: dict[str, str] = {}
        self.models: dict[str, str] = {}
        for kind in KINDS:
            table = getattr(catalog, kind)
            for row_id, row in table.rows.items():
                aliases = (getattr(row, "aliases", "") or "").split(";")
                for name in (row_id, getattr(row, "name", row_id), *aliases):
                    key = normalise(name)
                    if key and key not in COMMON_WORDS:
                        self.names.setdefault(key, (kind, row_id))
                        if kind in ("gpus", "models"):
                            getattr(self, kind).setdefault(key, row_id)
        self.prefixes = {key[:n] for key in self.names for n in range(1, len(key) + 1)}
        self.close_models: dict[str, str | None] = {}  # folded run -> nearest model key
        # typos keep the first letter ('lama 3 70b'): comparing only those keeps difflib cheap
        self.models_by_initial: dict[str, list[str]] = {}
        for key in self.models:
            self.models_by_initial.setdefault(key[:1], []).append(key)

    def close_model(self, key: str) -> str | None:
        """The model name nearest `key` above the cutoff; difflib is slow, so each run once."""
        if key not in self.close_models:
            close = difflib.get_close_matches(key, self.models_by_initial.get(key[:1], []), n=3,
                                              cutoff=MODEL_CUTOFF)
            # a typo keeps the numbers: 'qwen3:14b' is not Qwen-14B, 'qwen1.5-14b' not either
            same = [c for c in close if re.findall(r"\d+", c) == re.findall(r"\d+", key)]
            self.close_models[key] = same[0] if same else None
        return self.close_models[key]

    def get(self, key: str) -> tuple[str, str] | None:
        """The row a folded name means; a trailing plural 's' is forgiven ('H100s')."""
        found = self.names.get(key)
        if found is None and key.endswith("s"):
            found = self.names.get(key[:-1])
        return found


_built: list[tuple[Catalog, NameIndex]] = []


def _index(catalog: Catalog) -> NameIndex:
    """The name index of `catalog`, rebuilt only when the catalog object changes."""
    if not (_built and _built[0][0] is catalog):
        _built[:] = [(catalog, NameIndex(catalog))]
    return _built[0][1]


def find_mentions(text: str, catalog: Catalog) -> list[Mention]:
    """Every catalog name in `text`, longest match first, left to right, without overlaps."""
    index = _index(catalog)
    words = list(WORD.finditer(text))
    folded = [normalise(w[0]) for w in words]
    found: list[Mention] = []
    i = 0
    while i < len(words):
        hit = _longest_at(words, folded, i, index)
        if hit is None:
            fuzzy = _fuzzy_gpu(words[i], index.gpus)
            if fuzzy is not None:
                found.append(fuzzy)
            i += 1
        else:
            found.append(hit[0])
            i += hit[1]
    if not any(m.kind == "models" for m in found):
        model = _fuzzy_model(words, folded, index, found)
        if model is not None:
            found = sorted([*found, model], key=lambda m: m.start)
    return found


def _fuzzy_model(words: list[re.Match[str]], folded: list[str], index: NameIndex,
                 taken: list[Mention]) -> Mention | None:
    """A model name with a typo, ending in its size ('lama 3 70b' -> llama-3-70b)."""
    for j, word in enumerate(folded):
        if not SIZE_WORD.search(word):
            continue
        alone = 1 if SIZE_WORD.match(word) is None else 2  # 'lamma38b' is a name on its own
        for n in range(min(4, j + 1), alone - 1, -1):
            run = words[j - n + 1:j + 1]
            if any(m.start < run[-1].end() and run[0].start() < m.end for m in taken):
                continue
            key = "".join(folded[j - n + 1:j + 1])
            close = index.close_model(key)
            if close is not None:
                return Mention("models", index.models[close], run[0].start(),
                               run[-1].end(), _text(run), fuzzy=True)
    return None


def _longest_at(words: list[re.Match[str]], folded: list[str], i: int, index: NameIndex
                ) -> tuple[Mention, int] | None:
    """The longest run of words from i (up to five) whose folded spelling is a name. The 's'
    of 'GB/s' is a unit's tail, never the start of one ('86GB/s 3.' is not S3)."""
    start = words[i].start()
    if len(words[i][0]) == 1 and start and words[i].string[start - 1] == "/":
        return None
    best: tuple[Mention, int] | None = None
    key = ""
    for n in range(1, min(5, len(words) - i) + 1):
        j = i + n - 1
        if n > 1 and (words[i][0].lower() in LONE or words[j].start() - words[j - 1].end() > 2):
            break
        key += folded[j]
        found = index.get(key)
        if found:
            run = words[i:j + 1]
            best = Mention(found[0], found[1], run[0].start(), run[-1].end(), _text(run)), n
        if key not in index.prefixes and key[:-1] not in index.prefixes:
            break
    return best or _leading_name(words[i], index) or _counted_gpu(words[i], index)


PIECE = lazy(r"[.\-_+]")
# What a file or repository name appends to a model's name for its storage format.
QUANT_TAIL = lazy(r"(?:q\d(?:_[a-z0-9]+)*|iq\d\w*|gguf|awq|gptq\w*|fp8|int[48]|bnb\w*|"
                  r"\d+bit|mlx\w*|exl2\w*)$", re.IGNORECASE)
# A count glued to a GPU name with a hyphen: "8-A100", "4-H100s".
COUNTED = lazy(r"^\d{1,4}-(?=[a-z])", re.IGNORECASE)


def _counted_gpu(word: re.Match[str], index: NameIndex) -> tuple[Mention, int] | None:
    """'8-A100': the GPU after the count (the count is read beside the GPU's marker)."""
    count = COUNTED.match(word[0])
    if count is None:
        return None
    rest = word[0][count.end():]
    found = index.get(normalise(rest))
    if found is None or found[0] != "gpus":
        return None
    return Mention(found[0], found[1], word.start() + count.end(), word.end(), rest), 1


def _leading_name(word: re.Match[str], index: NameIndex) -> tuple[Mention, int] | None:
    """A model name that a repository name starts with, up to its size:
    'Mixtral-8x7B-Instruct-v0.1-AWQ' is mixtral-8x7b (the rest is a tag, and AWQ its format)."""
    text = word[0]
    cuts = [m.start() for m in PIECE.finditer(text)]
    for cut in reversed(cuts):
        head = text[:cut]
        last = PIECE.split(head)[-1].lower()
        # a size ends a name; so does a quantisation tag after it ('DeepSeek-R1-Q4_K_M')
        if not SIZE_WORD.search(last) and not QUANT_TAIL.match(text[cut + 1:]):
            continue
        found = index.get(normalise(head))
        if found and found[0] == "models":
            return Mention(found[0], found[1], word.start(), word.start() + cut, head), 1
        close = index.close_model(normalise(head)) if head.count("-") >= 2 else None
        if close is not None:  # 'deepseek-r1-disstill-qwen-7b-unsloth-bnb-4bit': a typo
            return Mention("models", index.models[close], word.start(), word.start() + cut,
                           head, fuzzy=True), 1
    return None


def _text(run: list[re.Match[str]]) -> str:
    return " ".join(w[0] for w in run)


def _fuzzy_gpu(word: re.Match[str], names: dict[str, str]) -> Mention | None:
    """A product-code-like word one typo away from a GPU name ('H10O' -> h100-sxm)."""
    token = word[0].lower().rstrip("s") if len(word[0]) > 4 else word[0].lower()
    if not PRODUCT_CODE.match(token) or NOT_A_GPU.match(token) or SUFFIXED_CARD.match(token):
        return None
    close = difflib.get_close_matches(token, list(names), n=1, cutoff=0.75)
    if not close or _other_number(token, close[0]) or _other_line(token, close[0]):
        return None
    return Mention("gpus", names[close[0]], word.start(), word.end(), word[0], fuzzy=True)


def _other_line(token: str, name: str) -> bool:
    """'p100' and 'v100', 'b100' and 'v100': another product line (its letters), not a typo."""
    said, known = re.match(r"[a-z]*", token), re.match(r"[a-z]*", name)
    return bool(said and known and said[0] and known[0] and said[0] != known[0])


def gpu_names(catalog: Catalog) -> dict[str, str]:
    """Every folded GPU name and alias of the catalog, to its id."""
    return _index(catalog).gpus


def unknown_gpus(text: str, catalog: Catalog) -> list[tuple[str, str]]:
    """Product codes that look like a GPU but name none in the catalog ('RTX4000', 'A5000'),
    each with its nearest catalog GPU: named as unknown, never read as that nearest one."""
    names = _index(catalog).gpus
    out: list[tuple[str, str]] = []
    for word in WORD.finditer(text):
        token = word[0].lower().rstrip("s") if len(word[0]) > 4 else word[0].lower()
        if not PRODUCT_CODE.match(token) or NOT_A_GPU.match(token) or token in names:
            continue
        close = difflib.get_close_matches(token, list(names), n=1, cutoff=0.75)
        # 'rtx4000' beside 'rtx4090' (another number) or 'rtxa4000' (another line): unknown
        if close and (_other_number(token, close[0]) or _other_line(token, close[0])):
            out.append((word[0], names[close[0]]))
    return out


_LOOKALIKE = str.maketrans({"o": "0", "i": "1", "l": "1"})


def _other_number(token: str, name: str) -> bool:
    """'rtx4000' and 'rtx4090' differ in their number: another product, not a typo ('h10o')."""
    said = re.findall(r"\d+", token.translate(_LOOKALIKE))
    known = re.findall(r"\d+", name)
    return bool(said and known) and said[0] != known[0]


def mask(text: str, mentions: list[Mention]) -> str:
    """The question with each mention replaced by a marker such as `<g0>` (kind and order)."""
    out, last, seen = [], 0, {k: 0 for k in MARK}
    for m in mentions:
        out.append(text[last:m.start])
        out.append(f" <{MARK[m.kind]}{seen[m.kind]}> ")
        seen[m.kind] += 1
        last = m.end
    out.append(text[last:])
    return "".join(out)


def by_kind(mentions: list[Mention], kind: str) -> list[Mention]:
    return [m for m in mentions if m.kind == kind]


def nearest(catalog: Catalog, kind: str, n: int = 4) -> list[str]:
    """A few catalog ids to offer as choices."""
    table: Any = getattr(catalog, kind)
    return table.ids()[:n]
