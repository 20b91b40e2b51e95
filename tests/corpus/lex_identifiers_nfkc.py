# -*- coding: utf-8 -*-
# Identifiers that CPython's parser NFKC-normalizes (PEP 3131): ligatures, fullwidth and
# mathematical letters, ordinals, combining sequences, Hangul jamo.
import ﬁle.ﬂag as ﬀ
from ｍｏｄ.ｓｕｂ import ﬃ as ｘ, 𝔸𝔹
ﬁ = 1
fi = ﬁ + 2
ｉｆ = ﬁ
Ｎｏｎｅ = None
º = ª if False else 0
ｃａｆｅ́ = "not normalized in strings: ﬁ"
é = é = 3
ḍ̇ = ạ́ = 4
ㄱㅏ = 각 = 각 = 5
Ⅷ = ℌ + ℕ + ℝ
𝐱, 𝑦 = 𝒛, 𝔀


class Ｐｏｉｎｔ(ﬂ=1):
    ﬁeld: int = 0

    def ｎｏｒｍ(ｓｅｌｆ, *ａｒｇｓ, ﬀ=1, **ｋｗ):
        global ﬂ
        return ｓｅｌｆ.ﬁeld + ﬀ + ｋｗ.ｇｅｔ(ﬁ=2)


def outer(ⅰ):
    ⅱ = lambda ﬁ: ﬁ + ⅰ

    def inner():
        nonlocal ⅱ
        try:
            return ⅱ(ⅰ)
        except ValueError as ﬁ:
            return ﬁ

    return [ﬁ for ﬁ in range(ⅰ) if ﬁ] + [f"{ﬁ}{ｘ!r:>{ⅰ}}"]
