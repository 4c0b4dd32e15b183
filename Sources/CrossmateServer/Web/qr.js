// A QR code of a short text (a link), drawn as SVG: byte mode, error correction level M,
// versions 1 to 10 (up to 213 bytes), the mask that scores best by ISO/IEC 18004's penalty
// rules. Loaded by the link page only. The browser test reads what it draws with an
// independent decoder (zxing-cpp).

const SVG = "http://www.w3.org/2000/svg";

/** Codewords in all, and error correction codewords per block, at level M, versions 1–10. */
const TOTAL = [0, 26, 44, 70, 100, 134, 172, 196, 242, 292, 346];
const EC_PER_BLOCK = [0, 10, 16, 26, 18, 24, 16, 18, 22, 22, 26];
const BLOCKS = [0, 1, 1, 1, 2, 2, 4, 4, 4, 5, 5];
/** Where alignment patterns are centred, per version. */
const ALIGN = [[], [], [6, 18], [6, 22], [6, 26], [6, 30], [6, 34], [6, 22, 38], [6, 24, 42], [6, 26, 46], [6, 28, 50]];

// GF(256) with the polynomial x^8 + x^4 + x^3 + x^2 + 1.
const EXP = new Uint8Array(512);
const LOG = new Uint8Array(256);
for (let i = 0, x = 1; i < 255; i++) {
  EXP[i] = x;
  LOG[x] = i;
  x = (x << 1) ^ (x & 0x80 ? 0x11d : 0);
}
for (let i = 255; i < 512; i++) EXP[i] = EXP[i - 255];
const times = (a, b) => (a && b ? EXP[LOG[a] + LOG[b]] : 0);

/** The Reed–Solomon remainder of `data` for `degree` error correction codewords. */
function remainder(data, degree) {
  // The generator (x - α^0)(x - α^1)…(x - α^(degree-1)), highest power first, leading 1 left out.
  let generator = [1];
  for (let i = 0; i < degree; i++) {
    const next = new Array(generator.length + 1).fill(0);
    for (let j = 0; j < generator.length; j++) {
      next[j] ^= generator[j];
      next[j + 1] ^= times(generator[j], EXP[i]);
    }
    generator = next;
  }
  const result = new Array(degree).fill(0);
  for (const byte of data) {
    const factor = byte ^ result.shift();
    result.push(0);
    for (let j = 0; j < degree; j++) result[j] ^= times(generator[j + 1], factor);
  }
  return result;
}

/** The codewords of `bytes` at `version`: data, padded, in blocks with their error correction, interleaved. */
function codewords(bytes, version) {
  const total = TOTAL[version];
  const ec = EC_PER_BLOCK[version];
  const blocks = BLOCKS[version];
  const dataCount = total - ec * blocks;
  const bits = [];
  const put = (value, length) => {
    for (let i = length - 1; i >= 0; i--) bits.push((value >>> i) & 1);
  };
  put(0b0100, 4);
  put(bytes.length, version < 10 ? 8 : 16);
  for (const byte of bytes) put(byte, 8);
  put(0, Math.min(4, dataCount * 8 - bits.length));
  while (bits.length % 8) bits.push(0);
  const data = [];
  for (let i = 0; i < bits.length; i += 8) data.push(bits.slice(i, i + 8).reduce((a, b) => (a << 1) | b, 0));
  for (let pad = 0xec; data.length < dataCount; pad ^= 0xec ^ 0x11) data.push(pad);
  // Blocks: the first ones short by a codeword when the data does not divide evenly.
  const shortLength = Math.floor(total / blocks) - ec;
  const longBlocks = total % blocks;
  const split = [];
  for (let b = 0, at = 0; b < blocks; b++) {
    const length = shortLength + (b >= blocks - longBlocks ? 1 : 0);
    const part = data.slice(at, at + length);
    at += length;
    split.push({ data: part, ec: remainder(part, ec) });
  }
  const out = [];
  for (let i = 0; i <= shortLength; i++) for (const block of split) if (i < block.data.length) out.push(block.data[i]);
  for (let i = 0; i < ec; i++) for (const block of split) out.push(block.ec[i]);
  return out;
}

