def gen():
    x = yield 1
    y = yield
    yield from range(3)
    z = (yield)
    w = yield x, y
    return [v for v in (yield)]


def pipeline(rows):
    cleaned = (r.strip() for r in rows if r)
    split = (line.split(",") for line in cleaned)
    grid = [[int(c) for c in row] for row in split]
    flat = [c for row in grid for c in row if c if c > 0]
    pairs = {(i, j): i * j for i in range(3) for j in range(3) if i <= j}
    unique = {c % 7 for c in flat}
    return sum(x * x for x in flat), max((len(r) for r in grid), default=0), pairs, unique


async def agen():
    async for x in source():
        yield x
    result = [await y for y in items]
    async_set = {z async for z in agen2()}
    return result, async_set
