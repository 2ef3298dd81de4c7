/** The account dashboard: a Preact single-page app served at /dashboard (see ../page-routes.ts). */
import './app.css';
import { render, type ComponentChildren } from 'preact';
import { useEffect, useRef, useState } from 'preact/hooks';
import type { SessionView } from '@promptpix/contracts';
import { ApiError, api, setSession } from './api';
import { BASE, navigate, usePath } from './router';
import { ConfirmHost, ErrorState, Link, ToastRegion } from './ui';
import { Icon, type IconName } from './icons';
import { SignInPage } from './pages/sign-in';
import { ImagesPage } from './pages/images';
import { PermalinksPage } from './pages/permalinks';
import { KeysPage } from './pages/keys';
import { CharactersPage } from './pages/characters';
import { StylesPage } from './pages/styles';
import { UsagePage } from './pages/usage';
import { EmbedPage } from './pages/embed';
import { PlaygroundPage } from './pages/playground';

interface NavItem {
  path: string;
  label: string;
  icon: IconName;
  title: string;
}

const NAV: Array<{ group: string; items: NavItem[] }> = [
  { group: 'Create', items: [{ path: 'playground', label: 'Playground', icon: 'spark', title: 'Playground' }] },
  {
    group: 'Library',
    items: [
      { path: 'images', label: 'Images', icon: 'images', title: 'Images' },
      { path: 'permalinks', label: 'Permalinks', icon: 'link', title: 'Permalinks' },
      { path: 'characters', label: 'Characters', icon: 'user', title: 'Characters' },
      { path: 'styles', label: 'Styles', icon: 'brush', title: 'Styles' },
    ],
  },
  { group: 'Insights', items: [{ path: 'usage', label: 'Usage', icon: 'chart', title: 'Usage' }] },
  {
    group: 'Settings',
    items: [
      { path: 'keys', label: 'Integration', icon: 'key', title: 'Integration' },
      { path: 'embed', label: 'Embed', icon: 'code', title: 'Embed' },
    ],
  },
];

const PLAN_LABEL: Record<string, string> = { free: 'Free', hobby: 'Hobby', pro: 'Pro', business: 'Business', enterprise: 'Enterprise' };

function Brand() {
  return (
    <span class="brand">
      <span class="brand-mark" aria-hidden="true" />
      PromptPix
    </span>
  );
}

function Page({ section, rest, session }: { section: string; rest: string[]; session: SessionView }) {
  switch (section) {
    case 'playground':
      return <PlaygroundPage />;
    case 'images':
      return <ImagesPage imageId={rest[0] ?? null} />;
    case 'permalinks':
      return <PermalinksPage />;
    case 'keys':
      return <KeysPage handle={session.account.handle} />;
    case 'characters':
      return <CharactersPage />;
    case 'styles':
      return <StylesPage />;
    case 'usage':
      return <UsagePage />;
    case 'embed':
      return <EmbedPage handle={session.account.handle} />;
    default:
      return (
        <div class="card">
          <h1 id="page-title" tabIndex={-1}>
            Page not found
          </h1>
          <p class="muted">There is no dashboard page at this address.</p>
          <Link class="btn btn-primary" href={`${BASE}/images`}>
            Go to Images
          </Link>
        </div>
      );
  }
}

async function signOut() {
  try {
    await api('POST', `${BASE}/api/sign-out`);
  } finally {
    setSession(null);
    navigate(`${BASE}/sign-in`, { replace: true });
  }
}

