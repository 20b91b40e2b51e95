if (n := len(a)) > 10:
    print(n)
while chunk := f.read(10):
    pass
[y := 1, y ** 2]
print(x := 3)
data = {"k": (v := 2)}
first, *middle, last = range(10)
*init, = range(3)
(a, b), *c = x
print(*args, sep="")
t = *a, *b
s = {*a}
l = [*a, 1, *b]
def f(): return (x := 1)
g = (z := 1, 2)
h = [q := 1]
