/**
 * Restores the lock entries of Biome's platform packages for other systems.
 *
 * npm 11 validates `npm ci` against every optional platform package of a dependency, but the registry
 * mirror on our machines serves only the Linux builds, so `npm install` here writes a lock without the
 * others and `npm ci` then refuses it ("Missing: @biomejs/cli-… from lock file"). The entries below carry
 * the os/cpu of each build, so npm skips them on this platform without fetching. Run after any
 * `npm install`: `npm run lockfile:fix`.
 */
import { readFileSync, writeFileSync } from 'node:fs';

const PLATFORMS: Record<string, { os: string[]; cpu: string[]; libc?: string[] }> = {
  'android-arm64': { os: ['android'], cpu: ['arm64'] },
  'android-x64': { os: ['android'], cpu: ['x64'] },
  'darwin-arm64': { os: ['darwin'], cpu: ['arm64'] },
  'darwin-x64': { os: ['darwin'], cpu: ['x64'] },
  'linux-arm64': { os: ['linux'], cpu: ['arm64'], libc: ['glibc'] },
  'linux-x64': { os: ['linux'], cpu: ['x64'], libc: ['glibc'] },
  'linux-arm64-musl': { os: ['linux'], cpu: ['arm64'], libc: ['musl'] },
  'linux-x64-musl': { os: ['linux'], cpu: ['x64'], libc: ['musl'] },
  'win32-arm64': { os: ['win32'], cpu: ['arm64'] },
  'win32-x64': { os: ['win32'], cpu: ['x64'] },
};

const file = new URL('../package-lock.json', import.meta.url);
const lock = JSON.parse(readFileSync(file, 'utf8')) as { packages: Record<string, Record<string, unknown>> };
const biome = lock.packages['node_modules/@biomejs/biome'];
if (!biome) throw new Error('@biomejs/biome is not in package-lock.json');
let added = 0;
for (const [name, platform] of Object.entries(PLATFORMS)) {
  const key = `node_modules/@biomejs/cli-${name}`;
  if (lock.packages[key]) continue;
  lock.packages[key] = {
    version: biome.version,
    ...(platform.cpu && { cpu: platform.cpu }),
    dev: true,
    engines: { node: '>=14.21.3' },
    ...(platform.libc && { libc: platform.libc }),
    license: 'MIT OR Apache-2.0',
    optional: true,
    os: platform.os,
  };
  added++;
}
const sorted = Object.fromEntries(
  Object.entries(lock.packages).sort(([a], [b]) => (a === '' ? -1 : b === '' ? 1 : a < b ? -1 : 1)),
);
writeFileSync(file, `${JSON.stringify({ ...lock, packages: sorted }, null, 2)}\n`);
process.stdout.write(`package-lock.json: ${added} platform entries restored\n`);
