empty_list = []
empty_dict = {}
empty_tuple = ()
lst = [1, 2, 3,]
nested = [[1, [2, [3]]], (4, (5,)), {6: {7: 8}}]
tpl = 1, 2, 3
st = {1, 2, 3}
dct = {"a": 1, "b": 2, **other, "c": 3}
dct2 = {**a, **b}
merged = [*a, *b, 1]
sset = {*a, *b}
lc = [x * 2 for x in range(10) if x % 2 if x > 3]
sc = {x for x in data}
dc = {k: v for k, v in pairs.items() if v}
gen = (x for x in range(3))
nested_comp = [(i, j) for i in range(3) for j in range(i) if i != j]
comp_in_comp = [[y for y in x] for x in matrix]
walrus_comp = [y for x in data if (y := f(x)) is not None]
sum_gen = sum(x for x in range(10))
call_gen = f(x for x in y)
two_args = f((x for x in y), 1)
dict_comp_tuple = {(a, b): c for (a, b), c in items}
async_gen = (x async for x in y)
cond_comp = [a if a else b for a, b in pairs]
lambda_comp = [lambda: i for i in range(3)]
