/**
 * Origin validation for /mcp, per the MCP transport's security guidance: a browser page on another
 * site must not be able to drive a farm with a key it got hold of (or through DNS rebinding). Clients
 * that are not browsers send no Origin and pass; a browser on the server's own origin, or on one the
 * operator allowed (FARMSTEAD_MCP_ALLOWED_ORIGINS), passes; anything else, including the opaque
 * "null" origin, is refused.
 */

function originOf(text: string): string | null {
  try {
    const url = new URL(text);
    return /^https?:$/.test(url.protocol) ? url.origin : null;
  } catch {
    return null;
  }
}

/** The origin a page served by this listener has, from the request's protocol and Host header. */
export function ownOrigin(protocol: string, host: string | undefined): string | null {
  return host ? originOf(`${protocol}://${host}`) : null;
}

export function isOriginAllowed(
  originHeader: string | undefined,
  own: string | null,
  allowed: readonly string[],
): boolean {
  if (originHeader === undefined || originHeader === '') return true;
  const origin = originOf(originHeader);
  if (origin === null) return false;
  return origin === own || allowed.includes(origin);
}
