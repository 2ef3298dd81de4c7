import { useEffect, useState } from 'preact/hooks';
import type { CharacterInput, CharacterView, StylesView } from '@promptpix/contracts';
import { api, fieldError } from '../api';
import { BASE } from '../router';
import { Badge, Card, Dialog, EmptyState, Field, FormError, Loaded, PageHeader, confirmAndDelete, formatDate, toast, useAction, useResource } from '../ui';

const MAX_PHOTOS = 10;

const readAsDataUrl = (file: File) =>
  new Promise<string>((resolve, reject) => {
    const reader = new FileReader();
    reader.onload = () => resolve(String(reader.result));
    reader.onerror = () => reject(reader.error ?? new Error(`Could not read ${file.name}`));
    reader.readAsDataURL(file);
  });

/** Photos chosen in the file input, previewed with object URLs (revoked when replaced or gone). */
function usePhotos() {
  const [photos, setPhotos] = useState<Array<{ file: File; url: string }>>([]);
  useEffect(
    () => () => {
      for (const p of photos) URL.revokeObjectURL(p.url);
    },
    [photos],
  );
  return {
    photos,
    set: (files: File[]) => setPhotos(files.slice(0, MAX_PHOTOS).map((file) => ({ file, url: URL.createObjectURL(file) }))),
    remove: (i: number) => setPhotos(photos.filter((_, j) => j !== i)),
  };
}

function LockFields({
  value,
  onChange,
  styles,
  error,
}: {
  value: Pick<CharacterInput, 'behavior' | 'lockedStyle' | 'lockedFamily'>;
  onChange: (v: Partial<CharacterInput>) => void;
  styles?: StylesView;
  error: unknown;
}) {
  return (
    <>
      <fieldset class="segmented">
        <legend>Behavior</legend>
        {(['match', 'lock'] as const).map((b) => (
          <label key={b} class={value.behavior === b ? 'checked' : ''}>
            <input type="radio" name="behavior" value={b} checked={value.behavior === b} onChange={() => onChange({ behavior: b })} />
            {b === 'match' ? 'Match' : 'Lock'}
          </label>
        ))}
      </fieldset>
      <p class="hint">
        {value.behavior === 'match'
          ? 'Match: the character takes on the style each request asks for.'
          : 'Lock: the character always keeps the style or family below, whatever a request asks.'}
      </p>
      {value.behavior === 'lock' && (
        <div class="grid-2 tight">
          <Field label="Locked style" error={fieldError(error, 'lockedStyle')}>
            {(p) => (
              <select {...p} value={value.lockedStyle ?? ''} onChange={(e) => onChange({ lockedStyle: e.currentTarget.value || null })}>
                <option value="">None</option>
                {styles?.own.length ? (
                  <optgroup label="Your styles">
                    {styles.own.map((s) => (
                      <option key={s.id} value={s.name}>
                        {s.name}
                      </option>
                    ))}
                  </optgroup>
                ) : null}
                <optgroup label="Presets">
                  {(styles?.presets ?? [])
                    .filter((s) => !s.locked)
                    .map((s) => (
                      <option key={s.id} value={s.id}>
                        {s.name}
                      </option>
                    ))}
                </optgroup>
              </select>
            )}
          </Field>
          <Field label="Locked family" error={fieldError(error, 'lockedFamily')}>
            {(p) => (
              <select
                {...p}
                value={value.lockedFamily ?? ''}
                onChange={(e) => onChange({ lockedFamily: (e.currentTarget.value || null) as CharacterInput['lockedFamily'] })}
              >
                <option value="">None</option>
                {(styles?.visualFamilies ?? []).map((f) => (
                  <option key={f} value={f}>
                    {f}
                  </option>
                ))}
              </select>
            )}
          </Field>
        </div>
      )}
    </>
  );
}

const emptyCharacter: CharacterInput = { name: '', description: '', specSheet: '', behavior: 'match', lockedStyle: null, lockedFamily: null };

/** What creating and editing send alike: the trimmed texts, and the locks only while locked. */
const commonBody = (form: CharacterInput) => ({
  name: form.name.trim(),
  description: form.description?.trim() || null,
  behavior: form.behavior,
  lockedStyle: form.behavior === 'lock' ? form.lockedStyle : null,
  lockedFamily: form.behavior === 'lock' ? form.lockedFamily : null,
});
const specSheetBody = (form: CharacterInput) => ({ specSheet: form.specSheet?.trim() || null });

