// Who may import whom, for every folder of the project: the layers of docs/architecture.md and,
// inside flows/, what each kind of flow file may use. ESLint applies it to every file (the
// `layers/imports` rule in eslint.config.mjs); test/unit/import-graph.test.ts walks the whole
// import graph with it, type-only imports included.
import { existsSync, statSync } from 'node:fs';
import path from 'node:path';

/** The project root (this file's folder). */
export const ROOT = import.meta.dirname;

/**
 * Each folder and the folders below it that it may import (its own always). A folder that is not
 * here nor among TOOLS is refused, so a new folder gets a place in the layers before it is used.
 */
export const LAYERS = {
  // The leaves: configuration, logging, redaction, ports, tracing setup; the shared contracts.
  plumbing: [],
  contracts: [],
  domain: ['contracts'],
  codec: ['plumbing', 'contracts'],
  backends: ['plumbing', 'contracts'],
  flows: ['plumbing', 'contracts', 'domain', 'backends'],
  // What the terminal clients and the control plane share: connecting, starting, sessions.
  access: ['plumbing', 'contracts', 'domain', 'codec', 'flows'],
  standin: ['plumbing', 'contracts', 'domain', 'backends', 'flows'],
  client: ['plumbing', 'contracts', 'domain', 'codec', 'flows', 'access'],
  server: ['plumbing', 'contracts', 'domain', 'codec', 'flows', 'access'],
  // The processes: they wire everything together.
  workers: ['plumbing', 'contracts', 'domain', 'codec', 'backends', 'flows', 'access', 'standin', 'client', 'server'],
};

/**
 * The one backend the layers above flows read too: the artifact store, through which the control
 * plane and the CLI read back what activities wrote (it knows no flow, and imports only plumbing).
 */
export const SHARED_BACKENDS = { folder: 'backends/artifacts', readers: ['access', 'client', 'server'] };

/** Tests, benches, evaluations and data scripts: they may import every layer, and nothing imports them. */
export const TOOLS = ['test', 'bench', 'eval', 'data'];

/**
 * The kinds of file in a flow folder (flows/lib too), by name: workflow code (bundled, run in the
 * sandbox), activities and stand-in rules (never bundled), the declarations (index.ts and the
 * registry), and the shared rest (contracts, messages, model tasks, pure rules).
 */
export function flowRole(file) {
  if (/(^|\/)flows\/registry$/.test(file)) return 'declaration';
  const match = /(^|\/)flows\/[^/]+\/(.+)$/.exec(file);
  if (!match) return undefined;
  const rest = match[2];
  const head = rest.split('/')[0];
  if (head === 'workflow' || head === 'activities' || head === 'standin') return head;
  return rest === 'index' ? 'declaration' : 'shared';
}

// What each kind may import of each kind: 'all', 'type' (type-only imports), 'dynamic' (import()
// expressions: loaded on demand, never bundled; type-only imports too).
const FLOW_IMPORTS = {
  shared: { shared: 'all' },
  workflow: { shared: 'all', workflow: 'all', activities: 'type' },
  activities: { shared: 'all', activities: 'all' },
  standin: { shared: 'all', standin: 'all' },
  declaration: { shared: 'all', declaration: 'all', workflow: 'type', activities: 'dynamic', standin: 'dynamic' },
};
// What the layers above may import of a flow: its contracts and the registry, its workflows as
// types; the stand-in also its rules; the processes and tools anything.
const OUTSIDE_IMPORTS = {
  access: { shared: 'all', declaration: 'all', workflow: 'type' },
  client: { shared: 'all', declaration: 'all', workflow: 'type' },
  server: { shared: 'all', declaration: 'all', workflow: 'type' },
  standin: { shared: 'all', declaration: 'all', standin: 'all' },
};

// Workflow code and what it shares is bundled into the workflow sandbox: no Node-only layer.
const BUNDLED_ROLES = ['shared', 'workflow'];
const NODE_ONLY = ['plumbing', 'backends', 'codec'];

const allows = (rule, kind) =>
  rule === 'all' || (rule === 'type' && kind === 'type') || (rule === 'dynamic' && kind !== 'static');

