/**
 * How long the BOM grounding takes to tell whether a phrase names the firm's products
 * (`productsNamedBy`) on names shaped to make it work hard: a thousand products sharing the
 * phrase, thousands of assembly names holding it after another product's name, and names of one
 * word repeated.
 *
 *   npx tsx bench/bom-product-names.ts [repeats=3]
 */
import { productsNamedBy } from '../flows/bom/activities/terms';

const repeats = Number(process.argv[2] ?? 3);
const words = (word: string, n: number) => Array(n).fill(word).join(' ');
const cases: Array<[string, string, string[], string[]]> = [
  [
    'a product line of 1000 models, 5000 assemblies',
    'lantern model',
    Array.from({ length: 5000 }, (_, i) => `hinge ${i} for lantern model ${i % 1000} deluxe`),
    Array.from({ length: 1000 }, (_, i) => `Lantern Model ${i} Deluxe`),
  ],
  [
    'one word repeated 40 times in 1000 products and 2000 assemblies',
    'spoke spoke',
    Array.from({ length: 2000 }, (_, i) => `${words('spoke', 40)} for w${i}`),
    Array.from({ length: 1000 }, (_, i) => `${words('spoke', 40)} ${i}`),
  ],
];
for (const [label, phrase, holders, products] of cases) {
  const times: number[] = [];
  for (let r = 0; r < repeats; r++) {
    const start = performance.now();
    productsNamedBy(phrase, holders, products);
    times.push(performance.now() - start);
  }
  console.log(`${label}: ${Math.round(Math.min(...times))} ms (best of ${repeats})`);
}
