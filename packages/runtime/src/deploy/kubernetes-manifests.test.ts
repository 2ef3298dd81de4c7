/**
 * The Kubernetes manifests as a cluster receives them: `kubectl kustomize` renders infra/base and
 * the example overlay, every rendered object is validated offline against its kind's schema
 * (Kubernetes' from kubernetes-models, KEDA's from @kubernetes-models/keda), and the invariants the
 * service relies on are checked on the render. kubectl is required (KUBECTL overrides its path):
 * without it this suite fails, it never skips.
 */
import { execFileSync } from 'node:child_process';
import { readFileSync } from 'node:fs';
import { join, resolve } from 'node:path';
import * as keda from '@kubernetes-models/keda/keda.sh/v1alpha1';
import * as apps from 'kubernetes-models/apps/v1';
import * as autoscaling from 'kubernetes-models/autoscaling/v2';
import * as batch from 'kubernetes-models/batch/v1';
import * as policy from 'kubernetes-models/policy/v1';
import * as core from 'kubernetes-models/v1';
import { parse, parseAllDocuments } from 'yaml';
import { bullQueueKeys, DEFAULT_QUEUE_NAME } from '@promptpix/queue';
import { ENV_KEYS, loadConfig, requireSplitDeployment } from '../config/config';

const ROOT = resolve(__dirname, '../../../..');
const VERSION = JSON.parse(readFileSync(join(ROOT, 'package.json'), 'utf8')).version as string;
const BASE = 'infra/base';
const OVERLAY = 'infra/overlays/example';

type Obj = Record<string, any>;

// ---------------------------------------------------------------------------------------------
// Rendering and schemas

const KUBECTL = process.env.KUBECTL || 'kubectl';

function kubectlMissing(): Error {
  return new Error(
    `kubectl was not found or cannot run (${KUBECTL}). The Kubernetes manifest test renders infra/ with \`kubectl kustomize\`: ` +
      'install kubectl 1.27 or later (it embeds kustomize v5; https://kubernetes.io/docs/tasks/tools/) and put it on PATH, ' +
      'or set KUBECTL to the path of the binary.',
  );
}

const rendered = new Map<string, Obj[]>();

/** The objects `kubectl kustomize <dir>` renders (rendered once per directory). */
function kustomize(dir: string): Obj[] {
  let objects = rendered.get(dir);
  if (objects) return objects;
  let yaml: string;
  try {
    yaml = execFileSync(KUBECTL, ['kustomize', join(ROOT, dir)], { encoding: 'utf8', stdio: ['ignore', 'pipe', 'pipe'] });
  } catch (error) {
    const e = error as NodeJS.ErrnoException & { stderr?: string };
    if (e.code === 'ENOENT' || e.code === 'EACCES') throw kubectlMissing();
    throw new Error(`${KUBECTL} kustomize ${dir} failed: ${e.stderr || e.message}`);
  }
  objects = parseAllDocuments(yaml).map((doc) => doc.toJS() as Obj);
  rendered.set(dir, objects);
  return objects;
}

const kustomization = (dir: string) => parse(readFileSync(join(ROOT, dir, 'kustomization.yaml'), 'utf8')) as Obj;

interface ModelClass {
  apiVersion: string;
  kind: string;
  new (data: any): { validate(): void };
}

const isModelClass = (value: unknown): value is ModelClass =>
  typeof value === 'function' && typeof (value as Partial<ModelClass>).apiVersion === 'string' && typeof (value as Partial<ModelClass>).kind === 'string';

/** A schema for every kind of the API groups the manifests use, by `apiVersion kind`. */
const MODELS = new Map(
  [core, apps, batch, autoscaling, policy, keda]
    .flatMap((group) => Object.values(group).filter(isModelClass))
    .map((model) => [`${model.apiVersion} ${model.kind}`, model]),
);

/**
 * kustomize folds a long base64 value of a Secret over several lines; the API server's decoder skips
 * line breaks, the schema's `byte` format does not, so the value is checked unfolded.
 */
function unfolded(o: Obj): Obj {
  if (o.kind !== 'Secret' || !o.data) return o;
  return { ...o, data: Object.fromEntries(Object.entries(o.data).map(([key, value]) => [key, String(value).replace(/[\r\n]/g, '')])) };
}

