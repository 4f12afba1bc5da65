#!/usr/bin/env python3
"""Damages a fastrestore snapshot on purpose, for the bad-snapshot tests.

  snapshot_patch.py IN OUT version N     set the format version (header crc
                                         left as it was)
  snapshot_patch.py IN OUT flip          flip one byte of the payload
  snapshot_patch.py IN OUT rename A B    replace the bytes A by B (same
                                         length) in the payload and seal the
                                         file again (a valid snapshot whose
                                         content the kernel refuses)
The header layout is docs/SNAPSHOT.md's.
"""
import struct
import sys
import zlib

HEADER = 120
OBJECTS_CRC = 72
DIRECTORY_CRC = 112
HEADER_CRC = 108


def main():
    src, dst, op = sys.argv[1], sys.argv[2], sys.argv[3]
    data = bytearray(open(src, 'rb').read())
    if op == 'version':
        struct.pack_into('<I', data, 8, int(sys.argv[4]))
    elif op == 'flip':
        data[HEADER + (len(data) - HEADER) // 2] ^= 0xFF
    elif op == 'rename':
        old, new = sys.argv[4].encode(), sys.argv[5].encode()
        assert len(old) == len(new)
        payload = bytes(data[HEADER:])
        assert old in payload, 'pattern not in the snapshot'
        data[HEADER:] = payload.replace(old, new)
        objects = struct.unpack_from('<Q', data, 32)[0]
        struct.pack_into('<I', data, OBJECTS_CRC,
                         zlib.crc32(bytes(data[HEADER:HEADER + objects]))
                         & 0xFFFFFFFF)
        struct.pack_into('<I', data, DIRECTORY_CRC,
                         zlib.crc32(bytes(data[HEADER + objects:]))
                         & 0xFFFFFFFF)
        struct.pack_into('<I', data, HEADER_CRC,
                         zlib.crc32(bytes(data[:HEADER_CRC])) & 0xFFFFFFFF)
    else:
        sys.exit('unknown operation ' + op)
    open(dst, 'wb').write(data)


if __name__ == '__main__':
    main()
