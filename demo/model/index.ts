/** The demo spam filter: a real corpus, two real model versions, and the held-out traffic set. */
/** Corpus loading and the seeded train / held-out / hard split; `Message.label` is ground truth. */
export { loadDataset, messageText, DEFAULT_SPLIT_SEED, HELD_OUT_SHARE, MAX_MESSAGE_CHARS } from './corpus.ts';
export type { Dataset, Label, Message } from './corpus.ts';
/** The classifier contract every version meets, and conversions to and from P(spam). */
export { MODEL_VERSIONS, spamProbability, fromSpamProbability } from './classifier.ts';
export type { Classifier, ModelVersion, Prediction } from './classifier.ts';
/** Train, cache, load and evaluate model versions. */
export { loadModel, trainModel, createClassifier, accuracy, DEFAULT_CACHE_DIR, TRAINING_REV } from './models.ts';
export type { ModelParams, LoadModelOptions } from './models.ts';
/** Tokenisation shared by the models; `countWords` is what the service reports as input tokens. */
export { tokenize, countWords } from './tokenize.ts';
/** Seeded randomness shared by the demo (mulberry32 from src/analysis, FNV-1a for stable hashing). */
export { createRandom, fnv1a } from './random.ts';
