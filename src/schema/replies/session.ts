/** Who is signed in. */

// ---------- GET / POST /v1/session ----------

/** Who is signed in (`GET /v1/session`, `POST /v1/session`). */
export interface SessionReply {
  principal: { id: string; name: string; role: string; tenants: readonly string[] | null };
  /** key, session or anonymous (a server without keys). */
  via: string;
  keys_required: boolean;
  /** Sent back in `X-CSRF-Token` with every change made through the session; null without one. */
  csrf_token: string | null;
  expires_at: string | null;
}
