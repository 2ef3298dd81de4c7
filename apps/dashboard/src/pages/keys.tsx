import { useState } from 'preact/hooks';
import type { KeyCreated, KeyView } from '@promptpix/contracts';
import { api, errorMessage, fieldError } from '../api';
import { forgetPublishableKey, parseDomains, rememberPublishableKey } from '../keys-store';
import { BASE } from '../router';
import {
  Badge,
  Card,
  CopyField,
  EmptyState,
  Field,
  FormError,
  Loaded,
  PageHeader,
  confirmAction,
  confirmAndDelete,
  formatDate,
  toast,
  useAction,
  useResource,
} from '../ui';
import { KeyLimitsCard } from './key-limits';

export function KeysPage({ handle }: { handle: string }) {
  const keys = useResource<{ keys: KeyView[] }>(`${BASE}/api/keys`);
  const [created, setCreated] = useState<KeyCreated | null>(null);
  const [limitsOf, setLimitsOf] = useState<KeyView | null>(null);

  /** A new key with the same settings; the old one stops working on every gateway within seconds. */
  const rotate = async (key: KeyView) => {
    const ok = await confirmAction(
      `Rotate “${key.name}”?`,
      <>
        A new key replaces <span class="code">{key.prefix}…</span> with the same domains, budgets and signing secret. The old key stops working at once.
      </>,
      'Rotate key',
    );
    if (!ok) return;
    try {
      const next = await api<KeyCreated>('POST', `${BASE}/api/keys/${encodeURIComponent(key.id)}/rotate`);
      forgetPublishableKey(handle, key.prefix);
      if (next.key.kind === 'publishable') rememberPublishableKey(handle, next.secret);
      keys.setData((d) => ({ keys: [next.key, ...(d?.keys ?? []).filter((k) => k.id !== key.id)] }));
      setCreated(next);
      if (limitsOf?.id === key.id) setLimitsOf(next.key);
      toast(`Key “${key.name}” rotated`);
    } catch (error) {
      toast(`Could not rotate the key: ${errorMessage(error)}`);
    }
  };

  const revoke = (key: KeyView) =>
    confirmAndDelete({
      title: `Revoke “${key.name}”?`,
      message: (
        <>
          Requests with <span class="code">{key.prefix}…</span> stop working at once. Sites and servers that use this key need a new one. This cannot be undone.
        </>
      ),
      confirmLabel: 'Revoke key',
      path: `${BASE}/api/keys/${encodeURIComponent(key.id)}`,
      onDeleted: () => {
        forgetPublishableKey(handle, key.prefix);
        keys.setData((d) => ({ keys: (d?.keys ?? []).filter((k) => k.id !== key.id) }));
        if (created?.key.id === key.id) setCreated(null);
      },
      deleted: `Key “${key.name}” revoked`,
      failure: 'Could not revoke the key',
    });

  return (
    <>
      <PageHeader title="Integration" description="API keys for your servers (secret) and your web pages (publishable)." />
      <div class="grid-2">
        <Card title="Create a key">
          <KeyForm
            onCreated={(k) => {
              setCreated(k);
              if (k.key.kind === 'publishable') rememberPublishableKey(handle, k.secret);
              keys.setData((d) => ({ keys: [k.key, ...(d?.keys ?? [])] }));
            }}
          />
        </Card>
        {created ? (
          <Card title="Your new key" class="card-highlight">
            <p class="alert alert-warning" role="alert">
              <strong>Copy this key now.</strong> It is shown only once: PromptPix keeps only a fingerprint of it.
            </p>
            <CopyField label={`${created.key.kind === 'secret' ? 'Secret' : 'Publishable'} key “${created.key.name}”`} value={created.secret} />
            {created.key.kind === 'secret' ? (
              <p class="muted small">Keep secret keys on your server. Never put them in a web page or an app.</p>
            ) : (
              <p class="muted small">Publishable keys go in web pages. The Embed page has a snippet with this key filled in.</p>
            )}
            <button type="button" class="btn btn-secondary" onClick={() => setCreated(null)}>
              I have copied it
            </button>
          </Card>
        ) : (
          <Card title="Which kind?">
            <dl class="kinds">
              <dt>
                <Badge tone="danger">secret</Badge>
              </dt>
              <dd>For your backend: generates images through the REST API. Full access to your quota; never expose it.</dd>
              <dt>
                <Badge tone="success">publishable</Badge>
              </dt>
              <dd>For web pages with the embed script. Limited to the domains you list, safe to publish.</dd>
            </dl>
          </Card>
        )}
      </div>
      <Card title="Your keys">
        <Loaded
          resource={keys}
          label="Loading keys…"
          empty={(data) =>
            !data.keys.length && (
              <EmptyState title="No keys yet" icon="key">
                Create a key above to start generating images.
              </EmptyState>
            )
          }
        >
          {(data) => (
            <div class="table-wrap">
              <table class="table">
                <caption class="sr-only">API keys</caption>
                <thead>
                  <tr>
                    <th scope="col">Name</th>
                    <th scope="col">Key</th>
                    <th scope="col">Kind</th>
                    <th scope="col">Domains</th>
                    <th scope="col">Created</th>
                    <th scope="col">Last used</th>
                    <th scope="col">
                      <span class="sr-only">Actions</span>
                    </th>
                  </tr>
                </thead>
                <tbody>
                  {data.keys.map((k) => (
                    <tr key={k.id}>
                      <td data-label="Name">
                        <strong>{k.name}</strong>
                      </td>
                      <td data-label="Key" class="code">
                        {k.prefix}…
                      </td>
                      <td data-label="Kind">
                        <Badge tone={k.kind === 'secret' ? 'danger' : 'success'}>{k.kind}</Badge>
                      </td>
                      <td data-label="Domains">{k.domains.length ? k.domains.join(', ') : <span class="muted">{k.kind === 'secret' ? '—' : 'Any'}</span>}</td>
                      <td data-label="Created" class="nowrap">
                        {formatDate(k.createdAt)}
                      </td>
                      <td data-label="Last used" class="nowrap">
                        {k.lastUsedAt ? formatDate(k.lastUsedAt, true) : <span class="muted">Never</span>}
                      </td>
                      <td class="actions">
                        {k.kind === 'publishable' && (
                          <button type="button" class="btn btn-secondary btn-small" aria-label={`Budgets of key ${k.name}`} onClick={() => setLimitsOf(k)}>
                            Budgets
                          </button>
                        )}
                        <button type="button" class="btn btn-secondary btn-small" aria-label={`Rotate key ${k.name}`} onClick={() => void rotate(k)}>
                          Rotate
                        </button>
                        <button type="button" class="btn btn-danger-outline btn-small" aria-label={`Revoke key ${k.name}`} onClick={() => void revoke(k)}>
                          Revoke
                        </button>
                      </td>
                    </tr>
                  ))}
                </tbody>
              </table>
            </div>
          )}
        </Loaded>
      </Card>
      {limitsOf && <KeyLimitsCard key={limitsOf.id} keyId={limitsOf.id} name={limitsOf.name} onClose={() => setLimitsOf(null)} />}
    </>
  );
}

