"""Reading fatbins in tests: the images a fatbin holds, as cuobjdump lists them."""

import struct

PTX, ELF = 1, 2


def fatbin_entries(data: bytes):
    """(kind, sm, bytes) of each image of a fatbin (header: magic, version, header size, size);
    kind PTX (stored compressed) or ELF (a cubin, stored verbatim)."""
    magic, _, header_size, total = struct.unpack_from("<IHHQ", data, 0)
    assert magic == 0xBA55ED50
    entries, offset = [], header_size
    while offset < header_size + total:
        kind, _, entry_header = struct.unpack_from("<HHI", data, offset)
        (payload,) = struct.unpack_from("<Q", data, offset + 8)
        (sm,) = struct.unpack_from("<I", data, offset + 28)
        entries.append((kind, sm, data[offset + entry_header: offset + entry_header + payload]))
        offset += entry_header + payload
    return entries
