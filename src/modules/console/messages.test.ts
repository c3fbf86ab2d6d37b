/**
 * The console's message catalog (web/messages/): every language has every key of the English source with
 * the same placeholders and plural forms that Intl.PluralRules can pick; no key is unused by the console's
 * code (a key is used when its text appears quoted, or, for keys built from a name, when its prefix is built
 * in a template: `nav.${…}`); each known event type reads as a sentence in both languages and unit systems;
 * every API error code has a Spanish sentence (and one naming the field where written).
 */
import assert from 'node:assert/strict';
import { readdirSync, readFileSync } from 'node:fs';
import { join } from 'node:path';
import { test } from 'node:test';
import { assertTranslates } from '../../../test/catalogs.ts';
import { ERROR_STATUS } from '../../domain/errors.ts';
import { formatMessage, type Message, placeholdersOf } from '../../lib/message-format.ts';
import { apiErrorText, setReader, withNodes } from './web/i18n.ts';
import { EN } from './web/messages/en.ts';
import { ES, ES_API_ERRORS } from './web/messages/es.ts';

const WEB = join(import.meta.dirname, 'web');

function sources(dir: string): string[] {
  return readdirSync(dir, { withFileTypes: true }).flatMap((entry) => {
    const path = join(dir, entry.name);
    if (entry.isDirectory()) return entry.name === 'messages' ? [] : sources(path);
    return entry.name.endsWith('.ts') && !entry.name.endsWith('.d.ts') ? [path] : [];
  });
}

test('every language has every key, with the same placeholders and plural forms', () => {
  for (const [language, catalog] of [['es', ES]] as const) {
    assertTranslates(language, EN, catalog);
  }
});

/** Each page's own catalog (web/messages/<page>.ts, web/i18n.ts `words`), and the files that import it. */
const MESSAGES = join(WEB, 'messages');
const PAGE_CATALOGS = await Promise.all(
  readdirSync(MESSAGES)
    .filter((name) => name.endsWith('.ts') && name !== 'en.ts' && name !== 'es.ts')
    .map(async (name) => {
      const module = (await import(join(MESSAGES, name))) as {
        EN: Record<string, Message>;
        ES: Record<string, Message>;
      };
      const users = sources(WEB).filter((file) => readFileSync(file, 'utf8').includes(`/messages/${name}'`));
      return { name, ...module, users };
    }),
);

test('each page catalog has every key in Spanish, with the same placeholders, each key used by its page', () => {
  for (const { name, EN: en, ES: es, users } of PAGE_CATALOGS) {
    assertTranslates(name, en, es, 'es');
    assert.ok(users.length > 0, `${name} is imported by a page`);
    const code = users.map((file) => readFileSync(file, 'utf8')).join('\n');
    const built = [...code.matchAll(/`([a-z_]+)\.\$\{/g)].map((m) => `${m[1]}.`);
    const unused = Object.keys(en).filter(
      (key) => !code.includes(`'${key}'`) && !built.some((prefix) => key.startsWith(prefix)),
    );
    assert.deepEqual(unused, [], `${name}: keys no page uses`);
  }
});

test('no key is unused by the console', () => {
  const code = sources(WEB)
    .map((file) => readFileSync(file, 'utf8'))
    .join('\n');
  const built = [...code.matchAll(/`([a-z_]+)\.\$\{/g)].map((m) => `${m[1]}.`);
  const unused = Object.keys(EN).filter(
    (key) => !code.includes(`'${key}'`) && !built.some((prefix) => key.startsWith(prefix)),
  );
  assert.deepEqual(unused, []);
});

test('every API error code (ERROR_STATUS) has a Spanish sentence; a `.field` one names {field}, a plain one nothing', () => {
  const codes = Object.keys(ERROR_STATUS);
  const keys = Object.keys(ES_API_ERRORS);
  assert.deepEqual(keys.filter((k) => !k.includes('.')).sort(), [...codes].sort());
  for (const key of keys) {
    const [code, variant] = key.split('.');
    assert.ok(codes.includes(code as string), `${key}: no such code`);
    const wanted = variant === 'field' ? ['field'] : [];
    assert.deepEqual(
      [...placeholdersOf(ES_API_ERRORS[key as keyof typeof ES_API_ERRORS] as Message)],
      wanted,
      key,
    );
    if (variant !== undefined) assert.equal(variant, 'field', key);
  }
});

test('an API error in Spanish by its code, naming the field by its label; English and unknown codes keep the server’s words', async () => {
  try {
    await setReader({ language: 'es', units: 'metric' });
    assert.equal(
      apiErrorText('conflict', 'Crotal'),
      'Revise «Crotal»: otro registro ya tiene ese valor, o choca con uno existente.',
    );
    assert.equal(apiErrorText('conflict'), ES_API_ERRORS.conflict);
    // A code with no sentence naming a field says its plain one.
    assert.equal(apiErrorText('rate_limited', 'Correo'), ES_API_ERRORS.rate_limited);
    assert.match(apiErrorText('withdrawal_active', 'Motivo') ?? '', /período de retiro de carne.*«Motivo»/);
    // The console's own codes (no network, no Error object) are already in the reader's words.
    assert.equal(apiErrorText('network_error'), null);
    assert.equal(apiErrorText('toString'), null);
    await setReader({ language: 'en', units: 'metric' });
    assert.equal(apiErrorText('conflict', 'Tag'), null);
  } finally {
    await setReader({ language: 'en', units: 'metric' });
  }
});

test('markup inside a sentence goes where each language placed it; the rest of the text is kept', () => {
  const link = { node: 'link' };
  const bold = { node: 'bold' };
  const en = (m: Record<string, string>) => formatMessage('en', 'Open {path} and click {plus}.', m);
  const es = (m: Record<string, string>) => formatMessage('es', 'Pulse {plus} tras abrir {path}.', m);
  assert.deepEqual(withNodes({ path: link, plus: bold }, en), ['Open ', link, ' and click ', bold, '.']);
  assert.deepEqual(withNodes({ path: link, plus: bold }, es), ['Pulse ', bold, ' tras abrir ', link, '.']);
  // A sentence without the placeholder is kept whole; a node it does not place is left out.
  assert.deepEqual(
    withNodes({ link }, () => 'No link here.'),
    ['No link here.'],
  );
});
