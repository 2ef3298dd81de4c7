/** Shared building blocks of the dashboard pages: fields, dialogs, copy buttons, states, toasts. */
import type { AnchorHTMLAttributes, ComponentChildren } from 'preact';
import { useCallback, useEffect, useId, useRef, useState } from 'preact/hooks';
import type { JobView } from '@promptpix/contracts';
import { api, errorMessage, fieldError } from './api';
import { onLinkClick } from './router';
import { Icon, type IconName } from './icons';
import { ToastRegion, toast, useToastLayer } from './toasts';

export { toast, ToastRegion } from './toasts';

export function Link({ href, ...props }: AnchorHTMLAttributes & { href: string }) {
  return <a href={href} {...props} onClick={onLinkClick} />;
}

export function PageHeader({ title, description, actions }: { title: string; description?: ComponentChildren; actions?: ComponentChildren }) {
  return (
    <header class="page-header">
      <div>
        <h1 id="page-title" tabIndex={-1}>
          {title}
        </h1>
        {description && <p class="muted">{description}</p>}
      </div>
      {actions && <div class="page-actions">{actions}</div>}
    </header>
  );
}

export function Card({
  title,
  children,
  actions,
  class: className,
}: {
  title?: ComponentChildren;
  children: ComponentChildren;
  actions?: ComponentChildren;
  class?: string;
}) {
  return (
    <section class={`card ${className ?? ''}`}>
      {(title || actions) && (
        <div class="card-head">
          {title && <h2>{title}</h2>}
          {actions}
        </div>
      )}
      {children}
    </section>
  );
}

type FieldProps = {
  label: string;
  hint?: ComponentChildren;
  error?: string;
  children: (props: { id: string; 'aria-describedby'?: string; 'aria-invalid'?: boolean }) => ComponentChildren;
};

/** A labelled control with its hint and the API's message for it. */
export function Field({ label, hint, error, children }: FieldProps) {
  const id = useId();
  const describedBy = [hint ? `${id}-hint` : '', error ? `${id}-error` : ''].filter(Boolean).join(' ') || undefined;
  return (
    <div class={`field${error ? ' has-error' : ''}`}>
      <label for={id}>{label}</label>
      {children({ id, 'aria-describedby': describedBy, 'aria-invalid': error ? true : undefined })}
      {hint && (
        <p class="hint" id={`${id}-hint`}>
          {hint}
        </p>
      )}
      {error && (
        <p class="field-error" id={`${id}-error`}>
          {error}
        </p>
      )}
    </div>
  );
}

/** The form-level message for an API error, unless every problem is shown next to a field. */
export function FormError({ error, fields = [] }: { error: unknown; fields?: string[] }) {
  if (!error) return null;
  const shownAtFields = fields.some((f) => fieldError(error, f));
  return (
    <p class="alert alert-error" role="alert">
      {shownAtFields ? 'Please correct the highlighted fields.' : errorMessage(error)}
    </p>
  );
}

/** An error's message as an alert; nothing without an error, or when it is about `field` (shown next to that control). */
export function ErrorAlert({ error, field }: { error: unknown; field?: string }) {
  if (!error || (field && fieldError(error, field))) return null;
  return (
    <p class="alert alert-error" role="alert">
      {errorMessage(error)}
    </p>
  );
}

/**
 * A form's or button's request: `run(fn)` marks it busy and clears the last error, keeps what `fn`
 * throws in `error` (for the form to show), and ends busy either way.
 */
export function useAction() {
  const [busy, setBusy] = useState(false);
  const [error, setError] = useState<unknown>(null);
  const run = useCallback(async (fn: () => Promise<unknown>): Promise<void> => {
    setBusy(true);
    setError(null);
    try {
      await fn();
    } catch (e) {
      setError(e);
    } finally {
      setBusy(false);
    }
  }, []);
  const reset = useCallback(() => {
    setError(null);
    setBusy(false);
  }, []);
  return { busy, error, setError, run, reset };
}

