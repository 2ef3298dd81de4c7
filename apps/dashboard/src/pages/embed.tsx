import { useState } from 'preact/hooks';
import type { EmbedView, PreviewResult } from '@promptpix/contracts';
import { api, fieldError } from '../api';
import { rememberPublishableKey, rememberedPublishableKey } from '../keys-store';
import { BASE } from '../router';
import { Card, CopyField, ErrorAlert, ErrorState, Field, JobProgress, Link, Loading, PageHeader, useAction, useJob, useResource } from '../ui';
import { KeyForm } from './keys';
import { StyleOptions, useStyleOptions } from './images';

function Preview() {
  const { options } = useStyleOptions();
  const [prompt, setPrompt] = useState('');
  const [style, setStyle] = useState('');
  const [result, setResult] = useState<PreviewResult | null>(null);
  const { job, restart, follow } = useJob();
  const { busy, error, run } = useAction();

  const submit = (event: Event) => {
    event.preventDefault();
    restart();
    setResult(null);
    void run(async () => {
      const answer = await api<PreviewResult>('POST', `${BASE}/api/preview`, { prompt: prompt.trim(), ...(style ? { style } : {}) });
      setResult(answer);
      if (answer.status === 'generating' && answer.jobId) {
        const done = await follow(answer.jobId);
        if (done)
          setResult(
            done.status === 'completed' ? { status: 'ready', imageUrl: done.imageUrl, imageId: done.imageId } : { status: 'failed', error: done.error },
          );
      }
    });
  };

  return (
    <div class="preview">
      <form class="form" onSubmit={submit}>
        <Field label="Prompt" hint="What the page script would send for one element." error={fieldError(error, 'prompt')}>
          {(p) => <input {...p} required value={prompt} onInput={(e) => setPrompt(e.currentTarget.value)} placeholder="a lighthouse at dawn, watercolor" />}
        </Field>
        <Field label="Style (optional)" error={fieldError(error, 'style')}>
          {(p) => (
            <select {...p} value={style} onChange={(e) => setStyle(e.currentTarget.value)}>
              <option value="">Default</option>
              <StyleOptions options={options} />
            </select>
          )}
        </Field>
        <div class="form-actions">
          <button type="submit" class="btn btn-primary" disabled={busy || !prompt.trim()}>
            {busy ? 'Working…' : 'Preview'}
          </button>
        </div>
        <ErrorAlert error={error} field="prompt" />
      </form>
      <div class="preview-stage" aria-live="polite" aria-busy={busy}>
        {result?.status === 'ready' && result.imageUrl ? (
          <img src={result.imageUrl} alt={`Preview: ${prompt}`} />
        ) : result?.status === 'failed' ? (
          <p class="alert alert-error">The preview failed: {result.error ?? 'unknown error'}</p>
        ) : result?.status === 'generating' ? (
          <div class="preview-wait">
            <p>Generating a new image…</p>
            <JobProgress job={job} />
          </div>
        ) : (
          <p class="muted">The image appears here, resolved exactly as the page script would resolve it.</p>
        )}
      </div>
    </div>
  );
}

export function EmbedPage({ handle }: { handle: string }) {
  const embed = useResource<EmbedView>(`${BASE}/api/embed`);
  const [key, setKey] = useState<string | null>(() => rememberedPublishableKey(handle));
  const [creating, setCreating] = useState(false);

  if (embed.loading && !embed.data)
    return (
      <>
        <PageHeader title="Embed" />
        <Loading label="Loading…" />
      </>
    );
  if (embed.error || !embed.data)
    return (
      <>
        <PageHeader title="Embed" />
        <ErrorState error={embed.error} onRetry={embed.reload} />
      </>
    );
  const data = embed.data;
  // Only a key that is still live: a revoked one would make the snippet fail silently.
  const liveKey = key && data.publishableKeys.some((k) => key.startsWith(k.prefix)) ? key : null;
  const snippet = liveKey ? data.snippetTemplate.split('{{KEY}}').join(liveKey) : data.snippetTemplate;

  return (
    <>
      <PageHeader title="Embed" description="Put generated images in any web page with one script tag and plain <img> elements." />
      <Card title="Your snippet">
        <CopyField label="Script tag and sample image" value={snippet} multiline />
        {liveKey ? (
          <p class="hint">This snippet has the publishable key you created in this browser filled in.</p>
        ) : (
          <div class="callout">
            <p>
              Replace <span class="code">{'{{KEY}}'}</span> with one of your publishable keys. PromptPix shows a key only once, when it is created
              {data.publishableKeys.length ? <> (yours: {data.publishableKeys.map((k) => `${k.prefix}…`).join(', ')})</> : null}.
            </p>
            {creating ? (
              <KeyForm
                kind="publishable"
                submitLabel="Create and fill in"
                onCreated={(created) => {
                  rememberPublishableKey(handle, created.secret);
                  setKey(created.secret);
                  setCreating(false);
                  embed.reload();
                }}
              />
            ) : (
              <button type="button" class="btn btn-primary" onClick={() => setCreating(true)}>
                Create a publishable key for this snippet
              </button>
            )}
          </div>
        )}
        <p class="muted small">
          Script: <span class="code">{data.scriptUrl}</span> · Manage keys in <Link href={`${BASE}/keys`}>Integration</Link>.
        </p>
      </Card>
      <Card title="Live preview">
        <Preview />
      </Card>
    </>
  );
}
