# SPDX-License-Identifier: MIT
# A second implementation of the keyed-datagram check, written from docs/protocol.md ("Keyed
# datagrams", "The tag", revision 13) alone, in plain Python (no libsodium): HChaCha20, the
# ChaCha20 block and Poly1305 as RFC 8439 and draft-irtf-cfrg-xchacha define them.  The tests
# verify zcs-send's datagrams with it, and the C unit test checks vectors made with it, so the
# document, not only common/wire/auth.c, is what a receiver needs.
import struct

MASK = 0xffffffff


def _rotl(v, n):
    return ((v << n) & MASK) | (v >> (32 - n))


def _rounds(s):
    def qr(a, b, c, d):
        s[a] = (s[a] + s[b]) & MASK
        s[d] = _rotl(s[d] ^ s[a], 16)
        s[c] = (s[c] + s[d]) & MASK
        s[b] = _rotl(s[b] ^ s[c], 12)
        s[a] = (s[a] + s[b]) & MASK
        s[d] = _rotl(s[d] ^ s[a], 8)
        s[c] = (s[c] + s[d]) & MASK
        s[b] = _rotl(s[b] ^ s[c], 7)
    for _ in range(10):
        qr(0, 4, 8, 12), qr(1, 5, 9, 13), qr(2, 6, 10, 14), qr(3, 7, 11, 15)
        qr(0, 5, 10, 15), qr(1, 6, 11, 12), qr(2, 7, 8, 13), qr(3, 4, 9, 14)


_SIGMA = struct.unpack('<4I', b'expand 32-byte k')


def hchacha20(key, nonce16):
    s = list(_SIGMA) + list(struct.unpack('<8I', key)) + list(struct.unpack('<4I', nonce16))
    _rounds(s)
    return struct.pack('<8I', *(s[0:4] + s[12:16]))


def chacha20_block(key, counter, nonce12):
    init = list(_SIGMA) + list(struct.unpack('<8I', key)) + [counter] + \
        list(struct.unpack('<3I', nonce12))
    s = list(init)
    _rounds(s)
    return struct.pack('<16I', *((a + b) & MASK for a, b in zip(s, init)))


def poly1305(key32, msg):
    r = int.from_bytes(key32[:16], 'little') & 0x0ffffffc0ffffffc0ffffffc0fffffff
    s = int.from_bytes(key32[16:], 'little')
    p = (1 << 130) - 5
    acc = 0
    for i in range(0, len(msg), 16):
        block = msg[i:i + 16] + b'\x01'
        acc = (acc + int.from_bytes(block, 'little')) * r % p
    return ((acc + s) & ((1 << 128) - 1)).to_bytes(16, 'little')


# The 64-bit nonce of the one-time keys' keystream (revision 13): the ASCII bytes "zcs-otks"
OTK_NONCE = b'zcs-otks'


def one_time_key(subkey, number):
    """The 32 bytes at offset 32 * number of the keystream under subkey and OTK_NONCE, in the
    variant with a 64-bit block counter (state words 12-13) and a 64-bit nonce (words 14-15)."""
    b = number >> 1
    block = chacha20_block(subkey, b & MASK, struct.pack('<I', b >> 32) + OTK_NONCE)
    return block[32:] if number & 1 else block[:32]


def tag(key, nonce24, aad):
    """The tag of the bytes aad under key and the 24-byte nonce (prefix 16, number u64le 8)."""
    sub = hchacha20(key, nonce24[:16])
    otk = one_time_key(sub, struct.unpack('<Q', nonce24[16:])[0])
    pad = b'\0' * (-len(aad) % 16)
    return poly1305(otk, aad + pad + struct.pack('<QQ', len(aad), 0))


def nonce_of(d):
    """The nonce of keyed datagram d (type 128, 129 or 130; its length already checked)."""
    at = {0: 8, 1: 136, 2: 16}[d[3] & 0x7f]
    return d[-24:-16] + d[4:8] + bytes([d[3]]) + b'\0\0\0' + d[at:at + 8]


def verify(key, d):
    """True when datagram d carries a valid trailer under key (docs/protocol.md)."""
    if len(d) < 4 or not d[3] & 0x80:
        return False
    base = d[3] & 0x7f
    # samples (the end of stream too) and parity (revision 8) carry salt and tag, 24 bytes
    # after a 32-byte header; metadata is exactly 176 bytes
    if base in (0, 2):
        if len(d) < 32 + 24:
            return False
    elif base == 1:
        if len(d) != 128 + 48:
            return False
    else:
        return False
    # the comparison need not be constant-time here: this is a test, not a receiver
    return tag(key, nonce_of(d), d[:-16]) == d[-16:]


def meta_run(d):
    """The run number a keyed metadata datagram announces (docs/protocol.md, revision 5)."""
    return struct.unpack_from('<Q', d, 144)[0]


def load_key(path):
    with open(path) as f:
        return bytes.fromhex(f.read().strip())
