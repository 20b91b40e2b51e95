x = 1
x = y = z = 2
a, b = b, a
a, *b = range(3)
*a, b = range(3)
[a, b] = 1, 2
(a, b) = c = [1, 2]
x.y = 1
x[0] = x[1:2] = x[::2] = 0
x: int
x: int = 1
(x): int = 1
x.y: str
x[0]: float = 0.5
y: list[int] = [1]
z: tuple = 1, 2
w: int = yield_value if False else 0
x += 1; x -= 1; x *= 2; x /= 2; x //= 2; x %= 3; x **= 2
x @= m; x &= 1; x |= 2; x ^= 3; x <<= 1; x >>= 1
obj.attr += 1
arr[i, j] -= 2
a = b = yield_ = 0
t = 1,
u = ()
v = (1,)
