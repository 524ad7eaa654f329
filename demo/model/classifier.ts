/** What every model version of the demo spam filter offers. */
import type { Label } from './corpus.ts';

export type ModelVersion = 'v1' | 'v2';
export const MODEL_VERSIONS: readonly ModelVersion[] = ['v1', 'v2'];

export interface Prediction {
  label: Label;
  /** Posterior probability of `label`, in [0.5, 1]. */
  confidence: number;
}

export interface Classifier {
  readonly version: ModelVersion;
  predict(texts: readonly string[]): Prediction[];
}

/** P(spam) of a prediction: the service applies its own decision threshold to it. */
export function spamProbability(p: Prediction): number {
  return p.label === 'spam' ? p.confidence : 1 - p.confidence;
}

/** The prediction for a spam probability at the 0.5 threshold. */
export function fromSpamProbability(pSpam: number): Prediction {
  return pSpam >= 0.5 ? { label: 'spam', confidence: pSpam } : { label: 'ham', confidence: 1 - pSpam };
}