export function Spinner({ label = 'Loading' }: { label?: string }) {
  return <span class="spinner" role="progressbar" aria-label={label} />;
}

export function Loading({ label = 'Loading…' }: { label?: string }) {
  return (
    <div class="state" role="status" aria-live="polite">
      <Spinner label={label} />
      <span>{label}</span>
    </div>
  );
}

export function ErrorState({ error, onRetry }: { error: unknown; onRetry?: () => void }) {
  return (
    <div class="state state-error" role="alert">
      <strong>Something went wrong</strong>
      <span>{errorMessage(error)}</span>
      {onRetry && (
        <button type="button" class="btn btn-secondary" onClick={onRetry}>
          Try again
        </button>
      )}
    </div>
  );
}

export function EmptyState({ title, children, icon = 'images' }: { title: string; children?: ComponentChildren; icon?: IconName }) {
  return (
    <div class="state state-empty">
      <span class="state-icon">
        <Icon name={icon} size={24} />
      </span>
      <strong>{title}</strong>
      {children && <div class="muted">{children}</div>}
    </div>
  );
}

/** GET-and-keep: the data of one API call, with its loading and error state and a reload. */
export function useResource<T>(path: string | null) {
  const [state, setState] = useState<{ data?: T; error?: unknown; loading: boolean }>({ loading: path !== null });
  const [version, setVersion] = useState(0);
  useEffect(() => {
    if (path === null) return;
    let live = true;
    setState((s) => ({ data: s.data, loading: true }));
    api<T>('GET', path).then(
      (data) => live && setState({ data, loading: false }),
      (error: unknown) => live && setState({ error, loading: false }),
    );
    return () => {
      live = false;
    };
  }, [path, version]);
  const reload = useCallback(() => setVersion((v) => v + 1), []);
  const setData = useCallback((update: (data: T | undefined) => T) => setState((s) => ({ ...s, data: update(s.data) })), []);
  return { ...state, reload, setData };
}

/**
 * A resource's states in place: loading (until its first data), its error with a retry, `empty` where
 * that gives something for the data, else `children(data)`.
 */
export function Loaded<T>({
  resource,
  label,
  empty,
  children,
}: {
  resource: ReturnType<typeof useResource<T>>;
  label: string;
  empty?: (data: T) => ComponentChildren;
  children: (data: T) => ComponentChildren;
}) {
  if (resource.loading && !resource.data) return <Loading label={label} />;
  if (resource.error || !resource.data) return <ErrorState error={resource.error} onRetry={resource.reload} />;
  return <>{empty?.(resource.data) || children(resource.data)}</>;
}

/**
 * A modal <dialog>: focus moves in and is trapped by the browser, Escape closes it, and focus goes
 * back to what opened it. Toasts show inside it while it is open (see ./toasts.tsx).
 */
export function Dialog({
  open,
  title,
  onClose,
  children,
  wide,
}: {
  open: boolean;
  title: string;
  onClose: () => void;
  children: ComponentChildren;
  wide?: boolean;
}) {
  const ref = useRef<HTMLDialogElement>(null);
  const opener = useRef<Element | null>(null);
  const titleId = useId();
  const toastLayer = useToastLayer(open);
  useEffect(() => {
    const dialog = ref.current;
    if (!dialog) return;
    if (open && !dialog.open) {
      opener.current = document.activeElement;
      dialog.showModal();
    }
    if (!open && dialog.open) dialog.close();
    // Closing by Escape or a route change re-renders what lies under the dialog: focus the opener again.
    if (!open && opener.current instanceof HTMLElement && opener.current.isConnected) opener.current.focus();
    if (!open) opener.current = null;
  }, [open]);
  return (
    // biome-ignore lint/a11y/useKeyWithClickEvents: a click on the backdrop closes; the keyboard's way out is Escape, which the modal <dialog> turns into its close event (onClose)
    <dialog
      ref={ref}
      class={`dialog${wide ? ' dialog-wide' : ''}`}
      aria-labelledby={titleId}
      onClose={() => open && onClose()}
      onClick={(event) => {
        if (event.target === ref.current) onClose();
      }}
    >
      {open && (
        <div class="dialog-body">
          <div class="dialog-head">
            <h2 id={titleId}>{title}</h2>
            <button type="button" class="icon-btn" aria-label="Close" onClick={onClose}>
              <Icon name="close" size={20} />
            </button>
          </div>
          {children}
        </div>
      )}
      <ToastRegion layer={toastLayer} />
    </dialog>
  );
}

