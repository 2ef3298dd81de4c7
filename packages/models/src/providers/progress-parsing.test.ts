import { a1111Progress } from './a1111';
import { replicateLogProgress } from './replicate';

describe('a1111Progress', () => {
  const state = (step: number, steps: number) => ({ sampling_step: step, sampling_steps: steps, job_count: 1 });
  it.each([
    [
      { progress: 0.4, eta_relative: 2.2, state: state(8, 20) },
      { fraction: 0.4, message: 'step 8/20, about 3 s left' },
    ],
    [
      { progress: 0.4, eta_relative: 0, state: state(8, 20) },
      { fraction: 0.4, message: 'step 8/20' },
    ],
    [
      { progress: 0.5, eta_relative: 4, state: state(0, 0) },
      { fraction: 0.5, message: 'about 4 s left' },
    ],
    [{ progress: 0.5, state: {} }, { fraction: 0.5 }],
    [
      { progress: 1.2, state: state(25, 20) },
      { fraction: 1, message: 'step 20/20' },
    ],
    [{ progress: 0, eta_relative: 0, state: { job_count: 0 } }, null],
    [{ detail: 'Not Found' }, null],
    [null, null],
  ])('%j → %j', (body, expected) => {
    expect(a1111Progress(body)).toEqual(expected);
  });
});

describe('replicateLogProgress', () => {
  it.each([
    ['', null],
    [null, null],
    ['Using seed: 1\n', { message: 'Using seed: 1' }],
    ['Using seed: 1\n 35%|███▌      | 7/20 [00:01<00:02,  6.1it/s]', { fraction: 0.35, message: 'step 7/20' }],
    [' 10%|█         | 2/20 [00:00<?]\r 55%|█████▌    | 11/20 [00:02<00:01]', { fraction: 0.55, message: 'step 11/20' }],
    ['100%|██████████| 4/4 [00:01<00:00]\nsaving output', { fraction: 1, message: 'step 4/4' }],
  ])('%j → %j', (logs, expected) => {
    expect(replicateLogProgress(logs)).toEqual(expected);
  });
});
