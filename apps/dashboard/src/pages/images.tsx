import { useEffect, useState } from 'preact/hooks';
import type { ImageDetail, ImagePage, ImageSummary, PermalinkView, RegenerateAccepted, StylesView } from '@promptpix/contracts';
import { api, errorMessage, fieldError } from '../api';
import { BASE, navigate } from '../router';
import { Icon } from '../icons';
import {
  Badge,
  Card,
  CopyButton,
  Dialog,
  EmptyState,
  ErrorAlert,
  ErrorState,
  Field,
  JobProgress,
  Link,
  Loading,
  PageHeader,
  confirmAction,
  formatDate,
  toast,
  useAction,
  useJob,
  useResource,
} from '../ui';

interface Filters {
  q: string;
  style: string;
  from: string;
  to: string;
}
const NO_FILTERS: Filters = { q: '', style: '', from: '', to: '' };

/** Midnight at the start of a picked day (days later), in this browser's time zone, as an instant. */
const localMidnight = (day: string, days = 0) => {
  const date = new Date(`${day}T00:00:00`);
  date.setDate(date.getDate() + days);
  return date.toISOString();
};

const queryOf = (filters: Filters, cursor?: string) => {
  const params = new URLSearchParams();
  if (filters.q) params.set('q', filters.q);
  if (filters.style) params.set('style', filters.style);
  // The days the user picked are local days: from the first's midnight to the midnight after the last.
  if (filters.from) params.set('from', localMidnight(filters.from));
  if (filters.to) params.set('to', localMidnight(filters.to, 1));
  if (cursor) params.set('cursor', cursor);
  params.set('limit', '24');
  return `${BASE}/api/images?${params}`;
};

/** Style names for filters and forms: presets the plan includes, then the account's own. */
export function useStyleOptions() {
  const styles = useResource<StylesView>(`${BASE}/api/styles`);
  const options = [
    ...(styles.data?.own ?? []).map((s) => ({ value: s.name, label: `${s.name} (yours)` })),
    ...(styles.data?.presets ?? []).filter((p) => !p.locked).map((p) => ({ value: p.id, label: p.name })),
  ];
  return { options, styles };
}

/** The <option>s of useStyleOptions' options, for a style <select>. */
export function StyleOptions({ options }: { options: Array<{ value: string; label: string }> }) {
  return (
    <>
      {options.map((o) => (
        <option key={o.value} value={o.value}>
          {o.label}
        </option>
      ))}
    </>
  );
}

function ImageCard({ image }: { image: ImageSummary }) {
  return (
    <li class={`image-card${image.rejected ? ' is-rejected' : ''}`}>
      <Link href={`${BASE}/images/${encodeURIComponent(image.id)}`} class="image-card-link">
        <div class="thumb">
          <img src={image.url} alt="" loading="lazy" width={image.width} height={image.height} />
          <div class="thumb-badges">
            {image.pinned && <Badge tone="accent">Pinned</Badge>}
            {image.rejected && <Badge tone="danger">Rejected</Badge>}
          </div>
        </div>
        <div class="image-card-body">
          <p class="prompt-clamp">{image.prompt}</p>
          <p class="muted small">
            {image.style ?? 'No style'} · {formatDate(image.createdAt)}
          </p>
        </div>
      </Link>
    </li>
  );
}

