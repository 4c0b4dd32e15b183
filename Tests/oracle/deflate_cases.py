"""Cases for checking Crossmate's DEFLATE inflater against zlib (raw deflate, wbits -15).

Prints one JSON object per line: {"input": BASE64, "output": BASE64 or null}, where output is
what zlib inflates the input to, or null when zlib finds it corrupt or incomplete. Half the cases
are zlib's own streams of random data (every level and strategy, text-like and random bytes, sizes
from empty to 70 KB, so stored, fixed and dynamic blocks and long distances all occur); the other
half are those streams damaged (bits flipped, bytes cut, inserted or truncated), which the
inflater must refuse exactly when zlib does and otherwise read the same.

Usage: python3 deflate_cases.py SEED COUNT
"""
import base64
import json
import random
import sys
import zlib

seed, count = int(sys.argv[1]), int(sys.argv[2])
rng = random.Random(seed)
words = [b"ACROSS", b"DOWN", b"<clue>", b"</clue>", b"<cell x=\"1\" y=\"2\" solution=\"A\"/>", b"crossword", b" ", b"\n"]


def payload():
    size = rng.choice([0, 1, 2, 10, 100, 1000, 5000, 40000, 70000])
    kind = rng.randrange(3)
    if kind == 0:
        return bytes(rng.randrange(256) for _ in range(size))
    if kind == 1:
        out = bytearray()
        while len(out) < size:
            out += rng.choice(words)
        return bytes(out[:size])
    return bytes([rng.randrange(4) + 65]) * size


def deflate(data):
    strategy = rng.choice([zlib.Z_DEFAULT_STRATEGY, zlib.Z_FILTERED, zlib.Z_HUFFMAN_ONLY, zlib.Z_RLE, zlib.Z_FIXED])
    compressor = zlib.compressobj(rng.randrange(10), zlib.DEFLATED, -15, rng.randrange(1, 10), strategy)
    if rng.randrange(4) == 0 and len(data) > 2:
        # A flush in the middle ends a block early (and may add an empty stored block).
        middle = rng.randrange(len(data))
        return compressor.compress(data[:middle]) + compressor.flush(zlib.Z_FULL_FLUSH) + compressor.compress(data[middle:]) + compressor.flush()
    return compressor.compress(data) + compressor.flush()


def damage(stream):
    stream = bytearray(stream)
    for _ in range(rng.randrange(1, 4)):
        if not stream:
            break
        at = rng.randrange(len(stream))
        action = rng.randrange(4)
        if action == 0:
            stream[at] ^= 1 << rng.randrange(8)
        elif action == 1:
            del stream[at]
        elif action == 2:
            stream.insert(at, rng.randrange(256))
        else:
            del stream[at:]
    return bytes(stream)


def inflate(stream):
    decompressor = zlib.decompressobj(-15)
    try:
        output = decompressor.decompress(stream)
    except zlib.error:
        return None
    return output if decompressor.eof else None


for index in range(count):
    stream = deflate(payload())
    if index % 2:
        stream = damage(stream)
    output = inflate(stream)
    print(json.dumps({"input": base64.b64encode(stream).decode(),
                      "output": None if output is None else base64.b64encode(output).decode()}))
