/**
 * SSRF guard for every address a user chose (webhooks, LoRaWAN network servers, push services, client
 * metadata documents, notification services): unless the operator allows it (FARMSTEAD_WEBHOOK_ALLOW_PRIVATE=1,
 * for a receiver on the farm LAN) the service refuses every address that is not on the public internet:
 * loopback, private, link-local, carrier-grade NAT, unique-local, cloud metadata, multicast and reserved
 * ranges, also when written as an IPv6 address that carries an IPv4 one (IPv4-mapped, IPv4-translated,
 * IPv4-compatible, NAT64 well-known and local-use, 6to4, Teredo: `V6_EMBEDDING_V4`). Names are
 * resolved and every address they resolve to must pass. The check runs when a URL is saved
 * (calls/outbound-url.ts) and again inside each connection the outbound client opens (outbound.ts, through
 * `guardedLookup` and `literalRefusal`), because DNS answers can change between the two.
 */
import dns from 'node:dns';
import { isIP, type LookupFunction } from 'node:net';

type Range = { base: bigint; bits: number; reason: string };

// Each range's reason is the whole noun phrase the refusal message uses ("127.0.0.1 is a loopback address"),
// article included, so no message is assembled from a bare adjective.
const V4_RANGES: ReadonlyArray<[string, number, string]> = [
  ['0.0.0.0', 8, 'a "this network" address'],
  ['10.0.0.0', 8, 'a private address'],
  ['100.64.0.0', 10, 'a carrier-grade NAT address'],
  ['127.0.0.0', 8, 'a loopback address'],
  ['169.254.0.0', 16, 'a link-local address (where cloud metadata services live)'],
  ['172.16.0.0', 12, 'a private address'],
  ['192.0.0.0', 24, 'an address reserved for IETF protocol assignments'],
  ['192.0.2.0', 24, 'a documentation address'],
  ['192.88.99.0', 24, 'a 6to4 relay anycast address'],
  ['192.168.0.0', 16, 'a private address'],
  ['198.18.0.0', 15, 'a benchmarking address'],
  ['198.51.100.0', 24, 'a documentation address'],
  ['203.0.113.0', 24, 'a documentation address'],
  ['224.0.0.0', 4, 'a multicast address'],
  ['240.0.0.0', 4, 'a reserved address'],
  // Azure's platform endpoint answers metadata-style requests from any VM although it is a public address.
  ['168.63.129.16', 32, 'a cloud metadata address'],
];

const V6_RANGES: ReadonlyArray<[string, number, string]> = [
  ['::', 128, 'an unspecified address'],
  ['::1', 128, 'a loopback address'],
  ['100::', 64, 'a discard-only address'],
  ['2001:2::', 48, 'a benchmarking address'],
  ['2001:db8::', 32, 'a documentation address'],
  ['3fff::', 20, 'a documentation address'],
  [
    'fc00::',
    7,
    'a unique local (private) address (a range that holds fd00:ec2::254, a cloud metadata address)',
  ],
  ['fe80::', 10, 'a link-local address'],
  ['fec0::', 10, 'a site-local address'],
  ['ff00::', 8, 'a multicast address'],
];

/** `length` bits of a 128-bit address from bit `start` (bit 0 the most significant). */
function bitsOf(value: bigint, start: number, length: number): bigint {
  return (value >> BigInt(128 - start - length)) & ((1n << BigInt(length)) - 1n);
}

/** The last 32 bits: where most forms put the IPv4 address. */
const last32 = (value: bigint): bigint[] => [bitsOf(value, 96, 32)];

/**
 * Local-use NAT64 (RFC 8215, 64:ff9b:1::/48): the operator picks a prefix inside it, of any length RFC 6052
 * allows from /48 on, and the IPv4 address sits where that length puts it: after a /96 prefix, or split
 * around bits 64-71 (zero) behind a /48, /56 or /64 one, the bits after it zero. Every layout the address
 * fits is judged (a translator could use any), the /96 one always.
 */
