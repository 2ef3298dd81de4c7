/**
 * ComfyUI workflows in the API format (ComfyUI's "Save (API Format)"): where each of our request's
 * values goes, found from the graph (the sampler and the nodes wired into it) or named by the
 * operator (`COMFYUI_NODES`), checked once at start-up, and filled in per request.
 */

export interface WorkflowNode {
  class_type: string;
  inputs: Record<string, unknown>;
  _meta?: { title?: string };
}

/** Node id → node, as ComfyUI's `POST /prompt` takes it. */
export type ComfyWorkflow = Record<string, WorkflowNode>;

/**
 * The values a request places into the workflow; `output` names the node whose image is fetched.
 * An edit workflow also takes `mask` (the uploaded mask's name) and `denoise` (the edit's strength);
 * an upscale workflow takes `image` and `scale` (the factor).
 */
export const NODE_ROLES = ['prompt', 'negativePrompt', 'seed', 'steps', 'width', 'height', 'image', 'mask', 'denoise', 'scale', 'output'] as const;
export type NodeRole = (typeof NODE_ROLES)[number];

/** `{"prompt": "6.text", "seed": "3.seed", "output": "9"}`: node id and input name (`output`: a node id). */
export type NodeMapping = Partial<Record<NodeRole, string>>;

export interface Placement {
  node: string;
  /** Empty for `output`. */
  input: string;
}
export type Placements = Partial<Record<NodeRole, Placement>>;

export class WorkflowConfigError extends Error {
  override name = 'WorkflowConfigError';
}

const SAMPLERS = ['KSampler', 'KSamplerAdvanced'];
const OUTPUT_NODES = ['SaveImage', 'PreviewImage'];
const isLink = (value: unknown): value is [string, number] =>
  Array.isArray(value) && value.length === 2 && typeof value[0] === 'string' && typeof value[1] === 'number';

/** Checks the API format; the UI format (what plain "Save" writes) gets a message saying how to export the right one. */
export function parseWorkflow(json: unknown): ComfyWorkflow {
  if (!json || typeof json !== 'object' || Array.isArray(json)) throw new WorkflowConfigError('the workflow must be a JSON object of nodes');
  const record = json as Record<string, unknown>;
  if (Array.isArray(record.nodes) && Array.isArray(record.links)) {
    throw new WorkflowConfigError('this is the UI format; export the workflow with "Save (API Format)" (or Export (API) in newer ComfyUI menus)');
  }
  const ids = Object.keys(record);
  if (ids.length === 0) throw new WorkflowConfigError('the workflow has no nodes');
  for (const id of ids) {
    const node = record[id] as Partial<WorkflowNode> | null;
    if (!node || typeof node !== 'object' || typeof node.class_type !== 'string' || !node.inputs || typeof node.inputs !== 'object') {
      throw new WorkflowConfigError(`node "${id}" needs a class_type and an inputs object`);
    }
  }
  if (!ids.some((id) => OUTPUT_NODES.includes((record[id] as WorkflowNode).class_type))) {
    throw new WorkflowConfigError(`the workflow has no output node (${OUTPUT_NODES.join(' or ')})`);
  }
  return record as ComfyWorkflow;
}

/** `{"prompt":"6.text"}` → checked mapping; unknown roles and malformed entries are errors. */
export function parseNodeMapping(json: unknown): NodeMapping {
  if (json === undefined || json === null) return {};
  if (typeof json !== 'object' || Array.isArray(json))
    throw new WorkflowConfigError('the node mapping must be a JSON object such as {"prompt":"6.text","seed":"3.seed"}');
  const mapping: NodeMapping = {};
  for (const [role, value] of Object.entries(json)) {
    if (!(NODE_ROLES as readonly string[]).includes(role))
      throw new WorkflowConfigError(`unknown entry "${role}" in the node mapping; known: ${NODE_ROLES.join(', ')}`);
    const pattern = role === 'output' ? /^[^.\s]+$/ : /^[^.\s]+\.[^.\s]+$/;
    if (typeof value !== 'string' || !pattern.test(value)) {
      throw new WorkflowConfigError(`node mapping "${role}" must be ${role === 'output' ? 'a node id, e.g. "9"' : '"<node id>.<input name>", e.g. "6.text"'}`);
    }
    mapping[role as NodeRole] = value;
  }
  return mapping;
}

