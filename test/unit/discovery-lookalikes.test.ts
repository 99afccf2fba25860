/**
 * Accepted tables compared with each other (flows/discovery/workflow/lookalikes.ts): a table that
 * is the better source of none of its columns is set aside, never a column's best source, and a
 * verdict without per-column scores is left alone. Tables and requirements here are invented
 * (orchards, ferries, kennels), not taken from any evaluation case.
 */
import { describe, expect, it } from 'vitest';
import type { DiscoveredTable, StepResult } from '../../flows/discovery/contract';
import {
  CLEARLY_NEARER,
  lookalikesToSetAside,
  MAX_COMPARED,
  setAsideLookalikes,
} from '../../flows/discovery/workflow/lookalikes';

function table(
  name: string,
  columns: Record<string, number> | string[],
  subject?: number,
  description = 'a table',
): DiscoveredTable {
  const [project_id, dataset_id, table_id] = name.split('.');
  const scored = !Array.isArray(columns);
  const matched = scored ? Object.keys(columns) : columns;
  return {
    project_id,
    dataset_id,
    table_id,
    description,
    schema: matched.map((c) => ({ name: c, type: 'STRING' })),
    relevance_score: 0.8,
    reasoning: 'test',
    matched_columns: matched,
    ...(scored ? { column_scores: columns } : {}),
    ...(subject !== undefined ? { subject_score: subject } : {}),
  };
}

function step(group: string, columns: string[], tables: DiscoveredTable[]): StepResult {
  return {
    conceptual_group: group,
    search_query: group,
    target_columns: columns.map((name) => ({ name, type: 'STRING' })),
    discovered_tables: tables,
    candidates_found: tables.length,
    status: 'ok',
  };
}

