import assert from 'node:assert/strict';
import { describe, test } from 'node:test';
import { guardedLookup, literalRefusal, RefusedAddressError, refusalReason } from './url-guard.ts';

/** The kinds of address the guard refuses, as the refusal names them. */
const REFUSED_KINDS: Array<[string, string]> = [
  ['0.1.2.3', 'a "this network" address'],
  ['10.1.2.3', 'a private address'],
  ['100.64.0.1', 'a carrier-grade NAT address'],
  ['127.0.0.1', 'a loopback address'],
  ['169.254.169.254', 'a link-local address (where cloud metadata services live)'],
  ['172.16.0.1', 'a private address'],
  ['192.0.0.8', 'an address reserved for IETF protocol assignments'],
  ['192.0.2.1', 'a documentation address'],
  ['192.88.99.1', 'a 6to4 relay anycast address'],
  ['192.168.1.20', 'a private address'],
  ['198.18.0.1', 'a benchmarking address'],
  ['198.51.100.7', 'a documentation address'],
  ['203.0.113.9', 'a documentation address'],
  ['224.0.0.1', 'a multicast address'],
  ['255.255.255.255', 'a reserved address'],
  ['168.63.129.16', 'a cloud metadata address'],
  ['::', 'an unspecified address'],
  ['::1', 'a loopback address'],
  ['100::1', 'a discard-only address'],
  ['2001:db8::1', 'a documentation address'],
  [
    'fd00:ec2::254',
    'a unique local (private) address (a range that holds fd00:ec2::254, a cloud metadata address)',
  ],
  ['fe80::1', 'a link-local address'],
  ['fec0::1', 'a site-local address'],
  ['ff02::1', 'a multicast address'],
  ['::ffff:127.0.0.1', 'a loopback address, written as IPv6'],
  ['::ffff:a9fe:a9fe', 'a link-local address (where cloud metadata services live), written as IPv6'],
  ['64:ff9b::a00:1', 'a private address, written as IPv6'],
  ['2002:c0a8:0101::1', 'a private address, written as IPv6'],
  ['64:ff9b:1::7f00:1', 'a loopback address, written as IPv6'],
  ['::ffff:0:127.0.0.1', 'a loopback address, written as IPv6'],
  ['2001:0:4136:e378:8000:63bf:80ff:fffe', 'a loopback address, written as IPv6'],
  ['2001:2::1', 'a benchmarking address'],
  ['3fff::1', 'a documentation address'],
];

/** How every refusal message ends. */
const REFUSAL_TAIL =
  '; Farmstead sends requests only to public internet addresses. On a self-hosted install, set FARMSTEAD_WEBHOOK_ALLOW_PRIVATE=1 to allow receivers on your own network.';