function localNat64(value: bigint): bigint[] {
  const candidates: bigint[] = [];
  const fits = (suffixFrom: number) =>
    bitsOf(value, 64, 8) === 0n && bitsOf(value, suffixFrom, 128 - suffixFrom) === 0n;
  if (fits(88)) candidates.push((bitsOf(value, 48, 16) << 16n) | bitsOf(value, 72, 16)); // /48
  if (fits(96)) candidates.push((bitsOf(value, 56, 8) << 24n) | bitsOf(value, 72, 24)); // /56
  if (fits(104)) candidates.push(bitsOf(value, 72, 32)); // /64
  candidates.push(bitsOf(value, 96, 32)); // /96
  return candidates;
}

/**
 * IPv6 ranges that carry an IPv4 address, with where it is: every IPv4 address an address of the range
 * carries must pass as IPv4, so none is a way to write a private IPv4 address as IPv6.
 */
const V6_EMBEDDING_V4: ReadonlyArray<[string, number, (value: bigint) => bigint[]]> = [
  ['::ffff:0:0', 96, last32], // IPv4-mapped
  ['::ffff:0:0:0', 96, last32], // IPv4-translated (SIIT, RFC 2765)
  ['::', 96, last32], // IPv4-compatible (deprecated)
  ['64:ff9b::', 96, last32], // NAT64, the well-known prefix (RFC 6052)
  ['64:ff9b:1::', 48, localNat64], // NAT64, local use (RFC 8215)
  ['2002::', 16, (value) => [bitsOf(value, 16, 32)]], // 6to4
  // Teredo (RFC 4380): the server's address, and the client's (its NAT's), stored with every bit inverted.
  ['2001::', 32, (value) => [bitsOf(value, 32, 32), bitsOf(value, 96, 32) ^ 0xffffffffn]],
];

function parseV4(text: string): bigint | null {
  const parts = text.split('.');
  if (parts.length !== 4) return null;
  let n = 0n;
  for (const part of parts) {
    if (!/^\d{1,3}$/.test(part) || Number(part) > 255) return null;
    n = (n << 8n) | BigInt(part);
  }
  return n;
}

function parseV6(input: string): bigint | null {
  let text = input.replace(/^\[|\]$/g, '').replace(/%.*$/, '');
  const dotted = /(\d+\.\d+\.\d+\.\d+)$/.exec(text);
  if (dotted?.[1]) {
    const v4 = parseV4(dotted[1]);
    if (v4 === null) return null;
    text = `${text.slice(0, -dotted[1].length)}${(v4 >> 16n).toString(16)}:${(v4 & 0xffffn).toString(16)}`;
  }
  const halves = text.split('::');
  if (halves.length > 2) return null;
  const head = halves[0] ? halves[0].split(':') : [];
  const tail = halves.length === 2 && halves[1] ? halves[1].split(':') : [];
  const missing = 8 - head.length - tail.length;
  if (halves.length === 1 ? missing !== 0 : missing < 1) return null;
  const groups = [...head, ...Array<string>(halves.length === 2 ? missing : 0).fill('0'), ...tail];
  let n = 0n;
  for (const group of groups) {
    if (!/^[0-9a-f]{1,4}$/i.test(group)) return null;
    n = (n << 16n) | BigInt(Number.parseInt(group, 16));
  }
  return n;
}

function toRanges(
  list: ReadonlyArray<[string, number, string]>,
  parse: (s: string) => bigint | null,
): Range[] {
  return list.map(([text, bits, reason]) => ({ base: parse(text) ?? 0n, bits, reason }));
}

const V4 = toRanges(V4_RANGES, parseV4);
const V6 = toRanges(V6_RANGES, parseV6);
const EMBEDDING = V6_EMBEDDING_V4.map(([prefix, bits, embedded]) => ({
  base: parseV6(prefix) ?? 0n,
  bits,
  embedded,
}));

function inRange(value: bigint, width: number, range: { base: bigint; bits: number }): boolean {
  const shift = BigInt(width - range.bits);
  return value >> shift === range.base >> shift;
}

function v4Reason(value: bigint): string | null {
  return V4.find((r) => inRange(value, 32, r))?.reason ?? null;
}

