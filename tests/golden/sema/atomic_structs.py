# A struct with atomic fields is used in place: a method's `self` and a parameter of its type
# refer to the array element, and `self.line` is an AtomicRef to the element's member.
from cuda import device


@device.struct
class ticket_mutex:
    line: device.Atomic(int, align=16)
    current: device.Atomic(int, align=16)

    @device.func
    def lock(self):
        # CHECK: my = AtomicAdd(AtomicRefOf(self[0]):AtomicRef(int32), 1:int32):int32
        my = self.line.add(1)
        while True:
            now = self.current.load()
            if now == my:
                break
            self.current.wait(now)

    @device.func
    def unlock(self):
        self.current.add(1)
        self.current.notify_all()


def locked_increment(m, counter):
    # CHECK: call#0(m):None
    m.lock()
    counter[0] = counter[0] + 1
    m.unlock()


@device.kernel
def k(mutexes: ticket_mutex[:], counter: device.int64[:]):
    if device.thread_idx.x == 0:
        # CHECK: call#2(mutexes[int64((BlockIdxX():uint32 % 4:uint32):uint32)]:ticket_mutex, counter):None
        locked_increment(mutexes[device.block_idx.x % 4], counter)
    mask = device.ballot_sync(0xFFFFFFFF, lambda: counter[0] > 0)
    # CHECK: mask = WithLaneBit(mask, int64(LaneId():int32), True:bool):WarpMask
    mask[device.lane_id] = True
    # CHECK: if LaneBit(mask, 0:int64):bool:
    if mask[0]:
        counter[1] = device.popc(mask)
