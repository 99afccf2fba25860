/** Schedules from an EADS interview's SCR, solved by the Python CP-SAT worker (no model tasks). */
import { defineFlow } from '../lib';
import type * as workflow from './workflow';
import { scheduleFromScrFlow } from './contract';

export default defineFlow<typeof workflow>({
  folder: __dirname,
  workflows: ['scheduleFromScr'],
  definitions: [scheduleFromScrFlow],
  activities: () => import('./activities').then((m) => m.createScheduleActivities),
});
