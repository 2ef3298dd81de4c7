import { useEffect, useRef, useState } from 'preact/hooks';
import type {
  CharacterView,
  ImageDetail,
  JobProgressEvent,
  KeyView,
  PlaygroundAccepted,
  PlaygroundInput,
  PlaygroundMatch,
  StylesView,
  Upload,
  UpscaleAccepted,
} from '@promptpix/contracts';
import { ApiError, api, fieldError, uploadFile } from '../api';
import { editSize } from '../edit-size';
import { BASE } from '../router';
import { curlCommand, maskedKey, sdkCall } from '../playground-code';
import { Badge, Card, CopyButton, ErrorAlert, Field, JobProgress, Link, PageHeader, pollJob, useAction, useResource } from '../ui';
import { ImageFlagButtons, SavePermalink, useImageFlags } from './images';
import { decodeEditImage, type EditImage, ImageDrop, MaskEditor, type MaskHandle } from './playground-editor';

const SIZES = [
  { label: 'Square, 1024×1024', width: 1024, height: 1024 },
  { label: 'Square, 512×512', width: 512, height: 512 },
  { label: 'Landscape, 1024×768', width: 1024, height: 768 },
  { label: 'Wide, 1280×704', width: 1280, height: 704 },
  { label: 'Portrait, 768×1024', width: 768, height: 1024 },
];

interface Form {
  prompt: string;
  mode: 'generate' | 'instant';
  style: string;
  character: string;
  size: number;
  format: 'webp' | 'png' | 'jpeg';
  seed: string;
  negativePrompt: string;
  /** An edit's: how far the result may depart from the image (0 keeps it, 1 repaints freely). */
  strength: number;
}

const EMPTY: Form = { prompt: '', mode: 'generate', style: '', character: '', size: 0, format: 'webp', seed: '', negativePrompt: '', strength: 1 };

const inputOf = (form: Form, seed: number | undefined = form.seed === '' ? undefined : Number(form.seed)): PlaygroundInput => ({
  prompt: form.prompt,
  mode: form.mode,
  style: form.style || undefined,
  character: form.character || undefined,
  width: SIZES[form.size].width,
  height: SIZES[form.size].height,
  format: form.format,
  seed,
  negativePrompt: form.negativePrompt.trim() || undefined,
});

/** An edit's form: always a generation, at the image's size (or the nearest the API takes), with its strength. */
const editInputOf = (form: Form, image: EditImage): PlaygroundInput => ({
  ...inputOf(form),
  mode: 'generate',
  ...editSize(image.width, image.height),
  strength: form.strength,
});

/** The image an edit started from, for the before-and-after comparison. */
interface Before {
  url: string;
  name: string;
}

/** What the last run asked and where it stands. */
interface Run {
  input: PlaygroundInput;
  before: Before | null;
  job: JobProgressEvent | null;
  /** The backend's last `progress` event while the job is processing (backends that report it). */
  progress?: BackendProgress | null;
  match: PlaygroundMatch | null;
  quota: PlaygroundAccepted['quota'] | null;
}

interface BackendProgress {
  fraction?: number;
  message?: string;
}

/**
 * Follows the job through its event stream (queue position and each status), until it completes or
 * fails; falls back to polling if the stream breaks. Resolves with the final state, or null once aborted.
 */
function followJob(
  jobId: string,
  onUpdate: (job: JobProgressEvent) => void,
  signal: AbortSignal,
  onProgress?: (progress: BackendProgress) => void,
): Promise<JobProgressEvent | null> {
  return new Promise((resolve) => {
    const events = new EventSource(`${BASE}/api/jobs/${encodeURIComponent(jobId)}/events`);
    const finish = (job: JobProgressEvent | null) => {
      events.close();
      resolve(job);
    };
    signal.addEventListener('abort', () => finish(null));
    events.addEventListener('status', (event) => {
      const job = JSON.parse((event as MessageEvent<string>).data) as JobProgressEvent;
      onUpdate(job);
      if (job.status === 'completed' || job.status === 'failed') finish(job);
    });
    events.addEventListener('progress', (event) => onProgress?.(JSON.parse((event as MessageEvent<string>).data) as BackendProgress));
    events.onerror = () => {
      events.close();
      if (!signal.aborted) pollJob(jobId, onUpdate, signal).then(resolve, () => resolve(null));
    };
  });
}

