// Lint rules that guard what the type checker cannot: determinism of workflow code, the layers of
// docs/architecture.md (eslint.layers.mjs), and promises nobody awaits. Formatting is Prettier's
// job (`npm run format`).
import { builtinModules } from 'node:module';
import js from '@eslint/js';
import prettier from 'eslint-config-prettier';
import tseslint from 'typescript-eslint';
import { layersPlugin } from './eslint.layers.mjs';

// Workflow code runs in Temporal's deterministic sandbox: no Node built-ins, no I/O.
const NODE_BUILTINS = builtinModules.flatMap((m) => [m, `node:${m}`]);

// Exact module names (as patterns, "domain" would also match our own domain/ folder).
const NODE_BUILTIN_PATHS = NODE_BUILTINS.map((name) => ({
  name,
  message: 'Workflow code must stay deterministic: no Node built-ins.',
}));

/** Packages a layer must not import, as no-restricted-imports patterns with the reason. */
const packages = (message, group) => ({ group, message });

const WORKFLOW_PACKAGES = packages('Workflow code never runs activities, clients or workers.', [
  '@temporalio/activity',
  '@temporalio/client',
  '@temporalio/worker',
]);

/**
 * Code bundled into the workflow sandbox: workflow code and the modules it shares (the shared
 * contracts, the domain rules, each flow's contract, messages, model tasks and pure rules). The
 * other kinds of flow file run in the worker or the stand-in (eslint.layers.mjs names them).
 */
const BUNDLED = ['contracts/**/*.ts', 'domain/**/*.ts', '**/flows/**/*.ts'];
const NOT_BUNDLED = [
  '**/flows/*/activities.ts',
  '**/flows/*/activities/**',
  '**/flows/*/standin.ts',
  '**/flows/*/standin/**',
  '**/flows/*/index.ts',
  '**/flows/registry.ts',
];
/** The bundled modules shared by every workflow (preloaded once per worker, workers/workflow-bundle.ts). */
const SHARED_BY_WORKFLOWS = ['contracts/**/*.ts', 'domain/**/*.ts', '**/flows/*/*.ts'];
const PER_WORKFLOW = [...NOT_BUNDLED, '**/flows/*/workflow.ts', '**/flows/lib/**'];

