/**
 * The deployment files cannot be built or applied here (no Docker engine, no cluster), so their
 * invariants are checked by reading them: docker/*.Dockerfile, docker/docker-compose.yml and the
 * Kubernetes kustomizations under infra/ (rendered by the small kustomize subset below, which
 * refuses any feature it does not implement rather than guess).
 */
import { existsSync, readdirSync, readFileSync, statSync } from 'node:fs';
import { dirname, join, resolve } from 'node:path';
import { parse, parseAllDocuments } from 'yaml';
import { bullQueueKeys, DEFAULT_QUEUE_NAME } from '@promptpix/queue';
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
const repoOf = (image: string) => image.replace(/:[^/:]+$/, '');
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

// ---------------------------------------------------------------------------------------------
// Kubernetes: a kustomize subset

const KUSTOMIZATION_KEYS = new Set(['apiVersion', 'kind', 'namespace', 'resources', 'labels', 'images', 'configMapGenerator', 'secretGenerator', 'patches']);

function envFile(path: string): string[] {
  return readFileSync(path, 'utf8')
    .split('\n')
    .map((l) => l.trim())
    .filter((l) => l && !l.startsWith('#'));
}

function pair(literal: string): [string, string] {
  const at = literal.indexOf('=');
  return [literal.slice(0, at), literal.slice(at + 1)];
}

/** JSON pointer ops `replace` and `add` (the ones the overlays use). */
function applyJsonPatch(target: Obj, ops: Array<{ op: string; path: string; value: unknown }>) {
  for (const { op, path, value } of ops) {
    if (op !== 'replace' && op !== 'add') throw new Error(`JSON patch op ${op} is not supported by the test renderer`);
    const keys = path.split('/').slice(1);
    const last = keys.pop()!;
    const parent = keys.reduce((node, key) => node[key], target);
    if (op === 'replace' && !(last in parent)) throw new Error(`JSON patch: ${path} does not exist`);
    parent[last] = value;
  }
}

function kustomize(dir: string): Obj[] {
  const k = parse(readFileSync(join(dir, 'kustomization.yaml'), 'utf8')) as Obj;
  for (const key of Object.keys(k)) if (!KUSTOMIZATION_KEYS.has(key)) throw new Error(`${dir}: kustomization key ${key} is not supported by the test renderer`);
  const objects: Obj[] = [];
  for (const resource of k.resources ?? []) {
    const path = resolve(dir, resource);
    if (statSync(path).isDirectory()) objects.push(...kustomize(path));
    else objects.push(...parseAllDocuments(readFileSync(path, 'utf8')).map((d) => d.toJS() as Obj));
  }
  for (const [kind, generators] of [
    ['ConfigMap', k.configMapGenerator],
    ['Secret', k.secretGenerator],
  ] as const) {
    for (const g of (generators ?? []) as Obj[]) {
      const data: Record<string, string> = Object.fromEntries(
        [...(g.literals ?? []), ...(g.envs ?? []).flatMap((f: string) => envFile(resolve(dir, f)))].map(pair),
      );
      const existing = objects.find((o) => o.kind === kind && o.metadata.name === g.name);
      if (g.behavior === 'merge') {
        if (!existing) throw new Error(`${dir}: ${kind} ${g.name} to merge into does not exist`);
        Object.assign(existing.data, data);
      } else {
        if (existing) throw new Error(`${dir}: ${kind} ${g.name} generated twice`);
        objects.push({ apiVersion: 'v1', kind, metadata: { name: g.name }, data });
      }
    }
  }
  for (const p of (k.patches ?? []) as Obj[]) {
    if (!p.target || typeof p.patch !== 'string') throw new Error(`${dir}: only inline JSON patches with a target are supported by the test renderer`);
    const targets = objects.filter((o) => o.kind === p.target.kind && o.metadata.name === p.target.name);
    expect(targets).toHaveLength(1);
    applyJsonPatch(targets[0], parse(p.patch));
  }
  for (const image of (k.images ?? []) as Obj[]) {
    let used = false;
    for (const container of objects.flatMap(containersOf)) {
      if (repoOf(container.image) !== image.name) continue;
      used = true;
      const tag = /:([^/:]+)$/.exec(container.image)?.[1];
      container.image = `${image.newName ?? image.name}:${image.newTag ?? tag}`;
    }
    if (!used) throw new Error(`${dir}: images entry ${image.name} matches no container`);
  }
  if (k.namespace) for (const o of objects) if (o.kind !== 'Namespace') o.metadata.namespace = k.namespace;
  return objects;
}

