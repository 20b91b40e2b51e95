with open("a") as f:
    pass
with open("a") as f, open("b") as g:
    pass
with (open("a") as f, open("b") as g,):
    pass
with (open("a"), open("b")):
    pass
with (open("a")) as f:
    pass
with (a, b) as c:
    pass
with lock:
    pass
with ctx() as (x, y), other() as [z, *w]:
    pass
with a as b.c, d as e[0]:
    pass
with (
    open("x") as f,
    open("y") as g
):
    pass


async def run():
    async with session() as s:
        await s.get()
    async for item in stream():
        print(item)
    else:
        pass
    await asyncio.sleep(0)
    result = [x async for x in aiter() if await x]
    return await (yield) if False else await coro()
