/**
 * Which redirect URIs a client may register (docs/oauth.md): an allow list, not a deny list. https; http on
 * a loopback address; a native app's private-use scheme in reverse-domain form (RFC 8252 §7.1); never a
 * fragment (RFC 6749 §3.1.2), not even a bare `#`.
 */
import assert from 'node:assert/strict';
import { test } from 'node:test';
import { forEachEngine, type TestApp } from '../../../test/harness.ts';

async function registering(t: TestApp, redirect: string) {
  return t.request<{ error?: string; error_description?: string; client_id?: string }>(
    'POST',
    '/oauth/register',
    { body: { client_name: `Agent for ${redirect}`, redirect_uris: [redirect] } },
  );
}

forEachEngine('oauth redirect URIs', (t) => {
  test('https, loopback http and reverse-domain app schemes are accepted', async () => {
    for (const redirect of [
      'https://agent.example/oauth/callback',
      'https://agent.example/cb?client=1',
      'http://127.0.0.1:7777/callback',
      'http://[::1]:7777/callback',
      'http://localhost:7777/callback',
      'com.example.agent:/oauth2redirect',
      'com.example.agent://callback',
    ]) {
      const res = await registering(t(), redirect);
      assert.equal(res.status, 201, `${redirect}: ${JSON.stringify(res.body)}`);
    }
  });

  test('a fragment (even a bare trailing #), other schemes and remote http are refused as invalid_redirect_uri', async () => {
    for (const redirect of [
      'https://agent.example/callback#',
      'https://agent.example/callback#state',
      'http://127.0.0.1:7777/callback#',
      'com.example.agent:/cb#',
      'blob:https://agent.example/0b5f-4c1a',
      'javascript:alert(1)',
      'data:text/html,hi',
      'file:///etc/passwd',
      'ftp://agent.example/cb',
      'ws://127.0.0.1:7777/cb',
      'myapp://callback',
      'urn:ietf:wg:oauth:2.0:oob',
      'http://agent.example/callback',
    ]) {
      const res = await registering(t(), redirect);
      assert.equal(res.status, 400, `${redirect} was accepted`);
      assert.equal(res.body.error, 'invalid_redirect_uri', redirect);
      assert.ok(res.body.error_description?.includes(redirect), res.body.error_description);
    }
  });
});