/** Why the object does not validate against its kind's schema; undefined when it does. */
function schemaViolation(o: Obj): string | undefined {
  const Model = MODELS.get(`${o.apiVersion} ${o.kind}`);
  if (!Model) return `no schema for ${o.apiVersion} ${o.kind}`;
  try {
    new Model(unfolded(o)).validate();
    return undefined;
  } catch (error) {
    return (error as Error).message;
  }
}

// ---------------------------------------------------------------------------------------------
// Reading the render

const podSpecOf = (o: Obj): Obj | undefined => (o.kind === 'Deployment' || o.kind === 'Job' ? o.spec.template.spec : undefined);
const containersOf = (o: Obj): Obj[] => {
  const pod = podSpecOf(o);
  return pod ? [...(pod.initContainers ?? []), ...pod.containers] : [];
};

const one = (objects: Obj[], kind: string, name: string) => {
  const found = objects.filter((o) => o.kind === kind && o.metadata.name === name);
  expect([kind, name, found.length]).toEqual([kind, name, 1]);
  return found[0];
};

/** Kustomize names a generated ConfigMap or Secret `<name>-<hash>` unless told not to. */
const isGenerated = (actual: string, name: string) => new RegExp(`^${name}(-[a-z0-9]{10})?$`).test(actual);

/** The variables a ConfigMap or Secret holds (Secret data is base64). */
function valuesOf(source: Obj): Record<string, string> {
  const decode = (value: string) => (source.kind === 'Secret' ? Buffer.from(value, 'base64').toString('utf8') : value);
  return {
    ...Object.fromEntries(Object.entries(source.data ?? {}).map(([key, value]) => [key, decode(String(value))])),
    ...(source.stringData ?? {}),
  };
}

/** The variables a container starts with, from envFrom and env; `complete` when every source was rendered. */
function containerEnv(objects: Obj[], container: Obj): { env: Record<string, string>; complete: boolean } {
  const sourceOf = (kind: string, name: string) => objects.find((o) => o.kind === kind && o.metadata.name === name);
  const env: Record<string, string> = {};
  let complete = true;
  for (const from of container.envFrom ?? []) {
    const source = from.configMapRef ? sourceOf('ConfigMap', from.configMapRef.name) : sourceOf('Secret', from.secretRef.name);
    if (source) Object.assign(env, valuesOf(source));
    else complete = false;
  }
  for (const e of container.env ?? []) {
    if (e.value !== undefined) {
      env[e.name] = String(e.value);
      continue;
    }
    const ref = e.valueFrom.secretKeyRef ?? e.valueFrom.configMapKeyRef;
    const source = sourceOf(e.valueFrom.secretKeyRef ? 'Secret' : 'ConfigMap', ref.name);
    if (!source) complete = false;
    else if (ref.key in valuesOf(source)) env[e.name] = valuesOf(source)[ref.key];
    else throw new Error(`${e.name}: key ${ref.key} missing from ${ref.name}`);
  }
  return { env, complete };
}

const matches = (selector: Record<string, string>, labels: Record<string, string>) => Object.entries(selector).every(([k, v]) => labels?.[k] === v);

/** A CPU or memory quantity in cores or bytes. */
function quantity(value: string | number): number {
  const [, amount, suffix = ''] = /^(\d+(?:\.\d+)?)(m|k|M|G|Ki|Mi|Gi)?$/.exec(String(value)) ?? [];
  if (amount === undefined) throw new Error(`quantity ${value} is not one this test reads`);
  const scale: Record<string, number> = { '': 1, m: 1e-3, k: 1e3, M: 1e6, G: 1e9, Ki: 2 ** 10, Mi: 2 ** 20, Gi: 2 ** 30 };
  return Number(amount) * scale[suffix];
}

/** Pods the budget lets evictions take while `replicas` are up. */
function evictable(pdb: Obj, replicas: number): number {
  const { minAvailable, maxUnavailable } = pdb.spec;
  if (typeof minAvailable === 'number') return replicas - minAvailable;
  if (typeof maxUnavailable === 'number') return Math.min(maxUnavailable, replicas);
  throw new Error(`${pdb.metadata.name}: only integer budgets are checked`);
}

