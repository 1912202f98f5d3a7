#!/usr/bin/env python3
"""A FUSE file system of one file, `file`, mounted at argv[1] through /dev/fuse (root), whose
server answers nothing once the file is read: what sshfs is when its link dies. Prints
`mounted`, or exits saying why it cannot mount."""
import ctypes, os, struct, sys
mnt = sys.argv[1]
try:
    fd = os.open("/dev/fuse", os.O_RDWR)
except OSError as err:
    sys.exit(f"/dev/fuse: {err}")
libc = ctypes.CDLL(None, use_errno=True)
opts = f"fd={fd},rootmode=40000,user_id=0,group_id=0".encode()
if libc.mount(b"stall", mnt.encode(), b"fuse", 0, opts) != 0:
    sys.exit(f"mount: {os.strerror(ctypes.get_errno())}")
print("mounted", flush=True)
def attr(ino, mode, size):
    return struct.pack("<QQQQQQIIIIIIIIII", ino, size, 1, 0, 0, 0, 0, 0, 0, mode, 1, 0, 0, 0, 4096, 0)
def reply(unique, body=b"", error=0):
    os.write(fd, struct.pack("<IiQ", 16 + len(body), error, unique) + body)
stalled = False
while True:
    try:
        req = os.read(fd, 1 << 21)
    except OSError:
        break
    length, opcode, unique, node = struct.unpack_from("<IIQQ", req)
    if stalled:
        continue
    if opcode == 26:  # INIT
        reply(unique, struct.pack("<IIIIHHIIHHII", 7, 31, 0, 0, 0, 0, 65536, 1, 0, 0, 0, 0) + bytes(24))
    elif opcode == 1:  # LOOKUP
        name = req[40:].split(b"\0")[0]
        if node == 1 and name == b"file":
            reply(unique, struct.pack("<QQQQII", 2, 0, 0, 0, 0, 0) + attr(2, 0o100644, 4096))
        else:
            reply(unique, error=-2)
    elif opcode == 3:  # GETATTR
        reply(unique, struct.pack("<QII", 0, 0, 0) + (attr(1, 0o40755, 0) if node == 1 else attr(2, 0o100644, 4096)))
    elif opcode == 14 or opcode == 27:  # OPEN, OPENDIR
        reply(unique, struct.pack("<QII", 0, 1, 0))  # FOPEN_DIRECT_IO
    elif opcode == 15:  # READ: never answered, nor anything after
        stalled = True
        print("stalled", flush=True)
    elif opcode in (18, 29, 25):  # RELEASE, RELEASEDIR, FLUSH
        reply(unique)
    else:
        reply(unique, error=-38)