export function ImagesPage({ imageId }: { imageId: string | null }) {
  const [draft, setDraft] = useState<Filters>(NO_FILTERS);
  const [filters, setFilters] = useState<Filters>(NO_FILTERS);
  const [images, setImages] = useState<ImageSummary[]>([]);
  const [cursor, setCursor] = useState<string | null>(null);
  const [state, setState] = useState<{ loading: boolean; more: boolean; error: unknown }>({ loading: true, more: false, error: null });
  const [version, setVersion] = useState(0);
  const { options } = useStyleOptions();

  useEffect(() => {
    let live = true;
    setState({ loading: true, more: false, error: null });
    api<ImagePage>('GET', queryOf(filters)).then(
      (page) => {
        if (!live) return;
        setImages(page.images);
        setCursor(page.nextCursor);
        setState({ loading: false, more: false, error: null });
      },
      (error: unknown) => live && setState({ loading: false, more: false, error }),
    );
    return () => {
      live = false;
    };
  }, [filters, version]);

  const loadMore = async () => {
    if (!cursor) return;
    setState((s) => ({ ...s, more: true }));
    try {
      const page = await api<ImagePage>('GET', queryOf(filters, cursor));
      setImages((list) => [...list, ...page.images.filter((i) => !list.some((x) => x.id === i.id))]);
      setCursor(page.nextCursor);
      setState({ loading: false, more: false, error: null });
    } catch (error) {
      setState({ loading: false, more: false, error: null });
      toast(`Could not load more images: ${errorMessage(error)}`);
    }
  };

  const filtered = Object.values(filters).some(Boolean);
  const onChanged = (image: ImageDetail) => setImages((list) => list.map((i) => (i.id === image.id ? { ...i, ...image } : i)));

  return (
    <>
      <PageHeader title="Images" description="Everything generated with your keys, newest first." />
      <Card class="filters-card">
        <search aria-label="Filter images">
          <form
            class="filters"
            onSubmit={(e) => {
              e.preventDefault();
              setFilters({ ...draft, q: draft.q.trim() });
            }}
          >
            <Field label="Prompt contains">
              {(p) => (
                <input {...p} type="search" value={draft.q} placeholder="e.g. lighthouse" onInput={(e) => setDraft({ ...draft, q: e.currentTarget.value })} />
              )}
            </Field>
            <Field label="Style">
              {(p) => (
                <select {...p} value={draft.style} onChange={(e) => setDraft({ ...draft, style: e.currentTarget.value })}>
                  <option value="">Any style</option>
                  <StyleOptions options={options} />
                </select>
              )}
            </Field>
            <Field label="From">
              {(p) => (
                <input {...p} type="date" value={draft.from} max={draft.to || undefined} onInput={(e) => setDraft({ ...draft, from: e.currentTarget.value })} />
              )}
            </Field>
            <Field label="To">
              {(p) => (
                <input {...p} type="date" value={draft.to} min={draft.from || undefined} onInput={(e) => setDraft({ ...draft, to: e.currentTarget.value })} />
              )}
            </Field>
            <div class="filters-actions">
              <button type="submit" class="btn btn-primary">
                Apply
              </button>
              {filtered && (
                <button
                  type="button"
                  class="btn btn-ghost"
                  onClick={() => {
                    setDraft(NO_FILTERS);
                    setFilters(NO_FILTERS);
                  }}
                >
                  Clear
                </button>
              )}
            </div>
          </form>
        </search>
      </Card>
      {state.loading ? (
        <Loading label="Loading images…" />
      ) : state.error ? (
        <ErrorState error={state.error} onRetry={() => setVersion((v) => v + 1)} />
      ) : images.length === 0 ? (
        <EmptyState title={filtered ? 'No images match these filters' : 'No images yet'} icon="images">
          {filtered ? 'Try a wider date range or another prompt.' : 'Images you generate through the API or the embed script appear here.'}
        </EmptyState>
      ) : (
        <>
          <ul class="image-grid" aria-label="Images">
            {images.map((image) => (
              <ImageCard key={image.id} image={image} />
            ))}
          </ul>
          <div class="load-more">
            {cursor ? (
              <button type="button" class="btn btn-secondary" onClick={() => void loadMore()} disabled={state.more}>
                {state.more ? 'Loading…' : 'Load more'}
              </button>
            ) : (
              <p class="muted small">You have reached the oldest image.</p>
            )}
          </div>
        </>
      )}
      <ImageDialog imageId={imageId} onClose={() => navigate(`${BASE}/images`)} onChanged={onChanged} onCreated={() => setVersion((v) => v + 1)} />
    </>
  );
}

function ImageDialog({
  imageId,
  onClose,
  onChanged,
  onCreated,
}: {
  imageId: string | null;
  onClose: () => void;
  onChanged: (image: ImageDetail) => void;
  onCreated: () => void;
}) {
  return (
    <Dialog open={imageId !== null} title="Image details" onClose={onClose} wide>
      {imageId && <ImageDetailView key={imageId} imageId={imageId} onChanged={onChanged} onCreated={onCreated} />}
    </Dialog>
  );
}