function StylePicker({ styles, value, onChange }: { styles: StylesView | undefined; value: string; onChange: (style: string) => void }) {
  const choices = [
    { id: '', name: 'No style', previewUrl: null as string | null },
    ...(styles?.own ?? []).map((s) => ({ id: s.name, name: `${s.name} (yours)`, previewUrl: null })),
    ...(styles?.presets ?? []).filter((p) => !p.locked).map((p) => ({ id: p.id, name: p.name, previewUrl: p.previewUrl })),
  ];
  return (
    <fieldset class="style-picker">
      <legend>Style</legend>
      <div class="style-choices">
        {choices.map((choice) => (
          <label key={choice.id} class={`style-choice${value === choice.id ? ' selected' : ''}`}>
            <input type="radio" name="style" value={choice.id} checked={value === choice.id} onChange={() => onChange(choice.id)} />
            {choice.previewUrl ? (
              <img src={choice.previewUrl} alt="" loading="lazy" />
            ) : (
              <span class="style-swatch" aria-hidden="true">
                {choice.name.slice(0, 1)}
              </span>
            )}
            <span class="style-name">{choice.name}</span>
          </label>
        ))}
      </div>
    </fieldset>
  );
}

function Result({ run, onAgain, busy }: { run: Run; onAgain: () => void; busy: boolean }) {
  const imageId = run.match?.imageId ?? (run.job?.status === 'completed' ? run.job.imageId : undefined);
  const detail = useResource<ImageDetail>(imageId ? `${BASE}/api/images/${encodeURIComponent(imageId)}` : null);
  const { busy: acting, error, flag } = useImageFlags((updated) => detail.setData(() => updated));
  const image = detail.data;

  return (
    <div class="playground-result" aria-live="polite">
      {run.job && run.job.status !== 'completed' && (
        <div class="playground-progress">
          <JobProgress job={run.job} />
          {run.job.status === 'queued' && (
            <p class="muted small">
              {run.job.position === undefined
                ? 'Waiting in the queue…'
                : run.job.position === 0
                  ? 'Next in the queue'
                  : `${run.job.position} ahead of you in the queue`}
            </p>
          )}
          {run.job.status === 'processing' && !run.progress && <p class="muted small">Generating…</p>}
          {run.job.status === 'processing' && run.progress && (
            <p class="muted small">
              {run.progress.fraction !== undefined && <progress max={1} value={run.progress.fraction} aria-label="Generation progress" />}{' '}
              {run.progress.message ?? `${Math.round((run.progress.fraction ?? 0) * 100)}%`}
            </p>
          )}
          {run.job.status === 'failed' && <p class="alert alert-error">The job failed: {run.job.error ?? 'unknown error'}</p>}
        </div>
      )}
      {image && (
        <figure class={`playground-image${run.before ? ' compare' : ''}`}>
          {run.before ? <Compare before={run.before} after={image} /> : <img src={image.url} alt={image.prompt} width={image.width} height={image.height} />}
          <figcaption>
            <span class="detail-badges">
              {run.match && (
                <Badge tone="accent">{run.match.match === 'exact' ? 'Exact match' : `Nearest match, score ${run.match.matchScore.toFixed(2)}`}</Badge>
              )}
              {image.pinned && <Badge tone="accent">Pinned</Badge>}
              {image.rejected && <Badge tone="danger">Rejected</Badge>}
            </span>
            <span class="muted small">
              {image.width}×{image.height} {image.format.toUpperCase()} · seed <span class="code">{image.seed}</span>
              {run.quota && ` · ${run.quota.used} of ${run.quota.limit} generations used this month`}
            </span>
          </figcaption>
        </figure>
      )}
      {image && (
        <div class="detail-actions">
          <a class="btn btn-secondary" href={image.url} download>
            Download
          </a>
          <ImageFlagButtons image={image} busy={acting} onFlag={flag} />
          <Upscale image={image} />
          <button type="button" class="btn btn-primary" disabled={busy} onClick={onAgain}>
            Same prompt again
          </button>
          <Link class="btn btn-ghost" href={`${BASE}/images/${encodeURIComponent(image.id)}`}>
            Open in Images
          </Link>
        </div>
      )}
      <ErrorAlert error={error ?? detail.error} />
      {image && <SavePermalink image={image} onSaved={(name) => detail.setData((d) => ({ ...d!, permalinks: [...d!.permalinks, name] }))} />}
    </div>
  );
}

