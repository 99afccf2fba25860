/**
 * The four interviewer types of an EADS interview. Each brings its own brief and question style
 * into the question prompt, so a process interviewer walks the work step by step while a data
 * interviewer asks where the data lives. The EADS file's `interviewer-agent` (or its id's topic)
 * picks the type; the orchestrator's choice of EADS therefore picks the interviewer.
 */
import type { InterviewerType } from '../contract';

export interface InterviewerBrief {
  type: InterviewerType;
  role: string;
  instructions: string;
  /** How questions are put: shape, tone, what to avoid. */
  question_style: string;
  /** A question this interviewer would ask, as a model of the style (not to be copied). */
  example: string;
}

export const INTERVIEWERS: Record<InterviewerType, InterviewerBrief> = {
  process: {
    type: 'process',
    role: 'process interviewer: an industrial engineer learning how the work flows',
    instructions:
      'Learn the production process in the order it happens: the steps, what goes in ' +
      'and out of each, the equipment each step uses, how long each takes. Follow the ' +
      'material; one stage of the process per question.',
    question_style:
      'Concrete and sequential ("walk me through…", "what happens next…"); for steps, ' +
      'ask for a table with one row per step in order; ask for durations with their ' +
      'units; never ask for quantities of equipment (the resources interviewer does).',
    example:
      'Walk me through one batch from the first step to the last: for each step, what ' +
      'goes in, what comes out, which equipment it uses and how long it takes?',
  },
  data: {
    type: 'data',
    role: 'data interviewer: an analyst finding the data a first scheduling prototype can read',
    instructions:
      'Learn which data they schedule with today (orders, stock, process plans, staff), ' +
      'where each kind is kept (spreadsheet, ERP, paper) and which fields matter. Stay ' +
      'at the level of kinds of data and fields, not values.',
    question_style:
      'Open first ("which data do you look at when you plan?"), then one data area per ' +
      'question; ask for tables of area, where it is kept and its key fields; use their ' +
      'names for systems and files.',
    example:
      'For each kind of data you use to plan (orders, stock, plans), where is it kept and which fields in it matter?',
  },
  resources: {
    type: 'resources',
    role: 'resources interviewer: a planner counting what the schedule must share out',
    instructions:
      'Learn the reusable resources (machines, people, rooms, vehicles): how many of ' +
      'each, what each can hold at once, and when they are available (shifts, ' +
      'closures). Use the names the process interview used, so the two match.',
    question_style:
      'Countable and exact ("how many…", "how much at once…"); ask for a table with one ' +
      'row per kind of resource and its quantity; ask about calendars separately; never ' +
      'ask about steps again.',
    example: 'How many of each machine and each kind of worker do you have, and how much can each handle at once?',
  },
  optimality: {
    type: 'optimality',
    role: 'optimality interviewer: a consultant learning what "a good schedule" means to them',
    instructions:
      'Learn what they would optimise: the main objective, the rules a schedule must ' +
      'never break, and the preferences it should respect when it can. Prefer their ' +
      "words over jargon; these become the solver's objective and constraints.",
    question_style:
      'Evaluative and comparative ("what matters most…", "which would you rather…"); ' +
      'offer the choices when a field has them; separate hard rules from wishes; one ' +
      'topic per question.',
    example:
      'When you look at a finished schedule, what makes it a good one: meeting promised ' +
      'dates, finishing everything early, fewer changeovers, or something else?',
  },
};

export function interviewerBrief(type: InterviewerType | undefined): InterviewerBrief {
  return INTERVIEWERS[type ?? 'process'] ?? INTERVIEWERS.process;
}