interface ConfirmRequest {
  title: string;
  message: ComponentChildren;
  confirmLabel: string;
  resolve: (ok: boolean) => void;
}
let showConfirm: ((request: ConfirmRequest) => void) | null = null;

/** Asks before a destructive action; resolves true when the user confirms. */
export function confirmAction(title: string, message: ComponentChildren, confirmLabel = 'Delete'): Promise<boolean> {
  return new Promise((resolve) => (showConfirm ? showConfirm({ title, message, confirmLabel, resolve }) : resolve(window.confirm(title))));
}

/**
 * Asks (see confirmAction), then sends the DELETE: on success `onDeleted` updates the page and the
 * `deleted` toast shows; a failure shows as a toast `${failure}: message`.
 */
export async function confirmAndDelete({
  title,
  message,
  confirmLabel,
  path,
  onDeleted,
  deleted,
  failure = 'Could not delete',
}: {
  title: string;
  message: ComponentChildren;
  confirmLabel: string;
  path: string;
  onDeleted: () => void;
  deleted: string;
  failure?: string;
}): Promise<void> {
  if (!(await confirmAction(title, message, confirmLabel))) return;
  try {
    await api('DELETE', path);
    onDeleted();
    toast(deleted);
  } catch (e) {
    toast(`${failure}: ${errorMessage(e)}`);
  }
}

export function ConfirmHost() {
  const [request, setRequest] = useState<ConfirmRequest | null>(null);
  useEffect(() => {
    showConfirm = setRequest;
    return () => {
      showConfirm = null;
    };
  }, []);
  const answer = (ok: boolean) => {
    request?.resolve(ok);
    setRequest(null);
  };
  return (
    <Dialog open={request !== null} title={request?.title ?? ''} onClose={() => answer(false)}>
      <div class="confirm">
        <div class="muted">{request?.message}</div>
        <div class="form-actions">
          {/* biome-ignore lint/a11y/noAutofocus: inside the modal <dialog>, whose showModal() focuses the autofocus element; Cancel, the safe answer to a destructive confirmation, is the one to start on */}
          <button type="button" class="btn btn-secondary" onClick={() => answer(false)} autoFocus>
            Cancel
          </button>
          <button type="button" class="btn btn-danger" onClick={() => answer(true)}>
            {request?.confirmLabel}
          </button>
        </div>
      </div>
    </Dialog>
  );
}

async function copyText(text: string): Promise<boolean> {
  try {
    await navigator.clipboard.writeText(text);
    return true;
  } catch {
    const area = document.createElement('textarea');
    area.value = text;
    area.setAttribute('readonly', '');
    area.className = 'offscreen';
    document.body.appendChild(area);
    area.select();
    let ok = false;
    try {
      ok = document.execCommand('copy');
    } catch {
      ok = false;
    }
    area.remove();
    return ok;
  }
}