function ImageDetailView({ imageId, onChanged, onCreated }: { imageId: string; onChanged: (image: ImageDetail) => void; onCreated: () => void }) {
  const detail = useResource<ImageDetail>(`${BASE}/api/images/${encodeURIComponent(imageId)}`);
  const {
    busy,
    error: actionError,
    flag,
  } = useImageFlags((updated) => {
    detail.setData(() => updated);
    onChanged(updated);
  });

  if (detail.loading && !detail.data) return <Loading label="Loading image…" />;
  if (detail.error || !detail.data) return <ErrorState error={detail.error ?? new Error('Not found')} onRetry={detail.reload} />;
  const image = detail.data;

  return (
    <div class="detail">
      <div class="detail-media">
        <img src={image.url} alt={image.prompt} width={image.width} height={image.height} />
      </div>
      <div class="detail-side">
        <div class="detail-badges">
          {image.pinned && <Badge tone="accent">Pinned</Badge>}
          {image.rejected && <Badge tone="danger">Rejected</Badge>}
          {image.permalinks.map((p) => (
            <Badge key={p}>
              <Icon name="link" size={12} /> {p}
            </Badge>
          ))}
        </div>
        <p class="detail-prompt">{image.prompt}</p>
        <dl class="meta">
          <dt>Style</dt>
          <dd>{image.style ?? '—'}</dd>
          <dt>Size</dt>
          <dd>
            {image.width}×{image.height} {image.format.toUpperCase()}
          </dd>
          <dt>Seed</dt>
          <dd class="code">{image.seed}</dd>
          {image.negativePrompt && (
            <>
              <dt>Negative prompt</dt>
              <dd>{image.negativePrompt}</dd>
            </>
          )}
          <dt>Created</dt>
          <dd>{formatDate(image.createdAt, true)}</dd>
        </dl>
        <div class="detail-actions">
          <ImageFlagButtons image={image} busy={busy} onFlag={flag} />
        </div>
        <ErrorAlert error={actionError} />
        <h3>Downloads</h3>
        <ul class="downloads">
          {image.downloads.map((d) => (
            <li key={d.url}>
              <a href={d.url} download>
                {d.label}
              </a>
              <span class="muted small">
                {d.width}×{d.height} · {d.format.toUpperCase()}
              </span>
            </li>
          ))}
        </ul>
        <SavePermalink
          image={image}
          onSaved={(name) => {
            const updated = { ...image, permalinks: image.permalinks.includes(name) ? image.permalinks : [...image.permalinks, name] };
            detail.setData(() => updated);
            onChanged(updated);
          }}
        />
        <Regenerate image={image} onCreated={onCreated} />
      </div>
    </div>
  );
}

type FlagAction = 'pin' | 'unpin' | 'reject';

/** Pin, unpin and reject through the dashboard API, asking before a reject; `onUpdated` gets the image as it is now. */
export function useImageFlags(onUpdated: (image: ImageDetail) => void) {
  const { busy, error, run } = useAction();
  const flag = async (image: ImageDetail, action: FlagAction) => {
    if (
      action === 'reject' &&
      !(await confirmAction(
        'Reject this image?',
        'A rejected image is never served again from the cache or the library, and new requests for this prompt generate a fresh image. This cannot be undone.',
        'Reject image',
      ))
    )
      return;
    await run(async () => {
      onUpdated(await api<ImageDetail>('POST', `${BASE}/api/images/${encodeURIComponent(image.id)}/${action}`));
      toast(action === 'pin' ? 'Image pinned' : action === 'unpin' ? 'Image unpinned' : 'Image rejected');
    });
  };
  return { busy, error, flag };
}

/** Pin or Unpin, and Reject… while the image is not rejected. */
export function ImageFlagButtons({
  image,
  busy,
  onFlag,
}: {
  image: ImageDetail;
  busy: boolean;
  onFlag: (image: ImageDetail, action: FlagAction) => Promise<void>;
}) {
  return (
    <>
      {image.pinned ? (
        <button type="button" class="btn btn-secondary" disabled={busy} onClick={() => void onFlag(image, 'unpin')}>
          Unpin
        </button>
      ) : (
        <button type="button" class="btn btn-secondary" disabled={busy || image.rejected} onClick={() => void onFlag(image, 'pin')}>
          Pin
        </button>
      )}
      {!image.rejected && (
        <button type="button" class="btn btn-danger-outline" disabled={busy} onClick={() => void onFlag(image, 'reject')}>
          Reject…
        </button>
      )}
    </>
  );
}

