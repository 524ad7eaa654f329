/** What the CLI says when no server answers at --url. */

/**
 * An Error that says what to do, for a fetch that never reached the server (connection refused,
 * unknown host, reset). Node's own message is just "fetch failed"; the cause carries the code.
 */
export function serverUnreachable(url: string, e: unknown): Error {
  const cause = e instanceof Error && e.cause instanceof Error ? e.cause : undefined;
  const code = (cause as { code?: string } | undefined)?.code;
  const why = code ? ` (${code})` : cause ? ` (${cause.message})` : '';
  return new Error(
    `no inferlens server answered at ${url}${why}: start one with \`inferlens serve\` (or \`npm start\` for the demo), or point --url / INFERLENS_URL at yours`,
    { cause: e },
  );
}