export function CopyButton({ text, label = 'Copy', what }: { text: string; label?: string; what: string }) {
  const [state, setState] = useState<'idle' | 'copied' | 'failed'>('idle');
  useEffect(() => {
    if (state === 'idle') return;
    const timer = setTimeout(() => setState('idle'), 2000);
    return () => clearTimeout(timer);
  }, [state]);
  return (
    <button
      type="button"
      class="btn btn-secondary btn-small"
      aria-label={`${label} ${what}`}
      onClick={async () => setState((await copyText(text)) ? 'copied' : 'failed')}
    >
      <span aria-live="polite">{state === 'copied' ? 'Copied ✓' : state === 'failed' ? 'Select and copy' : label}</span>
    </button>
  );
}

/** Read-only text (a key, a URL, a snippet) with its Copy button. */
export function CopyField({ label, value, multiline }: { label: string; value: string; multiline?: boolean }) {
  return (
    <Field label={label}>
      {(props) => (
        <div class="copy-field">
          {multiline ? (
            <textarea
              {...props}
              class="code"
              readOnly
              rows={Math.min(8, value.split('\n').length + 1)}
              value={value}
              onFocus={(e) => e.currentTarget.select()}
            />
          ) : (
            <input {...props} class="code" readOnly value={value} onFocus={(e) => e.currentTarget.select()} />
          )}
          <CopyButton text={value} what={label.toLowerCase()} />
        </div>
      )}
    </Field>
  );
}

export const formatDate = (iso: string | null | undefined, withTime = false): string => {
  if (!iso) return '—';
  const date = new Date(iso);
  return withTime
    ? date.toLocaleString(undefined, { year: 'numeric', month: 'short', day: 'numeric', hour: '2-digit', minute: '2-digit' })
    : date.toLocaleDateString(undefined, { year: 'numeric', month: 'short', day: 'numeric' });
};

export const formatNumber = (n: number): string => n.toLocaleString();

/**
 * Follows a job at 1 s intervals until it completes or fails; `onUpdate` sees every state.
 * Stops when the signal aborts (the page or dialog went away).
 */
export async function pollJob(jobId: string, onUpdate: (job: JobView) => void, signal: AbortSignal): Promise<JobView | null> {
  for (;;) {
    if (signal.aborted) return null;
    const job = await api<JobView>('GET', `/dashboard/api/jobs/${encodeURIComponent(jobId)}`);
    if (signal.aborted) return null;
    onUpdate(job);
    if (job.status === 'completed' || job.status === 'failed') return job;
    await new Promise((resolve) => setTimeout(resolve, 1000));
  }
}

/**
 * The job of a run that starts one: `restart()` stops following the run before and forgets its job,
 * `follow(jobId)` polls the new one into `job` (see pollJob) and resolves with its end state, or null
 * once stopped by the next restart or by unmounting.
 */
export function useJob() {
  const [job, setJob] = useState<JobView | null>(null);
  const controller = useRef(new AbortController());
  useEffect(() => () => controller.current.abort(), []);
  const restart = useCallback(() => {
    controller.current.abort();
    controller.current = new AbortController();
    setJob(null);
  }, []);
  const follow = useCallback((jobId: string) => pollJob(jobId, setJob, controller.current.signal), []);
  return { job, restart, follow };
}

export function JobProgress({ job }: { job: JobView | null }) {
  const steps: Array<JobView['status']> = ['queued', 'processing', 'completed'];
  const current = job ? steps.indexOf(job.status) : 0;
  return (
    <ol class="job-steps" aria-label="Job progress">
      {steps.map((step, i) => (
        <li
          key={step}
          class={i < current || job?.status === 'completed' ? 'done' : i === current ? 'current' : ''}
          aria-current={i === current && job?.status !== 'completed' ? 'step' : undefined}
        >
          {step === 'queued' ? 'Queued' : step === 'processing' ? 'Generating' : 'Done'}
        </li>
      ))}
    </ol>
  );
}

export function Badge({ children, tone = 'neutral' }: { children: ComponentChildren; tone?: 'neutral' | 'accent' | 'success' | 'warning' | 'danger' }) {
  return <span class={`badge badge-${tone}`}>{children}</span>;
}
