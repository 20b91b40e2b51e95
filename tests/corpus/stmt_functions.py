def f0(): pass
def f1(a, b=1, *args, c, d=2, **kwargs) -> int: return a
def f2(a, /, b, *, c): ...
def f3(a=1, /, b=2, *, c=3, d): ...
def f4(*, a): pass
def f5(a, b, /): pass
def f6(a: int = 0, *args: str, b: "x" = None, **kw: dict) -> "ret": pass
def f7(*args: *Ts): pass
def f8(a, b, c,): pass
def f9(
    first,
    second: int,
    *rest,
    key=lambda x: x,
    **options,
):
    """Docstring."""
    return first


@decorator
@decorator.attr(1, k=2)
@(lambda f: f)
@x[0].y
def decorated():
    yield
    yield 1
    yield 1, 2
    x = yield
    y = yield from gen()
    z = yield *a, b
    await_ = 1
    return


async def coroutine(a, *, b):
    await a
    return [await b]


@dataclass
class C: pass
