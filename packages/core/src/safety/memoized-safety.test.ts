import { memoizePromptSafety } from './memoized-safety';
import { createPromptSafety, PROMPT_NOT_FOR_CHILDREN_REASON } from './prompt-safety';

describe('memoizePromptSafety', () => {
  const counting = () => {
    const real = createPromptSafety();
    const calls: string[] = [];
    return {
      calls,
      safety: {
        check: (prompt: string, age?: 'kids' | 'bigkids' | 'adults') => {
          calls.push(`${age}:${prompt}`);
          return real.check(prompt, age);
        },
      },
    };
  };

  it('gives the verdicts of the filter it wraps, checking each prompt and age bucket once', () => {
    const { calls, safety } = counting();
    const memo = memoizePromptSafety(safety);
    for (let i = 0; i < 3; i++) {
      expect(memo.check('a knight with a bloody sword')).toEqual({ allowed: true });
      expect(memo.check('a knight with a bloody sword', 'kids')).toEqual({ allowed: false, reason: PROMPT_NOT_FOR_CHILDREN_REASON });
    }
    expect(calls).toEqual(['undefined:a knight with a bloody sword', 'kids:a knight with a bloody sword']);
  });

  it('forgets the least recently used prompt first, within its byte budget', () => {
    const { calls, safety } = counting();
    const memo = memoizePromptSafety(safety, 16 * 1024);
    const prompt = (i: number) => `${i} ${'x'.repeat(600)}`;
    for (let i = 0; i < 40; i++) {
      memo.check(prompt(0));
      memo.check(prompt(i));
    }
    calls.length = 0;
    memo.check(prompt(0)); // used all along: still remembered
    memo.check(prompt(39)); // the newest: remembered
    memo.check(prompt(1)); // the least recently used: forgotten
    expect(calls).toEqual([`undefined:${prompt(1)}`]);
  });
});
