counter = 0


def bump():
    global counter
    counter += 1

    def inner():
        nonlocal_value = 1

        def innermost():
            nonlocal nonlocal_value
            nonlocal_value = 2
        return innermost
    return inner


def several():
    global a, b, c
    a = b = c = 1
    del a, b
    del (c)
    x = [1, 2, 3]
    del x[0], x[:1]
    del x,
    y = {}
    del (y)


class Holder:
    attr = 1
    del attr
