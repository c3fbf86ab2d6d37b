/**
 * The check every message catalog's test makes (the console's, the notifications', the alerts' words): the
 * translation has exactly the source's keys, and each message the same placeholders and is plural in both or
 * neither (src/lib/message-format.ts).
 */
import assert from 'node:assert/strict';
import { type Message, placeholdersOf } from '../src/lib/message-format.ts';

export function assertTranslates(
  label: string,
  source: Readonly<Record<string, Message>>,
  translated: Readonly<Record<string, Message>>,
): void {
  assert.deepEqual(Object.keys(translated).sort(), Object.keys(source).sort(), label);
  for (const [key, message] of Object.entries(source)) {
    const other = translated[key] as Message;
    assert.deepEqual(
      [...placeholdersOf(other)].sort(),
      [...placeholdersOf(message)].sort(),
      `${label}: ${key}`,
    );
    assert.equal(typeof other, typeof message, `${label}: ${key} is plural in both or neither`);
  }
}