const repoOf = (image: string) => image.replace(/:[^/:]+$/, '');

// ---------------------------------------------------------------------------------------------

describe('Kubernetes schema validation', () => {
  const firstContainer = (o: Obj) => o.spec.template.spec.containers[0];

  it('accepts the rendered objects as they are', () => {
    const objects = kustomize(OVERLAY);
    expect(objects.map(schemaViolation)).toEqual(objects.map(() => undefined));
  });

  // Each case breaks a copy of one rendered object of the overlay.
  it.each<[string, string, (o: Obj) => void, string]>([
    [
      'a replica count that is not an integer',
      'Deployment',
      (o) => {
        o.spec.replicas = 'two';
      },
      'data/spec/replicas must be integer',
    ],
    [
      'a container without a name',
      'Deployment',
      (o) => {
        delete firstContainer(o).name;
      },
      'data/spec/template/spec/containers/0 must have required property name',
    ],
    [
      'a memory limit that is not a quantity',
      'Deployment',
      (o) => {
        firstContainer(o).resources.limits.memory = 'plenty';
      },
      'data/spec/template/spec/containers/0/resources/limits/memory must match format "quantity"',
    ],
    [
      'a KEDA trigger whose listLength is a number (KEDA takes strings)',
      'ScaledObject',
      (o) => {
        o.spec.triggers[0].metadata.listLength = 4;
      },
      'data/spec/triggers/0/metadata/listLength must be string',
    ],
    [
      'a ScaledObject without a scale target',
      'ScaledObject',
      (o) => {
        delete o.spec.scaleTargetRef;
      },
      'data/spec must have required property scaleTargetRef',
    ],
    [
      'a Secret value that is not base64',
      'Secret',
      (o) => {
        o.data.EXTRA = 'not base64!';
      },
      'data/data/EXTRA must match format "byte"',
    ],
  ])('rejects %s', (_what, kind, breakCopy, message) => {
    const copy = structuredClone(kustomize(OVERLAY).find((o) => o.kind === kind)!);
    breakCopy(copy);
    expect(schemaViolation(copy)).toContain(message);
  });

  it('fails an object of a kind it has no schema for', () => {
    expect(schemaViolation({ apiVersion: 'networking.k8s.io/v1', kind: 'Ingress', metadata: { name: 'x' } })).toBe(
      'no schema for networking.k8s.io/v1 Ingress',
    );
  });
});

