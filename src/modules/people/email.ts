/**
 * What counts as an email address, for the API's schemas and the CLI's `people invite` alike. Loose on purpose:
 * something@something, no spaces (the person proves it by signing in). Apart from schemas.ts so that the CLI
 * checks an address without loading the schema library.
 */
export const EMAIL_PATTERN = '^[^\\s@]+@[^\\s@]+$';
export const EMAIL_MIN_LENGTH = 3;
/** RFC 5321's limit on a path. */
export const EMAIL_MAX_LENGTH = 254;

const pattern = new RegExp(EMAIL_PATTERN);

export function isEmailAddress(text: string): boolean {
  return text.length >= EMAIL_MIN_LENGTH && text.length <= EMAIL_MAX_LENGTH && pattern.test(text);
}
