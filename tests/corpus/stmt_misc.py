assert x
assert x, "message"
assert (x, y)
raise
raise ValueError
raise ValueError("bad") from None
pass; pass
if a: pass
elif b: pass
elif c:
    pass
else: pass
if a:
    if b:
        pass
    elif c:
        pass
    else:
        if d:
            pass
x = 1 if y else 2
match = 1
case = 2
_ = match + case
type = 3
print(match, case, _)
def g(): return
def h(): return 1, 2
def k(): return *a, *b
lambda: (yield)