const topFolder = (file) => (file.includes('/') ? file.slice(0, file.indexOf('/')) : '.');

/**
 * Why an import breaks the layers, or undefined when it is fine. `from` and `to` are module paths
 * from the project root without extension (posix separators); `kind` is 'static', 'type' or 'dynamic'.
 */
export function importProblem(from, to, kind = 'static') {
  const source = topFolder(from);
  const target = topFolder(to);
  if (source === '.' || TOOLS.includes(source)) return undefined;
  if (!(source in LAYERS)) return `${source}/ has no place in the layers (eslint.layers.mjs)`;
  const sharedBackend = SHARED_BACKENDS.readers.includes(source) && to.startsWith(`${SHARED_BACKENDS.folder}/`);
  if (target !== source && !LAYERS[source].includes(target) && !sharedBackend)
    return `${source}/ may not import ${target}/ (allowed: ${[source, ...LAYERS[source]].join(', ')})`;
  const sourceRole = flowRole(from);
  if (BUNDLED_ROLES.includes(sourceRole) && NODE_ONLY.includes(target))
    return `flow ${sourceRole} code runs in the workflow sandbox: it never imports ${target}/ (call an activity)`;
  const targetRole = flowRole(to);
  if (!targetRole || source === 'workers') return undefined;
  const rules = sourceRole ? FLOW_IMPORTS[sourceRole] : OUTSIDE_IMPORTS[source];
  const rule = rules?.[targetRole];
  if (rule && allows(rule, kind)) return undefined;
  const what = sourceRole ? `flow ${sourceRole} code` : `${source}/`;
  if (rule === 'type') return `${what} may import ${targetRole} code as types only`;
  if (rule === 'dynamic') return `${what} may load ${targetRole} code on demand only (import())`;
  return `${what} may not import flow ${targetRole} code`;
}

/** The module a relative specifier names, from the root without extension, or undefined for a package or a data file. */
export function resolveModule(root, fromFile, specifier) {
  if (!specifier.startsWith('.')) return undefined;
  const absolute = path.resolve(path.dirname(fromFile), specifier);
  if (/\.(json|md|txt|svg|png)$/.test(absolute)) return undefined;
  const bare = absolute.replace(/\.(ts|mts|js|mjs|cjs)$/, '');
  const isDir = !existsSync(`${bare}.ts`) && existsSync(bare) && statSync(bare).isDirectory();
  return path
    .relative(root, isDir ? path.join(bare, 'index') : bare)
    .split(path.sep)
    .join('/');
}

/** The ESLint rule: reports every import of a file that `importProblem` refuses. */
export const layersPlugin = {
  rules: {
    imports: {
      meta: {
        type: 'problem',
        docs: { description: 'Imports follow the layers of eslint.layers.mjs' },
        schema: [],
      },
      create(context) {
        const root = ROOT;
        const from = path
          .relative(root, context.filename)
          .split(path.sep)
          .join('/')
          .replace(/\.[cm]?[jt]s$/, '');
        const check = (node, specifier, kind) => {
          if (typeof specifier !== 'string') return;
          const to = resolveModule(root, context.filename, specifier);
          const problem = to && importProblem(from, to, kind);
          if (problem) context.report({ node, message: `${specifier}: ${problem}` });
        };
        const typeOnly = (node) =>
          node.importKind === 'type' ||
          node.exportKind === 'type' ||
          (node.specifiers?.length > 0 &&
            node.specifiers.every((s) => s.importKind === 'type' || s.exportKind === 'type'));
        const declaration = (node) => node.source && check(node, node.source.value, typeOnly(node) ? 'type' : 'static');
        return {
          ImportDeclaration: declaration,
          ExportNamedDeclaration: declaration,
          ExportAllDeclaration: declaration,
          ImportExpression: (node) => check(node, node.source.value, 'dynamic'),
          TSImportType: (node) => check(node, node.argument?.literal?.value ?? node.argument?.value, 'type'),
          'CallExpression[callee.name="require"]': (node) => check(node, node.arguments[0]?.value, 'static'),
        };
      },
    },
  },
};
