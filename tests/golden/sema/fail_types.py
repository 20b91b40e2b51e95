from cuda import device


@device.kernel
def k(a: device.int8[:], x: device.int64, u: device.uint64):
    a[0] = a[1] + 300  # ERROR: LiteralOutOfRange
    y = x + u  # ERROR: NoCommonType
    z = x
    z = a  # ERROR: ConflictingAssignment
    a[0] = a  # ERROR: StoreType
