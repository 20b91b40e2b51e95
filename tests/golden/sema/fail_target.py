from cuda import device


@device.kernel
def k(a: device.int32[:], n: device.int32):
    if device.target(device.is_device) and n > 0:  # ERROR: TargetConditionNotConstant
        a[0] = 1
    if device.target(device.sm90):  # ERROR: TargetDescriptionExpected
        a[0] = 2
    if device.target(device.provides(device.is_host)):  # ERROR: SMSelectorExpected
        a[0] = 3
    a[1] = device.target(device.is_host)  # ERROR: TargetOutsideIf
    if device.target(device.provides(device.sm89a)):  # ERROR: UnknownAttribute
        a[0] = 4
    if device.target(device.is_device | 3):  # ERROR: TargetDescriptionExpected
        a[0] = 5