/** Upscale 2×: a larger copy of the image (one quota unit, as POST /api/v1/image/:id/upscale), followed to its end, then linked. */
function Upscale({ image }: { image: ImageDetail }) {
  const { busy, error, run } = useAction();
  const [done, setDone] = useState<JobProgressEvent | null>(null);
  const following = useRef(new AbortController());
  useEffect(() => () => following.current.abort(), []);
  const upscale = () =>
    run(async () => {
      const accepted = await api<UpscaleAccepted>('POST', `${BASE}/api/images/${encodeURIComponent(image.id)}/upscale`, { factor: 2 });
      const job = await followJob(accepted.jobId, () => undefined, following.current.signal);
      if (job?.status === 'failed') throw new Error(`The upscale failed: ${job.error ?? 'unknown error'}`);
      setDone(job);
    });
  if (done?.imageId)
    return (
      <Link class="btn btn-secondary" href={`${BASE}/images/${encodeURIComponent(done.imageId)}`}>
        Open the 2× copy
      </Link>
    );
  return (
    <>
      <button type="button" class="btn btn-secondary" disabled={busy} onClick={upscale}>
        {busy ? 'Upscaling…' : 'Upscale 2×'}
      </button>
      <ErrorAlert error={error} />
    </>
  );
}

/**
 * Before and after, one over the other: the range input moves the edge between them (the before on
 * its left). The before is the image as picked, cropped as the worker crops it (from its centre, to
 * the edit's shape).
 */
function Compare({ before, after }: { before: Before; after: ImageDetail }) {
  const [edge, setEdge] = useState(50);
  return (
    <>
      <div class="compare-frame">
        <img class="compare-after" src={after.url} alt={`After: ${after.prompt}`} width={after.width} height={after.height} />
        <img class="compare-before" src={before.url} alt={`Before: ${before.name}`} style={{ clipPath: `inset(0 ${100 - edge}% 0 0)` }} />
        <span class="compare-label compare-label-before" aria-hidden="true">
          Before
        </span>
        <span class="compare-label compare-label-after" aria-hidden="true">
          After
        </span>
      </div>
      <label class="compare-range">
        <span>Compare before and after</span>
        <input type="range" min={0} max={100} value={edge} aria-valuetext={`${edge}% before`} onInput={(e) => setEdge(Number(e.currentTarget.value))} />
      </label>
    </>
  );
}

function CodeSample({ title, label, code }: { title: string; label: string; code: string }) {
  return (
    <div class="code-sample">
      <div class="code-sample-head">
        <h3>{title}</h3>
        <CopyButton text={code} what={label} />
      </div>
      {/* A region that scrolls sideways: focusable so that a keyboard can scroll it (axe's scrollable-region-focusable), named by its label. */}
      {/* biome-ignore lint/a11y/useSemanticElements: the <pre> is what scrolls and keeps the code's whitespace; a <section> around it could not take the focus for it */}
      {/* biome-ignore lint/a11y/noNoninteractiveTabindex: a scrolling code block must take the keyboard focus so that arrow keys scroll it (WCAG 2.1.1, axe scrollable-region-focusable) */}
      <pre class="code" role="region" tabIndex={0} aria-label={label}>
        {code}
      </pre>
    </div>
  );
}

