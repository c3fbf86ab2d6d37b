/**
 * One way out of the building: no file in src/ but the outbound client (src/lib/outbound.ts, its connections
 * in src/lib/outbound-connections.ts) opens an outbound connection of its own, so every request to an
 * address someone chose passes the SSRF guard, the timeouts and the size cap. Every non-test .ts file is
 * parsed and these are looked for:
 *  - node:http / node:https / node:http2: anything but `createServer` and types (request, get, Agent,
 *    connect, or the whole module, which could reach them);
 *  - node:net / node:tls: anything but servers, address helpers and types (connect, createConnection,
 *    Socket, the whole module);
 *  - node:dgram (sockets that send anywhere), `undici`, `ws`'s client, `mqtt`, `nodemailer`, `pg`;
 *  - any of these loaded when first needed (`await import('undici')`), which gives the whole module;
 *  - a call to the global `fetch` (or `globalThis.fetch`), and `web-push`'s `sendNotification`.
 * Listening (our own servers, the MQTT broker) is allowed. EXCEPTIONS names each other way out and why.
 */
import assert from 'node:assert/strict';
import { readdirSync, readFileSync } from 'node:fs';
import path from 'node:path';
import { test } from 'node:test';
import ts from 'typescript';

const ROOT = path.resolve(import.meta.dirname, '..');
const SRC = path.join(ROOT, 'src');

/** What each Node module may give a file that does not send: servers, address helpers and types. */
const SAFE_NAMES: Readonly<Record<string, ReadonlySet<string>>> = {
  http: new Set(['createServer', 'STATUS_CODES', 'METHODS']),
  https: new Set(['createServer']),
  http2: new Set(['createServer', 'createSecureServer', 'constants']),
  net: new Set(['createServer', 'isIP', 'isIPv4', 'isIPv6', 'BlockList', 'SocketAddress']),
  tls: new Set(['createServer', 'createSecureContext', 'getCACertificates', 'rootCertificates']),
};

/** Packages that open connections: importing anything of them is a way out. */
const CONNECTING_PACKAGES = new Set(['undici', 'mqtt', 'nodemailer', 'pg', 'dgram']);

/** `ws` opens connections only through its client class. */
const WS_CLIENT = new Set(['WebSocket', 'default']);

