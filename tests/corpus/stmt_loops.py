for i in range(10):
    if i % 2:
        continue
    if i > 7:
        break
else:
    print("no break")

for a, b in zip(x, y): pass
for (a, b), c in items: pass
for [a, *rest] in seqs: pass
for x.attr in objs: pass
for d[k] in vals: pass
for i, in pairs: pass
for x in *a, *b: pass
for x in 1, 2, 3: pass

while n > 0:
    n -= 1
else:
    n = 10

while (line := read()) != "":
    print(line)

i = 0
while True:
    i += 1
    if i >= 3: break
