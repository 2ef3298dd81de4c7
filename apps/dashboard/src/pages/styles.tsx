import { useState } from 'preact/hooks';
import type { OwnStyleView, PresetStyleView, StyleInput, StylesView } from '@promptpix/contracts';
import { api, fieldError } from '../api';
import { BASE } from '../router';
import { Icon } from '../icons';
import { Badge, Card, Dialog, EmptyState, ErrorState, Field, FormError, Loading, PageHeader, confirmAndDelete, toast, useAction, useResource } from '../ui';

const TIER_TONE = { free: 'neutral', starter: 'success', pro: 'accent', business: 'warning' } as const;

function PresetCard({ preset }: { preset: PresetStyleView }) {
  return (
    <li class={`preset${preset.locked ? ' is-locked' : ''}`}>
      <div class="preset-preview">
        {preset.previewUrl ? (
          <img src={preset.previewUrl} alt={`Preview of the ${preset.name} style`} loading="lazy" />
        ) : (
          <div class="preset-placeholder" aria-hidden="true">
            {preset.name.slice(0, 1)}
          </div>
        )}
        {preset.locked && (
          <span class="lock-flag">
            <Icon name="lock" size={12} /> Locked on your plan
          </span>
        )}
      </div>
      <div class="preset-body">
        <div class="preset-title">
          <strong>{preset.name}</strong>
          <Badge tone={TIER_TONE[preset.tier]}>{preset.tier}</Badge>
        </div>
        <p class="muted small">{preset.description ?? preset.category}</p>
        <p class="code small muted">{preset.id}</p>
      </div>
    </li>
  );
}

const emptyStyle: StyleInput = { name: '', description: '', tags: [], baseStyle: null, promptTemplate: '{prompt}' };

function StyleForm({
  initial,
  presets,
  onSaved,
  submitLabel,
}: {
  initial?: OwnStyleView;
  presets: PresetStyleView[];
  onSaved: (s: OwnStyleView) => void;
  submitLabel: string;
}) {
  const [form, setForm] = useState<StyleInput>(initial ? { ...initial } : emptyStyle);
  const [tags, setTags] = useState((initial?.tags ?? []).join(', '));
  const { busy, error, run } = useAction();
  const template = form.promptTemplate ?? '';
  const templateProblem = template && !template.includes('{prompt}') ? 'The template must contain {prompt} where the request’s prompt goes.' : undefined;

  const submit = (event: Event) => {
    event.preventDefault();
    if (templateProblem) return;
    void run(async () => {
      const body: StyleInput = {
        name: form.name.trim(),
        description: form.description?.trim() || null,
        tags: tags
          .split(',')
          .map((t) => t.trim())
          .filter(Boolean),
        baseStyle: form.baseStyle || null,
        promptTemplate: template.trim() || null,
      };
      const saved = initial
        ? await api<OwnStyleView>('PATCH', `${BASE}/api/styles/${encodeURIComponent(initial.id)}`, body)
        : await api<OwnStyleView>('POST', `${BASE}/api/styles`, body);
      onSaved(saved);
      if (!initial) {
        setForm(emptyStyle);
        setTags('');
      }
    });
  };

  return (
    <form class="form" onSubmit={submit}>
      <div class="grid-2 tight">
        <Field label="Name" hint="Use it as the style of a request, e.g. brand-flat." error={fieldError(error, 'name')}>
          {(p) => <input {...p} required value={form.name} onInput={(e) => setForm({ ...form, name: e.currentTarget.value })} />}
        </Field>
        <Field label="Base style" error={fieldError(error, 'baseStyle')}>
          {(p) => (
            <select {...p} value={form.baseStyle ?? ''} onChange={(e) => setForm({ ...form, baseStyle: e.currentTarget.value || null })}>
              <option value="">None</option>
              {presets.map((s) => (
                <option key={s.id} value={s.id} disabled={s.locked}>
                  {s.name}
                  {s.locked ? ' (locked on your plan)' : ''}
                </option>
              ))}
            </select>
          )}
        </Field>
      </div>
      <Field label="Description" error={fieldError(error, 'description')}>
        {(p) => <input {...p} value={form.description ?? ''} onInput={(e) => setForm({ ...form, description: e.currentTarget.value })} />}
      </Field>
      <Field label="Tags" hint="Comma separated." error={fieldError(error, 'tags')}>
        {(p) => <input {...p} value={tags} onInput={(e) => setTags(e.currentTarget.value)} placeholder="flat, brand, pastel" />}
      </Field>
      <Field
        label="Prompt template"
        hint={
          <>
            Wraps every prompt; <span class="code">{'{prompt}'}</span> is replaced by the request’s prompt.
          </>
        }
        error={templateProblem ?? fieldError(error, 'promptTemplate')}
      >
        {(p) => <textarea {...p} class="code" rows={3} value={template} onInput={(e) => setForm({ ...form, promptTemplate: e.currentTarget.value })} />}
      </Field>
      <FormError error={error} fields={['name', 'description', 'tags', 'baseStyle', 'promptTemplate']} />
      <div class="form-actions">
        <button type="submit" class="btn btn-primary" disabled={busy}>
          {busy ? 'Saving…' : submitLabel}
        </button>
      </div>
    </form>
  );
}

