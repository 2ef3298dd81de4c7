/**
 * What docker/Dockerfile and docker/docker-compose.yml promise, read from the files. The images
 * themselves are built and run by scripts/containers/ (it needs root and minutes, so it is not
 * part of `npm test`); the Kubernetes manifests are checked in kubernetes-manifests.test.ts.
 */
import { existsSync, readdirSync, readFileSync } from 'node:fs';
import { join, resolve } from 'node:path';
import { parse } from 'yaml';
import { ENV_KEYS, loadConfig, requireSplitDeployment } from '../config/config';

const ROOT = resolve(__dirname, '../../../..');
const read = (path: string) => readFileSync(join(ROOT, path), 'utf8');

type Obj = Record<string, any>;

// ---------------------------------------------------------------------------------------------
// Dockerfiles

interface Instruction {
  keyword: string;
  args: string;
}

/** Instructions of a Dockerfile (continuations joined, comments dropped), split into stages. */
function dockerStages(text: string): Array<{ from: string; name?: string; instructions: Instruction[] }> {
  const logical = text
    .replace(/\\\n/g, ' ')
    .split('\n')
    .map((l) => l.trim())
    .filter((l) => l && !l.startsWith('#'));
  const stages: Array<{ from: string; name?: string; instructions: Instruction[] }> = [];
  for (const line of logical) {
    const [, keyword, args] = /^(\S+)\s*(.*)$/.exec(line)!;
    if (keyword.toUpperCase() === 'FROM') {
      const [, from, name] = /^(?:--platform=\S+\s+)?(\S+)(?:\s+AS\s+(\S+))?$/i.exec(args)!;
      stages.push({ from, name, instructions: [] });
    } else if (stages.length > 0) stages[stages.length - 1].instructions.push({ keyword: keyword.toUpperCase(), args });
  }
  return stages;
}

const DOCKERFILE = 'docker/Dockerfile';
const ROLES = {
  gateway: { image: 'promptpix/gateway', startScript: 'start:gateway', port: 3000, portVar: 'PORT' },
  worker: { image: 'promptpix/worker', startScript: 'start:worker', port: 9464, portVar: 'METRICS_PORT' },
  migrate: { image: 'promptpix/migrate', startScript: 'db:migrate', port: undefined, portVar: undefined },
} as const;

/**
 * scripts/containers/ builds these images and runs them (docs/operating/building.md); what is
 * checked here is what a reader of the Dockerfile relies on, on every `npm test`.
 */
