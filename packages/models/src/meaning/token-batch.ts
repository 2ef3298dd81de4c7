/**
 * The pure arithmetic around a local embedding model: pad a batch of token ids into the
 * [batch, sequence] tensors a transformer reads, and pool its per-token output
 * [batch, sequence, dim] into one vector per text (mean over the attention mask, or the first token).
 */

export type Pooling = 'mean' | 'cls';

export interface TokenBatch {
  batch: number;
  sequence: number;
  inputIds: BigInt64Array;
  attentionMask: BigInt64Array;
  tokenTypeIds: BigInt64Array;
}

/** Cuts ids to `maxTokens`, keeping a closing special token ([SEP], </s>) at the end. */
export function truncateIds(ids: readonly number[], maxTokens: number, endsWithSpecial: boolean): number[] {
  if (ids.length <= maxTokens) return [...ids];
  return endsWithSpecial ? [...ids.slice(0, maxTokens - 1), ids[ids.length - 1]] : ids.slice(0, maxTokens);
}

/** Right-pads each row with `padId` to the longest row; the attention mask marks the real tokens. */
export function padBatch(rows: readonly number[][], padId: number): TokenBatch {
  const batch = rows.length;
  const sequence = Math.max(1, ...rows.map((r) => r.length));
  const inputIds = new BigInt64Array(batch * sequence).fill(BigInt(padId));
  const attentionMask = new BigInt64Array(batch * sequence);
  rows.forEach((row, b) => {
    row.forEach((id, t) => {
      inputIds[b * sequence + t] = BigInt(id);
      attentionMask[b * sequence + t] = 1n;
    });
  });
  return { batch, sequence, inputIds, attentionMask, tokenTypeIds: new BigInt64Array(batch * sequence) };
}

/** One vector per row of `hidden` ([batch, sequence, dim], row-major). */
export function poolTokens(
  hidden: ArrayLike<number>,
  mask: ArrayLike<bigint>,
  shape: { batch: number; sequence: number; dim: number },
  pooling: Pooling,
): Float32Array[] {
  const { batch, sequence, dim } = shape;
  const out: Float32Array[] = [];
  for (let b = 0; b < batch; b++) {
    const vector = new Float32Array(dim);
    const rowStart = b * sequence * dim;
    if (pooling === 'cls') {
      for (let d = 0; d < dim; d++) vector[d] = hidden[rowStart + d];
    } else {
      let count = 0;
      for (let t = 0; t < sequence; t++) {
        if (mask[b * sequence + t] === 0n) continue;
        count++;
        const at = rowStart + t * dim;
        for (let d = 0; d < dim; d++) vector[d] += hidden[at + d];
      }
      if (count > 0) for (let d = 0; d < dim; d++) vector[d] /= count;
    }
    out.push(vector);
  }
  return out;
}
