/** The form fields of the token and revocation endpoints (application/x-www-form-urlencoded). */
import { OAuthError } from './errors.ts';

/** The form fields of a token or revocation request. */
export type FormFields = Record<string, string | string[] | undefined>;

export function field(form: FormFields, name: string): string | undefined {
  const value = form[name];
  if (Array.isArray(value)) throw new OAuthError('invalid_request', `${name} is sent more than once.`);
  return value;
}

export function required(form: FormFields, name: string): string {
  const value = field(form, name);
  if (value === undefined || value === '') throw new OAuthError('invalid_request', `${name} is required.`);
  return value;
}
