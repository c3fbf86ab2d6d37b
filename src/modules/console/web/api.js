/**
 * The console's one way to call the API: same-origin `/v1` requests carrying the session cookie, the CSRF
 * token on every write, JSON in and out, and every failure turned into an ApiError whose message is the
 * server's own readable sentence (or a plain one when the network fails).
 */

/** A failed API call: `status` 0 when the server could not be reached. */
export class ApiError extends Error {
  constructor(status, code, message, param) {
    super(message);
    this.status = status;
    this.code = code;
    this.param = param;
  }
}

let csrfToken = null;
let onSignedOut = () => {};

/** The session's CSRF token, sent as X-CSRF-Token on every request that is not a read. */
export function setCsrfToken(token) {
  csrfToken = token;
}

/** Called when a request finds the session gone (401), so the app can go to the sign-in page. */
export function whenSignedOut(handler) {
  onSignedOut = handler;
}

const READS = new Set(['GET', 'HEAD', 'OPTIONS']);

/** Calls the API; resolves with the JSON body (null for 204) or rejects with an ApiError. */
export async function api(method, path, body) {
  const headers = { accept: 'application/json' };
  if (body !== undefined) headers['content-type'] = 'application/json';
  if (!READS.has(method) && csrfToken) headers['x-csrf-token'] = csrfToken;
  let response;
  try {
    response = await fetch(path, {
      method,
      headers,
      credentials: 'same-origin',
      body: body === undefined ? undefined : JSON.stringify(body),
    });
  } catch {
    throw new ApiError(
      0,
      'network_error',
      'Farmstead could not be reached. Check the connection and try again.',
    );
  }
  if (response.status === 204) return null;
  let data = null;
  try {
    data = await response.json();
  } catch {
    data = null;
  }
  if (response.ok) return data;
  const error = data?.error;
  let message = error?.message ?? `The server answered ${response.status} ${response.statusText}.`;
  const retryAfter = response.headers.get('retry-after');
  if (response.status === 429 && retryAfter) message = `${message} Try again in ${retryAfter} s.`;
  if (response.status === 401 && !path.startsWith('/v1/session') && !path.startsWith('/v1/setup')) {
    onSignedOut();
  }
  throw new ApiError(response.status, error?.code ?? 'http_error', message, error?.param);
}

/** Builds a query string from the defined values of `params` ('' when none). */
export function query(params) {
  const search = new URLSearchParams();
  for (const [name, value] of Object.entries(params)) {
    if (value !== undefined && value !== null && value !== '') search.set(name, String(value));
  }
  const text = search.toString();
  return text ? `?${text}` : '';
}
