a = 1 + 2 * 3 - 4 / 5 // 6 % 7 @ m
b = -x ** 2
c = (-x) ** 2
d = 2 ** -1
e = 2 ** 3 ** 2
f = ~a & b | c ^ d << 1 >> 2
g = not a and b or c and not d
h = a < b <= c > d >= e == f != g
i = a in b not in c is d is not e
j = a if b else c if d else e
k = (a if b else c) if d else e
l = lambda: 0
m = lambda x, y=1, *a, z, **k: x + y
n = lambda *, k: k
o = lambda x, /, y: (x, y)
p = await_x if False else None
q = +a - -b + ~c
r = a or b or c
s = a and b and c
t = (a or b) and (c or d)
u = not not a
v = (a < b) < c
w = a + (b + c)
x = ((a))
y = (((a + b)) * c)
