import { useState } from 'preact/hooks';
import type { KeyLimitsInput, KeyLimitsView } from '@promptpix/contracts';
import { api, fieldError } from '../api';
import { BASE } from '../router';
import { Card, CopyField, Field, FormError, Loaded, formatDate, toast, useAction, useResource } from '../ui';

type BudgetField = 'budgetClientPerHour' | 'budgetClientPerDay' | 'budgetKeyPerHour' | 'budgetKeyPerDay';

const BUDGETS: Array<[BudgetField, string]> = [
  ['budgetClientPerHour', 'Per visitor, per hour'],
  ['budgetClientPerDay', 'Per visitor, per day'],
  ['budgetKeyPerHour', 'Whole key, per hour'],
  ['budgetKeyPerDay', 'Whole key, per day'],
];

/** A publishable key's budgets, signed mode and fresh generations per day (docs/dashboard.md). */
export function KeyLimitsCard({ keyId, name, onClose }: { keyId: string; name: string; onClose: () => void }) {
  const limits = useResource<KeyLimitsView>(`${BASE}/api/keys/${encodeURIComponent(keyId)}/limits`);
  return (
    <Card
      title={`Budgets and signing: “${name}”`}
      actions={
        <button type="button" class="btn btn-secondary btn-small" onClick={onClose}>
          Close
        </button>
      }
    >
      <Loaded resource={limits} label="Loading the key's budgets…">
        {(view) => <KeyLimitsForm view={view} onSaved={(next) => limits.setData(() => next)} />}
      </Loaded>
    </Card>
  );
}

function KeyLimitsForm({ view, onSaved }: { view: KeyLimitsView; onSaved: (view: KeyLimitsView) => void }) {
  const [values, setValues] = useState<Record<BudgetField, string>>(
    () => Object.fromEntries(BUDGETS.map(([f]) => [f, view[f] === null ? '' : String(view[f])])) as Record<BudgetField, string>,
  );
  const [signed, setSigned] = useState(view.signedPrompts);
  const { busy, error, run } = useAction();

  const submit = (event: Event) => {
    event.preventDefault();
    void run(async () => {
      const body: KeyLimitsInput = { signedPrompts: signed };
      for (const [field] of BUDGETS) body[field] = values[field].trim() === '' ? null : Number(values[field]);
      onSaved(await api<KeyLimitsView>('PATCH', `${BASE}/api/keys/${encodeURIComponent(view.id)}/limits`, body));
      toast('Budgets saved');
    });
  };

  return (
    <>
      <p class="muted small">
        New images a stranger holding this public key can start. Images that already exist always resolve; past a budget, new prompts fail until the hour or day
        is over.
      </p>
      <table class="table" aria-label="Fresh generations per day">
        <thead>
          <tr>
            {view.freshByDay.map((d) => (
              <th scope="col" key={d.date}>
                {d.date.slice(5)}
              </th>
            ))}
          </tr>
        </thead>
        <tbody>
          <tr>
            {view.freshByDay.map((d) => (
              <td key={d.date} data-label={d.date}>
                {d.count}
              </td>
            ))}
          </tr>
        </tbody>
      </table>
      <p class="small" data-testid="budget-hit">
        {view.budgetHitAt ? (
          <>A budget last stopped new generations {formatDate(view.budgetHitAt, true)}.</>
        ) : (
          <span class="muted">No budget has been reached.</span>
        )}
      </p>
      <form onSubmit={submit} class="form">
        {BUDGETS.map(([field, label]) => (
          <Field key={field} label={label} hint={`Empty: the service default (${view.defaults[field]}).`} error={fieldError(error, field)}>
            {(p) => (
              <input
                {...p}
                name={field}
                type="number"
                min={0}
                step={1}
                inputMode="numeric"
                placeholder={String(view.defaults[field])}
                value={values[field]}
                onInput={(e) => setValues((v) => ({ ...v, [field]: e.currentTarget.value }))}
              />
            )}
          </Field>
        ))}
        <label class="checkbox">
          <input type="checkbox" name="signedPrompts" checked={signed} onChange={(e) => setSigned(e.currentTarget.checked)} /> Only generate signed prompts
          (data-service-sig)
        </label>
        <FormError error={error} fields={[...BUDGETS.map(([f]) => f), 'signedPrompts']} />
        <div class="form-actions">
          <button type="submit" class="btn btn-primary" disabled={busy}>
            {busy ? 'Saving…' : 'Save budgets'}
          </button>
        </div>
      </form>
      {view.signingSecret && <CopyField label="Signing secret (keep it on your server)" value={view.signingSecret} />}
    </>
  );
}
