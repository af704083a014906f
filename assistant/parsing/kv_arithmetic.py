"""A person's own KV-cache arithmetic: "2 * 3584 * 28 * 8 = 1605632 B", "1.53 * 3072 = 4.59 GB".

Someone asking why the KV cache is smaller (or larger) than they worked out usually shows the
product they multiplied. Its factors say which number they took for what, so the answer can
point at the factor that differs from the model's (the hidden size where grouped-query attention
keeps fewer KV heads; bits where the formula wants bytes). A product of a per-token figure by a
whole number is their token count.
"""

from __future__ import annotations

import re

from clusterplan.assistant.parsing.lazy_re import lazy

_I = re.IGNORECASE
KV_WORDS = lazy(r"\bkv\b|kv[\s_-]*cache|key[\s/-]*value\s+cache", _I)
# A factor: a number, perhaps with a word or two naming it ("8192 dim", "2 fp16", "3000 len").
# (The times sign "x" is never a factor's name: "60 x 1 x 2" is three factors.)
_FACTOR = r"(?<![\w.,])\d[\d,]*(?:\.\d+)?(?:\s*(?![xX]\b)[A-Za-z_][A-Za-z0-9_]{0,11}){0,2}"
_TIMES = r"\s*(?:\*|×|\bx\b)\s*"
PRODUCT = lazy(_FACTOR + r"(?:" + _TIMES + _FACTOR + r")+", 0)
TIMES = lazy(_TIMES, 0)
LEADING_NUMBER = lazy(r"\d[\d,]*(?:\.\d+)?", 0)
# The smallest token count read from "<per-token figure> * N": shorter products are rarely
# lengths (a batch of 16, 2 bytes).
MIN_TOKENS = 128


def products(text: str) -> list[list[float]]:
    """Every product of two or more numbers in a question about the KV cache, each as its
    factors; nothing when the question is not about it."""
    if not KV_WORDS.search(text):
        return []
    found = []
    for m in PRODUCT.finditer(text):
        factors = [float(LEADING_NUMBER.match(part)[0].replace(",", ""))
                   for part in TIMES.split(m[0])]
        if len(factors) >= 2 and all(f > 0 for f in factors):
            found.append(factors)
    return found


def formula(text: str) -> list[float] | None:
    """The first product of three or more whole numbers: the bytes-per-token formula."""
    for factors in products(text):
        if len(factors) >= 3 and all(f == int(f) for f in factors):
            return factors
    return None


def tokens(text: str) -> int | None:
    """The N of "<figure with a decimal point> * N": a per-token size times the tokens."""
    for factors in products(text):
        if len(factors) == 2:
            small, big = sorted(factors)
            if small != int(small) and big == int(big) and big >= MIN_TOKENS:
                return int(big)
    return None
