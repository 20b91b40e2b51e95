class A:
    pass


class B(A):
    x: int
    y: int = 3

    def method(self):
        return self.x


class C(A, B, metaclass=Meta, **kwargs):
    """Doc."""

    @property
    def value(self):
        return super().value

    @value.setter
    def value(self, v):
        self._v = v

    class Inner:
        pass


class D(*bases, flag=True): ...


class E():
    a = 1; b = 2; c = 3;
