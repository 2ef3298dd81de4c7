/**
 * A synthetic request trace (pure, seeded): a few accounts of different sizes, Zipf-distributed
 * prompts per account, each prompt with a usual size/format and a style, some cosmetic whitespace
 * differences in the prompt text, and concurrent bursts of the very same request (a page many
 * visitors open at once).
 */

export interface Variant {
  label: string;
  width: number;
  height: number;
  format: 'webp' | 'png' | 'jpeg';
  /** Small stand-in used when the trace is replayed against the real service (same identity, cheap pixels). */
  replay: { width: number; height: number; format: 'webp' | 'png' | 'jpeg' };
  weight: number;
}

export const VARIANTS: Variant[] = [
  { label: '1024x1024 webp', width: 1024, height: 1024, format: 'webp', replay: { width: 256, height: 256, format: 'webp' }, weight: 0.4 },
  { label: '1024x1024 png', width: 1024, height: 1024, format: 'png', replay: { width: 256, height: 256, format: 'png' }, weight: 0.1 },
  { label: '1024x768 jpeg', width: 1024, height: 768, format: 'jpeg', replay: { width: 320, height: 256, format: 'jpeg' }, weight: 0.15 },
  { label: '768x1024 jpeg', width: 768, height: 1024, format: 'jpeg', replay: { width: 256, height: 320, format: 'jpeg' }, weight: 0.1 },
  { label: '512x512 webp', width: 512, height: 512, format: 'webp', replay: { width: 320, height: 320, format: 'webp' }, weight: 0.15 },
  { label: '1920x1088 webp', width: 1920, height: 1088, format: 'webp', replay: { width: 448, height: 256, format: 'webp' }, weight: 0.1 },
];

export interface TraceParams {
  seed: number;
  requests: number;
  /** Traffic share of each account. */
  accountWeights: number[];
  /** Distinct prompts each account draws from. */
  vocabulary: number;
  /** Zipf exponent of prompt popularity. */
  zipfS: number;
  /** Probability that a request uses its prompt's usual variant (else one drawn by weight). */
  homeVariantP: number;
  /** Probability that a request's prompt text carries a cosmetic whitespace difference. */
  whitespaceP: number;
  /** Probability that an arrival is a burst of identical concurrent requests... */
  burstP: number;
  /** ...of this many requests (uniform)... */
  burstSize: [number, number];
  /** ...spread over this many milliseconds. */
  burstSpreadMs: number;
  /** Arrivals (bursts count once) per second, Poisson. */
  arrivalsPerS: number;
}

export const DEFAULT_TRACE: TraceParams = {
  seed: 20261123,
  requests: 10_000,
  accountWeights: [0.5, 0.25, 0.15, 0.1],
  vocabulary: 3000,
  zipfS: 1.05,
  homeVariantP: 0.6,
  whitespaceP: 0.1,
  burstP: 0.02,
  burstSize: [2, 12],
  burstSpreadMs: 300,
  arrivalsPerS: 15,
};

export interface TraceRequest {
  /** Milliseconds from the start of the trace. */
  t: number;
  account: number;
  /** The prompt as sent (may differ from its normalised form by whitespace). */
  prompt: string;
  style: string | null;
  variant: number;
  /** Index of the arrival (a burst shares one). */
  arrival: number;
}

/** mulberry32: small, fast, good enough for a synthetic trace. */
export function prng(seed: number) {
  let a = seed >>> 0;
  return () => {
    a = (a + 0x6d2b79f5) >>> 0;
    let t = a;
    t = Math.imul(t ^ (t >>> 15), t | 1);
    t ^= t + Math.imul(t ^ (t >>> 7), t | 61);
    return ((t ^ (t >>> 14)) >>> 0) / 4294967296;
  };
}

function weighted(random: () => number, weights: number[]): number {
  const total = weights.reduce((a, b) => a + b, 0);
  let r = random() * total;
  for (let i = 0; i < weights.length; i++) {
    r -= weights[i];
    if (r < 0) return i;
  }
  return weights.length - 1;
}