function CreateCharacter({ styles, onCreated }: { styles?: StylesView; onCreated: (c: CharacterView) => void }) {
  const [form, setForm] = useState<CharacterInput>(emptyCharacter);
  const [source, setSource] = useState<'photos' | 'spec'>('photos');
  const photos = usePhotos();
  const { busy, error, run } = useAction();
  const [inputKey, setInputKey] = useState(0);

  const submit = (event: Event) => {
    event.preventDefault();
    void run(async () => {
      const body: CharacterInput = {
        ...commonBody(form),
        ...(source === 'photos' ? { images: await Promise.all(photos.photos.map((p) => readAsDataUrl(p.file))) } : specSheetBody(form)),
      };
      const created = await api<CharacterView>('POST', `${BASE}/api/characters`, body);
      onCreated(created);
      setForm(emptyCharacter);
      photos.set([]);
      setInputKey((k) => k + 1);
      toast(`Character “${created.name}” created`);
    });
  };

  return (
    <form class="form" onSubmit={submit}>
      <div class="grid-2 tight">
        <Field label="Name" error={fieldError(error, 'name')}>
          {(p) => (
            <input
              {...p}
              required
              maxLength={80}
              value={form.name}
              onInput={(e) => setForm({ ...form, name: e.currentTarget.value })}
              placeholder="Captain Mira"
            />
          )}
        </Field>
        <Field label="Description (optional)" error={fieldError(error, 'description')}>
          {(p) => (
            <input
              {...p}
              value={form.description ?? ''}
              onInput={(e) => setForm({ ...form, description: e.currentTarget.value })}
              placeholder="Our mascot, a friendly robot"
            />
          )}
        </Field>
      </div>
      <fieldset class="segmented">
        <legend>Reference</legend>
        <label class={source === 'photos' ? 'checked' : ''}>
          <input type="radio" name="source" checked={source === 'photos'} onChange={() => setSource('photos')} />
          Photos
        </label>
        <label class={source === 'spec' ? 'checked' : ''}>
          <input type="radio" name="source" checked={source === 'spec'} onChange={() => setSource('spec')} />
          Spec sheet
        </label>
      </fieldset>
      {source === 'photos' ? (
        <Field label="Reference photos" hint={`1 to ${MAX_PHOTOS} clear photos of the character (PNG, JPEG or WebP).`} error={fieldError(error, 'images')}>
          {(p) => (
            <div>
              <input
                {...p}
                key={inputKey}
                type="file"
                accept="image/png,image/jpeg,image/webp"
                multiple
                onChange={(e) => photos.set(Array.from(e.currentTarget.files ?? []))}
              />
              {photos.photos.length > 0 && (
                <ul class="photo-previews" aria-label="Selected photos">
                  {photos.photos.map((photo, i) => (
                    <li key={photo.url}>
                      <img src={photo.url} alt={photo.file.name} />
                      <button type="button" class="icon-btn small" aria-label={`Remove ${photo.file.name}`} onClick={() => photos.remove(i)}>
                        ×
                      </button>
                    </li>
                  ))}
                </ul>
              )}
            </div>
          )}
        </Field>
      ) : (
        <Field label="Spec sheet" hint="Describe the character in detail: face, hair, build, clothing, colours." error={fieldError(error, 'specSheet')}>
          {(p) => <textarea {...p} rows={5} value={form.specSheet ?? ''} onInput={(e) => setForm({ ...form, specSheet: e.currentTarget.value })} />}
        </Field>
      )}
      <LockFields value={form} onChange={(v) => setForm({ ...form, ...v })} styles={styles} error={error} />
      <FormError error={error} fields={['name', 'description', 'images', 'specSheet', 'lockedStyle', 'lockedFamily']} />
      <div class="form-actions">
        <button type="submit" class="btn btn-primary" disabled={busy || (source === 'photos' && photos.photos.length === 0)}>
          {busy ? 'Creating…' : 'Create character'}
        </button>
      </div>
    </form>
  );
}

