/**
 * A local Web Push service for tests: an https server (a self-signed certificate made with openssl for
 * 127.0.0.1, trusted by this process through tls.setDefaultCACertificates, and by child processes through
 * NODE_EXTRA_CA_CERTS = `caFile`) that receives what web-push sends and decrypts each RFC 8291 payload with
 * the browser keys a fake subscription holds (http_ece). Each subscription may be told to answer a status.
 */
import { execFileSync } from 'node:child_process';
import crypto from 'node:crypto';
import fs from 'node:fs';
import https from 'node:https';
import type { AddressInfo } from 'node:net';
import os from 'node:os';
import path from 'node:path';
import tls from 'node:tls';
import ece from 'http_ece';

export interface ReceivedPush {
  subscription: string;
  headers: Record<string, string | string[] | undefined>;
  payload: Record<string, unknown>;
}

export interface BrowserKeys {
  /** The PushSubscription JSON a browser would send. */
  json: { endpoint: string; keys: { p256dh: string; auth: string } };
  id: string;
}

export interface PushService {
  url: string;
  caFile: string;
  received: ReceivedPush[];
  /** A new fake browser subscription at this service. */
  subscription(): BrowserKeys;
  /** What a subscription's endpoint answers from now on (default 201), with these headers. */
  answer(id: string, status: number, headers?: Record<string, string>): void;
  /** Every push is answered this long after it arrived (a slow push service). */
  delayMs: number;
  close(): Promise<void>;
}

let certificate: { key: string; cert: string; caFile: string } | null = null;

function selfSigned() {
  if (certificate) return certificate;
  const dir = fs.mkdtempSync(path.join(os.tmpdir(), 'push-service-'));
  const keyFile = path.join(dir, 'key.pem');
  const certFile = path.join(dir, 'cert.pem');
  execFileSync(
    'openssl',
    [
      'req',
      '-x509',
      '-newkey',
      'ec',
      '-pkeyopt',
      'ec_paramgen_curve:prime256v1',
      '-nodes',
      '-keyout',
      keyFile,
      '-out',
      certFile,
      '-days',
      '2',
      '-subj',
      '/CN=127.0.0.1',
      '-addext',
      'subjectAltName=IP:127.0.0.1,DNS:localhost',
    ],
    { stdio: 'ignore' },
  );
  const cert = fs.readFileSync(certFile, 'utf8');
  tls.setDefaultCACertificates([...tls.getCACertificates('default'), cert]);
  certificate = { key: fs.readFileSync(keyFile, 'utf8'), cert, caFile: certFile };
  return certificate;
}

export async function startPushService(): Promise<PushService> {
  const { key, cert, caFile } = selfSigned();
  const browsers = new Map<
    string,
    { ecdh: crypto.ECDH; auth: Buffer; status: number; headers?: Record<string, string> }
  >();
  const received: ReceivedPush[] = [];
  const server = https.createServer({ key, cert }, (req, res) => {
    const chunks: Buffer[] = [];
    req.on('data', (c: Buffer) => chunks.push(c));
    req.on('end', () => {
      const id = (req.url ?? '').replace(/^\/push\//, '');
      const browser = browsers.get(id);
      if (!browser) {
        res.writeHead(404).end('no such subscription');
        return;
      }
      if (browser.status >= 200 && browser.status < 300) {
        const plain = ece.decrypt(Buffer.concat(chunks), {
          version: 'aes128gcm',
          privateKey: browser.ecdh,
          authSecret: browser.auth.toString('base64url'),
        });
        received.push({
          subscription: id,
          headers: req.headers,
          payload: JSON.parse(plain.toString('utf8')),
        });
      }
      const { status, headers = {} } = browser;
      if (service.delayMs > 0) setTimeout(() => res.writeHead(status, headers).end(), service.delayMs);
      else res.writeHead(status, headers).end();
    });
  });
  await new Promise<void>((resolve) => server.listen(0, '127.0.0.1', resolve));
  const url = `https://127.0.0.1:${(server.address() as AddressInfo).port}`;
  const service: PushService = {
    delayMs: 0,
    url,
    caFile,
    received,
    subscription() {
      const id = crypto.randomUUID();
      const ecdh = crypto.createECDH('prime256v1');
      ecdh.generateKeys();
      const auth = crypto.randomBytes(16);
      browsers.set(id, { ecdh, auth, status: 201 });
      return {
        id,
        json: {
          endpoint: `${url}/push/${id}`,
          keys: { p256dh: ecdh.getPublicKey().toString('base64url'), auth: auth.toString('base64url') },
        },
      };
    },
    answer(id, status, headers) {
      const browser = browsers.get(id);
      if (!browser) return;
      browser.status = status;
      if (headers) browser.headers = headers;
      else delete browser.headers;
    },
    close: () =>
      new Promise<void>((resolve) => {
        server.closeAllConnections();
        server.close(() => resolve());
      }),
  };
  return service;
}