const sortedIds = (workflow: ComfyWorkflow) => Object.keys(workflow).sort((a, b) => Number(a) - Number(b) || a.localeCompare(b));

/** The node a link input points at, when it holds `input` as a value. */
function linkedValue(workflow: ComfyWorkflow, link: unknown, input: string): Placement | undefined {
  if (!isLink(link)) return undefined;
  const node = workflow[link[0]];
  return node && input in node.inputs && !isLink(node.inputs[input]) ? { node: link[0], input } : undefined;
}

/** Where values go in a simple text-to-image graph: the first sampler and the nodes wired into it. */
export function inferPlacements(workflow: ComfyWorkflow): Placements {
  const placements: Placements = {};
  const ids = sortedIds(workflow);
  const samplerId = ids.find((id) => SAMPLERS.includes(workflow[id].class_type));
  if (samplerId) {
    const sampler = workflow[samplerId].inputs;
    const seedInput = 'seed' in sampler ? 'seed' : 'noise_seed' in sampler ? 'noise_seed' : undefined;
    if (seedInput && !isLink(sampler[seedInput])) placements.seed = { node: samplerId, input: seedInput };
    if ('steps' in sampler && !isLink(sampler.steps)) placements.steps = { node: samplerId, input: 'steps' };
    placements.prompt = linkedValue(workflow, sampler.positive, 'text');
    placements.negativePrompt = linkedValue(workflow, sampler.negative, 'text');
    placements.width = linkedValue(workflow, sampler.latent_image, 'width');
    placements.height = linkedValue(workflow, sampler.latent_image, 'height');
    if ('denoise' in sampler && !isLink(sampler.denoise)) placements.denoise = { node: samplerId, input: 'denoise' };
  }
  const loaders = ids.filter((id) => workflow[id].class_type === 'LoadImage');
  if (loaders.length === 1) placements.image = { node: loaders[0], input: 'image' };
  const masks = ids.filter((id) => workflow[id].class_type === 'LoadImageMask');
  if (masks.length === 1) placements.mask = { node: masks[0], input: 'image' };
  const scaler = ids.find((id) => workflow[id].class_type === 'ImageScaleBy' && !isLink(workflow[id].inputs.scale_by));
  if (scaler) placements.scale = { node: scaler, input: 'scale_by' };
  const outputs = ids.filter((id) => workflow[id].class_type === 'SaveImage');
  if (outputs.length >= 1) placements.output = { node: outputs[0], input: '' };
  for (const role of NODE_ROLES) if (!placements[role]) delete placements[role];
  return placements;
}

/** How to name a role's place in the mapping, for an error that says what to fix. */
const ROLE_HINTS: Partial<Record<NodeRole, string>> = {
  prompt: 'no KSampler whose positive input comes from a node with a text input; name it in the node mapping, e.g. {"prompt":"6.text"}',
  image: 'no single LoadImage node; name it in the node mapping, e.g. {"image":"10.image"}',
};

/**
 * The inferred placements with the operator's mapping on top. Every mapped node and input must
 * exist and hold a value (not a link), and the `required` roles (the prompt, for a workflow that
 * draws) must have a place: otherwise a WorkflowConfigError that says what to fix, before any job runs.
 */
