/**
 * The save-time check of a URL someone gives the service to send to (a webhook's `url`, a LoRaWAN network
 * server's `api_url`, a browser's push `endpoint`, a notification service's address): an absolute http(s)
 * URL whose host, unless private addresses are allowed, resolves only to public addresses (lib/url-guard.ts).
 * Here rather than beside the client in lib/ because a refusal is a 400 naming the field; the same guard
 * runs again inside every connection the outbound client (lib/outbound.ts) opens.
 */
import { invalid } from '../domain/errors.ts';
import { assertPublicHost, bareHost, RefusedAddressError } from '../lib/url-guard.ts';

const MAX_URL_LENGTH = 2048;

/**
 * The URL, normalised, or a 400 naming `param` (default `url`) and saying what is wrong; a private host's
 * refusal names FARMSTEAD_WEBHOOK_ALLOW_PRIVATE, the one switch.
 */
export async function checkOutboundUrl(
  raw: string,
  options: { allowPrivate: boolean; param?: string },
): Promise<string> {
  const param = options.param ?? 'url';
  let url: URL;
  try {
    url = new URL(raw);
  } catch {
    throw invalid(
      param,
      `${param} "${raw.slice(0, 200)}" is not an absolute URL; use one like https://example.com/hooks.`,
    );
  }
  if (url.protocol !== 'https:' && url.protocol !== 'http:') {
    throw invalid(param, `${param} must use http:// or https://, not ${url.protocol}//.`);
  }
  if (raw.length > MAX_URL_LENGTH)
    throw invalid(param, `${param} must be at most ${MAX_URL_LENGTH} characters.`);
  const host = bareHost(url.hostname);
  if (!host) throw invalid(param, `${param} must name a host.`);
  if (options.allowPrivate) return url.toString();
  try {
    await assertPublicHost(host);
  } catch (err) {
    if (err instanceof RefusedAddressError) throw invalid(param, `${param} refused: ${err.message}`);
    const code = (err as NodeJS.ErrnoException).code ?? 'lookup failed';
    throw invalid(param, `${param} host "${host}" could not be resolved (${code}).`);
  }
  return url.toString();
}