function zipfSampler(n: number, s: number) {
  const cdf = new Float64Array(n);
  let sum = 0;
  for (let k = 1; k <= n; k++) {
    sum += 1 / k ** s;
    cdf[k - 1] = sum;
  }
  return (random: () => number) => {
    const r = random() * sum;
    let lo = 0;
    let hi = n - 1;
    while (lo < hi) {
      const mid = (lo + hi) >> 1;
      if (cdf[mid] < r) lo = mid + 1;
      else hi = mid;
    }
    return lo;
  };
}

const SUBJECTS = [
  'lighthouse',
  'red fox',
  'castle',
  'robot',
  'dragon',
  'garden',
  'harbour',
  'city skyline',
  'pine forest',
  'desert',
  'owl',
  'steam train',
  'violin',
  'comet',
  'bakery',
  'sailing boat',
  'mountain lake',
  'tea house',
  'market',
  'windmill',
];
const SETTINGS = ['at dawn', 'in the rain', 'under stars', 'in winter', 'by the sea', 'on a hill', 'at noon', 'in fog', 'at sunset', 'in autumn'];
const FLAVOURS = [
  '',
  'watercolour texture',
  'wide angle',
  'soft light',
  'close-up',
  'from above',
  'vintage poster',
  'minimal',
  'bold colours',
  'pastel palette',
  'isometric',
  'line art',
];
const STYLES: Array<[string | null, number]> = [
  [null, 0.6],
  ['watercolor', 0.1],
  ['cinematic', 0.1],
  ['cartoon', 0.1],
  ['photorealistic', 0.1],
];

interface Entry {
  prompt: string;
  style: string | null;
  homeVariant: number;
}

function vocabularyOf(account: number, n: number, random: () => number): Entry[] {
  const entries: Entry[] = [];
  for (let i = 0; i < n; i++) {
    const subject = SUBJECTS[(i + account * 7) % SUBJECTS.length];
    const setting = SETTINGS[Math.floor(i / SUBJECTS.length) % SETTINGS.length];
    const flavour = FLAVOURS[Math.floor(i / (SUBJECTS.length * SETTINGS.length)) % FLAVOURS.length];
    const prompt = `a ${subject} ${setting}${flavour ? `, ${flavour}` : ''} #${account}-${i}`;
    entries.push({
      prompt,
      style:
        STYLES[
          weighted(
            random,
            STYLES.map(([, w]) => w),
          )
        ][0],
      homeVariant: weighted(
        random,
        VARIANTS.map((v) => v.weight),
      ),
    });
  }
  return entries;
}

function cosmetic(prompt: string, random: () => number): string {
  const r = random();
  if (r < 0.34) return `${prompt} `;
  if (r < 0.67) return `  ${prompt}`;
  const space = prompt.indexOf(' ');
  return space < 0 ? `${prompt} ` : `${prompt.slice(0, space)}  ${prompt.slice(space + 1)}`;
}

export function generateTrace(p: TraceParams = DEFAULT_TRACE): TraceRequest[] {
  const random = prng(p.seed);
  const vocab = p.accountWeights.map((_, a) => vocabularyOf(a, p.vocabulary, random));
  const zipf = zipfSampler(p.vocabulary, p.zipfS);
  const out: TraceRequest[] = [];
  let t = 0;
  let arrival = 0;
  while (out.length < p.requests) {
    t += -Math.log(1 - random()) * (1000 / p.arrivalsPerS);
    const account = weighted(random, p.accountWeights);
    const entry = vocab[account][zipf(random)];
    const variant =
      random() < p.homeVariantP
        ? entry.homeVariant
        : weighted(
            random,
            VARIANTS.map((v) => v.weight),
          );
    const prompt = random() < p.whitespaceP ? cosmetic(entry.prompt, random) : entry.prompt;
    const burst = random() < p.burstP ? p.burstSize[0] + Math.floor(random() * (p.burstSize[1] - p.burstSize[0] + 1)) : 1;
    for (let i = 0; i < burst && out.length < p.requests; i++) {
      out.push({ t: Math.round((t + (i === 0 ? 0 : random() * p.burstSpreadMs)) * 10) / 10, account, prompt, style: entry.style, variant, arrival });
    }
    arrival++;
  }
  return out.sort((a, b) => a.t - b.t);
}
