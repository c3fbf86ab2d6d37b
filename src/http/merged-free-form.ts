/**
 * The ceiling of a free-form member a PATCH merges into (farm settings, animal fields), as stored: the
 * free-form cap of free-form.ts applies to each request's value, and this one to the merged result. (Its
 * own file: free-form.ts is imported by the validation errors.ts uses, so it cannot import errors.ts.)
 */
import { invalid } from './errors.ts';
import { FREE_FORM_LIMITS } from './free-form.ts';

/**
 * A free-form member as stored after a PATCH merged into it (farm settings, animal fields; device state has
 * the same ceiling): its JSON text, or a 400 naming it when that is larger than FREE_FORM_LIMITS.bytes. Each
 * PATCH is capped on its own, but a merge keeps what was there, so without this ceiling PATCH after PATCH
 * grows one record without bound. `stored` is the text before the change: a value stored larger before
 * the ceiling existed may still shrink (a change that does not make it larger is taken).
 */
export function mergedFreeFormJson(param: string, merged: unknown, stored?: string): string {
  const text = JSON.stringify(merged) ?? 'null';
  const bytes = Buffer.byteLength(text);
  if (bytes <= FREE_FORM_LIMITS.bytes) return text;
  if (stored !== undefined && bytes <= Buffer.byteLength(stored)) return text;
  throw invalid(
    param,
    `${param} would be ${bytes.toLocaleString('en')} bytes as JSON after this change; the most is ${FREE_FORM_LIMITS.bytes.toLocaleString('en')}. Remove members with null (or send ${param}: null to clear it).`,
  );
}