/** What the server accepts (@promptpix/contracts imagePermalinkSchema); its own message shows when it refuses one. */
const PERMALINK_NAME_RULE = 'Letters, digits and . _ ~ - (up to 200 characters), e.g. hero-banner.';

export function SavePermalink({ image, onSaved }: { image: ImageDetail; onSaved: (name: string) => void }) {
  const permalinks = useResource<{ permalinks: PermalinkView[] }>(`${BASE}/api/permalinks`);
  const [name, setName] = useState('');
  const [saved, setSaved] = useState<PermalinkView | null>(null);
  const { busy, error, run } = useAction();
  const existing = (permalinks.data?.permalinks ?? []).map((p) => p.name).filter((n) => !image.permalinks.includes(n));

  const save = (event: Event) => {
    event.preventDefault();
    void run(async () => {
      const permalink = await api<PermalinkView>('POST', `${BASE}/api/images/${encodeURIComponent(image.id)}/permalink`, { name: name.trim() });
      setSaved(permalink);
      setName('');
      onSaved(permalink.name);
      permalinks.reload();
      toast(`Saved to permalink “${permalink.name}”`);
    });
  };

  return (
    <form class="subsection" onSubmit={save} aria-label="Save as permalink">
      <h3>Save as permalink</h3>
      <Field
        label="Permalink name"
        hint={`${PERMALINK_NAME_RULE}${existing.length ? ' Or pick one of your permalinks to add this image to it.' : ''}`}
        error={fieldError(error, 'name')}
      >
        {(p) => (
          <div class="inline-form">
            <input
              {...p}
              list="permalink-names"
              value={name}
              required
              maxLength={200}
              placeholder="hero-banner"
              onInput={(e) => setName(e.currentTarget.value)}
              autoComplete="off"
            />
            <datalist id="permalink-names">
              {existing.map((n) => (
                <option key={n} value={n} />
              ))}
            </datalist>
            <button type="submit" class="btn btn-primary" disabled={busy || !name.trim()}>
              {busy ? 'Saving…' : 'Save'}
            </button>
          </div>
        )}
      </Field>
      {existing.length > 0 && (
        <fieldset class="chips" aria-label="Existing permalinks">
          {existing.slice(0, 8).map((n) => (
            <button type="button" key={n} class="chip" onClick={() => setName(n)} aria-pressed={name === n}>
              {n}
            </button>
          ))}
        </fieldset>
      )}
      <ErrorAlert error={error} field="name" />
      {saved && (
        <div class="saved-permalink">
          <a href={saved.url} target="_blank" rel="noopener" class="code small">
            {saved.url}
          </a>
          <CopyButton text={saved.url} what="permanent URL" />
        </div>
      )}
    </form>
  );
}

function Regenerate({ image, onCreated }: { image: ImageDetail; onCreated: () => void }) {
  const { job, restart, follow } = useJob();
  const { busy: running, error, run } = useAction();

  const start = () => {
    restart();
    return run(async () => {
      const accepted = await api<RegenerateAccepted>('POST', `${BASE}/api/images/${encodeURIComponent(image.id)}/regenerate`);
      const done = await follow(accepted.jobId);
      if (done?.status === 'completed') onCreated();
    });
  };

  return (
    <div class="subsection">
      <h3>Regenerate</h3>
      <p class="muted small">Makes a new image from the same prompt and style with a new seed. It counts toward your quota.</p>
      <button type="button" class="btn btn-secondary" disabled={running} onClick={() => void start()}>
        {running ? 'Regenerating…' : 'Regenerate'}
      </button>
      {(running || job) && (
        <div class="regen" aria-live="polite">
          <JobProgress job={job} />
          {job?.status === 'failed' && <p class="alert alert-error">The job failed: {job.error ?? 'unknown error'}</p>}
          {job?.status === 'completed' && job.imageUrl && (
            <figure class="regen-result">
              <img src={job.imageUrl} alt={`Regenerated: ${image.prompt}`} />
              <figcaption>New image ready. {job.imageId && <Link href={`${BASE}/images/${encodeURIComponent(job.imageId)}`}>Open it</Link>}</figcaption>
            </figure>
          )}
        </div>
      )}
      <ErrorAlert error={error} />
    </div>
  );
}
