/**
 * The check every message catalog's test makes (the console's, the notifications', the alerts' words): the
 * translation has exactly the source's keys, and each message the same placeholders and is plural in both or
 * neither (src/lib/message-format.ts); a plural message writes only forms its language has (the categories
 * Intl.PluralRules picks, and `zero` for an exact 0), so no form is written that is never chosen.
 */
import assert from 'node:assert/strict';
import { type Message, placeholdersOf } from '../src/lib/message-format.ts';

export function assertTranslates(
  label: string,
  source: Readonly<Record<string, Message>>,
  translated: Readonly<Record<string, Message>>,
  language: string = label,
): void {
  const forms = new Set<string>([
    ...new Intl.PluralRules(language).resolvedOptions().pluralCategories,
    'zero',
  ]);
  assert.deepEqual(Object.keys(translated).sort(), Object.keys(source).sort(), label);
  for (const [key, message] of Object.entries(source)) {
    const other = translated[key] as Message;
    assert.deepEqual(
      [...placeholdersOf(other)].sort(),
      [...placeholdersOf(message)].sort(),
      `${label}: ${key}`,
    );
    assert.equal(typeof other, typeof message, `${label}: ${key} is plural in both or neither`);
    if (typeof other !== 'string') {
      const stray = Object.keys(other).filter((form) => !forms.has(form));
      assert.deepEqual(stray, [], `${label}: ${key} writes forms ${language} never chooses`);
    }
  }
}
