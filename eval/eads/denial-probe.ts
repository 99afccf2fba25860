/**
 * A probe of denied troubles, for whoever works on the challenge reading: each development firm's
 * first fact (what it makes and what is hard), with one sentence appended that denies a trouble
 * the firm does not name ("… is never a problem for us", "We don't struggle with …", "… used to
 * be an issue, but not any more"), in words written for this probe. It reports how often the
 * denied trouble is tagged all the same (ideally never), and the firm's named troubles found.
 *   npx tsx eval/eads/denial-probe.ts
 */
import { readFileSync } from 'node:fs';
import path from 'node:path';
import { cachedLibrary } from '../../flows/eads/activities/library';
import { readChoices } from '../../flows/eads/standin';
import { loadTruth } from './index';

const SAID: Record<string, string> = {
  'raw-material-uncertainty': 'getting our supplies in',
  'delivery-schedules': 'shipping by the promised date',
  'variation-in-demand': 'the busy and quiet seasons',
  'planned-maintenance': 'fitting in the servicing of our machines',
  'equipment-changeover': 'switching the machines from one product to the next',
  'equipment-availability': 'machines breaking down',
  'worker-availability': 'having enough staff',
  'skilled-worker-availability': 'finding people qualified for the specialist work',
  'bottleneck-processes': 'one slow step holding up the others',
};
const capital = (x: string) => `${x[0].toUpperCase()}${x.slice(1)}`;
const DENIALS = [
  (x: string) => `${capital(x)} is never a problem for us.`,
  (x: string) => `We don't struggle with ${x}.`,
  (x: string) => `${capital(x)} used to be an issue, but not any more.`,
];

async function main(): Promise<void> {
  const library = cachedLibrary([path.resolve(__dirname, '..', '..', 'data', 'eads')])();
  const field = library.get('process/warm-up-with-challenges')!.fields.find((f) => f.name === 'scheduling-challenges')!;
  const truth = loadTruth('dev');
  let probes = 0;
  let tagged = 0;
  let named = 0;
  let found = 0;
  for (const [firm, t] of Object.entries(truth)) {
    const facts = JSON.parse(readFileSync(path.join(__dirname, 'firms', `${firm}.json`), 'utf8')) as {
      facts: Array<{ answer: string }>;
    };
    const unnamed = Object.keys(SAID).filter(
      (k) => !(k in t.challenges) && !(t['acceptable-challenges'] ?? []).includes(k),
    );
    const denied = unnamed[firm.length % unnamed.length];
    const sentence = DENIALS[firm.length % DENIALS.length](SAID[denied]);
    const tags = await readChoices(`${facts.facts[0].answer} ${sentence}`, field.choices!);
    probes++;
    if (tags.includes(denied)) {
      tagged++;
      console.log(`${firm}: "${sentence}" tagged ${denied}`);
    }
    named += Object.keys(t.challenges).length;
    found += Object.keys(t.challenges).filter((c) => tags.includes(c)).length;
  }
  console.log(`denied trouble tagged in ${tagged} of ${probes} firms; named troubles found ${found} of ${named}`);
}

void main().then(
  () => process.exit(0),
  (e: unknown) => {
    console.error(e);
    process.exit(1);
  },
);
