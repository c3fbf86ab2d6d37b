// http_ece ships no types; the one call test/push-service.ts makes.
declare module 'http_ece' {
  import type { ECDH } from 'node:crypto';
  export function decrypt(
    buffer: Buffer,
    params: { version: 'aes128gcm'; privateKey: ECDH; authSecret: string },
  ): Buffer;
  const ece: { decrypt: typeof decrypt };
  export default ece;
}