describe('docker/Dockerfile', () => {
  const stages = dockerStages(read(DOCKERFILE));
  const stage = (name: string) => stages.find((s) => s.name === name)!;
  const scripts = JSON.parse(read('package.json')).scripts as Record<string, string>;

  it('builds on the current Node LTS line, which engines allows, and runs on the runtime base without a shell', () => {
    const text = read(DOCKERFILE);
    expect(text).toMatch(/^ARG NODE_IMAGE=node:24-bookworm-slim$/m);
    expect(text).toMatch(/^ARG RUNTIME_IMAGE=node:24-bookworm-slim$/m);
    expect(JSON.parse(read('package.json')).engines.node).toMatch(/>=24$/);
    expect(stage('runtime').from).toBe('${RUNTIME_IMAGE}');
    for (const s of stages)
      expect([s.name, ['${NODE_IMAGE}', '${RUNTIME_IMAGE}', ...stages.map((t) => t.name)]]).toEqual([s.name, expect.arrayContaining([s.from])]);
    // The runtime base has no shell: its stages copy and configure, and run nothing.
    const runtimeStages = stages.filter((s) => s.from === 'runtime' || s.name === 'runtime');
    expect(runtimeStages.map((s) => s.name).sort()).toEqual(['gateway', 'migrate', 'runtime', 'worker']);
    for (const s of runtimeStages) expect([s.name, s.instructions.filter((i) => i.keyword === 'RUN')]).toEqual([s.name, []]);
    // `docker build` without --target makes the gateway.
    expect(stages[stages.length - 1].name).toBe('gateway');
  });

  it.each(Object.entries(ROLES))("%s: its own pruned dependencies, the start script's command on plain node, user 1000", (role, r) => {
    const target = stage(role);
    const of = (keyword: string) => target.instructions.filter((i) => i.keyword === keyword);
    expect(target.from).toBe('runtime');
    expect(of('COPY').map((i) => i.args)).toEqual([`--from=${role}-deps /app/node_modules ./node_modules`]);
    const prune = stage(`${role}-deps`).instructions.filter((i) => i.keyword === 'RUN');
    expect(prune).toHaveLength(1);
    expect(prune[0].args).toMatch(new RegExp(`^node /usr/local/lib/prune-runtime-deps\\.mjs ${role}\\b`));
    expect(of('USER').map((i) => i.args)).toEqual(['1000:1000']);

    // The image runs what `npm run <startScript>` runs (build.test.ts runs those bundles on plain
    // node; quick-start.int.test.ts serves the README's flow through the start scripts), with no loader.
    const cmd = JSON.parse(of('CMD')[0].args) as string[];
    const command = /exec (.+)$/.exec(scripts[r.startScript])?.[1] ?? scripts[r.startScript];
    expect(cmd).toEqual(command.split(' '));
    expect(cmd).toEqual(['node', '--enable-source-maps', expect.stringMatching(/^dist\/\w+\.js$/)]);

    // The start script's environment prefix is the image's ENV (where the script adds its default
    // to an operator's NODE_OPTIONS, the image's ENV is the default an operator's replaces).
    const env = [...stage('runtime').instructions, ...target.instructions]
      .filter((i) => i.keyword === 'ENV')
      .map((i) => i.args)
      .join(' ');
    expect(env).toMatch(/\bMALLOC_ARENA_MAX=2\b/);
    expect(env).toMatch(/\bNODE_ENV=production\b/);
    const heapLimit = /NODE_OPTIONS="(--max-old-space-size=\d+ --max-semi-space-size=\d+) \$\{NODE_OPTIONS:-\}"/.exec(scripts[r.startScript])?.[1];
    if (heapLimit) expect(env).toContain(`NODE_OPTIONS="${heapLimit}"`);
    else expect(env).not.toContain('NODE_OPTIONS');
    expect(role === 'gateway').toBe(heapLimit !== undefined);

    if (r.port === undefined) {
      expect(of('HEALTHCHECK')).toEqual([]);
      return;
    }
    const healthcheck = of('HEALTHCHECK');
    expect(healthcheck).toHaveLength(1);
    expect(healthcheck[0].args).toMatch(/CMD \[/);
    expect(healthcheck[0].args).toContain('/api/health');
    expect(healthcheck[0].args).toContain(`process.env.${r.portVar} || ${r.port}`);
    expect(of('EXPOSE').map((i) => i.args)).toEqual([String(r.port)]);
    expect(of('STOPSIGNAL').map((i) => i.args)).toEqual(['SIGTERM']);
  });

  it('takes the built files from the build stage and the dependencies from a production install', () => {
    const runs = (name: string) =>
      stage(name)
        .instructions.filter((i) => i.keyword === 'RUN')
        .map((i) => i.args);
    expect(runs('production-deps')[0]).toMatch(/^npm ci --omit=dev --ignore-scripts /);
    expect(runs('build')[0]).toMatch(/^npm ci --ignore-scripts /);
    const buildSteps = runs('build')[1].split(/\s+&&\s+/);
    expect(buildSteps.slice(0, 3)).toEqual(['node scripts/prisma-generate.mjs', 'node scripts/build-word-vectors.cjs --required', scripts.build]);
    // Dependencies' install scripts are off in the images as on a developer's npm 11.19+.
    const allowScripts = JSON.parse(read('package.json')).allowScripts as Record<string, boolean>;
    expect(Object.values(allowScripts).every((allowed) => allowed === false)).toBe(true);
    expect(
      stage('runtime')
        .instructions.filter((i) => i.keyword === 'COPY')
        .map((i) => i.args),
    ).toEqual(['--from=build /files/ ./']);
    // No run-time transpiler: tsx is a development tool (tests, bench) and stays out of the images.
    expect(Object.keys(JSON.parse(read('package.json')).dependencies)).not.toContain('tsx');
  });

  it('bundles no service code that imports the SDK, which the image build does not build', () => {
    const serviceSources = ['apps', 'packages']
      .flatMap((top) =>
        readdirSync(join(ROOT, top))
          .filter((name) => !(top === 'packages' && name === 'sdk'))
          .map((name) => join(top, name, 'src')),
      )
      .filter((src) => existsSync(join(ROOT, src)))
      .flatMap((src) => readdirSync(join(ROOT, src), { recursive: true, encoding: 'utf8' }).map((file) => join(src, file)))
      .filter((file) => /\.tsx?$/.test(file) && !/\.test\.ts$/.test(file));
    expect(serviceSources.length).toBeGreaterThan(100);
    // An import or require of the SDK, not a sample that names it in a string (the playground shows one).
    const importsSdk = /^\s*(import|export)\b[^`\n]*['"]@promptpix\/sdk['"]|\brequire\(['"]@promptpix\/sdk['"]\)|\bimport\(['"]@promptpix\/sdk['"]\)/m;
    expect(serviceSources.filter((file) => importsSdk.test(read(file)))).toEqual([]);
  });

  it('.dockerignore keeps dependencies, local state and tests out of the build context', () => {
    const ignored = read('.dockerignore')
      .split('\n')
      .map((l) => l.trim());
    for (const entry of ['.git', '**/node_modules', 'data', 'dist', 'packages/db/src/generated', '**/*.test.ts']) expect(ignored).toContain(entry);
    expect(ignored).not.toContain('scripts');
  });
});

// ---------------------------------------------------------------------------------------------
// docker-compose.yml

/** Compose interpolation: ${VAR}, ${VAR:-default}, ${VAR-default}, ${VAR:?error}, $$. */
function interpolate(value: string, env: Record<string, string>): string {
  return value.replace(
    /\$\$|\$\{([A-Za-z_][A-Za-z0-9_]*)(?:(:?)([-?])([^}]*))?\}/g,
    (match, name: string | undefined, colon: string, op: string, arg: string) => {
      if (match === '$$') return '$';
      const set = name! in env && (colon ? env[name!] !== '' : true);
      if (set) return env[name!];
      if (op === '?') throw new Error(`compose: ${name} is required: ${arg}`);
      return op === '-' ? arg : '';
    },
  );
}

const compose = () => parse(read('docker/docker-compose.yml'), { merge: true }) as Obj;
const composeEnv = (service: Obj, env: Record<string, string>) =>
  Object.fromEntries(Object.entries(service.environment ?? {}).map(([k, v]) => [k, interpolate(String(v ?? ''), env)]));
const HOST_ENV = { ADMIN_TOKEN: 'compose-test-admin-token-0123456789' };
/** A service's image with compose's defaults filled in. */
const imageOf = (service: Obj) => interpolate(service.image, HOST_ENV);
const VERSION = JSON.parse(read('package.json')).version as string;

describe('docker-compose.yml', () => {
  const ours = () => Object.entries(compose().services as Obj).filter(([, s]) => String(s.image ?? '').startsWith('promptpix/'));

  it('runs PostgreSQL, Redis (AOF, noeviction), MinIO + a bucket, a migration, the gateway and two workers', () => {
    const { services } = compose();
    expect(Object.keys(services).sort()).toEqual(['create-bucket', 'gateway', 'migrate', 'minio', 'postgres', 'redis', 'worker']);
    const redis = services.redis.command.join(' ');
    expect(redis).toContain('--appendonly yes');
    expect(redis).toContain('--maxmemory-policy noeviction');
    expect(services['create-bucket'].command.join('\n')).toMatch(/mc mb --ignore-existing local\/promptpix/);
    expect(services.migrate.command).toBeUndefined();
    expect(services.worker.deploy.replicas).toBe(2);
    for (const name of ['gateway', 'worker']) {
      expect(services[name].depends_on.migrate).toEqual({ condition: 'service_completed_successfully' });
      expect(services[name].depends_on['create-bucket']).toEqual({ condition: 'service_completed_successfully' });
      expect(services[name].depends_on.redis).toEqual({ condition: 'service_healthy' });
    }
    expect(services.migrate.depends_on.postgres).toEqual({ condition: 'service_healthy' });
  });

  it('builds each image from its Dockerfile target, with the image names Kubernetes uses', () => {
    const { services } = compose();
    for (const [name, role] of Object.entries(ROLES)) {
      expect(imageOf(services[name])).toBe(`${role.image}:${VERSION}`);
      expect(services[name].build).toMatchObject({ dockerfile: DOCKERFILE, target: name });
      expect(resolve(ROOT, 'docker', services[name].build.context)).toBe(ROOT);
      expect(services[name].read_only).toBe(true);
    }
  });

  it('sets only variables the service reads, and a configuration it accepts', () => {
    const services = ours();
    expect(services.map(([name]) => name).sort()).toEqual(['gateway', 'migrate', 'worker']);
    for (const [name, service] of services) {
      const env = composeEnv(service, HOST_ENV);
      for (const key of Object.keys(env)) expect([name, ENV_KEYS.includes(key as never)]).toEqual([name, true]);
      if (name === 'migrate') continue;
      const config = loadConfig(env);
      expect(() => requireSplitDeployment(config, name)).not.toThrow();
      expect(config.storage).toMatchObject({ kind: 's3', bucket: 'promptpix', endpoint: 'http://minio:9000' });
      expect(config.adminToken).toBe(HOST_ENV.ADMIN_TOKEN);
    }
    expect(composeEnv(compose().services.worker, HOST_ENV).METRICS_PORT).toBe(String(ROLES.worker.port));
    expect(() => composeEnv(compose().services.gateway, {})).toThrow('ADMIN_TOKEN is required');
  });

  it('gives workers time to finish their jobs on stop', () => {
    const { services } = compose();
    const seconds = (d: string) => Number(/^(\d+)s$/.exec(d)![1]);
    expect(seconds(services.worker.stop_grace_period)).toBeGreaterThanOrEqual(60);
    expect(seconds(services.gateway.stop_grace_period)).toBeGreaterThan(10);
  });
});