const podSpecOf = (o: Obj): Obj | undefined => (o.kind === 'Deployment' || o.kind === 'Job' ? o.spec.template.spec : undefined);
function containersOf(o: Obj): Obj[] {
  return podSpecOf(o)?.containers ?? [];
}

const one = (objects: Obj[], kind: string, name: string) => {
  const found = objects.filter((o) => o.kind === kind && o.metadata.name === name);
  expect([kind, name, found.length]).toEqual([kind, name, 1]);
  return found[0];
};

/** The variables a container starts with, from envFrom (when the source is rendered) and env. */
function containerEnv(objects: Obj[], container: Obj): { env: Record<string, string>; complete: boolean } {
  const env: Record<string, string> = {};
  let complete = true;
  for (const from of container.envFrom ?? []) {
    const ref = from.configMapRef ?? from.secretRef;
    const source = objects.find((o) => o.kind === (from.configMapRef ? 'ConfigMap' : 'Secret') && o.metadata.name === ref.name);
    if (source) Object.assign(env, source.data ?? {}, source.stringData ?? {});
    else complete = false;
  }
  for (const e of container.env ?? []) {
    if (e.value !== undefined) env[e.name] = String(e.value);
    else {
      const ref = e.valueFrom?.secretKeyRef ?? e.valueFrom?.configMapKeyRef;
      const source = objects.find((o) => (o.kind === 'Secret' || o.kind === 'ConfigMap') && o.metadata.name === ref?.name);
      if (source && ref.key in (source.data ?? {})) env[e.name] = source.data[ref.key];
      else if (source) throw new Error(`${e.name}: key ${ref.key} missing from ${ref.name}`);
      else complete = false;
    }
  }
  return { env, complete };
}

const matches = (selector: Record<string, string>, labels: Record<string, string>) => Object.entries(selector).every(([k, v]) => labels?.[k] === v);

