/**
 * A phrase said only in the products' own names (and in their assemblies' names after them) names
 * the products, not a part in their BOMs: it grounds on nothing, and the answer says whose names
 * hold it, instead of listing the products' assemblies as if they held such a part.
 */
import { describe, expect, it } from 'vitest';
import { Grounder, partNames, productsNamedBy, Vocabulary } from '../../flows/bom/activities/terms';

const LEAVES = ['Wood screw 4x40', 'Drawer runner 350mm', 'Table leg oak 720mm', 'Felt pad 20mm'];
const ASSEMBLIES = [
  'Seat slat set for Garden Bench',
  'Leg frame for Oak Dining Table',
  'Drawer unit for Oak Dining Table',
];
const PRODUCTS = ['Oak Dining Table Classic', 'Garden Bench Teak'];
const ALL = [...LEAVES, ...ASSEMBLIES, ...PRODUCTS];
const lower = (values: string[]) => values.map((v) => v.toLowerCase());
const holding = (phrase: string) => lower(ALL).filter((v) => v.includes(phrase));

describe('productsNamedBy', () => {
  it('a word only the products and their assemblies (after the product) say names the products', () => {
    expect(productsNamedBy('bench', holding('bench'), PRODUCTS)).toEqual(['Garden Bench Teak']);
    expect(productsNamedBy('dining table', holding('dining table'), PRODUCTS)).toEqual(['Oak Dining Table Classic']);
  });

  it('a word some other name uses on its own names a part or an assembly', () => {
    // "table" in "Table leg oak": a part's own word.
    expect(productsNamedBy('table', holding('table'), PRODUCTS)).toBeNull();
    // Said by no product at all.
    expect(productsNamedBy('drawer unit', holding('drawer unit'), PRODUCTS)).toBeNull();
    expect(productsNamedBy('bench', holding('bench'), [])).toBeNull();
  });

  it('a product named by one word is inside an assembly that names it whole', () => {
    const products = ['Hammock'];
    const holders = ['stand for hammock', 'hammock'];
    expect(productsNamedBy('hammock', holders, products)).toEqual(['Hammock']);
    // A longer phrase no product's name holds is the part's own ("hammock hooks").
    expect(productsNamedBy('hammock hooks', ['hammock hooks, pair'], products)).toBeNull();
  });
});

describe('Grounder: product names are no parts', () => {
  const grounder = () =>
    new Grounder(
      new Vocabulary([{ column: 'item_master.item_description', values: ALL }]),
      undefined,
      partNames(LEAVES),
      PRODUCTS,
    );

  it('grounds nothing for a product-only word, and says which products hold it', async () => {
    const bench = await grounder().ground('bench');
    expect(bench.level).toBeNull();
    expect(bench.names_products).toEqual(['Garden Bench Teak']);
  });

  it('still grounds an assembly or a part by its own words', async () => {
    expect((await grounder().ground('drawer unit')).level).not.toBeNull();
    const leg = await grounder().ground('table leg');
    expect(leg.level).not.toBeNull();
    expect(leg.names_products).toBeUndefined();
  });

  it('without product names, grounds as before', async () => {
    const plain = new Grounder(
      new Vocabulary([{ column: 'item_master.item_description', values: ALL }]),
      undefined,
      partNames(LEAVES),
    );
    expect((await plain.ground('bench')).level).not.toBeNull();
  });
});

describe('productsNamedBy: a product named by one word', () => {
  const products = ['Pump', 'Espresso Machine Classic'];

  it('an assembly whose own name starts with that word is one of it, in another product', () => {
    // "Pump for espresso machine": a pump, made for the machine; the question about pumps is about it.
    expect(productsNamedBy('pump', ['pump for espresso machine'], products)).toBeNull();
    expect(productsNamedBy('pumps', ['spare pump, for espresso machine'], products)).toBeNull();
    expect(productsNamedBy('pump', ['pump and hose set'], products)).toBeNull();
  });

  it('an assembly that says the word of what it is for, or before its own head, belongs to the product', () => {
    expect(productsNamedBy('pump', ['base plate for pump', 'pump housing'], products)).toEqual(['Pump']);
  });
});
