// Draws media/icon.png (the marketplace icon, 128×128): a magnifying glass
// over a groove — a wave in the lens — on a rounded violet square. Plain
// Node (zlib) so anyone can regenerate it: `node media/make-icon.mjs`.
import { writeFileSync } from "node:fs";
import { deflateSync } from "node:zlib";
import { fileURLToPath } from "node:url";

const N = 128;
const SS = 4; // supersamples per axis

// Signed distances (negative inside), in pixels of the 128-px canvas.
const roundedSquare = (x, y) => {
  const r = 26, h = N / 2 - 4;
  const qx = Math.abs(x - N / 2) - (h - r), qy = Math.abs(y - N / 2) - (h - r);
  return Math.hypot(Math.max(qx, 0), Math.max(qy, 0)) + Math.min(Math.max(qx, qy), 0) - r;
};
const cx = 56, cy = 54, R = 30;
const ring = (x, y) => Math.abs(Math.hypot(x - cx, y - cy) - R) - 6;
const segment = (x, y, ax, ay, bx, by, w) => {
  const px = x - ax, py = y - ay, dx = bx - ax, dy = by - ay;
  const t = Math.max(0, Math.min(1, (px * dx + py * dy) / (dx * dx + dy * dy)));
  return Math.hypot(px - t * dx, py - t * dy) - w;
};
const handle = (x, y) => segment(x, y, cx + R * 0.72, cy + R * 0.72, 104, 102, 8);
const wave = (x, y) => {
  if (Math.hypot(x - cx, y - cy) > R - 9) return 1e9; // only inside the lens
  const yw = cy + 7 * Math.sin(((x - cx) / R) * Math.PI * 1.5);
  return Math.abs(y - yw) - 3.5;
};

const BG = [0x6d, 0x4a, 0xd8];
const BG2 = [0x3f, 0x2a, 0x9e];
const FG = [0xff, 0xff, 0xff];
const WAVE = [0xff, 0xd4, 0x4d];

const px = Buffer.alloc(N * (N * 4 + 1));
for (let y = 0; y < N; y++) {
  px[y * (N * 4 + 1)] = 0; // filter: none
  for (let x = 0; x < N; x++) {
    let r = 0, g = 0, b = 0, a = 0;
    for (let sy = 0; sy < SS; sy++)
      for (let sx = 0; sx < SS; sx++) {
        const X = x + (sx + 0.5) / SS, Y = y + (sy + 0.5) / SS;
        if (roundedSquare(X, Y) > 0) continue;
        const t = (X + Y) / (2 * N); // diagonal gradient
        let c = BG.map((v, i) => v * (1 - t) + BG2[i] * t);
        if (wave(X, Y) <= 0) c = WAVE;
        if (ring(X, Y) <= 0 || handle(X, Y) <= 0) c = FG;
        r += c[0]; g += c[1]; b += c[2]; a += 255;
      }
    const n = SS * SS, o = y * (N * 4 + 1) + 1 + x * 4;
    const cov = a / n;
    px[o] = cov ? Math.round(r / (a / 255)) : 0;
    px[o + 1] = cov ? Math.round(g / (a / 255)) : 0;
    px[o + 2] = cov ? Math.round(b / (a / 255)) : 0;
    px[o + 3] = Math.round(cov);
  }
}

const crcTable = Array.from({ length: 256 }, (_, n) => {
  let c = n;
  for (let k = 0; k < 8; k++) c = c & 1 ? 0xedb88320 ^ (c >>> 1) : c >>> 1;
  return c >>> 0;
});
const crc32 = (buf) => {
  let c = 0xffffffff;
  for (const byte of buf) c = crcTable[(c ^ byte) & 0xff] ^ (c >>> 8);
  return (c ^ 0xffffffff) >>> 0;
};
const chunk = (type, data) => {
  const len = Buffer.alloc(4);
  len.writeUInt32BE(data.length);
  const td = Buffer.concat([Buffer.from(type, "ascii"), data]);
  const crc = Buffer.alloc(4);
  crc.writeUInt32BE(crc32(td));
  return Buffer.concat([len, td, crc]);
};
const ihdr = Buffer.alloc(13);
ihdr.writeUInt32BE(N, 0);
ihdr.writeUInt32BE(N, 4);
ihdr[8] = 8; // bit depth
ihdr[9] = 6; // RGBA
const png = Buffer.concat([
  Buffer.from([0x89, 0x50, 0x4e, 0x47, 0x0d, 0x0a, 0x1a, 0x0a]),
  chunk("IHDR", ihdr),
  chunk("IDAT", deflateSync(px, { level: 9 })),
  chunk("IEND", Buffer.alloc(0)),
]);
writeFileSync(fileURLToPath(new URL("./icon.png", import.meta.url)), png);
console.log(`media/icon.png: ${N}x${N}, ${png.length} bytes`);
