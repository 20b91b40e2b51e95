from cuda import device


@device.kernel
def k(a: device.float32[:]):
    try:  # ERROR: UnsupportedStatement
        pass
    except Exception:
        pass
    b = [1, 2]  # ERROR: UnsupportedExpression
    for x in a:  # ERROR: ForIterable
        pass
    raise ValueError("no")  # ERROR: UnsupportedStatement
