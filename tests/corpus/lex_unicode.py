# -*- coding: utf-8 -*-
π = 3.14159
naïve = "café"
变量 = 1
_привет = 2
Ωmega_1 = π * 2
def 函数(参数):
    return 参数 + 变量
s = "日本語 テキスト"
t = 'ẞ ß ﬁ'
print(f"{π:.2f} {naïve}")
