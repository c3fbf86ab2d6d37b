import assert from 'node:assert/strict';
import { describe, test } from 'node:test';
import { AppError } from '../domain/errors.ts';
import { refusalReason } from '../lib/url-guard.ts';
import { checkOutboundUrl } from './outbound-url.ts';

const REFUSAL_TAIL =
  '; Farmstead sends requests only to public internet addresses. On a self-hosted install, set FARMSTEAD_WEBHOOK_ALLOW_PRIVATE=1 to allow receivers on your own network.';

describe('checkOutboundUrl (the save-time check of a URL to send to)', () => {
  test('refuses private hosts with a message naming the override, and allows them with it', async () => {
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
      // IPv6 forms that carry a private IPv4 address: local-use NAT64 (RFC 8215), IPv4-translated (SIIT).
      'http://[64:ff9b:1::7f00:1]:42150/',
      'http://[::ffff:0:127.0.0.1]:42150/',
      'http://[2001:0:4136:e378:8000:63bf:80ff:fffe]:42150/',
    ]) {
      await assert.rejects(checkOutboundUrl(url, { allowPrivate: false }), (err: unknown) => {
        assert.ok(err instanceof AppError, url);
        assert.equal(err.status, 400);
        assert.equal(err.param, 'url');
        assert.match(err.message, /FARMSTEAD_WEBHOOK_ALLOW_PRIVATE=1/, url);
        return true;
      });
      assert.equal(typeof (await checkOutboundUrl(url, { allowPrivate: true })), 'string', url);
    }
    assert.equal(
      await checkOutboundUrl('https://93.184.215.14/hooks', { allowPrivate: false }),
      'https://93.184.215.14/hooks',
    );
  });

  test('requires an absolute http(s) URL', async () => {
    for (const url of [
      '/relative',
      'example.com/hook',
      'ftp://example.com/x',
      'file:///etc/passwd',
      'javascript:alert(1)',
    ]) {
      await assert.rejects(checkOutboundUrl(url, { allowPrivate: true }), (err: unknown) => {
        assert.ok(err instanceof AppError && err.param === 'url', url);
        return true;
      });
    }
  });

  test('names the field it checks', async () => {
    await assert.rejects(
      checkOutboundUrl('http://10.0.0.5/api', { allowPrivate: false, param: 'api_url' }),
      (err: unknown) => {
        assert.ok(err instanceof AppError);
        assert.equal(err.param, 'api_url');
        assert.equal(err.message, `api_url refused: 10.0.0.5 is a private address${REFUSAL_TAIL}`);
        return true;
      },
    );
    await assert.rejects(
      checkOutboundUrl('nope', { allowPrivate: false, param: 'endpoint' }),
      (err: unknown) => {
        assert.ok(err instanceof AppError);
        assert.equal(err.param, 'endpoint');
        assert.match(err.message, /^endpoint "nope" is not an absolute URL/);
        return true;
      },
    );
  });

  test('every refusal reads "url refused: <host> is <kind of address>"', async () => {
    for (const address of [
      '0.1.2.3',
      '10.1.2.3',
      '127.0.0.1',
      '169.254.169.254',
      '::1',
      'fd00:ec2::254',
      '::ffff:127.0.0.1',
      '2002:c0a8:0101::1',
      '64:ff9b:1::7f00:1',
      '::ffff:0:127.0.0.1',
    ]) {
      const kind = refusalReason(address);
      assert.ok(kind, address);
      const url = `http://${address.includes(':') ? `[${address}]` : address}/h`;
      // The URL parser writes the host its own way (::ffff:127.0.0.1 becomes ::ffff:7f00:1).
      const host = new URL(url).hostname.replace(/^\[|\]$/g, '');
      await assert.rejects(checkOutboundUrl(url, { allowPrivate: false }), (err: unknown) => {
        assert.ok(err instanceof AppError);
        assert.equal(err.message, `url refused: ${host} is ${kind}${REFUSAL_TAIL}`);
        return true;
      });
    }
    await assert.rejects(
      checkOutboundUrl('http://localhost:8080/h', { allowPrivate: false }),
      (err: unknown) => {
        assert.ok(err instanceof AppError);
        assert.equal(err.message, `url refused: localhost is a loopback name${REFUSAL_TAIL}`);
        return true;
      },
    );
  });
});
