a = 1
if a:
    b = """x
y"""
