/**
 * A third batch of everyday phrasings for the keys of ./phrasings.ts, written on 2026-11-28 for the
 * borders between kinds that the first two batches left unmarked. The classifier had learnt that
 * any comparison of groups is a trial, and that anything about weather, rivers or machines out of
 * doors is measuring on site, because every comparison it saw was a trial and every outdoor noun
 * sat under site measurements. These sentences compare groups without giving anyone anything
 * (records, models, batches in a laboratory), and speak of outdoor things through records others
 * keep or through a model trained on them, across many fields, so that what decides is who
 * collects what and how, not the subject.
 */

/** What a study works with: phrasings at the borders, same keys as `STUDY_DATA`. */
export const STUDY_DATA_BOUNDARIES: Record<string, readonly string[]> = {
  dataset: [
    'Do readmission rates differ between men and women in the national register?',
    'I compare exam results of rural and urban pupils in the published school tables.',
    'From the registry I check whether survival differs between hospitals with a similar case mix.',
    'Whether pay gaps between staff with equal qualifications show up in the payroll files.',
    'How often officials overruled the guideline, according to their own logs.',
    "I check whether complaint outcomes differ by the customer's age in the company's records.",
    'River levels logged by the environment agency since the seventies are my data.',
    'I use the hourly readings that airport weather stations have published for decades.',
    'The grid operator publishes what every power plant produced each hour, and I analyse it.',
    'Harvest figures the ministry has recorded for every district are what I work with.',
  ],
  computational: [
    'I train a neural network to predict next week’s hospital admissions from past figures.',
    'Each station becomes a point in a graph and the model learns from the stations around it.',
    "I compare my model's predictions with what actually happened and with a simple baseline.",
    'A machine learning model corrects the errors of an existing forecast.',
    'Models are trained on earlier years and scored on the years they have not seen.',
    'We benchmark a new prediction method against the standard one on historical data.',
    'Every week the model issues a prediction that is later checked against the real figures.',
    'I fit a deep learning model to sequences of sales and test how far ahead it stays accurate.',
    'I rerun the training with different random seeds and see how much the results move.',
    'The project feeds satellite images to a network that learns to map flooded areas.',
  ],
  lab: [
    'I mix three recipes of the material, make test pieces and put each through repeated cycles.',
    'Blends of concrete are cast, left to harden, then crushed in the press.',
    'I brew batches with different yeasts and measure each one.',
    'Samples are aged in an oven and weighed every week.',
    'Each coating is applied to test panels and scratched in a rig.',
    'I grow cultures under three temperatures and count the cells.',
  ],
};
