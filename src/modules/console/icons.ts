/**
 * The installed app's icons, drawn here as PNGs (no image files to keep in step): a green square with a
 * white barn roof and door, in the sizes a web app manifest and iOS's home screen ask for. Pure: pixels,
 * zlib and CRC-32.
 */
import { crc32, deflateSync } from 'node:zlib';

export const ICON_SIZES = [192, 512] as const;
export const THEME_COLOR = '#2f6b3a';

function chunk(type: string, data: Buffer): Buffer {
  const length = Buffer.alloc(4);
  length.writeUInt32BE(data.length);
  const body = Buffer.concat([Buffer.from(type, 'ascii'), data]);
  const crc = Buffer.alloc(4);
  crc.writeUInt32BE(crc32(body) >>> 0);
  return Buffer.concat([length, body, crc]);
}

/** A size × size RGB PNG of the Farmstead mark. */
export function iconPng(size: number): Buffer {
  const rows: Buffer[] = [];
  const green = [0x2f, 0x6b, 0x3a];
  const white = [0xff, 0xff, 0xff];
  for (let y = 0; y < size; y++) {
    const row = Buffer.alloc(1 + size * 3);
    for (let x = 0; x < size; x++) {
      const u = x / size;
      const v = y / size;
      // A barn: a roof (triangle) over walls, with a door cut out of the walls.
      const roof = v >= 0.22 && v < 0.45 && Math.abs(u - 0.5) <= (v - 0.22) * (0.3 / 0.23);
      const walls = v >= 0.45 && v < 0.78 && u >= 0.24 && u <= 0.76;
      const door = v >= 0.58 && v < 0.78 && u >= 0.42 && u <= 0.58;
      const colour = (roof || walls) && !door ? white : green;
      row.set(colour, 1 + x * 3);
    }
    rows.push(row);
  }
  const header = Buffer.alloc(13);
  header.writeUInt32BE(size, 0);
  header.writeUInt32BE(size, 4);
  header.set([8, 2, 0, 0, 0], 8);
  return Buffer.concat([
    Buffer.from([0x89, 0x50, 0x4e, 0x47, 0x0d, 0x0a, 0x1a, 0x0a]),
    chunk('IHDR', header),
    chunk('IDAT', deflateSync(Buffer.concat(rows), { level: 9 })),
    chunk('IEND', Buffer.alloc(0)),
  ]);
}

/** The web app manifest: the console installs as "Farmstead", standalone, opening at the brief. */
export function manifest() {
  return {
    name: 'Farmstead',
    short_name: 'Farmstead',
    description: 'Your farm: the brief, alerts, houses and records.',
    id: '/',
    start_url: '/',
    scope: '/',
    display: 'standalone',
    background_color: '#ffffff',
    theme_color: THEME_COLOR,
    icons: ICON_SIZES.flatMap((size) => [
      { src: `/icons/icon-${size}.png`, sizes: `${size}x${size}`, type: 'image/png', purpose: 'any' },
      { src: `/icons/icon-${size}.png`, sizes: `${size}x${size}`, type: 'image/png', purpose: 'maskable' },
    ]),
  };
}
