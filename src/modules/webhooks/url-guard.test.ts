import assert from 'node:assert/strict';
import { describe, test } from 'node:test';
import { AppError } from '../../domain/errors.ts';
import { checkWebhookUrl, guardedLookup, RefusedAddressError, refusalReason } from './url-guard.ts';

describe('webhook URL guard', () => {
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
    ];
    for (const address of refused) assert.ok(refusalReason(address), `${address} must be refused`);
    assert.match(refusalReason('::ffff:127.0.0.1') ?? '', /loopback.*IPv6/);
    assert.match(refusalReason('169.254.169.254') ?? '', /metadata/);
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

  test('checkWebhookUrl refuses private hosts with a message naming the override, and allows them with it', async () => {
    for (const url of [
      'http://127.0.0.1:8080/hook',
      'http://localhost/hook',
      'http://api.localhost/hook',
      'http://[::1]/hook',
      'http://[::ffff:127.0.0.1]/hook',
      'http://2130706433/hook',
      'http://0x7f.0.0.1/hook',
      'https://169.254.169.254/latest/meta-data',
      'http://192.168.1.10:8123/farm',
      'http://10.0.0.5/',
    ]) {
      await assert.rejects(checkWebhookUrl(url, { allowPrivate: false }), (err: unknown) => {
        assert.ok(err instanceof AppError, url);
        assert.equal(err.status, 400);
        assert.equal(err.param, 'url');
        assert.match(err.message, /FARMSTEAD_WEBHOOK_ALLOW_PRIVATE=1/, url);
        return true;
      });
      assert.equal(typeof (await checkWebhookUrl(url, { allowPrivate: true })), 'string', url);
    }
    assert.equal(
      await checkWebhookUrl('https://93.184.215.14/hooks', { allowPrivate: false }),
      'https://93.184.215.14/hooks',
    );
  });

  test('checkWebhookUrl requires an absolute http(s) URL', async () => {
    for (const url of [
      '/relative',
      'example.com/hook',
      'ftp://example.com/x',
      'file:///etc/passwd',
      'javascript:alert(1)',
    ]) {
      await assert.rejects(checkWebhookUrl(url, { allowPrivate: true }), (err: unknown) => {
        assert.ok(err instanceof AppError && err.param === 'url', url);
        return true;
      });
    }
  });

  test('the lookup used by delivery connections fails when a name resolves to a private address', async () => {
    const err = await new Promise<unknown>((resolve) => {
      guardedLookup('localhost', { all: true }, (e) => resolve(e));
    });
    assert.ok(err instanceof RefusedAddressError);
    assert.match(err.message, /localhost resolves to .*loopback/);
    assert.match(err.message, /FARMSTEAD_WEBHOOK_ALLOW_PRIVATE=1/);
  });

  test('every refusal message reads as a sentence: "<address> is a/an <kind of address>"', async () => {
    const expected: Array<[string, string]> = [
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
    ];
    const tail =
      '; webhooks are only sent to public internet addresses. On a self-hosted install, set FARMSTEAD_WEBHOOK_ALLOW_PRIVATE=1 to allow receivers on your own network.';
    for (const [address, kind] of expected) {
      assert.equal(refusalReason(address), kind, address);
      const message = new RefusedAddressError(address, address, kind).message;
      assert.equal(message, `${address} is ${kind}${tail}`);
      // No "a" before a vowel sound ("a unique" is right), no "address" twice in a row of words, no "a … address address".
      assert.doesNotMatch(message, /\ba (?!uni)[aeiou]/i, message);
      assert.doesNotMatch(message, /, address|address address/, message);
      const url = `http://${address.includes(':') ? `[${address}]` : address}/h`;
      // The URL parser writes the host its own way (::ffff:127.0.0.1 becomes ::ffff:7f00:1).
      const host = new URL(url).hostname.replace(/^\[|\]$/g, '');
      await assert.rejects(checkWebhookUrl(url, { allowPrivate: false }), (err: unknown) => {
        assert.ok(err instanceof AppError);
        assert.equal(err.message, `url refused: ${host} is ${kind}${tail}`);
        return true;
      });
    }
    await assert.rejects(
      checkWebhookUrl('http://localhost:8080/h', { allowPrivate: false }),
      (err: unknown) => {
        assert.ok(err instanceof AppError);
        assert.equal(err.message, `url refused: localhost is a loopback name${tail}`);
        return true;
      },
    );
    const resolved = new RefusedAddressError('barn.example', '10.0.0.5', 'a private address').message;
    assert.equal(resolved, `barn.example resolves to 10.0.0.5, which is a private address${tail}`);
    assert.equal(refusalReason('not-an-ip'), 'not an IP address');
  });
});