export default tseslint.config(
  {
    ignores: [
      'node_modules/**',
      'dist/**',
      'dist.tmp-*/**',
      '.build-*/**',
      '.tools/**',
      'out/**',
      'coverage/**',
      '**/*.js',
      '**/*.cjs',
      '**/*.mjs',
      'solver/**',
    ],
  },
  {
    files: ['**/*.ts', '**/*.mts'],
    extends: [js.configs.recommended, ...tseslint.configs.recommended, prettier],
    languageOptions: {
      parserOptions: { projectService: true, tsconfigRootDir: import.meta.dirname },
    },
    rules: {
      // A forgotten await on an activity, a signal or a file write is a silent bug.
      '@typescript-eslint/no-floating-promises': 'error',
      '@typescript-eslint/no-misused-promises': ['error', { checksVoidReturn: false }],
      '@typescript-eslint/no-unused-vars': ['error', { argsIgnorePattern: '^_', varsIgnorePattern: '^_' }],
      '@typescript-eslint/no-explicit-any': 'error',
      'object-shorthand': ['error', 'always'],
      eqeqeq: ['error', 'always', { null: 'ignore' }],
      // Input sanitising matches control characters on purpose.
      'no-control-regex': 'off',
    },
  },
  {
    // The flows, their rules and backends log through the structured logger (plumbing/logger.ts):
    // a stray console line is debugging output left behind, and it bypasses the log's redaction.
    files: [
      'flows/**/*.ts',
      'domain/**/*.ts',
      'backends/**/*.ts',
      'contracts/**/*.ts',
      'standin/**/*.ts',
      'access/**/*.ts',
    ],
    rules: { 'no-console': 'error' },
  },
  {
    // The layers, for every folder: eslint.layers.mjs says who may import whom.
    files: ['**/*.ts', '**/*.mts'],
    plugins: { layers: layersPlugin },
    rules: { 'layers/imports': 'error' },
  },
  {
    files: BUNDLED,
    ignores: NOT_BUNDLED,
    rules: {
      '@typescript-eslint/no-restricted-imports': [
        'error',
        { paths: NODE_BUILTIN_PATHS, patterns: [WORKFLOW_PACKAGES] },
      ],
      // Timers, randomness and time are replaced by the sandbox; these are not, or leak host state.
      'no-restricted-globals': [
        'error',
        ...['process', 'fetch', 'performance', 'crypto', 'setImmediate', 'queueMicrotask', 'Buffer', 'require'].map(
          (name) => ({ name, message: `${name} is not deterministic or not available in workflow code.` }),
        ),
        { name: 'WeakRef', message: 'Garbage collection timing is not deterministic.' },
        { name: 'FinalizationRegistry', message: 'Garbage collection timing is not deterministic.' },
      ],
    },
  },
  {
    files: ['domain/**/*.ts'],
    rules: {
      '@typescript-eslint/no-restricted-imports': [
        'error',
        {
          paths: NODE_BUILTIN_PATHS,
          patterns: [WORKFLOW_PACKAGES, packages('Domain logic is pure: it knows no Temporal.', ['@temporalio/**'])],
        },
      ],
    },
  },
  {
    // Loaded once per worker and shared by every workflow (workers/workflow-bundle.ts): state that
    // changes after loading would leak between workflows.
    files: SHARED_BY_WORKFLOWS,
    ignores: PER_WORKFLOW,
    rules: {
      'no-restricted-syntax': [
        'error',
        ...[
          'Program > VariableDeclaration[kind="let"]',
          'Program > ExportNamedDeclaration > VariableDeclaration[kind="let"]',
        ].map((selector) => ({
          selector,
          message: 'No module-level let here: this module is shared by every workflow.',
        })),
        {
          selector:
            ':function CallExpression[callee.object.name=/^[A-Z][A-Z0-9_]*$/][callee.property.name=/^(set|add|delete|clear|push|pop|shift|unshift|splice|sort|reverse|fill)$/]',
          message:
            'A module-level collection is shared by every workflow: build it when the module loads, never change it later.',
        },
      ],
    },
  },
  {
    files: ['client/**/*.ts', 'server/**/*.ts', 'access/**/*.ts'],
    rules: {
      '@typescript-eslint/no-restricted-imports': [
        'error',
        {
          patterns: [
            packages('Clients and the control plane talk to Temporal only: no worker.', ['@temporalio/worker']),
          ],
        },
      ],
    },
  },
  {
    // Test helpers, fakes and set-up files are loaded once per test process, and the files that
    // share the process share them (vitest.config.mts): state kept at module level outlives the
    // file that filled it (a fake's list of data stores showed one file's stores in the next).
    // Test files themselves are loaded anew for each file.
    files: ['test/**/*.ts'],
    ignores: ['test/**/*.test.ts'],
    rules: {
      'no-restricted-syntax': [
        'error',
        ...[
          'Program > VariableDeclaration[kind="let"]',
          'Program > ExportNamedDeclaration > VariableDeclaration[kind="let"]',
          'Program > VariableDeclaration > VariableDeclarator > NewExpression.init[callee.name=/^(Map|Set|WeakMap|WeakSet|Array)$/][arguments.length=0]',
          'Program > ExportNamedDeclaration > VariableDeclaration > VariableDeclarator > NewExpression.init[callee.name=/^(Map|Set|WeakMap|WeakSet|Array)$/][arguments.length=0]',
          'Program > VariableDeclaration > VariableDeclarator > ArrayExpression.init[elements.length=0]',
          'Program > ExportNamedDeclaration > VariableDeclaration > VariableDeclarator > ArrayExpression.init[elements.length=0]',
        ].map((selector) => ({
          selector,
          message:
            'Module-level state in a test helper outlives the file that made it (files share test processes): keep it in what the file creates (an instance, a closure).',
        })),
      ],
    },
  },
  {
    files: ['test/**/*.ts', 'bench/**/*.ts', 'eval/**/*.ts'],
    rules: {
      // Tests poke at private shapes and fakes on purpose.
      '@typescript-eslint/no-explicit-any': 'off',
      '@typescript-eslint/no-non-null-assertion': 'off',
    },
  },
);