describe('address guard', () => {
  test('refuses loopback, private, link-local, CGNAT, unique-local, metadata and reserved addresses', () => {
    const refused = [
      '127.0.0.1',
      '127.255.0.9',
      '0.0.0.0',
      '10.1.2.3',
      '172.16.0.1',
      '172.31.255.255',
      '192.168.1.20',
      '169.254.169.254',
      '100.64.0.1',
      '100.100.100.200',
      '168.63.129.16',
      '198.18.0.1',
      '224.0.0.1',
      '255.255.255.255',
      '::1',
      '::',
      'fe80::1',
      'fc00::1',
      'fd00:ec2::254',
      'ff02::1',
      '2001:db8::1',
      '::ffff:127.0.0.1',
      '::ffff:7f00:1',
      '::ffff:a9fe:a9fe',
      '::ffff:10.0.0.1',
      '64:ff9b::a00:1',
      '2002:c0a8:0101::1',
      '::7f00:1',
      '::a9fe:a9fe',
    ];
    for (const address of refused) assert.ok(refusalReason(address), `${address} must be refused`);
    assert.match(refusalReason('::ffff:127.0.0.1') ?? '', /loopback.*IPv6/);
    assert.match(refusalReason('169.254.169.254') ?? '', /metadata/);
  });

  test('judges the IPv4 address every IPv6 form that carries one holds', () => {
    // Local-use NAT64 (RFC 8215, 64:ff9b:1::/48), in each of RFC 6052's layouts a prefix inside it may use:
    // /96 (the IPv4 address last), /64, /56 and /48 (split around the reserved octet, bits 64-71).
    for (const [address, kind] of [
      ['64:ff9b:1::7f00:1', 'a loopback address'],
      ['64:ff9b:1::a9fe:a9fe', 'a link-local address (where cloud metadata services live)'],
      ['64:ff9b:1:abcd::c0a8:101', 'a private address'],
      ['64:ff9b:1:0:7f:0:100:0', 'a loopback address'], // /64: 127.0.0.1 at bits 72-103
      ['64:ff9b:1:7f:0:1::', 'a loopback address'], // /56: 127 at bits 56-63, 0.0.1 at bits 72-95
      ['64:ff9b:1:a9fe:a9:fe00::', 'a link-local address (where cloud metadata services live)'], // /48
      // IPv4-translated (SIIT, RFC 2765: ::ffff:0:0:0/96), beside IPv4-mapped (::ffff:0:0/96).
      ['::ffff:0:127.0.0.1', 'a loopback address'],
      ['::ffff:0:a00:5', 'a private address'],
      ['0:0:0:0:ffff:0:a9fe:a9fe', 'a link-local address (where cloud metadata services live)'],
      // IPv4-compatible (::/96), NAT64 (64:ff9b::/96), 6to4 (2002::/16).
      ['::7f00:1', 'a loopback address'],
      ['64:ff9b::7f00:1', 'a loopback address'],
      ['2002:7f00:1::', 'a loopback address'],
      // Teredo (2001::/32): the server's IPv4 address (bits 32-63) and the client's, stored inverted (96-127).
      ['2001:0:4136:e378:8000:63bf:80ff:fffe', 'a loopback address'],
      ['2001:0:4136:e378:8000:63bf:f5ff:fffa', 'a private address'],
      ['2001:0:a00:1:8000:63bf:f7f7:f7f7', 'a private address'],
    ]) {
      assert.equal(refusalReason(address as string), `${kind}, written as IPv6`, address);
    }
    // The same forms holding a public IPv4 address are public.
    for (const address of [
      '64:ff9b:1::808:808',
      '64:ff9b:1:abcd::808:808',
      '::ffff:0:8.8.8.8',
      '64:ff9b::808:808',
      '2002:808:808::1',
      '2001:0:4136:e378:8000:63bf:f7f7:f7f7',
    ]) {
      assert.equal(refusalReason(address), null, address);
    }
  });

  test('allows public addresses, including ones next to private ranges', () => {
    for (const address of [
      '8.8.8.8',
      '1.1.1.1',
      '172.15.255.255',
      '172.32.0.1',
      '100.63.255.255',
      '100.128.0.1',
      '11.0.0.1',
      '2606:4700:4700::1111',
      '2a00:1450:4001:80b::200e',
      '::ffff:8.8.8.8',
    ]) {
      assert.equal(refusalReason(address), null, address);
    }
    assert.ok(refusalReason('not-an-ip'));
  });

  test('the lookup used by outbound connections fails when a name resolves to a private address', async () => {
    const err = await new Promise<unknown>((resolve) => {
      guardedLookup('localhost', { all: true }, (e) => resolve(e));
    });
    assert.ok(err instanceof RefusedAddressError);
    assert.match(err.message, /localhost resolves to .*loopback/);
    assert.match(err.message, /FARMSTEAD_WEBHOOK_ALLOW_PRIVATE=1/);
  });

  test('every refusal message reads as a sentence: "<address> is a/an <kind of address>"', () => {
    for (const [address, kind] of REFUSED_KINDS) {
      assert.equal(refusalReason(address), kind, address);
      const message = new RefusedAddressError(address, address, kind).message;
      assert.equal(message, `${address} is ${kind}${REFUSAL_TAIL}`);
      assert.equal(literalRefusal(address)?.message, message);
      // No "a" before a vowel sound ("a unique" is right), no "address" twice in a row of words, no "a … address address".
      assert.doesNotMatch(message, /\ba (?!uni)[aeiou]/i, message);
      assert.doesNotMatch(message, /, address|address address/, message);
    }
    const resolved = new RefusedAddressError('barn.example', '10.0.0.5', 'a private address').message;
    assert.equal(resolved, `barn.example resolves to 10.0.0.5, which is a private address${REFUSAL_TAIL}`);
    assert.equal(refusalReason('not-an-ip'), 'not an IP address');
    assert.equal(literalRefusal('barn.example'), null, 'a name is judged by its lookup');
    assert.equal(literalRefusal('8.8.8.8'), null);
  });
});