/** BCH remainder of `value` (shifted left by the generator's degree) by `generator`. */
function bch(value, generator, degree) {
  let rest = value << degree;
  for (let bit = 31 - Math.clz32(rest); bit >= degree; bit--) if (rest & (1 << bit)) rest ^= generator << (bit - degree);
  return (value << degree) | rest;
}

const MASKS = [
  (r, c) => (r + c) % 2 === 0,
  (r) => r % 2 === 0,
  (r, c) => c % 3 === 0,
  (r, c) => (r + c) % 3 === 0,
  (r, c) => (Math.floor(r / 2) + Math.floor(c / 3)) % 2 === 0,
  (r, c) => ((r * c) % 2) + ((r * c) % 3) === 0,
  (r, c) => (((r * c) % 2) + ((r * c) % 3)) % 2 === 0,
  (r, c) => (((r + c) % 2) + ((r * c) % 3)) % 2 === 0,
];

/** The symbol for `text`: a square of booleans (true is dark), or null when it is too long. */
export function qrModules(text) {
  const bytes = [...new TextEncoder().encode(text)];
  let version = 1;
  while (version <= 10 && 4 + (version < 10 ? 8 : 16) + 8 * bytes.length > 8 * (TOTAL[version] - EC_PER_BLOCK[version] * BLOCKS[version])) version++;
  if (version > 10) return null;
  const size = 17 + 4 * version;
  const dark = Array.from({ length: size }, () => new Array(size).fill(false));
  const fixed = Array.from({ length: size }, () => new Array(size).fill(false));
  const set = (r, c, on) => {
    dark[r][c] = on;
    fixed[r][c] = true;
  };
  // Finder patterns and their separators.
  for (const [top, left] of [[0, 0], [0, size - 7], [size - 7, 0]]) {
    for (let r = -1; r <= 7; r++) for (let c = -1; c <= 7; c++) {
      const [y, x] = [top + r, left + c];
      if (y < 0 || x < 0 || y >= size || x >= size) continue;
      const ring = Math.max(Math.abs(r - 3), Math.abs(c - 3));
      set(y, x, ring !== 2 && ring !== 4);
    }
  }
  // Timing patterns.
  for (let i = 8; i < size - 8; i++) {
    set(6, i, i % 2 === 0);
    set(i, 6, i % 2 === 0);
  }
  // Alignment patterns (not over the finders).
  const centres = ALIGN[version];
  for (const r of centres) for (const c of centres) {
    if ((r === 6 && c === 6) || (r === 6 && c === centres.at(-1)) || (r === centres.at(-1) && c === 6)) continue;
    for (let dr = -2; dr <= 2; dr++) for (let dc = -2; dc <= 2; dc++) set(r + dr, c + dc, Math.max(Math.abs(dr), Math.abs(dc)) !== 1);
  }
  // The format areas (written once the mask is chosen), the dark module, the version areas.
  for (let i = 0; i < 9; i++) {
    if (!fixed[8][i]) set(8, i, false);
    if (!fixed[i][8]) set(i, 8, false);
  }
  for (let i = 0; i < 8; i++) {
    set(8, size - 1 - i, false);
    set(size - 1 - i, 8, false);
  }
  set(size - 8, 8, true);
  if (version >= 7) {
    const bits = bch(version, 0x1f25, 12);
    for (let i = 0; i < 18; i++) {
      const on = ((bits >> i) & 1) === 1;
      const [a, b] = [size - 11 + (i % 3), Math.floor(i / 3)];
      set(a, b, on);
      set(b, a, on);
    }
  }
  // The codewords, in two-column strips from the bottom right, up and down in turn.
  const stream = codewords(bytes, version);
  let bit = 0;
  for (let right = size - 1; right >= 1; right -= 2) {
    if (right === 6) right = 5;
    for (let step = 0; step < size; step++) {
      const upward = ((right + 1) & 2) === 0;
      const r = upward ? size - 1 - step : step;
      for (const c of [right, right - 1]) {
        if (fixed[r][c]) continue;
        const byte = stream[bit >> 3];
        dark[r][c] = byte !== undefined && ((byte >> (7 - (bit & 7))) & 1) === 1;
        bit++;
      }
    }
  }
  // Each mask tried; the one with the lowest penalty kept.
  let best = null;
  for (let mask = 0; mask < 8; mask++) {
    const grid = dark.map((row, r) => row.map((on, c) => (fixed[r][c] ? on : on !== MASKS[mask](r, c))));
    writeFormat(grid, size, mask);
    const score = penalty(grid, size);
    if (!best || score < best.score) best = { grid, score };
  }
  return best.grid;
}