export function StylesPage() {
  const styles = useResource<StylesView>(`${BASE}/api/styles`);
  const [editing, setEditing] = useState<OwnStyleView | null>(null);
  const update = (fn: (own: OwnStyleView[]) => OwnStyleView[]) =>
    styles.setData((d) => ({ presets: d?.presets ?? [], visualFamilies: d?.visualFamilies ?? [], own: fn(d?.own ?? []) }));

  const remove = (s: OwnStyleView) =>
    confirmAndDelete({
      title: `Delete the style “${s.name}”?`,
      message: 'Requests that name this style will fail. Images made with it stay.',
      confirmLabel: 'Delete style',
      path: `${BASE}/api/styles/${encodeURIComponent(s.id)}`,
      onDeleted: () => update((own) => own.filter((x) => x.id !== s.id)),
      deleted: `Style “${s.name}” deleted`,
    });

  if (styles.loading && !styles.data)
    return (
      <>
        <PageHeader title="Styles" />
        <Loading label="Loading styles…" />
      </>
    );
  if (styles.error || !styles.data)
    return (
      <>
        <PageHeader title="Styles" />
        <ErrorState error={styles.error} onRetry={styles.reload} />
      </>
    );
  const { presets, own } = styles.data;
  return (
    <>
      <PageHeader title="Styles" description="Presets that come with PromptPix, and styles of your own built on top of them." />
      <div class="grid-2">
        <Card title="New style">
          <StyleForm
            presets={presets}
            submitLabel="Create style"
            onSaved={(s) => {
              update((list) => [s, ...list]);
              toast(`Style “${s.name}” created`);
            }}
          />
        </Card>
        <Card title="Your styles">
          {own.length === 0 ? (
            <EmptyState title="No styles of your own" icon="brush">
              Create one to keep a consistent look: a base preset plus your own prompt template.
            </EmptyState>
          ) : (
            <ul class="own-styles">
              {own.map((s) => (
                <li key={s.id}>
                  <div>
                    <strong>{s.name}</strong>
                    {s.baseStyle && <span class="muted small"> on {s.baseStyle}</span>}
                    {s.description && <p class="muted small">{s.description}</p>}
                    {s.promptTemplate && <p class="code small template">{s.promptTemplate}</p>}
                    <div class="badges">
                      {s.tags.map((t) => (
                        <Badge key={t}>{t}</Badge>
                      ))}
                    </div>
                  </div>
                  <div class="row-actions">
                    <button type="button" class="btn btn-secondary btn-small" aria-label={`Edit style ${s.name}`} onClick={() => setEditing(s)}>
                      Edit
                    </button>
                    <button type="button" class="btn btn-danger-outline btn-small" aria-label={`Delete style ${s.name}`} onClick={() => void remove(s)}>
                      Delete
                    </button>
                  </div>
                </li>
              ))}
            </ul>
          )}
        </Card>
      </div>
      <Card
        title="Presets"
        actions={
          <span class="muted small">
            {presets.filter((p) => !p.locked).length} of {presets.length} on your plan
          </span>
        }
      >
        {presets.length === 0 ? (
          <EmptyState title="No presets" />
        ) : (
          <ul class="preset-grid">
            {presets.map((p) => (
              <PresetCard key={p.id} preset={p} />
            ))}
          </ul>
        )}
      </Card>
      <Dialog open={editing !== null} title={`Edit ${editing?.name ?? 'style'}`} onClose={() => setEditing(null)}>
        {editing && (
          <StyleForm
            key={editing.id}
            initial={editing}
            presets={presets}
            submitLabel="Save changes"
            onSaved={(s) => {
              update((list) => list.map((x) => (x.id === s.id ? s : x)));
              setEditing(null);
              toast('Style saved');
            }}
          />
        )}
      </Dialog>
    </>
  );
}
