import type { BudgetName } from '@promptpix/core';
import type { Infrastructure, Logger } from '@promptpix/runtime';
import { createLastUsedRecorder } from './key-last-used';

/**
 * What the owner sees when a publishable key's budget refuses a generation: the key's
 * `budgetHitAt`, written at most once a minute per key and process off the request's path, and
 * one warning per write in the log.
 */
export function createBudgetHitRecorder(infra: Pick<Infrastructure, 'apiKeys'>, logger: Logger): (keyId: string, name: BudgetName) => void {
  let last: BudgetName = 'keyPerDay';
  const record = createLastUsedRecorder({
    touch: async (keyId, at) => {
      logger.warn('publishable key budget exhausted', { keyId, budget: last });
      await infra.apiKeys.recordBudgetHit(keyId, at);
    },
    now: () => new Date(),
    onError: (error) => logger.warn('could not record a budget hit', { error }),
  });
  return (keyId, name) => {
    // `record` calls `touch` synchronously when it writes, so the log names this refusal's budget.
    last = name;
    record(keyId);
  };
}