function EditCharacter({ character, styles, onSaved }: { character: CharacterView; styles?: StylesView; onSaved: (c: CharacterView) => void }) {
  const [form, setForm] = useState<CharacterInput>({ ...character });
  const { busy, error, run } = useAction();
  const submit = (event: Event) => {
    event.preventDefault();
    void run(async () => {
      const body: Partial<CharacterInput> = { ...commonBody(form), ...(character.specSheet !== null ? specSheetBody(form) : {}) };
      onSaved(await api<CharacterView>('PATCH', `${BASE}/api/characters/${encodeURIComponent(character.id)}`, body));
    });
  };
  return (
    <form class="form" onSubmit={submit}>
      <Field label="Name" error={fieldError(error, 'name')}>
        {(p) => <input {...p} required value={form.name} onInput={(e) => setForm({ ...form, name: e.currentTarget.value })} />}
      </Field>
      <Field label="Description" error={fieldError(error, 'description')}>
        {(p) => <input {...p} value={form.description ?? ''} onInput={(e) => setForm({ ...form, description: e.currentTarget.value })} />}
      </Field>
      {character.specSheet !== null && (
        <Field label="Spec sheet" error={fieldError(error, 'specSheet')}>
          {(p) => <textarea {...p} rows={5} value={form.specSheet ?? ''} onInput={(e) => setForm({ ...form, specSheet: e.currentTarget.value })} />}
        </Field>
      )}
      <LockFields value={form} onChange={(v) => setForm({ ...form, ...v })} styles={styles} error={error} />
      <FormError error={error} fields={['name', 'description', 'specSheet', 'lockedStyle', 'lockedFamily']} />
      <div class="form-actions">
        <button type="submit" class="btn btn-primary" disabled={busy}>
          {busy ? 'Saving…' : 'Save changes'}
        </button>
      </div>
    </form>
  );
}

export function CharactersPage() {
  const characters = useResource<{ characters: CharacterView[] }>(`${BASE}/api/characters`);
  const styles = useResource<StylesView>(`${BASE}/api/styles`);
  const [editing, setEditing] = useState<CharacterView | null>(null);

  const remove = (c: CharacterView) =>
    confirmAndDelete({
      title: `Delete “${c.name}”?`,
      message: 'Its reference photos are deleted. Images already generated stay; new requests naming this character fail.',
      confirmLabel: 'Delete character',
      path: `${BASE}/api/characters/${encodeURIComponent(c.id)}`,
      onDeleted: () => characters.setData((d) => ({ characters: (d?.characters ?? []).filter((x) => x.id !== c.id) })),
      deleted: `Character “${c.name}” deleted`,
    });

  return (
    <>
      <PageHeader title="Characters" description="Recurring people, mascots and products that keep their look across images." />
      <Card title="New character">
        <CreateCharacter styles={styles.data} onCreated={(c) => characters.setData((d) => ({ characters: [c, ...(d?.characters ?? [])] }))} />
      </Card>
      <Card title="Your characters">
        <Loaded
          resource={characters}
          label="Loading characters…"
          empty={(data) =>
            !data.characters.length && (
              <EmptyState title="No characters yet" icon="user">
                Create one above from a few photos or a written spec sheet.
              </EmptyState>
            )
          }
        >
          {(data) => (
            <ul class="character-list">
              {data.characters.map((c) => (
                <li key={c.id} class="character">
                  <span class="avatar big" aria-hidden="true">
                    {c.name.slice(0, 1).toUpperCase()}
                  </span>
                  <div class="character-info">
                    <strong>{c.name}</strong>
                    {c.description && <span class="muted">{c.description}</span>}
                    <div class="badges">
                      <Badge tone={c.behavior === 'lock' ? 'warning' : 'neutral'}>{c.behavior === 'lock' ? 'Lock' : 'Match'}</Badge>
                      {c.lockedStyle && <Badge>style: {c.lockedStyle}</Badge>}
                      {c.lockedFamily && <Badge>family: {c.lockedFamily}</Badge>}
                      <Badge tone="accent">
                        {c.specSheet !== null && c.referenceCount === 0 ? 'Spec sheet' : `${c.referenceCount} reference${c.referenceCount === 1 ? '' : 's'}`}
                      </Badge>
                    </div>
                    <span class="muted small">Created {formatDate(c.createdAt)}</span>
                  </div>
                  <div class="row-actions">
                    <button type="button" class="btn btn-secondary btn-small" aria-label={`Edit ${c.name}`} onClick={() => setEditing(c)}>
                      Edit
                    </button>
                    <button type="button" class="btn btn-danger-outline btn-small" aria-label={`Delete ${c.name}`} onClick={() => void remove(c)}>
                      Delete
                    </button>
                  </div>
                </li>
              ))}
            </ul>
          )}
        </Loaded>
      </Card>
      <Dialog open={editing !== null} title={`Edit ${editing?.name ?? 'character'}`} onClose={() => setEditing(null)}>
        {editing && (
          <EditCharacter
            key={editing.id}
            character={editing}
            styles={styles.data}
            onSaved={(c) => {
              characters.setData((d) => ({ characters: (d?.characters ?? []).map((x) => (x.id === c.id ? c : x)) }));
              setEditing(null);
              toast('Character saved');
            }}
          />
        )}
      </Dialog>
    </>
  );
}