describe('look-alike accepted tables', () => {
  it('sets aside a table whose every column another supplies more clearly', () => {
    const results = [
      step(
        'harvest per tree',
        ['tree_id', 'kilos_picked', 'pick_date'],
        [
          table('farm.orchard.harvest_log', { tree_id: 1, kilos_picked: 0.95, pick_date: 0.9 }, 0.6),
          // A spraying log has a tree and a date, and an amount that only resembles the kilos.
          table('farm.orchard.spray_log', { tree_id: 1, kilos_picked: 0.7, pick_date: 0.88 }, 0.61),
        ],
      ),
    ];
    const aside = lookalikesToSetAside(results);
    expect([...aside.keys()]).toEqual(['farm.orchard.spray_log']);
    expect(aside.get('farm.orchard.spray_log')).toEqual({
      by: ['farm.orchard.harvest_log'],
      columns: ['kilos_picked', 'pick_date'],
    });
  });

  it('lets the subject decide between two tables that supply the columns as clearly', () => {
    const results = [
      step(
        'sailings',
        ['route', 'departed_at', 'passengers'],
        [
          table('transport.ferries.sailings', { route: 1, departed_at: 1, passengers: 0.9 }, 0.55),
          table('transport.coaches.departures', { route: 1, departed_at: 1, passengers: 0.92 }, 0.41),
        ],
      ),
    ];
    expect([...lookalikesToSetAside(results).keys()]).toEqual(['transport.coaches.departures']);
  });

  it('sets aside a table that only echoes another less clearly, unless its subject reads clearly nearer', () => {
    // Both timetables carry the quay and the departure; only the ferry one holds the sailing's
    // tide window as asked. The coach table's subject reads a little nearer, yet it adds nothing.
    const sailings = (coachSubject: number) => [
      step(
        'sailings',
        ['route', 'departed_at', 'tide_window'],
        [
          table('transport.ferries.sailings', { route: 1, departed_at: 1, tide_window: 0.95 }, 0.45),
          table('transport.coaches.departures', { route: 1, departed_at: 1, tide_window: 0.5 }, coachSubject),
        ],
      ),
    ];
    const aside = lookalikesToSetAside(sailings(0.5));
    expect([...aside.keys()]).toEqual(['transport.coaches.departures']);
    expect(aside.get('transport.coaches.departures')!.by).toEqual(['transport.ferries.sailings']);
    // Clearly nearer the requirement's subject, it is not an echo: each is the better source of something.
    expect(lookalikesToSetAside(sailings(0.45 + CLEARLY_NEARER + 0.05)).size).toBe(0);
    // Without the clearly better column, the nearer subject decides as before: the ferry table goes.
    const even = [
      step(
        'sailings',
        ['route', 'departed_at'],
        [
          table('transport.ferries.sailings', { route: 1, departed_at: 1 }, 0.45),
          table('transport.coaches.departures', { route: 1, departed_at: 1 }, 0.6),
        ],
      ),
    ];
    expect([...lookalikesToSetAside(even).keys()]).toEqual(['transport.ferries.sailings']);
  });

  it('keeps the echo aside when the table it echoes comes back in the same round', () => {
    // a is clearer on both columns but far from the subject; d echoes a; e is the best source of x.
    // With d aside and a aside for x, both would come back together; the echo must stay aside.
    const results = [
      step(
        'plots',
        ['x', 'y'],
        [
          table('farm.plots.a', { x: 0.95, y: 0.8 }, 0.4),
          table('farm.plots.d', { x: 0.8, y: 0.8 }, 0.45),
          table('farm.plots.e', { x: 0.95 }, 0.7),
        ],
      ),
    ];
    expect([...lookalikesToSetAside(results).keys()]).toContain('farm.plots.d');
  });

  it('keeps both when neither clarity nor subject tells them apart', () => {
    const results = [
      step(
        'kennel stays',
        ['dog_name', 'nights'],
        [
          table('pets.kennel.stays', { dog_name: 1, nights: 1 }, 0.5),
          table('pets.kennel.stays_archive', { dog_name: 1, nights: 1 }, 0.505),
        ],
      ),
    ];
    expect(lookalikesToSetAside(results).size).toBe(0);
  });

  it('keeps every table of a circle that beats itself, and names only kept tables as better sources', () => {
    // a is clearer than c by more than the bar; b is as clear as a and nearer the subject; c is as
    // clear as b and nearer still: each is beaten by another, so none is the better source.
    const circle = [
      step(
        'orchard yields',
        ['orchard_id', 'yield_kg'],
        [
          table('farm.orchards.a', { orchard_id: 1, yield_kg: 0.8 }, 0.5),
          table('farm.orchards.b', { orchard_id: 1, yield_kg: 0.72 }, 0.6),
          table('farm.orchards.c', { orchard_id: 1, yield_kg: 0.64 }, 0.7),
        ],
      ),
    ];
    expect(lookalikesToSetAside(circle).size).toBe(0);
    // With a fourth table clearly better than all, the others are set aside and each reason names it.
    const withBest = [
      step(
        'orchard yields',
        ['orchard_id', 'yield_kg'],
        [...circle[0].discovered_tables, table('farm.orchards.d', { orchard_id: 1, yield_kg: 0.99 }, 0.7)],
      ),
    ];
    const aside = lookalikesToSetAside(withBest);
    expect([...aside.keys()].sort()).toEqual(['farm.orchards.a', 'farm.orchards.b', 'farm.orchards.c']);
    for (const { by } of aside.values()) expect(by).toEqual(['farm.orchards.d']);
  });

  it('compares nothing past the most tables workflow code may compare', () => {
    const many = Array.from({ length: MAX_COMPARED + 1 }, (_, i) =>
      table(`farm.orchards.t${i}`, { orchard_id: 1, yield_kg: i === 0 ? 0.99 : 0.5 }, 0.5),
    );
    expect(lookalikesToSetAside([step('orchard yields', ['orchard_id', 'yield_kg'], many)]).size).toBe(0);
    expect(
      lookalikesToSetAside([step('orchard yields', ['orchard_id', 'yield_kg'], many.slice(0, MAX_COMPARED))]).size,
    ).toBe(MAX_COMPARED - 1);
  });

  it('keeps a table that is the best source of one of its columns', () => {
    const results = [
      step(
        'harvest',
        ['kilos_picked', 'variety'],
        [
          table('farm.orchard.harvest_log', { kilos_picked: 0.95 }, 0.6),
          table('farm.orchard.trees', { kilos_picked: 0.6, variety: 0.9 }, 0.5),
        ],
      ),
    ];
    expect(lookalikesToSetAside(results).size).toBe(0);
  });

  it('never compares by verdicts that carry no per-column scores', () => {
    const results = [
      step(
        'sailings',
        ['route', 'passengers'],
        [
          table('transport.ferries.sailings', { route: 1, passengers: 0.95 }, 0.6),
          table('transport.coaches.departures', ['route', 'passengers'], 0.3),
        ],
      ),
    ];
    expect(lookalikesToSetAside(results).size).toBe(0);
  });

  it('keeps the look-alike of another domain the document names as its own', () => {
    const results = [
      step(
        'crossings',
        ['route', 'passengers'],
        [
          table('transport.ferries.sailings', { route: 1, passengers: 0.95 }, 0.6, 'Sailings of the NSF fleet'),
          table('transport.ferries.other_fleet', { route: 1, passengers: 0.95 }, 0.45, 'Sailings of the BFL fleet'),
        ],
      ),
    ];
    expect(lookalikesToSetAside(results, { own: ['NSF'], excluded: [] }).size).toBe(1);
    expect(lookalikesToSetAside(results, { own: ['NSF', 'BFL'], excluded: [] }).size).toBe(0);
  });

  it('reads a domain the document names as its own from the name of the table when the description is generic', () => {
    const results = [
      step(
        'crossings',
        ['route', 'passengers'],
        [
          table('transport.ferries.nsf_sailings', { route: 1, passengers: 0.95 }, 0.6, 'Sailings by route'),
          table('transport.ferries.bfl_sailings', { route: 1, passengers: 0.95 }, 0.45, 'Sailings by route'),
        ],
      ),
    ];
    expect(lookalikesToSetAside(results, { own: ['NSF'], excluded: [] }).size).toBe(1);
    expect(lookalikesToSetAside(results, { own: ['NSF', 'BFL'], excluded: [] }).size).toBe(0);
  });

  it('does not set aside a table for keys alone, and a key only it carries brings it back', () => {
    const results = [
      step(
        'harvest',
        ['tree_id', 'kilos_picked'],
        [
          table('farm.orchard.harvest_log', { kilos_picked: 0.95 }, 0.6),
          table('farm.orchard.spray_log', { tree_id: 1, kilos_picked: 0.6 }, 0.5),
        ],
      ),
    ];
    expect(lookalikesToSetAside(results).size).toBe(0);
  });

  it('reports set-aside tables as superseded and leaves no step empty', () => {
    const harvest = table('farm.orchard.harvest_log', { tree_id: 1, kilos_picked: 0.95, pick_date: 0.9 }, 0.6);
    const spray = table('farm.orchard.spray_log', { pick_date: 0.7 }, 0.5);
    const results = [
      step('harvest per tree', ['tree_id', 'kilos_picked', 'pick_date'], [harvest]),
      step('picking dates', ['pick_date'], [spray]),
    ];
    const out = setAsideLookalikes(results);
    expect(out.rejected).toEqual([
      expect.objectContaining({
        conceptual_group: 'picking dates',
        table: 'farm.orchard.spray_log',
        outcome: 'superseded',
      }),
    ]);
    expect(out.results[0]).toBe(results[0]);
    // The step whose only table was set aside names the table that supplies its column instead.
    expect(out.results[1].discovered_tables.map((t) => [t.table_id, t.matched_columns])).toEqual([
      ['harvest_log', ['pick_date']],
    ]);
  });
});