/** Each other way out, and why it is not an address someone chose (or not HTTP). */
const EXCEPTIONS: readonly { file: RegExp; what: RegExp; why: string }[] = [
  {
    file: /^src\/lib\/outbound(-connections)?\.ts$/,
    what: /^undici /,
    why: 'the outbound client itself',
  },
  {
    file: /^src\/db\/pg-driver\.ts$/,
    what: /^pg /,
    why: "the operator's own database (FARMSTEAD_DATABASE_URL), the service's storage rather than a request out",
  },
  {
    file: /^src\/modules\/notifications\/channels\/email\.ts$/,
    what: /^nodemailer /,
    why: "SMTP to the operator's own mail relay (FARMSTEAD_SMTP_URL); not HTTP, and no user chooses the address",
  },
  {
    file: /^src\/modules\/mqtt\/external\.ts$/,
    what: /^mqtt /,
    why: "the operator's own MQTT broker (FARMSTEAD_MQTT_BROKER), the devices' side of the service rather than a request out; no user chooses the address",
  },
  {
    file: /^src\/modules\/simulator\/run\.ts$/,
    what: /^(mqtt |fetch\()/,
    why: "`cli simulate`: the operator's command-line devices talking to the service's own public API at the URL the operator typed, over HTTP and MQTT",
  },
  {
    file: /^src\/modules\/console\/web\//,
    what: /^fetch\(/,
    why: "browser code: the console's pages and service worker call their own origin's API from the person's browser, not from the service",
  },
];

function moduleName(specifier: string): string {
  return specifier.replace(/^node:/, '').split('/')[0] ?? specifier;
}

/** Whether `fetch` at this call is a local binding (a parameter or a variable of an enclosing scope). */
function isLocalFetch(node: ts.Node): boolean {
  for (let at: ts.Node | undefined = node.parent; at; at = at.parent) {
    if (
      ts.isFunctionLike(at) &&
      at.parameters.some((p) => ts.isIdentifier(p.name) && p.name.text === 'fetch')
    ) {
      return true;
    }
    if (ts.isBlock(at) || ts.isSourceFile(at)) {
      for (const statement of at.statements) {
        if (
          ts.isVariableStatement(statement) &&
          statement.declarationList.declarations.some(
            (d) => ts.isIdentifier(d.name) && d.name.text === 'fetch',
          )
        ) {
          return true;
        }
        if (ts.isFunctionDeclaration(statement) && statement.name?.text === 'fetch') return true;
      }
    }
  }
  return false;
}

/** The ways out a source text opens, each as "<module> <what>" or "fetch(" / "sendNotification(". */
function waysOut(fileName: string, text: string): string[] {
  const source = ts.createSourceFile(fileName, text, ts.ScriptTarget.Latest, true, ts.ScriptKind.TS);
  const found: string[] = [];
  const visit = (node: ts.Node): void => {
    if (ts.isImportDeclaration(node) && ts.isStringLiteral(node.moduleSpecifier)) {
      const specifier = node.moduleSpecifier.text;
      const name = moduleName(specifier);
      const clause = node.importClause;
      if (clause && !clause.isTypeOnly) {
        const imported: string[] = [];
        if (clause.name) imported.push('default');
        const bindings = clause.namedBindings;
        if (bindings && ts.isNamespaceImport(bindings)) imported.push('*');
        if (bindings && ts.isNamedImports(bindings)) {
          for (const element of bindings.elements) {
            if (!element.isTypeOnly) imported.push((element.propertyName ?? element.name).text);
          }
        }
        const safe = SAFE_NAMES[name];
        if (safe) {
          for (const what of imported) if (!safe.has(what)) found.push(`${name} ${what}`);
        } else if (CONNECTING_PACKAGES.has(name)) {
          for (const what of imported) found.push(`${name} ${what}`);
        } else if (name === 'ws') {
          for (const what of imported) if (WS_CLIENT.has(what)) found.push(`ws ${what}`);
        }
      }
    }
    // A module loaded when first needed (`await import('undici')`) gives all of it, as `import *` does.
    if (
      ts.isCallExpression(node) &&
      node.expression.kind === ts.SyntaxKind.ImportKeyword &&
      node.arguments[0] &&
      ts.isStringLiteral(node.arguments[0])
    ) {
      const name = moduleName(node.arguments[0].text);
      if (SAFE_NAMES[name] || CONNECTING_PACKAGES.has(name) || name === 'ws') found.push(`${name} *`);
    }
    if (ts.isCallExpression(node)) {
      const callee = node.expression;
      if (ts.isIdentifier(callee) && callee.text === 'fetch' && !isLocalFetch(node)) found.push('fetch(');
      if (
        ts.isPropertyAccessExpression(callee) &&
        ts.isIdentifier(callee.expression) &&
        ['globalThis', 'window', 'self'].includes(callee.expression.text) &&
        callee.name.text === 'fetch'
      ) {
        found.push('fetch(');
      }
    }
    if (ts.isIdentifier(node) && node.text === 'sendNotification') found.push('sendNotification(');
    if (ts.isIdentifier(node) && node.text === 'sendOutboundUnderPolicy')
      found.push('sendOutboundUnderPolicy');
    ts.forEachChild(node, visit);
  };
  visit(source);
  return found;
}

// Only files that mention one of these are parsed (parsing all of src/ takes seconds).
const MENTIONS =
  /['"](node:)?(http|https|http2|net|tls|dgram|undici|mqtt|nodemailer|pg|ws)['"]|\bfetch\b|sendNotification|sendOutboundUnderPolicy/;

function sourceFiles(): string[] {
  return readdirSync(SRC, { recursive: true, encoding: 'utf8' })
    .filter((file) => file.endsWith('.ts') && !file.endsWith('.test.ts'))
    .map((file) => path.posix.join('src', file.split(path.sep).join('/')))
    .sort();
}

function isException(file: string, what: string): boolean {
  if (what === 'sendOutboundUnderPolicy') return file === 'src/lib/outbound.ts';
  return EXCEPTIONS.some((rule) => rule.file.test(file) && rule.what.test(what));
}

test('no file in src/ but the outbound client opens an outbound connection of its own', () => {
  const files = sourceFiles();
  assert.ok(files.length > 200, `only ${files.length} source files found`);
  const offending: string[] = [];
  const used = new Set<(typeof EXCEPTIONS)[number]>();
  for (const file of files) {
    const text = readFileSync(path.join(ROOT, file), 'utf8');
    if (!MENTIONS.test(text)) continue;
    for (const what of waysOut(file, text)) {
      const rule = EXCEPTIONS.find((r) => r.file.test(file) && r.what.test(what));
      if (rule) used.add(rule);
      if (!isException(file, what)) offending.push(`${file}: ${what}`);
    }
  }
  assert.deepEqual(
    offending,
    [],
    'send through sendOutbound (src/lib/outbound.ts), or add an exception to EXCEPTIONS saying why',
  );
  assert.deepEqual(
    EXCEPTIONS.filter((rule) => !used.has(rule)).map((rule) => rule.file.source),
    [],
    'an exception that no file needs any more: remove it',
  );
});

test('sendOutboundUnderPolicy (another address policy) is called by the client’s own tests only', () => {
  const callers = readdirSync(SRC, { recursive: true, encoding: 'utf8' })
    .filter((file) => file.endsWith('.ts'))
    .map((file) => path.posix.join('src', file.split(path.sep).join('/')))
    .filter((file) => readFileSync(path.join(ROOT, file), 'utf8').includes('sendOutboundUnderPolicy'));
  assert.deepEqual(callers.sort(), ['src/lib/outbound.test.ts', 'src/lib/outbound.ts']);
});

test('the check catches what it looks for', () => {
  const caught = (text: string) => waysOut('x.ts', text);
  assert.deepEqual(caught("import http from 'node:http';"), ['http default']);
  assert.deepEqual(caught("import * as https from 'node:https';"), ['https *']);
  assert.deepEqual(caught("import { request, createServer } from 'node:http';"), ['http request']);
  assert.deepEqual(caught("import { get as g } from 'https';"), ['https get']);
  assert.deepEqual(caught("import { Agent } from 'node:https';"), ['https Agent']);
  assert.deepEqual(caught("import { connect } from 'node:net';"), ['net connect']);
  assert.deepEqual(caught("import { createConnection, isIP } from 'node:net';"), ['net createConnection']);
  assert.deepEqual(caught("import tls from 'node:tls';"), ['tls default']);
  assert.deepEqual(caught("import { connect } from 'node:http2';"), ['http2 connect']);
  assert.deepEqual(caught("import { createSocket } from 'node:dgram';"), ['dgram createSocket']);
  assert.deepEqual(caught("import { request } from 'undici';"), ['undici request']);
  assert.deepEqual(caught("import WebSocket from 'ws';"), ['ws default']);
  assert.deepEqual(caught("import { WebSocketServer } from 'ws';"), []);
  assert.deepEqual(caught('await fetch("https://x.example");'), ['fetch(']);
  assert.deepEqual(caught('await globalThis.fetch(url);'), ['fetch(']);
  assert.deepEqual(caught('webPush.sendNotification(sub, data);'), ['sendNotification(']);
  // Allowed: servers, address helpers, types, and a parameter that happens to be called fetch.
  assert.deepEqual(caught("import { createServer, type Server } from 'node:http';"), []);
  assert.deepEqual(caught("import type { Socket } from 'node:net';"), []);
  assert.deepEqual(caught("import { isIP, type LookupFunction } from 'node:net';"), []);
  assert.deepEqual(caught('async function all(fetch: () => Promise<number>) { return fetch(); }'), []);
  assert.ok(isException('src/lib/outbound.ts', 'undici Agent'));
  assert.ok(!isException('src/modules/webhooks/transport.ts', 'undici Agent'));
  assert.ok(!isException('src/modules/console/service.ts', 'fetch('));
});
