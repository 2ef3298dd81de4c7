/**
 * The deployment files cannot be built or applied here (no Docker engine, no cluster), so their
 * invariants are checked by reading them: docker/*.Dockerfile, docker/docker-compose.yml.
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

const ROLES = {
  gateway: { dockerfile: 'docker/gateway.Dockerfile', image: 'promptpix/gateway', startScript: 'start:gateway', port: 3000, portVar: 'PORT' },
  worker: { dockerfile: 'docker/worker.Dockerfile', image: 'promptpix/worker', startScript: 'start:worker', port: 9464, portVar: 'METRICS_PORT' },
} as const;

describe('Dockerfiles', () => {
  it.each(Object.entries(ROLES))(
    '%s: node:20-bookworm-slim, production dependencies only, the built bundle on plain node, a non-root USER, a HEALTHCHECK on /api/health',
    (role, r) => {
      const text = read(r.dockerfile);
      expect(text).toMatch(/^ARG NODE_IMAGE=node:20-bookworm-slim$/m);
      const stages = dockerStages(text);
      expect(stages.map((s) => s.from)).toEqual(stages.map(() => '${NODE_IMAGE}'));
      const final = stages[stages.length - 1];
      const of = (keyword: string) => final.instructions.filter((i) => i.keyword === keyword);

      const users = of('USER');
      expect(users.length).toBeGreaterThan(0);
      const user = users[users.length - 1].args.split(':')[0];
      expect(['root', '0']).not.toContain(user);

      const healthcheck = of('HEALTHCHECK');
      expect(healthcheck).toHaveLength(1);
      expect(healthcheck[0].args).toMatch(/CMD \[/);
      expect(healthcheck[0].args).toContain('/api/health');
      expect(healthcheck[0].args).toContain(`process.env.${r.portVar} || ${r.port}`);
      expect(of('EXPOSE').map((i) => i.args)).toEqual([String(r.port)]);
      // The image runs what `npm run <startScript>` runs (build.test.ts runs those bundles on plain
      // node; quick-start.int.test.ts serves the README's flow through the start scripts), with no loader.
      const scripts = JSON.parse(read('package.json')).scripts as Record<string, string>;
      const cmd = JSON.parse(of('CMD')[0].args) as string[];
      const [, prefix, command] = /^((?:\w+=(?:"[^"]*"|\S+) )+)exec (.+)$/.exec(scripts[r.startScript])!;
      expect(cmd).toEqual(command.split(' '));
      // The script's environment prefix is the image's ENV (where the script adds its default to
      // an operator's NODE_OPTIONS, the image's ENV is the default an operator's replaces).
      const env = of('ENV')
        .map((i) => i.args)
        .join(' ');
      expect(prefix).toMatch(/^MALLOC_ARENA_MAX=\$\{MALLOC_ARENA_MAX:-2\} /);
      expect(env).toMatch(/\bMALLOC_ARENA_MAX=2\b/);
      const heapLimit = /NODE_OPTIONS="(--max-old-space-size=\d+) \$\{NODE_OPTIONS:-\}"/.exec(prefix)?.[1];
      if (heapLimit) expect(env).toContain(`NODE_OPTIONS=${heapLimit}`);
      else expect(env).not.toContain('NODE_OPTIONS');
      expect(role === 'gateway').toBe(heapLimit !== undefined);
      expect(cmd).toEqual(['node', '--enable-source-maps', expect.stringMatching(/^dist\/\w+\.js$/)]);
      // The bundles and the dashboard's files are built in the build stage, from the sources it
      // copies; the same RUN drops the dashboard's sources and preact, and the final stage takes
      // that tree, and nothing else, before dropping root.
      const buildStage = stages.find((s) => s.name === 'build')!;
      const buildRuns = buildStage.instructions.map((i) => `${i.keyword} ${i.args}`);
      const buildAt = buildRuns.findIndex((i) => i.startsWith(`RUN ${scripts.build} `) || i === `RUN ${scripts.build}`);
      expect(buildAt).toBeGreaterThan(buildRuns.findLastIndex((i) => i.startsWith('COPY ')));
      // The runtime stage takes the build stage without the dashboard's sources, its browser library or the bundler.
      expect(buildRuns[buildAt]).toMatch(
        /&& rm -rf apps\/dashboard node_modules\/@promptpix\/dashboard node_modules\/preact node_modules\/esbuild node_modules\/@esbuild$/,
      );
      const runs = final.instructions.map((i) => `${i.keyword} ${i.args}`);
      expect(runs.filter((i) => i.startsWith('COPY '))).toEqual(['COPY --from=build /app ./']);
      expect(runs.filter((i) => i.startsWith('RUN '))).toEqual([]);
      expect(runs.indexOf('COPY --from=build /app ./')).toBeLessThan(runs.findIndex((i) => i.startsWith('USER ')));
      // preact is the dashboard's alone: nothing the services run imports it.
      expect(JSON.parse(read('apps/dashboard/package.json')).dependencies).toHaveProperty('preact');
      expect(JSON.parse(read('package.json')).dependencies).not.toHaveProperty('preact');

      const install = stages.flatMap((s) => s.instructions).filter((i) => i.keyword === 'RUN' && i.args.includes('npm install'));
      expect(install).toHaveLength(1);
      expect(install[0].args).toContain('--omit=dev');
      // The project's postinstall must still run when scripts are off, as far as the service needs it:
      // prisma generate (and the bundle build, which the final stage runs). Its other step builds the
      // SDK for callers; no service code imports the SDK.
      expect(JSON.parse(read('package.json')).scripts.postinstall.split(' && ')).toEqual([
        'node scripts/prisma-generate.mjs',
        'npm run --silent build:sdk',
        'npm run --silent build',
      ]);
      if (install[0].args.includes('--ignore-scripts')) expect(install[0].args).toContain('node scripts/prisma-generate.mjs');
      // onnxruntime-node (INSTANT_EMBEDDINGS=local) needs no install script on the CPU; of its
      // per-platform binaries only the Linux ones stay in the image.
      expect(install[0].args).toContain('rm -rf node_modules/onnxruntime-node/bin/napi-v6/darwin node_modules/onnxruntime-node/bin/napi-v6/win32');
      expect(install[0].args).not.toMatch(/napi-v6\/linux/);
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
      // No run-time transpiler: tsx is a development tool (tests, bench) and stays out of the image.
      expect(Object.keys(JSON.parse(read('package.json')).dependencies)).not.toContain('tsx');
    },
  );

  it('share every stage but the role-specific tail', () => {
    const common = (path: string) => read(path).slice(read(path).indexOf('ARG NODE_IMAGE'), read(path).indexOf('# ---- role:'));
    expect(common(ROLES.gateway.dockerfile).length).toBeGreaterThan(200);
    expect(common(ROLES.gateway.dockerfile)).toBe(common(ROLES.worker.dockerfile));
  });

  it('.dockerignore keeps dependencies, local state and tests out of the build context', () => {
    const ignored = read('.dockerignore')
      .split('\n')
      .map((l) => l.trim());
    for (const entry of ['.git', '**/node_modules', 'data', 'dist', 'packages/db/src/generated', '**/*.test.ts']) expect(ignored).toContain(entry);
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
    expect(services.migrate.command).toEqual(['npm', 'run', '--silent', 'db:migrate']);
    expect(services.worker.deploy.replicas).toBe(2);
    for (const name of ['gateway', 'worker']) {
      expect(services[name].depends_on.migrate).toEqual({ condition: 'service_completed_successfully' });
      expect(services[name].depends_on['create-bucket']).toEqual({ condition: 'service_completed_successfully' });
      expect(services[name].depends_on.redis).toEqual({ condition: 'service_healthy' });
    }
    expect(services.migrate.depends_on.postgres).toEqual({ condition: 'service_healthy' });
  });

  it('builds each image from its Dockerfile, with the image names Kubernetes uses', () => {
    const { services } = compose();
    expect(imageOf(services.gateway)).toBe(`${ROLES.gateway.image}:${VERSION}`);
    expect(imageOf(services.worker)).toBe(`${ROLES.worker.image}:${VERSION}`);
    expect(services.migrate.image).toBe(services.gateway.image);
    for (const [name, role] of [
      ['gateway', ROLES.gateway],
      ['migrate', ROLES.gateway],
      ['worker', ROLES.worker],
    ] as const) {
      expect(services[name].build.dockerfile).toBe(role.dockerfile);
      expect(resolve(ROOT, 'docker', services[name].build.context)).toBe(ROOT);
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
