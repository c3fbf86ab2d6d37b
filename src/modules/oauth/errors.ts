/**
 * OAuth's own error answers (RFC 6749 §5.2, RFC 7591 §3.2.2): `{ error, error_description }`, not the API's
 * Error object, because OAuth clients read these fields. `redirect`: whether the authorization endpoint may
 * send the error back to the client's redirect URI (never when the client or redirect URI is in doubt).
 */
export class OAuthError extends Error {
  readonly error: string;
  readonly status: number;
  constructor(error: string, description: string, status = 400) {
    super(description);
    this.error = error;
    this.status = status;
  }
  body(): { error: string; error_description: string } {
    return { error: this.error, error_description: this.message };
  }
}

/** An authorization request whose client or redirect URI is not known: shown to the person, never redirected. */
export class UntrustedRequestError extends OAuthError {}
