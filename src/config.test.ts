import assert from 'node:assert/strict';
import { test } from 'node:test';
import { ConfigError, loadConfig } from './config.ts';

test('timeouts and connection caps have sane defaults and are checked', () => {
  const config = loadConfig({});
  assert.equal(config.requestTimeoutMs, 30_000);
  assert.equal(config.headersTimeoutMs, 10_000);
  assert.equal(config.maxConnectionsPerAddress, 512);
  assert.equal(config.maxConnections, 10_000);
  assert.equal(loadConfig({ FARMSTEAD_MAX_CONNECTIONS_PER_ADDRESS: '0' }).maxConnectionsPerAddress, 0);
  assert.throws(
    () => loadConfig({ FARMSTEAD_HEADERS_TIMEOUT_MS: '40000' }),
    (err: Error) =>
      err instanceof ConfigError && /must not exceed FARMSTEAD_REQUEST_TIMEOUT_MS/.test(err.message),
  );
  assert.throws(() => loadConfig({ FARMSTEAD_REQUEST_TIMEOUT_MS: 'soon' }), ConfigError);
});
