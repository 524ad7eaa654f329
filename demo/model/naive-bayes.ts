/**
 * v1: multinomial naive Bayes on word counts, Laplace (add-one) smoothing, computed in log space.
 *
 *   log P(c | d) ∝ log P(c) + Σ_w n(w, d) · log P(w | c),  P(w | c) = (N(w, c) + 1) / (N(c) + |V|)
 *
 * Words outside the training vocabulary are skipped. The posterior is normalised with
 * log-sum-exp, so long messages do not underflow. Naive Bayes is famously over-confident: most
 * confidences sit very close to 1, which is the honest posterior of this model.
 */
import type { Message } from './corpus.ts';
import { fromSpamProbability } from './classifier.ts';
import type { Classifier, Prediction } from './classifier.ts';
import { tokenize } from './tokenize.ts';

export interface NaiveBayesParams {
  kind: 'naive_bayes';
  version: 'v1';
  words: string[];
  /** log P(w | spam), aligned with `words`. */
  logLikSpam: number[];
  logLikHam: number[];
  logPriorSpam: number;
  logPriorHam: number;
  /** log of the smoothed probability of a word never seen in that class (count 0). */
  logUnseenSpam: number;
  logUnseenHam: number;
}

/** Words seen fewer times than this in the whole training set stay out of the vocabulary. */
const MIN_WORD_COUNT = 2;

export function trainNaiveBayes(train: readonly Message[]): NaiveBayesParams {
  const counts = new Map<string, [number, number]>(); // word → [spam, ham]
  let spamDocs = 0;
  for (const m of train) {
    const k = m.label === 'spam' ? 0 : 1;
    if (k === 0) spamDocs++;
    for (const t of tokenize(m.text)) {
      let c = counts.get(t);
      if (!c) counts.set(t, (c = [0, 0]));
      c[k]++;
    }
  }
  const words: string[] = [];
  let totalSpam = 0;
  let totalHam = 0;
  for (const [w, c] of counts) {
    if (c[0] + c[1] < MIN_WORD_COUNT) continue;
    words.push(w);
    totalSpam += c[0];
    totalHam += c[1];
  }
  words.sort();
  const v = words.length;
  const denomSpam = Math.log(totalSpam + v);
  const denomHam = Math.log(totalHam + v);
  const logLikSpam: number[] = [];
  const logLikHam: number[] = [];
  for (const w of words) {
    const c = counts.get(w) as [number, number];
    logLikSpam.push(Math.log(c[0] + 1) - denomSpam);
    logLikHam.push(Math.log(c[1] + 1) - denomHam);
  }
  const n = train.length;
  return {
    kind: 'naive_bayes',
    version: 'v1',
    words,
    logLikSpam,
    logLikHam,
    logPriorSpam: Math.log(spamDocs / n),
    logPriorHam: Math.log((n - spamDocs) / n),
    logUnseenSpam: -denomSpam,
    logUnseenHam: -denomHam,
  };
}

export function createNaiveBayes(params: NaiveBayesParams): Classifier {
  const index = new Map<string, number>();
  params.words.forEach((w, i) => index.set(w, i));
  const predictOne = (text: string): Prediction => {
    let spam = params.logPriorSpam;
    let ham = params.logPriorHam;
    for (const t of tokenize(text)) {
      const i = index.get(t);
      if (i === undefined) continue;
      spam += params.logLikSpam[i] ?? params.logUnseenSpam;
      ham += params.logLikHam[i] ?? params.logUnseenHam;
    }
    // P(spam | d) = 1 / (1 + e^(ham − spam)), the two-class log-sum-exp.
    return fromSpamProbability(1 / (1 + Math.exp(ham - spam)));
  };
  return { version: 'v1', predict: (texts) => texts.map(predictOne) };
}