/** The create-key form; also used by the Embed page for a publishable key. */
export function KeyForm({
  onCreated,
  kind: fixedKind,
  submitLabel = 'Create key',
}: {
  onCreated: (created: KeyCreated) => void;
  kind?: KeyView['kind'];
  submitLabel?: string;
}) {
  const [kind, setKind] = useState<KeyView['kind']>(fixedKind ?? 'secret');
  const [name, setName] = useState('');
  const [domains, setDomains] = useState('');
  const { busy, error, run } = useAction();

  const submit = (event: Event) => {
    event.preventDefault();
    void run(async () => {
      const created = await api<KeyCreated>('POST', `${BASE}/api/keys`, {
        kind,
        name: name.trim(),
        domains: kind === 'publishable' ? parseDomains(domains) : [],
      });
      setName('');
      setDomains('');
      onCreated(created);
    });
  };

  return (
    <form onSubmit={submit} class="form">
      {!fixedKind && (
        <fieldset class="segmented">
          <legend>Kind</legend>
          {(['secret', 'publishable'] as const).map((k) => (
            <label key={k} class={kind === k ? 'checked' : ''}>
              <input type="radio" name="kind" value={k} checked={kind === k} onChange={() => setKind(k)} />
              {k === 'secret' ? 'Secret' : 'Publishable'}
            </label>
          ))}
        </fieldset>
      )}
      <Field label="Name" hint="So you recognise it later, e.g. “production server” or “marketing site”." error={fieldError(error, 'name')}>
        {(p) => <input {...p} name="name" required maxLength={100} value={name} onInput={(e) => setName(e.currentTarget.value)} />}
      </Field>
      {kind === 'publishable' && (
        <Field
          label="Allowed domains"
          hint="One per line or comma separated, e.g. example.com, *.example.com. Leave empty to allow any site."
          error={fieldError(error, 'domains')}
        >
          {(p) => (
            <textarea
              {...p}
              name="domains"
              rows={3}
              value={domains}
              onInput={(e) => setDomains(e.currentTarget.value)}
              placeholder={'example.com\nwww.example.com'}
            />
          )}
        </Field>
      )}
      <FormError error={error} fields={['name', 'domains', 'kind']} />
      <div class="form-actions">
        <button type="submit" class="btn btn-primary" disabled={busy}>
          {busy ? 'Creating…' : submitLabel}
        </button>
      </div>
    </form>
  );
}