export function resolvePlacements(workflow: ComfyWorkflow, mapping: NodeMapping = {}, required: readonly NodeRole[] = ['prompt']): Placements {
  const placements = inferPlacements(workflow);
  for (const role of NODE_ROLES) {
    const entry = mapping[role];
    if (entry === undefined) continue;
    const [node, input = ''] = entry.split('.');
    const target = workflow[node];
    if (!target)
      throw new WorkflowConfigError(
        `node mapping "${role}" names node "${node}", which the workflow does not have (its nodes: ${sortedIds(workflow).join(', ')})`,
      );
    if (role !== 'output') {
      if (!(input in target.inputs))
        throw new WorkflowConfigError(
          `node mapping "${role}" names input "${input}" of node "${node}" (${target.class_type}), which has no such input (it has: ${Object.keys(target.inputs).join(', ')})`,
        );
      if (isLink(target.inputs[input]))
        throw new WorkflowConfigError(
          `node mapping "${role}": input "${input}" of node "${node}" is wired to node "${(target.inputs[input] as [string, number])[0]}"; map the node that holds the value`,
        );
    }
    placements[role] = { node, input };
  }
  for (const role of required) {
    if (!placements[role])
      throw new WorkflowConfigError(
        `cannot tell where the ${role} goes (${ROLE_HINTS[role] ?? `name it in the node mapping, e.g. {"${role}":"<node id>.<input>"}`})`,
      );
  }
  return placements;
}

/** The values of one request; undefined ones leave the workflow's own value. */
export interface WorkflowValues {
  prompt: string;
  negativePrompt?: string;
  seed?: number;
  steps?: number;
  width?: number;
  height?: number;
  /** The uploaded image's name as ComfyUI's LoadImage takes it (`subfolder/name`). */
  image?: string;
  /** The uploaded mask's name (a LoadImageMask reading its alpha: transparent repaints). */
  mask?: string;
  /** How far an edit may depart from the image, 0..1 (the sampler's denoise). */
  denoise?: number;
  /** An upscale's factor. */
  scale?: number;
}

/**
 * A copy of the workflow with the request's values in place. A negative prompt is added after the
 * workflow's own negative text (which usually holds the operator's "blurry, watermark, ...").
 */
export function fillWorkflow(workflow: ComfyWorkflow, placements: Placements, values: WorkflowValues): ComfyWorkflow {
  const filled = structuredClone(workflow);
  const set = (role: Exclude<NodeRole, 'output'>, value: unknown) => {
    const place = placements[role];
    if (place && value !== undefined) filled[place.node].inputs[place.input] = value;
  };
  set('prompt', values.prompt);
  const negative = placements.negativePrompt;
  if (negative && values.negativePrompt) {
    const own = filled[negative.node].inputs[negative.input];
    set('negativePrompt', typeof own === 'string' && own.trim() ? `${own.trim().replace(/,$/, '')}, ${values.negativePrompt}` : values.negativePrompt);
  }
  set('seed', values.seed);
  set('steps', values.steps);
  set('width', values.width);
  set('height', values.height);
  set('image', values.image);
  set('mask', values.mask);
  set('denoise', values.denoise);
  set('scale', values.scale);
  return filled;
}

export interface OutputImage {
  filename: string;
  subfolder: string;
  type: string;
}

/** The image to fetch from a history entry's `outputs`: the mapped output node's, else the first saved (`type: output`) one, else any. */
export function pickOutputImage(outputs: unknown, outputNode: string | undefined): OutputImage | undefined {
  if (!outputs || typeof outputs !== 'object') return undefined;
  const imagesOf = (node: string): OutputImage[] => {
    const images = (outputs as Record<string, { images?: unknown }>)[node]?.images;
    return Array.isArray(images)
      ? images
          .filter((i): i is OutputImage => !!i && typeof i.filename === 'string' && typeof i.type === 'string')
          .map((i) => ({ ...i, subfolder: typeof i.subfolder === 'string' ? i.subfolder : '' }))
      : [];
  };
  if (outputNode) return imagesOf(outputNode)[0];
  const all = Object.keys(outputs).flatMap(imagesOf);
  return all.find((i) => i.type === 'output') ?? all[0];
}
