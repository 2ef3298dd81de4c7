/**
 * Checks the workspace's package edges (docs/architecture.md, "Packages and their entry points"):
 *
 * - a package is reached only through its `exports` map: no `@promptpix/<pkg>/src/…` import, no
 *   subpath the map does not list, and no relative path into another package's folder;
 * - every `@promptpix/*` package a file imports is declared in its package.json (`dependencies`
 *   for production code; `devDependencies` is enough for tests and test support);
 * - production code never imports test support (@promptpix/testing or a `./testing` entry);
 * - no import cycles between modules, type-only imports included (a cycle of types is still two
 *   modules that cannot be understood, or moved, one without the other).
 *
 * Imports are read with the TypeScript parser; resolution is our own (relative paths, and the
 * workspace packages' exports maps), so the same code checks a fixture folder in a test.
 */
import { existsSync, readdirSync, readFileSync, statSync } from 'node:fs';
import { dirname, join, relative, resolve, sep } from 'node:path';
import ts from 'typescript';

export interface Workspace {
  name: string;
  dir: string;
  exports: Record<string, string>;
  dependencies: Set<string>;
  devDependencies: Set<string>;
}

export interface BoundaryProblem {
  kind: 'deep-import' | 'undeclared-dependency' | 'test-support-in-production' | 'cycle';
  file: string;
  detail: string;
}

interface ImportRef {
  specifier: string;
  typeOnly: boolean;
}

const SOURCE = /\.(ts|tsx|mts|cts)$/;
const posix = (path: string) => path.split(sep).join('/');

/** The workspace packages under `root` (its package.json's `workspaces`, `dir/*` patterns). */
export function readWorkspaces(root: string): Workspace[] {
  const rootPkg = JSON.parse(readFileSync(join(root, 'package.json'), 'utf8')) as { workspaces?: string[] };
  const found: Workspace[] = [];
  for (const pattern of rootPkg.workspaces ?? []) {
    const parent = join(root, pattern.replace(/\/\*$/, ''));
    if (!existsSync(parent)) continue;
    for (const entry of readdirSync(parent).sort()) {
      const file = join(parent, entry, 'package.json');
      if (!existsSync(file)) continue;
      const pkg = JSON.parse(readFileSync(file, 'utf8'));
      const exports = typeof pkg.exports === 'string' ? { '.': pkg.exports } : (pkg.exports ?? {});
      const flat: Record<string, string> = {};
      for (const [key, target] of Object.entries(exports))
        flat[key] = typeof target === 'string' ? target : ((target as Record<string, string>).types ?? (target as Record<string, string>).default ?? '');
      found.push({
        name: pkg.name,
        dir: join(parent, entry),
        exports: flat,
        dependencies: new Set(Object.keys(pkg.dependencies ?? {})),
        devDependencies: new Set(Object.keys(pkg.devDependencies ?? {})),
      });
    }
  }
  return found;
}

/** Every import, re-export, dynamic `import()` and `require()` of a source file. */
export function importsOf(file: string, text = readFileSync(file, 'utf8')): ImportRef[] {
  const source = ts.createSourceFile(file, text, ts.ScriptTarget.Latest, false, file.endsWith('x') ? ts.ScriptKind.TSX : ts.ScriptKind.TS);
  const refs: ImportRef[] = [];
  const visit = (node: ts.Node) => {
    if (ts.isImportDeclaration(node) && ts.isStringLiteral(node.moduleSpecifier)) {
      const clause = node.importClause;
      const named = clause?.namedBindings && ts.isNamedImports(clause.namedBindings) ? clause.namedBindings.elements : undefined;
      const typeOnly = !!clause && (clause.isTypeOnly || (!clause.name && !!named && named.length > 0 && named.every((e) => e.isTypeOnly)));
      refs.push({ specifier: node.moduleSpecifier.text, typeOnly });
    } else if (ts.isExportDeclaration(node) && node.moduleSpecifier && ts.isStringLiteral(node.moduleSpecifier)) {
      const named = node.exportClause && ts.isNamedExports(node.exportClause) ? node.exportClause.elements : undefined;
      refs.push({ specifier: node.moduleSpecifier.text, typeOnly: node.isTypeOnly || (!!named && named.length > 0 && named.every((e) => e.isTypeOnly)) });
    } else if (ts.isCallExpression(node) && node.arguments.length === 1 && ts.isStringLiteral(node.arguments[0])) {
      const callee = node.expression;
      if (callee.kind === ts.SyntaxKind.ImportKeyword || (ts.isIdentifier(callee) && callee.text === 'require'))
        refs.push({ specifier: (node.arguments[0] as ts.StringLiteral).text, typeOnly: false });
    }
    ts.forEachChild(node, visit);
  };
  visit(source);
  return refs;
}

/** Tests and test support: may import testing entries and devDependencies. */
export const isTestSupport = (file: string, workspace: Workspace | undefined): boolean =>
  /\.test\.tsx?$/.test(file) ||
  /\/(testing|test-fixtures)\//.test(posix(file)) ||
  /\/testing\.tsx?$/.test(posix(file)) ||
  workspace?.name === '@promptpix/testing';

const isTestingEntry = (specifier: string) =>
  specifier === '@promptpix/testing' || specifier.startsWith('@promptpix/testing/') || /^@promptpix\/[^/]+\/testing$/.test(specifier);