function Shell({ session, path }: { session: SessionView; path: string }) {
  const [menuOpen, setMenuOpen] = useState(false);
  const [section = 'images', ...rest] = path
    .slice(BASE.length + 1)
    .split('/')
    .filter(Boolean);
  const first = useRef(true);
  const current = NAV.flatMap((g) => g.items).find((i) => i.path === section);
  useEffect(() => {
    document.title = `${current?.title ?? 'Dashboard'} · PromptPix`;
    setMenuOpen(false);
    if (first.current) {
      first.current = false;
      return;
    }
    // Move focus to the new page's heading so keyboard and screen reader users land on it.
    requestAnimationFrame(() => document.getElementById('page-title')?.focus({ preventScroll: true }));
    window.scrollTo(0, 0);
  }, [section]);
  const { account } = session;
  return (
    <div class={`layout${menuOpen ? ' menu-open' : ''}`}>
      <a class="skip-link" href="#main">
        Skip to content
      </a>
      <aside class="sidebar">
        <div class="sidebar-head">
          <Brand />
          <button type="button" class="menu-btn" aria-expanded={menuOpen} aria-controls="sidebar-nav" onClick={() => setMenuOpen(!menuOpen)}>
            <Icon name={menuOpen ? 'close' : 'menu'} size={20} />
            <span class="sr-only">Menu</span>
          </button>
        </div>
        <nav id="sidebar-nav" class="nav" aria-label="Dashboard">
          {NAV.map((group) => (
            <div class="nav-group" key={group.group}>
              <p class="nav-group-title">{group.group}</p>
              <ul>
                {group.items.map((item) => (
                  <li key={item.path}>
                    <Link
                      href={`${BASE}/${item.path}`}
                      class={`nav-link${item.path === section ? ' active' : ''}`}
                      aria-current={item.path === section ? 'page' : undefined}
                    >
                      <Icon name={item.icon} class="nav-icon" />
                      {item.label}
                    </Link>
                  </li>
                ))}
              </ul>
            </div>
          ))}
          <div class="nav-account">
            <span class="avatar" aria-hidden="true">
              {account.handle.slice(0, 1).toUpperCase()}
            </span>
            <span class="nav-account-text">
              <strong class="account-handle">@{account.handle}</strong>
              <span class="muted small">{account.email}</span>
            </span>
          </div>
        </nav>
      </aside>
      <div class="main-col">
        <header class="topbar">
          <span class="topbar-title">{current?.title ?? 'Dashboard'}</span>
          <div class="topbar-account">
            <span class="topbar-handle">@{account.handle}</span>
            <span class="badge badge-accent" title="Your plan">
              {PLAN_LABEL[account.plan] ?? account.plan} plan
            </span>
            <button type="button" class="btn btn-ghost btn-small" onClick={() => void signOut()}>
              Sign out
            </button>
          </div>
        </header>
        <main id="main" class="content" tabIndex={-1}>
          <Page section={section} rest={rest} session={session} />
        </main>
      </div>
    </div>
  );
}

function PendingPage({ session, onRecheck }: { session: SessionView; onRecheck: () => void }) {
  useEffect(() => {
    document.title = 'Waiting for approval · PromptPix';
  }, []);
  return (
    <div class="auth-page">
      <main class="auth-card card" id="main">
        <Brand />
        <span class="state-icon big">
          <Icon name="clock" size={28} />
        </span>
        <h1 id="page-title">Waiting for approval</h1>
        <p>
          You have been invited, <strong>@{session.account.handle}</strong>. An operator approves each account by hand before it can generate images; we will
          write to <strong>{session.account.email}</strong> when yours is approved.
        </p>
        <div class="form-actions center">
          <button type="button" class="btn btn-primary" onClick={onRecheck}>
            Check again
          </button>
          <button type="button" class="btn btn-secondary" onClick={() => void signOut()}>
            Sign out
          </button>
        </div>
      </main>
    </div>
  );
}

function App() {
  const path = usePath();
  const [session, setSessionState] = useState<SessionView | null | undefined>(undefined);
  const [error, setError] = useState<unknown>(null);
  const [check, setCheck] = useState(0);
  const onSignIn = path === `${BASE}/sign-in` || path.startsWith(`${BASE}/sign-in/`);

  useEffect(() => {
    if (onSignIn) return;
    let live = true;
    setError(null);
    api<SessionView>('GET', `${BASE}/api/session`).then(
      (s) => {
        if (!live) return;
        setSession(s);
        setSessionState(s);
      },
      (e: unknown) => {
        if (!live) return;
        if (e instanceof ApiError && e.status === 401) {
          setSession(null);
          setSessionState(null);
          navigate(`${BASE}/sign-in`, { replace: true });
        } else setError(e);
      },
    );
    return () => {
      live = false;
    };
  }, [onSignIn, check]);

  useEffect(() => {
    if (path === BASE || path === `${BASE}/`) navigate(`${BASE}/images`, { replace: true });
  }, [path]);

  let body: ComponentChildren;
  if (onSignIn)
    body = (
      <SignInPage
        onSignedIn={(s) => {
          setSession(s);
          setSessionState(s);
          navigate(`${BASE}/images`, { replace: true });
        }}
      />
    );
  else if (error)
    body = (
      <div class="auth-page">
        <main class="auth-card card" id="main">
          <Brand />
          <ErrorState error={error} onRetry={() => setCheck((c) => c + 1)} />
        </main>
      </div>
    );
  else if (!session)
    body = (
      <div class="boot" role="status">
        Loading your dashboard…
      </div>
    );
  else if (session.account.status === 'pending') body = <PendingPage session={session} onRecheck={() => setCheck((c) => c + 1)} />;
  else body = <Shell session={session} path={path} />;

  return (
    <>
      {body}
      <ConfirmHost />
      <ToastRegion layer={null} />
    </>
  );
}

render(<App />, document.getElementById('app')!);
