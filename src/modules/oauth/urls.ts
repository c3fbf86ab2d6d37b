/** Where this server is, as the client reached it: the issuer, and the MCP endpoint as the resource. */
export interface ServerUrls {
  issuer: string;
  resource: string;
}

export function serverUrls(origin: string): ServerUrls {
  return { issuer: origin, resource: `${origin}/mcp` };
}

/** The redirect an authorization request ends with: the code (or error), state and iss (RFC 9207). */
export function redirectWith(
  redirectUri: string,
  params: Record<string, string>,
  state: string | null,
  issuer: string,
): string {
  const url = new URL(redirectUri);
  for (const [name, value] of Object.entries(params)) url.searchParams.set(name, value);
  if (state !== null) url.searchParams.set('state', state);
  url.searchParams.set('iss', issuer);
  return url.toString();
}
