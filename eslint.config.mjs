// Lint rules that guard what the type checker cannot: determinism of workflow code, the layers of
// docs/architecture.md, and promises nobody awaits. Formatting is Prettier's job (`npm run format`).
import { builtinModules } from 'node:module';
import js from '@eslint/js';
import prettier from 'eslint-config-prettier';
import tseslint from 'typescript-eslint';

// Workflow code runs in Temporal's deterministic sandbox: no Node built-ins, no I/O.
const NODE_BUILTINS = builtinModules.flatMap((m) => [m, `node:${m}`]);

/** Imports a layer must not make, as no-restricted-imports patterns with the reason. */
const layer = (message, group, allowTypeImports = false) => ({ group, message, allowTypeImports });

// Exact module names (as patterns, "domain" would also match our own domain/ folder).
const NODE_BUILTIN_PATHS = NODE_BUILTINS.map((name) => ({
  name,
  message: 'Workflow code must stay deterministic: no Node built-ins.',
}));

const WORKFLOW_IMPORTS = [
  layer('Workflows never import backends: call an activity.', ['**/backends', '**/backends/**']),
  layer('Workflows import activities as types only (proxyActivities<typeof …>).', ['**/activities/**'], true),
  layer('Workflows never import processes, clients, the server or the stand-in.', [
    '**/workers/**',
    '**/client/**',
    '**/server/**',
    '**/standin/**',
    '@temporalio/activity',
    '@temporalio/client',
    '@temporalio/worker',
  ]),
];

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
    files: ['workflows/**/*.ts', 'domain/**/*.ts'],
    rules: {
      '@typescript-eslint/no-restricted-imports': ['error', { paths: NODE_BUILTIN_PATHS, patterns: WORKFLOW_IMPORTS }],
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
          patterns: [
            ...WORKFLOW_IMPORTS,
            layer('Domain logic is pure: it knows no Temporal.', ['@temporalio/**']),
            layer('Domain logic never imports the layers built on it.', ['**/workflows/**', '**/activities/**']),
          ],
        },
      ],
    },
  },
  {
    files: ['contracts/**/*.ts'],
    rules: {
      '@typescript-eslint/no-restricted-imports': [
        'error',
        {
          patterns: [
            layer('Contracts are shared by every layer: they import none of them.', [
              '**/workflows/**',
              '**/activities/**',
              '**/backends/**',
              '**/workers/**',
              '**/client/**',
              '**/server/**',
              '**/standin/**',
            ]),
          ],
        },
      ],
    },
  },
  {
    // contracts/ and domain/ are loaded once per worker and shared by every workflow
    // (workers/workflow-bundle.ts): state that changes after loading would leak between workflows.
    files: ['contracts/**/*.ts', 'domain/**/*.ts'],
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
    files: ['activities/**/*.ts'],
    rules: {
      '@typescript-eslint/no-restricted-imports': [
        'error',
        {
          patterns: [
            layer('Activities never import workflows: shared rules live in domain/ or contracts/.', [
              '**/workflows/**',
            ]),
            layer('Activities receive their backends; they never import processes or clients.', [
              '**/workers/**',
              '**/client/**',
              '**/server/**',
              '**/standin/**',
            ]),
          ],
        },
      ],
    },
  },
  {
    files: ['backends/**/*.ts'],
    rules: {
      '@typescript-eslint/no-restricted-imports': [
        'error',
        {
          patterns: [
            layer('Backends never know flows.', [
              '**/workflows/**',
              '**/activities/**',
              '**/domain/**',
              '**/client/**',
              '**/server/**',
              '**/standin/**',
              '**/contracts/bom',
              '**/contracts/discovery',
              '**/contracts/eads*',
              '**/contracts/proposal*',
              '**/contracts/platform',
              '**/contracts/schedule*',
              '**/contracts/flows',
            ]),
          ],
        },
      ],
    },
  },
  {
    files: ['client/**/*.ts'],
    rules: {
      '@typescript-eslint/no-restricted-imports': [
        'error',
        {
          patterns: [
            layer('The client talks to Temporal only.', [
              '**/backends/**',
              '**/activities/**',
              '**/standin/**',
              '@temporalio/worker',
            ]),
            layer('The client imports workflows as types only (start by name, typed).', ['**/workflows/**'], true),
          ],
        },
      ],
    },
  },
  {
    files: ['server/**/*.ts'],
    rules: {
      '@typescript-eslint/no-restricted-imports': [
        'error',
        {
          patterns: [
            layer('The control plane talks to Temporal and the registry, never to backends or activities.', [
              '**/backends/**',
              '**/activities/**',
              '**/standin/**',
              '@temporalio/worker',
            ]),
            layer('The control plane imports workflows as types only.', ['**/workflows/**'], true),
          ],
        },
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