describe.each([
  ['base', BASE],
  ['example overlay', OVERLAY],
])('Kubernetes manifests: %s', (_name, dir) => {
  const objects = kustomize(dir);
  const gateway = one(objects, 'Deployment', 'promptpix-gateway');
  const worker = one(objects, 'Deployment', 'promptpix-worker');
  const job = one(objects, 'Job', 'promptpix-migrate');
  const workloads = objects.filter(podSpecOf);

  it('validates every object against the Kubernetes or KEDA schema of its kind', () => {
    const violations = objects.map((o) => [o.kind, o.metadata.name, schemaViolation(o)]);
    expect(violations).toEqual(objects.map((o) => [o.kind, o.metadata.name, undefined]));
  });

  it('renders the gateway, the workers and the migration Job, and nothing else runs pods', () => {
    expect(workloads.map((w) => w.metadata.name).sort()).toEqual(['promptpix-gateway', 'promptpix-migrate', 'promptpix-worker']);
  });

  it('gives every container CPU and memory requests no larger than its limits', () => {
    for (const c of workloads.flatMap(containersOf)) {
      for (const resource of ['cpu', 'memory']) {
        const { requests, limits } = c.resources ?? {};
        expect([c.name, resource, requests?.[resource], limits?.[resource]]).toEqual([c.name, resource, expect.anything(), expect.anything()]);
        expect([c.name, resource, quantity(requests[resource]) <= quantity(limits[resource])]).toEqual([c.name, resource, true]);
      }
    }
  });

  it('gives every Deployment readiness (/api/ready), liveness and startup (/api/health) probes on a declared port', () => {
    for (const deployment of objects.filter((o) => o.kind === 'Deployment')) {
      for (const c of containersOf(deployment)) {
        const ports = (c.ports ?? []).map((p: Obj) => p.name);
        expect([c.name, c.readinessProbe?.httpGet?.path, c.livenessProbe?.httpGet?.path, c.startupProbe?.httpGet?.path]).toEqual([
          c.name,
          '/api/ready',
          '/api/health',
          '/api/health',
        ]);
        for (const probe of [c.readinessProbe, c.livenessProbe, c.startupProbe]) expect(ports).toContain(probe.httpGet.port);
      }
    }
  });

  it('runs every container as uid/gid 1000, never root, unprivileged, with a read-only root and a writable /tmp', () => {
    for (const workload of workloads) {
      const pod = podSpecOf(workload)!;
      expect(pod.securityContext).toMatchObject({ runAsNonRoot: true, runAsUser: 1000, runAsGroup: 1000, seccompProfile: { type: 'RuntimeDefault' } });
      expect(pod.automountServiceAccountToken).toBe(false);
      for (const c of containersOf(workload)) {
        expect(c.securityContext).toMatchObject({ allowPrivilegeEscalation: false, readOnlyRootFilesystem: true, capabilities: { drop: ['ALL'] } });
        const tmp = c.volumeMounts.find((m: Obj) => m.mountPath === '/tmp');
        expect(pod.volumes.find((v: Obj) => v.name === tmp.name).emptyDir).toBeDefined();
      }
    }
  });

  it("runs this version's gateway, worker and migrate images; the migration Job runs the migrate image's own command", () => {
    const images = [gateway, worker, job].map((w) => containersOf(w)[0].image as string);
    const built = ['gateway', 'worker', 'migrate'].map((role) => `promptpix/${role}:${VERSION}`);
    const entries = (kustomization(dir).images ?? []) as Obj[];
    if (entries.length === 0) expect(images).toEqual(built);
    else {
      // kustomize ignores an `images` entry that matches no container: each must name a built image.
      expect(entries.map((e) => e.name).sort()).toEqual(built.map(repoOf).sort());
      const byName = new Map(entries.map((e) => [e.name, e]));
      expect(images).toEqual(built.map((image) => `${byName.get(repoOf(image))!.newName}:${VERSION}`));
    }
    const migrate = containersOf(job)[0];
    expect([migrate.command, migrate.args]).toEqual([undefined, undefined]);
    expect(job.spec.template.spec.restartPolicy).toBe('Never');
  });

  it('sets only variables the service reads, and hands its containers no other Secret', () => {
    for (const configMap of objects.filter((o) => o.kind === 'ConfigMap'))
      for (const key of Object.keys(valuesOf(configMap)))
        expect([configMap.metadata.name, key, ENV_KEYS.includes(key as never)]).toEqual([configMap.metadata.name, key, true]);
    for (const c of workloads.flatMap(containersOf)) {
      for (const key of Object.keys(containerEnv(objects, c).env)) expect([c.name, key, ENV_KEYS.includes(key as never)]).toEqual([c.name, key, true]);
      for (const e of c.env ?? []) expect([c.name, e.name, ENV_KEYS.includes(e.name)]).toEqual([c.name, e.name, true]);
      for (const from of c.envFrom ?? []) if (from.secretRef) expect(isGenerated(from.secretRef.name, 'promptpix-secrets')).toBe(true);
    }
  });

  it('ports and probes agree with PORT and METRICS_PORT', () => {
    const gatewayEnv = containerEnv(objects, containersOf(gateway)[0]).env;
    const workerEnv = containerEnv(objects, containersOf(worker)[0]).env;
    expect(containersOf(gateway)[0].ports.find((p: Obj) => p.name === 'http').containerPort).toBe(Number(gatewayEnv.PORT ?? 3000));
    expect(containersOf(worker)[0].ports.find((p: Obj) => p.name === 'metrics').containerPort).toBe(Number(workerEnv.METRICS_PORT ?? 9464));
    expect(gateway.spec.template.metadata.annotations['prometheus.io/port']).toBe(gatewayEnv.PORT);
    expect(worker.spec.template.metadata.annotations['prometheus.io/port']).toBe(workerEnv.METRICS_PORT);
  });

  it("scales workers with KEDA on the fair queue's total depth (wait + fair:parked + active), C jobs per worker", () => {
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
    // The replicas follow the total depth: the sum of every trigger, C jobs per worker.
    const modifiers = scaled.spec.advanced.scalingModifiers;
    expect(modifiers.formula.split('+').map((term: string) => term.trim())).toEqual(triggers.map((t) => t.name));
    expect(modifiers).toMatchObject({ target: String(config.worker.concurrency), metricType: 'AverageValue' });
    for (const t of triggers) {
      const auth = one(objects, 'TriggerAuthentication', t.authenticationRef.name).spec.secretTargetRef[0];
      expect(auth.parameter).toBe('password');
      if (config.redis) {
        // KEDA must read the same Redis (database and password) as REDIS_URL.
        const url = new URL(config.redis.url);
        expect(t.metadata.address).toBe(`${url.hostname}:${url.port || 6379}`);
        expect(t.metadata.databaseIndex).toBe(url.pathname.replace('/', '') || '0');
        expect(valuesOf(one(objects, 'Secret', auth.name))[auth.key]).toBe(decodeURIComponent(url.password));
      }
    }
  });

  it('scales the gateway on CPU and keeps both up through voluntary disruptions, which can still drain a node', () => {
    const hpa = one(objects, 'HorizontalPodAutoscaler', 'promptpix-gateway');
    expect(hpa.spec.scaleTargetRef).toMatchObject({ kind: 'Deployment', name: gateway.metadata.name });
    expect(hpa.spec.metrics[0].resource).toMatchObject({ name: 'cpu', target: { type: 'Utilization' } });
    expect(hpa.spec.minReplicas).toBeGreaterThanOrEqual(2);
    const minReplicas = new Map([
      [gateway, hpa.spec.minReplicas as number],
      [worker, one(objects, 'ScaledObject', 'promptpix-worker').spec.minReplicaCount as number],
    ]);
    for (const [deployment, replicas] of minReplicas) {
      expect(deployment.spec.replicas).toBeUndefined(); // the autoscaler owns it
      expect(matches(deployment.spec.selector.matchLabels, deployment.spec.template.metadata.labels)).toBe(true);
      const pdbs = objects.filter((o) => o.kind === 'PodDisruptionBudget' && matches(o.spec.selector.matchLabels, deployment.spec.template.metadata.labels));
      expect([deployment.metadata.name, pdbs.length]).toEqual([deployment.metadata.name, 1]);
      expect(evictable(pdbs[0], replicas)).toBeGreaterThanOrEqual(1);
    }
    // One gateway keeps serving while another is evicted.
    const gatewayPdb = objects.find((o) => o.kind === 'PodDisruptionBudget' && matches(o.spec.selector.matchLabels, gateway.spec.template.metadata.labels))!;
    expect(evictable(gatewayPdb, hpa.spec.minReplicas)).toBeLessThan(hpa.spec.minReplicas);
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

  if (dir === OVERLAY) {
    it('renders a configuration the gateway and the worker accept, and a database for the migration', () => {
      for (const workload of [gateway, worker]) {
        const { env, complete } = containerEnv(objects, containersOf(workload)[0]);
        expect(complete).toBe(true);
        const config = loadConfig(env);
        expect(() => requireSplitDeployment(config, workload.metadata.name)).not.toThrow();
        expect(config.storage.kind).toBe('s3');
      }
      const migrate = containerEnv(objects, containersOf(job)[0]);
      expect(migrate.complete).toBe(true);
      expect(migrate.env.DATABASE_URL).toMatch(/^postgresql:\/\//);
    });

    it('puts every object in the namespace it creates', () => {
      const namespace = one(objects, 'Namespace', kustomization(dir).namespace).metadata.name;
      for (const o of objects.filter((x) => x.kind !== 'Namespace'))
        expect([o.kind, o.metadata.name, o.metadata.namespace]).toEqual([o.kind, o.metadata.name, namespace]);
    });
  }
});
