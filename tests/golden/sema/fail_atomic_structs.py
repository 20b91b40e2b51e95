# A struct with atomic fields lives in memory and is used in place (docs/structs.md): every way
# of making or copying one as a value is an error that says how to use it instead. Also the
# lanes of a WarpMask (docs/simt.md).
from cuda import device


@device.struct
class ticket_mutex:
    line: device.Atomic(int, align=16)
    current: device.Atomic(int, align=16)


@device.struct
class guarded:
    mutex: ticket_mutex
    count: device.int64


def give(m):
    return m  # ERROR: AtomicStructCopy


@device.kernel
def by_value(m: ticket_mutex, out: device.int32[:]):  # ERROR: AtomicStructArgument
    out[0] = 1


@device.kernel
def copies(ms: ticket_mutex[:], gs: guarded[:], out: device.int32[:]):
    m = ms[0]  # ERROR: AtomicStructCopy
    a = b = ms[1]  # ERROR: AtomicStructCopy
    ms[0] = ms[1]  # ERROR: AtomicStructCopy
    t = (ms[0], 1)  # ERROR: AtomicStructCopy
    c = ms[0] if out[0] > 0 else ms[1]  # ERROR: AtomicStructCopy
    g = gs[0].replace(count=1)  # ERROR: AtomicStructCopy
    give(ms[0])
    n = ticket_mutex(0, 0)  # ERROR: AtomicStructConstruct
    h = guarded(ms[0], 1)  # ERROR: AtomicStructConstruct
    ms[0].line = 3  # ERROR: AtomicFieldAssign
    gs[0].mutex.current = 4  # ERROR: AtomicFieldAssign
    gs[0].count = 5  # ERROR: StructImmutable


@device.kernel
def lanes(out: device.int32[:]):
    mask = device.activemask()
    out[0] = mask[32]  # ERROR: WarpMaskLane
    mask[-1] = True  # ERROR: WarpMaskLane
    out[1] = mask[31]
