import { useEffect, useState } from 'preact/hooks';
import type { SessionView, SignInRequested } from '@promptpix/contracts';
import { ApiError, api, errorMessage, fieldError } from '../api';
import { BASE } from '../router';
import { ErrorAlert, Field, Spinner, useAction } from '../ui';
import { Icon } from '../icons';

/** Reads `#token=…` once and strips the fragment from the address bar (and from history). */
function takeToken(): string | null {
  const match = /(?:^#|&)token=([^&]+)/.exec(location.hash);
  if (!match) return null;
  history.replaceState(history.state, '', location.pathname + location.search);
  try {
    return decodeURIComponent(match[1]);
  } catch {
    return match[1];
  }
}

type Mode = { kind: 'email' } | { kind: 'sent'; email: string; message: string } | { kind: 'token'; token: string };

export function SignInPage({ onSignedIn }: { onSignedIn: (session: SessionView) => void }) {
  const [mode, setMode] = useState<Mode>(() => {
    const token = takeToken();
    return token ? { kind: 'token', token } : { kind: 'email' };
  });
  const [email, setEmail] = useState('');
  const { busy, error, setError, run, reset } = useAction();

  useEffect(() => {
    document.title = 'Sign in · PromptPix';
    // A link opened in the tab that already shows this page only changes the fragment.
    const onHash = () => {
      const token = takeToken();
      if (token) {
        reset();
        setMode({ kind: 'token', token });
      }
    };
    window.addEventListener('hashchange', onHash);
    return () => window.removeEventListener('hashchange', onHash);
  }, []);

  const requestLink = (event: Event) => {
    event.preventDefault();
    void run(async () => {
      const answer = await api<SignInRequested>('POST', `${BASE}/api/sign-in`, { email: email.trim() });
      setMode({ kind: 'sent', email: email.trim(), message: answer?.message ?? '' });
    });
  };

  // On success onSignedIn navigates away: this page is gone before `run` ends busy, so the button stays busy till then.
  const confirm = (token: string) => run(async () => onSignedIn(await api<SessionView>('POST', `${BASE}/api/sign-in/confirm`, { token })));

  const status = error instanceof ApiError ? error.status : 0;
  // 410 says which (expired, already used); 400 is a link cut short or mistyped.
  const linkProblem =
    status === 410
      ? { title: `${errorMessage(error)}.`, advice: 'Each link works once and only for a while. Request a new one below.' }
      : status === 400
        ? { title: 'This sign-in link is not valid.', advice: 'Make sure you opened the whole link from the e-mail, or request a new one below.' }
        : null;

  return (
    <div class="auth-page">
      <main class="auth-card card" id="main">
        <span class="brand">
          <span class="brand-mark" aria-hidden="true" />
          PromptPix
        </span>
        {mode.kind === 'token' && (
          <>
            <h1 id="page-title">Sign in to PromptPix</h1>
            {!linkProblem && <p class="muted">You opened a sign-in link. Continue to open your dashboard on this device.</p>}
            {error ? (
              <div class="alert alert-error" role="alert">
                <strong>{linkProblem?.title ?? errorMessage(error)}</strong>
                {linkProblem && <span> {linkProblem.advice}</span>}
              </div>
            ) : null}
            {error && (status === 410 || status === 400) ? (
              <button
                type="button"
                class="btn btn-primary btn-block"
                onClick={() => {
                  setError(null);
                  setMode({ kind: 'email' });
                  // The button goes away with the link view: keep keyboard focus in the form that replaces it.
                  requestAnimationFrame(() => document.querySelector<HTMLInputElement>('input[name="email"]')?.focus());
                }}
              >
                Request a new link
              </button>
            ) : (
              <button type="button" class="btn btn-primary btn-block" disabled={busy} onClick={() => void confirm(mode.token)}>
                {busy ? <Spinner label="Signing in" /> : null}
                {busy ? 'Signing in…' : 'Sign in'}
              </button>
            )}
          </>
        )}
        {mode.kind === 'email' && (
          <>
            <h1 id="page-title">Sign in</h1>
            <p class="muted">Enter the e-mail address of your PromptPix account and we will send you a sign-in link. No password needed.</p>
            <form onSubmit={requestLink} noValidate={false}>
              <Field label="E-mail address" error={fieldError(error, 'email')}>
                {(props) => (
                  <input
                    {...props}
                    type="email"
                    name="email"
                    autoComplete="email"
                    required
                    value={email}
                    onInput={(e) => setEmail(e.currentTarget.value)}
                    placeholder="you@example.com"
                  />
                )}
              </Field>
              <ErrorAlert error={error} field="email" />
              <button type="submit" class="btn btn-primary btn-block" disabled={busy}>
                {busy ? 'Sending…' : 'Send sign-in link'}
              </button>
            </form>
          </>
        )}
        {mode.kind === 'sent' && (
          <>
            <span class="state-icon big">
              <Icon name="mail" size={28} />
            </span>
            <h1 id="page-title">Check your inbox</h1>
            <p role="status">
              If <strong>{mode.email}</strong> belongs to a PromptPix account, a sign-in link is on its way. It works once and expires soon.
            </p>
            <button type="button" class="btn btn-secondary btn-block" onClick={() => setMode({ kind: 'email' })}>
              Use a different address
            </button>
          </>
        )}
      </main>
      <footer class="auth-foot muted small">Self-hosted image generation · PromptPix</footer>
    </div>
  );
}