function EquivalentCalls({ input, keyPrefix }: { input: PlaygroundInput; keyPrefix: string | null }) {
  const key = maskedKey(keyPrefix);
  const origin = window.location.origin;
  const curl = curlCommand(origin, key, input);
  const sdk = sdkCall(origin, key, input);
  return (
    <Card title="The same from your code">
      <p class="muted small">
        What you just did, through the public API with a secret key (shown masked: the dashboard keeps no keys; create one on{' '}
        <Link href={`${BASE}/keys`}>Integration</Link>).
      </p>
      {input.image && (
        <p class="muted small">
          <span class="code">image</span> and <span class="code">mask</span> are uploads of your account, which expire when unused; from your code, send the
          files to <span class="code">POST /api/v1/uploads</span> first.
        </p>
      )}
      <CodeSample title="curl" label="curl command" code={curl} />
      <CodeSample title="TypeScript SDK" label="SDK call" code={sdk} />
    </Card>
  );
}

/** An upload's refusal, told at the field it was for (the upload route names its own field, `image`). */
const atField = (error: unknown, field: 'image' | 'mask'): unknown =>
  error instanceof ApiError ? new ApiError(error.status, error.message, { [field]: error.fieldErrors.image ?? [error.message] }) : error;

export function PlaygroundPage() {
  const styles = useResource<StylesView>(`${BASE}/api/styles`);
  const characters = useResource<{ characters: CharacterView[] }>(`${BASE}/api/characters`);
  const keys = useResource<{ keys: KeyView[] }>(`${BASE}/api/keys`);
  const [form, setForm] = useState<Form>(EMPTY);
  const [run, setRun] = useState<Run | null>(null);
  const { busy, error, run: send } = useAction();
  const following = useRef(new AbortController());
  const [editing, setEditing] = useState<EditImage | null>(null);
  const [pickError, setPickError] = useState<string | undefined>();
  const mask = useRef<MaskHandle | null>(null);
  // The upload of the image being edited, made once (the mask may change between runs, the image does not).
  const uploaded = useRef<{ file: File; id: string } | null>(null);
  // Object URLs of the images picked: a past run's comparison may still show one, so all go when the page does.
  const objectUrls = useRef<string[]>([]);
  useEffect(
    () => () => {
      following.current.abort();
      for (const url of objectUrls.current) URL.revokeObjectURL(url);
    },
    [],
  );
  const secretPrefix = keys.data?.keys.find((k) => k.kind === 'secret')?.prefix ?? null;

  const pick = (file: File) => {
    setPickError(undefined);
    decodeEditImage(file).then(
      (image) => {
        objectUrls.current.push(image.url);
        setEditing(image);
      },
      (e: Error) => setPickError(e.message),
    );
  };

  /** The image's upload id (uploaded once) and the mask's, when one is painted. */
  const uploadEdit = async (image: EditImage): Promise<Pick<PlaygroundInput, 'image' | 'mask'>> => {
    if (uploaded.current?.file !== image.file) {
      const upload = await uploadFile<Upload>(`${BASE}/api/uploads`, 'image', image.file, image.file.name).catch((e) => Promise.reject(atField(e, 'image')));
      uploaded.current = { file: image.file, id: upload.id };
    }
    const painted = await mask.current?.exportMask();
    const maskUpload =
      painted && (await uploadFile<Upload>(`${BASE}/api/uploads`, 'image', painted, 'mask.png').catch((e) => Promise.reject(atField(e, 'mask'))));
    return { image: uploaded.current.id, ...(maskUpload && { mask: maskUpload.id }) };
  };

  /** Runs `asked`; `edit`, the image in the editor to upload first with its mask; `before`, what the comparison shows. */
  const start = (asked: PlaygroundInput, edit: EditImage | null, before: Before | null) => {
    following.current.abort();
    following.current = new AbortController();
    const signal = following.current.signal;
    return send(async () => {
      const input = edit ? { ...asked, ...(await uploadEdit(edit)) } : asked;
      if (input.mode === 'instant') {
        const match = await api<PlaygroundMatch>('POST', `${BASE}/api/playground`, input);
        setRun({ input, before: null, job: null, match, quota: null });
        return;
      }
      const accepted = await api<PlaygroundAccepted>('POST', `${BASE}/api/playground`, input);
      setRun({
        input,
        before,
        job: { jobId: accepted.jobId, status: 'queued', createdAt: new Date().toISOString() },
        match: null,
        quota: accepted.quota,
      });
      await followJob(
        accepted.jobId,
        (job) => setRun((r) => (r && r.job?.jobId === job.jobId ? { ...r, job } : r)),
        signal,
        (progress) => setRun((r) => (r && r.job?.jobId === accepted.jobId ? { ...r, progress } : r)),
      );
    });
  };

  const submit = (event: Event) => {
    event.preventDefault();
    if (editing) void start(editInputOf(form, editing), editing, { url: editing.url, name: editing.file.name });
    else void start(inputOf(form), null, null);
  };
  // A new take: the same request with a fresh seed, so never the cached image (a generation, counted).
  const again = () => run && void start({ ...run.input, mode: 'generate', seed: Math.floor(Math.random() * 2 ** 32) }, null, run.before);
  const editSizeText = editing && Object.values(editSize(editing.width, editing.height)).join('×');
  const set = <K extends keyof Form>(key: K, value: Form[K]) => setForm((f) => ({ ...f, [key]: value }));

  return (
    <>
      <PageHeader title="Playground" description="Try a prompt. Generations count toward your monthly quota like any API call; instant matches are free." />
      <div class="playground">
        <Card>
          <form class="form" onSubmit={submit} aria-label="Generate an image">
            <Field label="Prompt" error={fieldError(error, 'prompt')}>
              {(p) => (
                <textarea
                  {...p}
                  required
                  maxLength={2000}
                  rows={3}
                  value={form.prompt}
                  placeholder="a lighthouse on a cliff at sunset"
                  onInput={(e) => set('prompt', e.currentTarget.value)}
                />
              )}
            </Field>
            <fieldset class="edit-source">
              <legend>Start from an image</legend>
              {editing ? (
                <>
                  <MaskEditor image={editing} handle={mask} onRemove={() => setEditing(null)} />
                  {['image', 'mask'].map(
                    (field) =>
                      fieldError(error, field) && (
                        <p class="field-error" key={field}>
                          {fieldError(error, field)}
                        </p>
                      ),
                  )}
                  <Field
                    label="Strength"
                    hint="How far the result may depart from your image: 0 keeps it, 1 repaints freely."
                    error={fieldError(error, 'strength')}
                  >
                    {(p) => (
                      <input
                        {...p}
                        type="range"
                        min={0}
                        max={1}
                        step={0.05}
                        value={form.strength}
                        aria-valuetext={String(form.strength)}
                        onInput={(e) => set('strength', Number(e.currentTarget.value))}
                      />
                    )}
                  </Field>
                </>
              ) : (
                <ImageDrop onPick={pick} error={pickError ?? fieldError(error, 'image')} />
              )}
            </fieldset>
            <div>
              <fieldset class="segmented">
                <legend>Mode</legend>
                <label class={form.mode === 'generate' ? 'checked' : ''}>
                  <input type="radio" name="mode" value="generate" checked={form.mode === 'generate' || !!editing} onChange={() => set('mode', 'generate')} />
                  Generate
                </label>
                <label class={form.mode === 'instant' && !editing ? 'checked' : ''}>
                  <input
                    type="radio"
                    name="mode"
                    value="instant"
                    disabled={!!editing}
                    checked={form.mode === 'instant' && !editing}
                    onChange={() => set('mode', 'instant')}
                  />
                  Instant
                </label>
              </fieldset>
              <p class="hint">
                {editing
                  ? 'An edit of your image, made by the model; counts toward your quota.'
                  : form.mode === 'instant'
                    ? 'The closest image of the shared library, at once and free.'
                    : 'A new image (or your cached one), made by the model; counts toward your quota.'}
              </p>
            </div>
            <StylePicker styles={styles.data} value={form.style} onChange={(style) => set('style', style)} />
            {fieldError(error, 'style') && <p class="field-error">{fieldError(error, 'style')}</p>}
            <div class="grid-2 tight">
              <Field label="Character" error={fieldError(error, 'character')}>
                {(p) => (
                  <select {...p} value={form.character} onChange={(e) => set('character', e.currentTarget.value)}>
                    <option value="">None</option>
                    {(characters.data?.characters ?? []).map((c) => (
                      <option key={c.id} value={c.id}>
                        {c.name}
                      </option>
                    ))}
                  </select>
                )}
              </Field>
              <Field
                label="Size"
                hint={editing ? "The image's, or the nearest the API takes." : undefined}
                error={fieldError(error, 'width') ?? fieldError(error, 'height')}
              >
                {(p) =>
                  editSizeText ? (
                    <input {...p} readOnly value={editSizeText} />
                  ) : (
                    <select {...p} value={String(form.size)} onChange={(e) => set('size', Number(e.currentTarget.value))}>
                      {SIZES.map((s, i) => (
                        <option key={s.label} value={String(i)}>
                          {s.label}
                        </option>
                      ))}
                    </select>
                  )
                }
              </Field>
              <Field label="Format" error={fieldError(error, 'format')}>
                {(p) => (
                  <select {...p} value={form.format} onChange={(e) => set('format', e.currentTarget.value as Form['format'])}>
                    <option value="webp">WebP</option>
                    <option value="png">PNG</option>
                    <option value="jpeg">JPEG</option>
                  </select>
                )}
              </Field>
              <Field label="Seed" hint="Optional; the same seed gives the same image." error={fieldError(error, 'seed')}>
                {(p) => (
                  <input
                    {...p}
                    type="number"
                    min={0}
                    max={4294967295}
                    step={1}
                    inputMode="numeric"
                    value={form.seed}
                    onInput={(e) => set('seed', e.currentTarget.value)}
                  />
                )}
              </Field>
            </div>
            <Field label="Negative prompt" hint="Optional: what the image should not show." error={fieldError(error, 'negativePrompt')}>
              {(p) => <input {...p} maxLength={2000} value={form.negativePrompt} onInput={(e) => set('negativePrompt', e.currentTarget.value)} />}
            </Field>
            <ErrorAlert
              error={error}
              field={['prompt', 'style', 'character', 'width', 'height', 'format', 'seed', 'negativePrompt', 'image', 'mask', 'strength'].find((f) =>
                fieldError(error, f),
              )}
            />
            <div class="form-actions">
              <button type="submit" class="btn btn-primary" disabled={busy || !form.prompt.trim()}>
                {busy ? 'Working…' : editing ? 'Edit image' : form.mode === 'instant' ? 'Find instantly' : 'Generate'}
              </button>
            </div>
          </form>
        </Card>
        <div class="playground-side">
          <Card title="Result">
            {run ? <Result key={run.job?.jobId ?? run.match?.imageId} run={run} onAgain={again} busy={busy} /> : <p class="muted">Your image shows here.</p>}
          </Card>
          {run && <EquivalentCalls input={run.input} keyPrefix={secretPrefix} />}
        </div>
      </div>
    </>
  );
}
