import { parseBomQuestion } from './contracts/bom-text';
import { readFileSync } from 'node:fs';
const qs = JSON.parse(readFileSync('/work/wt/bom/eval/bom/questions.json','utf8'));
for (const q of qs) if (!q.holdout) console.log(q.id.padEnd(24), JSON.stringify(parseBomQuestion(q.question)));
for (const q of ['List BOMs using battery or memory components','Which BOMs use unobtainium flux capacitors?','Which boards use current sense resistors?','Where are OLED displays used?','Which finished goods ultimately contain X?']) console.log(JSON.stringify(parseBomQuestion(q)));
