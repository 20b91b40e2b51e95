name = "weft"
width = 10
precision = 4
value = 3.14159265
print(f"hello {name}")
print(f'{name!r} {name!s} {name!a}')
print(f"{value:.3f} {value:{width}.{precision}} {value:>{width}}")
print(f"{{literal braces}} {{{name}}}")
print(F"upper prefix {name}")
print(rf"raw \d {name}" fr'\w{name}' Rf"\s" fR"{name}\n")
print(f"" f'' "plain" f"{name}")
print(f"{name=}", f"{ value = }", f"{value=:.2f}", f"{name=!s}")
print(f"{'nested' + f'{name}'}")
print(f'''triple
{name}
{value:
>10}''')
print(f"{x:=10}" if (x := 5) else "")
print(f"{3 != 4} {1 == 1} {2 <= 3} {a >= b if (a := 1) and (b := 0) else 0}")
print(f"{[1, 2][0]}" if True else f"{ {'a': 1}['a'] }")
print(f"{lambda_x}" if False else f"{(lambda y: y)(1)}")
print(f"{name:}", f"{name!r:}")
print(f"{value:{'>' if width else '<'}{width}}")
print(f"\x41{name}\u00e9\t")
print(f"{value:{width}{'.3'}f}" 'tail' u"text")
print(f"{1,2}", f"{*name,}")