describe.each([
  ['base', 'infra/base'],
  ['example overlay', 'infra/overlays/example'],
])('Kubernetes manifests: %s', (_name, dir) => {
  const objects = kustomize(join(ROOT, dir));
  const gateway = one(objects, 'Deployment', 'promptpix-gateway');
  const worker = one(objects, 'Deployment', 'promptpix-worker');
  const job = one(objects, 'Job', 'promptpix-migrate');
  const workloads = [gateway, worker, job];

  it('gives every Deployment readiness (/api/ready) and liveness (/api/health) probes on a declared port, and resources', () => {
    for (const deployment of objects.filter((o) => o.kind === 'Deployment')) {
      for (const c of containersOf(deployment)) {
        const ports = (c.ports ?? []).map((p: Obj) => p.name);
        expect([c.name, c.readinessProbe?.httpGet?.path, c.livenessProbe?.httpGet?.path]).toEqual([c.name, '/api/ready', '/api/health']);
        expect(ports).toContain(c.readinessProbe.httpGet.port);
        expect(ports).toContain(c.livenessProbe.httpGet.port);
        // Readiness is about the process, never a roll-call of dependencies (docs/operating/kubernetes.md).
        expect([c.readinessProbe.httpGet.path, c.livenessProbe.httpGet.path]).not.toContain('/api/status');
      }
    }
    for (const workload of workloads) {
      for (const c of containersOf(workload)) {
        for (const side of ['requests', 'limits'])
          for (const resource of ['cpu', 'memory'])
            expect([c.name, side, resource, c.resources?.[side]?.[resource]]).toEqual([c.name, side, resource, expect.anything()]);
      }
    }
  });

  it('runs every container as a non-root user with a read-only root and a writable /tmp', () => {
    for (const workload of workloads) {
      const pod = podSpecOf(workload)!;
      expect(pod.securityContext).toMatchObject({ runAsNonRoot: true, runAsUser: 1000 });
      for (const c of pod.containers) {
        expect(c.securityContext).toMatchObject({ allowPrivilegeEscalation: false, readOnlyRootFilesystem: true });
        const tmp = c.volumeMounts.find((m: Obj) => m.mountPath === '/tmp');
        expect(pod.volumes.find((v: Obj) => v.name === tmp.name).emptyDir).toBeDefined();
      }
    }
  });

  it('uses the image names compose builds; the migration runs `npm run db:migrate` in the gateway image', () => {
    const { services } = compose();
    const [gatewayImage, workerImage, jobImage] = workloads.map((w) => containersOf(w)[0].image as string);
    const strip = (image: string) => repoOf(image).replace(/^.*?(promptpix\/(gateway|worker))$/, '$1');
    expect(strip(gatewayImage)).toBe(repoOf(imageOf(services.gateway)));
    expect(strip(workerImage)).toBe(repoOf(imageOf(services.worker)));
    if (dir === 'infra/base') expect([gatewayImage, workerImage]).toEqual([imageOf(services.gateway), imageOf(services.worker)]);
    expect(jobImage).toBe(gatewayImage);
    expect(containersOf(job)[0].command).toEqual(services.migrate.command);
    expect(job.spec.template.spec.restartPolicy).toBe('Never');
  });

  it('sets only variables the service reads', () => {
    for (const o of objects.filter((x) => x.kind === 'ConfigMap' || (x.kind === 'Secret' && x.metadata.name === 'promptpix-secrets'))) {
      for (const key of Object.keys({ ...o.data, ...o.stringData }))
        expect([o.metadata.name, key, ENV_KEYS.includes(key as never)]).toEqual([o.metadata.name, key, true]);
    }
    for (const c of workloads.flatMap(containersOf)) {
      for (const e of c.env ?? []) expect([c.name, e.name, ENV_KEYS.includes(e.name)]).toEqual([c.name, e.name, true]);
    }
    // Secrets that are not the service's own are never handed to its containers as variables.
    for (const c of workloads.flatMap(containersOf))
      for (const from of c.envFrom ?? []) expect(from.secretRef?.name ?? 'promptpix-secrets').toBe('promptpix-secrets');
  });

  it('ports and probes agree with PORT and METRICS_PORT', () => {
    const gatewayEnv = containerEnv(objects, containersOf(gateway)[0]).env;
    const workerEnv = containerEnv(objects, containersOf(worker)[0]).env;
    expect(containersOf(gateway)[0].ports.find((p: Obj) => p.name === 'http').containerPort).toBe(Number(gatewayEnv.PORT ?? 3000));
    expect(containersOf(worker)[0].ports.find((p: Obj) => p.name === 'metrics').containerPort).toBe(Number(workerEnv.METRICS_PORT ?? 9464));
    expect(gateway.spec.template.metadata.annotations['prometheus.io/port']).toBe(gatewayEnv.PORT);
    expect(worker.spec.template.metadata.annotations['prometheus.io/port']).toBe(workerEnv.METRICS_PORT);
  });

  it('scales workers with KEDA on the queue keys the worker uses, C jobs per worker', () => {
    const scaled = one(objects, 'ScaledObject', 'promptpix-worker');
    expect(scaled.spec.scaleTargetRef.name).toBe(worker.metadata.name);
    expect(scaled.spec.minReplicaCount).toBeGreaterThanOrEqual(1);
    const { env } = containerEnv(objects, containersOf(worker)[0]);
    const config = loadConfig(env);
    const keys = bullQueueKeys(config.redis?.prefix ?? env.REDIS_PREFIX ?? 'promptpix', DEFAULT_QUEUE_NAME);
    expect(keys.wait).toBe(`${env.REDIS_PREFIX}:generation:wait`);
    const triggers = scaled.spec.triggers as Obj[];
    expect(triggers.map((t) => [t.type, t.metadata.listName, t.metadata.listLength])).toEqual([
      ['redis', keys.wait, String(config.worker.concurrency)],
      ['redis', keys.parked, String(config.worker.concurrency)],
      ['redis', keys.active, String(config.worker.concurrency)],
    ]);
    for (const t of triggers) {
      expect(one(objects, 'TriggerAuthentication', t.authenticationRef.name).spec.secretTargetRef[0].parameter).toBe('password');
      if (config.redis) {
        // KEDA must read the same Redis (and database) as REDIS_URL.
        const url = new URL(config.redis.url);
        expect(t.metadata.address).toBe(`${url.hostname}:${url.port || 6379}`);
        expect(t.metadata.databaseIndex).toBe(url.pathname.replace('/', '') || '0');
      }
    }
  });

  it('scales the gateway on CPU and keeps both up through voluntary disruptions', () => {
    const hpa = one(objects, 'HorizontalPodAutoscaler', 'promptpix-gateway');
    expect(hpa.spec.scaleTargetRef).toMatchObject({ kind: 'Deployment', name: gateway.metadata.name });
    expect(hpa.spec.metrics[0].resource).toMatchObject({ name: 'cpu', target: { type: 'Utilization' } });
    expect(hpa.spec.minReplicas).toBeGreaterThanOrEqual(2);
    for (const deployment of [gateway, worker]) {
      expect(deployment.spec.replicas).toBeUndefined(); // the autoscaler owns it
      expect(matches(deployment.spec.selector.matchLabels, deployment.spec.template.metadata.labels)).toBe(true);
      const pdbs = objects.filter((o) => o.kind === 'PodDisruptionBudget' && matches(o.spec.selector.matchLabels, deployment.spec.template.metadata.labels));
      expect(pdbs).toHaveLength(1);
    }
    const service = one(objects, 'Service', 'promptpix-gateway');
    expect(matches(service.spec.selector, gateway.spec.template.metadata.labels)).toBe(true);
    expect(service.spec.ports[0].targetPort).toBe('http');
  });

  it('fits termination grace periods to the shutdown bounds', () => {
    const pod = gateway.spec.template.spec;
    const preStop = Number(pod.containers[0].lifecycle.preStop.exec.command[1]);
    // preStop, then up to 10 s for requests in flight (listen().stop), then closing connections.
    expect(pod.terminationGracePeriodSeconds).toBeGreaterThanOrEqual(preStop + 10 + 5);
    // Workers finish their jobs in flight; well beyond BullMQ's 30 s lock.
    expect(worker.spec.template.spec.terminationGracePeriodSeconds).toBeGreaterThanOrEqual(60);
  });

  if (dir.includes('overlays')) {
    it('renders a configuration the gateway and the worker accept', () => {
      for (const workload of [gateway, worker]) {
        const { env, complete } = containerEnv(objects, containersOf(workload)[0]);
        expect(complete).toBe(true);
        const config = loadConfig(env);
        expect(() => requireSplitDeployment(config, workload.metadata.name)).not.toThrow();
        expect(config.storage.kind).toBe('s3');
      }
      expect(objects.find((o) => o.kind === 'Namespace')?.metadata.name).toBe(gateway.metadata.namespace);
      expect(existsSync(join(ROOT, dirname(dir), 'example', 'secrets.env'))).toBe(true);
    });
  }
});