/** The format bits (level M, the mask), twice. */
function writeFormat(grid, size, mask) {
  const bits = bch((0b00 << 3) | mask, 0x537, 10) ^ 0x5412;
  const bitAt = (i) => ((bits >> i) & 1) === 1;
  // (grid[row][column]) Beside the top left finder: down column 8, then along row 8.
  for (let i = 0; i <= 5; i++) grid[i][8] = bitAt(i);
  grid[7][8] = bitAt(6);
  grid[8][8] = bitAt(7);
  grid[8][7] = bitAt(8);
  for (let i = 9; i < 15; i++) grid[8][14 - i] = bitAt(i);
  // Again, along row 8 under the top right finder and down column 8 beside the bottom left.
  for (let i = 0; i < 8; i++) grid[8][size - 1 - i] = bitAt(i);
  for (let i = 8; i < 15; i++) grid[size - 15 + i][8] = bitAt(i);
  grid[size - 8][8] = true;
}

/** ISO/IEC 18004's penalty: runs, 2×2 blocks, finder-like patterns, and the balance of dark. */
function penalty(grid, size) {
  let score = 0;
  const lines = [];
  for (let i = 0; i < size; i++) {
    lines.push(grid[i]);
    lines.push(grid.map((row) => row[i]));
  }
  for (const line of lines) {
    for (let i = 0; i < size; ) {
      let j = i;
      while (j < size && line[j] === line[i]) j++;
      if (j - i >= 5) score += j - i - 2;
      i = j;
    }
    const text = line.map((on) => (on ? "1" : "0")).join("");
    for (const pattern of ["10111010000", "00001011101"]) for (let at = text.indexOf(pattern); at >= 0; at = text.indexOf(pattern, at + 1)) score += 40;
  }
  for (let r = 0; r < size - 1; r++) for (let c = 0; c < size - 1; c++) {
    const on = grid[r][c];
    if (grid[r][c + 1] === on && grid[r + 1][c] === on && grid[r + 1][c + 1] === on) score += 3;
  }
  const darkCount = grid.reduce((sum, row) => sum + row.filter(Boolean).length, 0);
  score += 10 * Math.floor(Math.abs(darkCount * 20 - size * size * 10) / (size * size));
  return score;
}

/** An SVG element of the code for `text`, dark on light with the four-module quiet zone. */
export function qrSvg(text, label) {
  const modules = qrModules(text);
  if (!modules) return null;
  const size = modules.length + 8;
  const svg = document.createElementNS(SVG, "svg");
  svg.setAttribute("viewBox", `0 0 ${size} ${size}`);
  svg.setAttribute("role", "img");
  svg.setAttribute("aria-label", label);
  svg.setAttribute("shape-rendering", "crispEdges");
  const back = document.createElementNS(SVG, "rect");
  for (const [name, value] of [["width", size], ["height", size], ["fill", "#ffffff"]]) back.setAttribute(name, value);
  let path = "";
  modules.forEach((row, r) => row.forEach((on, c) => {
    if (on) path += `M${c + 4} ${r + 4}h1v1h-1z`;
  }));
  const dark = document.createElementNS(SVG, "path");
  dark.setAttribute("d", path);
  dark.setAttribute("fill", "#000000");
  svg.append(back, dark);
  return svg;
}
