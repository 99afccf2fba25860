/**
 * The TypeScript compiler, for the tests that read the project's sources (the import graph, the
 * regular expressions, the patch ids, the stand-in rules' wording). Loaded with `require`, as
 * ESLint loads it: imported as a module instead, Node first scans its 9 MB for ES module syntax
 * and for the names it exports (some 0.3 s in every test worker that imports it), and ESLint's
 * copy in the same worker is not the imported one. Types come from `import type ... 'typescript'`.
 */
import { createRequire } from 'node:module';
import type * as TS from 'typescript';

const ts: typeof TS = createRequire(import.meta.url)('typescript');
export default ts;
