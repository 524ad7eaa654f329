/**
 * Tokenizer shared by both model versions: lower-cased words, numbers, and `$` / `!` as tokens of
 * their own (both are strong spam cues). Bounded: at most `MAX_TOKENS` tokens per text, so one huge
 * message cannot stall a batch.
 */
export const MAX_TOKENS = 2_000;
const MAX_TOKEN_CHARS = 30;
const TOKEN = /[a-z][a-z0-9']*|\d+|[$!]/g;

export function tokenize(text: string): string[] {
  const out: string[] = [];
  for (const m of text.toLowerCase().matchAll(TOKEN)) {
    const t = m[0];
    if (t.length > MAX_TOKEN_CHARS) continue;
    out.push(t);
    if (out.length >= MAX_TOKENS) break;
  }
  return out;
}

/** Word count as the service reports it in `input_tokens`: whitespace-separated words. */
export function countWords(text: string): number {
  const words = text.trim().split(/\s+/);
  return words.length === 1 && words[0] === '' ? 0 : words.length;
}
