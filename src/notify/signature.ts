/**
 * HMAC-SHA256 over the exact request body, sent as `X-Inferlens-Signature: sha256=<hex>` (the
 * GitHub webhook convention). A receiver recomputes it with the shared secret over the raw bytes
 * it read, before parsing, and compares in constant time.
 */
import { createHmac, timingSafeEqual } from 'node:crypto';

export const SIGNATURE_HEADER = 'X-Inferlens-Signature';

/** `sha256=<hex>` of the body under the secret. */
export function signBody(secret: string, body: string | Uint8Array): string {
  return 'sha256=' + createHmac('sha256', secret).update(body).digest('hex');
}

/** Whether a signature header matches the body; false for a missing or malformed header. */
export function verifySignature(secret: string, body: string | Uint8Array, header: string | null | undefined): boolean {
  if (!header) return false;
  const want = Buffer.from(signBody(secret, body));
  const got = Buffer.from(header);
  return got.length === want.length && timingSafeEqual(got, want);
}
