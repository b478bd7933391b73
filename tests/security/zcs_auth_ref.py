# SPDX-License-Identifier: MIT
# A second implementation of the keyed-datagram check, written from docs/protocol.md ("Keyed
# datagrams") alone, in plain Python (no libsodium): HChaCha20, ChaCha20 and Poly1305 as RFC 8439
# and draft-irtf-cfrg-xchacha define them.  The tests verify zcs-send's datagrams with it, so the
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


def xchacha20poly1305_tag(key, nonce24, aad):
    """The tag of encrypting the empty message with additional data aad."""
    sub = hchacha20(key, nonce24[:16])
    nonce12 = b'\0\0\0\0' + nonce24[16:]
    otk = chacha20_block(sub, 0, nonce12)[:32]
    pad = b'\0' * (-len(aad) % 16)
    return poly1305(otk, aad + pad + struct.pack('<QQ', len(aad), 0))


def verify(key, d):
    """True when datagram d carries a valid trailer under key (docs/protocol.md)."""
    if len(d) < 4 or not d[3] & 0x80:
        return False
    base = d[3] & 0x7f
    if base == 0:
        if len(d) < 32 + 24:
            return False
        number = d[8:16]
    elif base == 1:
        if len(d) != 128 + 48:
            return False
        number = d[136:144]
    elif base == 2:
        # parity (revision 8): a sample datagram's trailer, numbered by the parity's `number`
        if len(d) < 32 + 24:
            return False
        number = d[16:24]
    else:
        return False
    salt, tag = d[-24:-16], d[-16:]
    nonce = salt + d[4:8] + bytes([d[3]]) + b'\0\0\0' + number
    # the comparison need not be constant-time here: this is a test, not a receiver
    return xchacha20poly1305_tag(key, nonce, d[:-16]) == tag


def meta_run(d):
    """The run number a keyed metadata datagram announces (docs/protocol.md, revision 5)."""
    return struct.unpack_from('<Q', d, 144)[0]


def load_key(path):
    with open(path) as f:
        return bytes.fromhex(f.read().strip())
