"""Draws the app's PNG icons (the web app manifest's 192 and 512 px, and a maskable 512 px whose
mark sits inside the safe zone) from the same mark as Web/icon.svg. Run once when the mark
changes; the PNGs are committed (the app has no build step).

Usage: python scripts/make-icons.py   (needs Pillow)
"""
import os

from PIL import Image, ImageDraw

HERE = os.path.dirname(os.path.abspath(__file__))
WEB = os.path.join(HERE, "..", "Sources", "CrossmateServer", "Web")
NAVY, WHITE, ORANGE = (0x1D, 0x35, 0x57), (0xFF, 0xFF, 0xFF), (0xF4, 0xA2, 0x61)
# The mark on a 24-unit square, as icon.svg draws it: white squares, the current one orange.
SQUARES = [(3, 3, 5, 5), (10, 3, 5, 5), (3, 10, 5, 5), (17, 10, 4, 5), (10, 17, 5, 4), (17, 17, 4, 4)]


def draw(size, maskable):
    image = Image.new("RGB" if maskable else "RGBA", (size, size), NAVY if maskable else (0, 0, 0, 0))
    pen = ImageDraw.Draw(image)
    # A maskable icon fills its square; its mark keeps within the middle 80 % (the safe zone).
    inset = size * 0.14 if maskable else 0
    unit = (size - 2 * inset) / 24
    if not maskable:
        pen.rounded_rectangle([0, 0, size - 1, size - 1], radius=round(4 * unit), fill=NAVY)

    def square(x, y, w, h, fill):
        pen.rectangle([round(inset + x * unit), round(inset + y * unit), round(inset + (x + w) * unit) - 1, round(inset + (y + h) * unit) - 1], fill=fill)

    for x, y, w, h in SQUARES:
        square(x, y, w, h, WHITE)
    square(10, 10, 5, 5, ORANGE)
    return image


for name, size, maskable in [("icon-192.png", 192, False), ("icon-512.png", 512, False), ("icon-maskable-512.png", 512, True)]:
    draw(size, maskable).save(os.path.join(WEB, name), optimize=True)
    print("wrote", name)
