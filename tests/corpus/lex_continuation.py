total = 1 + \
    2 + \
        3
if a and \
   b:
    pass
x = [
    1,
  2,
        3,
]
y = {
    'a': (1,
          2),
}  # trailing comment
def f(a,
      b):  # comment after colon
    return (a +
            b)
# comment at column 0
    # indented comment
z = 1 ;
w = f(1
      , 2
      )
assert x, \
    "message"
value = (
    # comment inside parens
    1
)