/**
 * Why an IP address may not be sent to, as what the address is ("a loopback address", "not an IP
 * address"), or null when it is a public address. Text that is not an IP address is refused too (the caller
 * resolves names first).
 */
export function refusalReason(address: string): string | null {
  const family = isIP(address.replace(/^\[|\]$/g, '').replace(/%.*$/, ''));
  if (family === 4) {
    const value = parseV4(address);
    return value === null ? 'not an IP address' : v4Reason(value);
  }
  if (family !== 6) return 'not an IP address';
  const value = parseV6(address);
  if (value === null) return 'not an IP address';
  const own = V6.find((r) => inRange(value, 128, r));
  if (own) return own.reason;
  for (const { base, bits, embedded } of EMBEDDING) {
    if (!inRange(value, 128, { base, bits })) continue;
    for (const v4 of embedded(value)) {
      const reason = v4Reason(v4);
      if (reason) return `${reason}, written as IPv6`;
    }
  }
  return null;
}

export const ALLOW_PRIVATE_HINT =
  'On a self-hosted install, set FARMSTEAD_WEBHOOK_ALLOW_PRIVATE=1 to allow receivers on your own network.';

/** A connection or a save refused because the address is not public. */
export class RefusedAddressError extends Error {
  readonly code = 'ERR_ADDRESS_REFUSED';
  constructor(host: string, address: string, reason: string) {
    super(
      `${host === address ? address : `${host} resolves to ${address}, which`} is ${reason}; ` +
        `Farmstead sends requests only to public internet addresses. ${ALLOW_PRIVATE_HINT}`,
    );
  }
}

/** A host name without IPv6 brackets (URL.hostname keeps them). */
export function bareHost(hostname: string): string {
  return hostname.replace(/^\[|\]$/g, '');
}

function isLocalhostName(host: string): boolean {
  const name = host.toLowerCase().replace(/\.$/, '');
  return name === 'localhost' || name.endsWith('.localhost');
}

/** Which addresses are refused and why: `refusalReason`, or in the outbound client's own tests a stricter one. */
export type AddressPolicy = (address: string) => string | null;

/**
 * The refusal for an IP literal that is not public; null for a public one or a name. A connection to a
 * literal address never calls its `lookup`, so the outbound client asks this first.
 */
export function literalRefusal(
  host: string,
  policy: AddressPolicy = refusalReason,
): RefusedAddressError | null {
  if (!isIP(host)) return null;
  const reason = policy(host);
  return reason ? new RefusedAddressError(host, host, reason) : null;
}

/** Resolves the host (every address) and throws RefusedAddressError for the first address that is not public. */
export async function assertPublicHost(host: string): Promise<void> {
  if (isLocalhostName(host)) throw new RefusedAddressError(host, host, 'a loopback name');
  if (isIP(host)) {
    const literal = literalRefusal(host);
    if (literal) throw literal;
    return;
  }
  const addresses = await dns.promises.lookup(host, { all: true, verbatim: true });
  for (const { address } of addresses) {
    const reason = refusalReason(address);
    if (reason) throw new RefusedAddressError(host, address, reason);
  }
}

/**
 * A `lookup` for outgoing connections: resolves like dns.lookup but fails the connection when any
 * address is not public. The check and the connection use the same answer, so a DNS change between a check
 * and the request (DNS rebinding) cannot slip a private address through.
 */
export function guardedLookupWith(policy: AddressPolicy): LookupFunction {
  return (hostname, options, callback) => {
    dns.lookup(hostname, { ...options, all: true }, (err, addresses) => {
      if (err) return callback(err, '');
      for (const { address } of addresses) {
        const reason = policy(address);
        if (reason) return callback(new RefusedAddressError(hostname, address, reason), '');
      }
      const first = addresses[0];
      if (!first)
        return callback(Object.assign(new Error(`${hostname} has no address`), { code: 'ENOTFOUND' }), '');
      if (options.all) return callback(null, addresses);
      callback(null, first.address, first.family);
    });
  };
}

export const guardedLookup: LookupFunction = guardedLookupWith(refusalReason);