function resolveFile(base: string): string | null {
  const candidates = [base, `${base}.ts`, `${base}.tsx`, join(base, 'index.ts'), join(base, 'index.tsx')];
  for (const candidate of candidates) if (existsSync(candidate) && statSync(candidate).isFile()) return candidate;
  return null;
}

function listSources(dir: string, out: string[] = []): string[] {
  if (!existsSync(dir)) return out;
  for (const entry of readdirSync(dir, { withFileTypes: true })) {
    if (entry.name === 'node_modules' || entry.name === 'dist' || entry.name === 'generated' || entry.name.startsWith('.')) continue;
    const path = join(dir, entry.name);
    if (entry.isDirectory()) listSources(path, out);
    else if (SOURCE.test(entry.name) && !entry.name.endsWith('.d.ts')) out.push(path);
  }
  return out;
}

/** Strongly connected components of more than one module (Tarjan), each sorted. */
export function findCycles(graph: Map<string, Set<string>>): string[][] {
  let index = 0;
  const indexOf = new Map<string, number>();
  const low = new Map<string, number>();
  const stack: string[] = [];
  const onStack = new Set<string>();
  const cycles: string[][] = [];
  const connect = (node: string) => {
    indexOf.set(node, index);
    low.set(node, index);
    index++;
    stack.push(node);
    onStack.add(node);
    for (const next of graph.get(node) ?? []) {
      if (!indexOf.has(next)) {
        connect(next);
        low.set(node, Math.min(low.get(node)!, low.get(next)!));
      } else if (onStack.has(next)) low.set(node, Math.min(low.get(node)!, indexOf.get(next)!));
    }
    if (low.get(node) === indexOf.get(node)) {
      const component: string[] = [];
      let member: string;
      do {
        member = stack.pop()!;
        onStack.delete(member);
        component.push(member);
      } while (member !== node);
      if (component.length > 1 || graph.get(node)?.has(node)) cycles.push(component.sort());
    }
  };
  for (const node of [...graph.keys()].sort()) if (!indexOf.has(node)) connect(node);
  return cycles;
}

/**
 * Checks the sources under `root`'s workspace packages and `extraDirs` (e.g. the bench). Returns
 * every problem found, paths relative to `root`.
 */
export function checkBoundaries(root: string, extraDirs: string[] = []): BoundaryProblem[] {
  root = resolve(root);
  const workspaces = readWorkspaces(root);
  const byName = new Map(workspaces.map((w) => [w.name, w]));
  const owner = (file: string) => workspaces.find((w) => file.startsWith(w.dir + sep));
  const files = [...workspaces.flatMap((w) => listSources(join(w.dir, 'src'))), ...extraDirs.flatMap((d) => listSources(join(root, d)))];
  const problems: BoundaryProblem[] = [];
  const graph = new Map<string, Set<string>>();
  const show = (file: string) => posix(relative(root, file));

  for (const file of files) {
    const workspace = owner(file);
    const testSupport = isTestSupport(file, workspace);
    const edges = new Set<string>();
    graph.set(file, edges);
    for (const { specifier, typeOnly } of importsOf(file)) {
      let target: string | null = null;
      const scoped = /^(@promptpix\/[^/]+)(\/.*)?$/.exec(specifier);
      if (specifier.startsWith('.')) {
        target = resolveFile(resolve(dirname(file), specifier));
        const targetOwner = target ? owner(target) : undefined;
        if (target && targetOwner && targetOwner !== workspace) {
          problems.push({
            kind: 'deep-import',
            file: show(file),
            detail: `${specifier} reaches into ${targetOwner.name}'s files; import one of its entry points`,
          });
        }
      } else if (scoped) {
        const [, name, rest] = scoped;
        const pkg = byName.get(name);
        if (!pkg) continue;
        const subpath = `.${rest ?? ''}`;
        if (pkg === workspace && rest) {
          problems.push({ kind: 'deep-import', file: show(file), detail: `${specifier}: a package imports its own files by relative path` });
        }
        const entry = pkg.exports[subpath];
        if (!entry) {
          problems.push({
            kind: 'deep-import',
            file: show(file),
            detail: `${specifier} is not an entry point of ${name} (exports: ${Object.keys(pkg.exports).join(', ') || 'none'})`,
          });
          target = rest?.startsWith('/src/') ? resolveFile(join(pkg.dir, rest)) : null;
        } else {
          target = resolveFile(join(pkg.dir, entry));
        }
        if (workspace && pkg !== workspace) {
          // Type-only imports leave nothing at run time (the SDK's bundle inlines its wire types).
          const declared = workspace.dependencies.has(name) || ((testSupport || typeOnly) && workspace.devDependencies.has(name));
          if (!declared)
            problems.push({
              kind: 'undeclared-dependency',
              file: show(file),
              detail: `${name} is not in ${workspace.name}'s ${testSupport ? 'dependencies or devDependencies' : 'dependencies'}`,
            });
        }
        if (!testSupport && workspace && isTestingEntry(specifier)) {
          problems.push({ kind: 'test-support-in-production', file: show(file), detail: `${specifier} is test support; production code may not import it` });
        }
      }
      if (target && SOURCE.test(target)) edges.add(target);
    }
  }
  for (const cycle of findCycles(graph)) problems.push({ kind: 'cycle', file: show(cycle[0]), detail: `import cycle: ${cycle.map(show).join(' → ')}` });
  return problems;
}
