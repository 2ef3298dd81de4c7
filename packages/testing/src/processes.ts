/**
 * Service processes for tests that need them apart from the test runner, run as production runs
 * them: the built bundle (`node --enable-source-maps dist/<app>.js`), rebuilt first when a source
 * changed (`scripts/build.mjs --if-stale`, as `npm run start:worker` does), logging JSON lines the
 * test can read.
 */
import { spawn, spawnSync, type ChildProcess } from 'node:child_process';
import { resolve } from 'node:path';

const ROOT = resolve(__dirname, '../../..');

export interface ServiceProcess {
  child: ChildProcess;
  /** Everything the process wrote to stdout and stderr so far. */
  output(): string;
  /** Its JSON log lines so far. */
  lines(): Array<Record<string, unknown>>;
  /** Resolves with the exit code (null when killed by a signal) once the process has exited. */
  exited(): Promise<number | null>;
  /** Sends SIGKILL unless it has exited; resolves once it has. */
  kill(): Promise<void>;
}

let built = false;

/** Rebuilds dist/ when a source file changed since the last build (a stat per input otherwise). */
export function buildIfStale(): void {
  if (built) return;
  const result = spawnSync(process.execPath, ['scripts/build.mjs', '--if-stale'], { cwd: ROOT, encoding: 'utf8' });
  if (result.status !== 0) throw new Error(`build failed:\n${result.stderr}`);
  built = true;
}

/** A worker process (`dist/worker.js`) with `env` over this process's environment. */
export function startWorkerProcess(env: Record<string, string>): ServiceProcess {
  return startServiceProcess('worker', { NODE_ENV: 'production', LOG_FORMAT: 'json', METRICS_PORT: '0', ...env });
}

/** `dist/<bundle>.js` (server, gateway, worker, admin, migrate) as a child process. */
export function startServiceProcess(bundle: string, env: Record<string, string>): ServiceProcess {
  buildIfStale();
  const child = spawn(process.execPath, ['--enable-source-maps', `dist/${bundle}.js`], {
    cwd: ROOT,
    env: { ...process.env, ...env },
    stdio: ['ignore', 'pipe', 'pipe'],
  });
  const chunks: string[] = [];
  child.stdout!.on('data', (d) => chunks.push(String(d)));
  child.stderr!.on('data', (d) => chunks.push(String(d)));
  const exit = new Promise<number | null>((done) => child.once('exit', (code) => done(code)));
  const output = () => chunks.join('');
  return {
    child,
    output,
    lines: () =>
      output()
        .split('\n')
        .filter((l) => l.startsWith('{'))
        .flatMap((l) => {
          try {
            return [JSON.parse(l)];
          } catch {
            return [];
          }
        }),
    exited: () => exit,
    async kill() {
      if (child.exitCode === null && child.signalCode === null) child.kill('SIGKILL');
      await exit;
    },
  };
}
