/**
 * A third batch of everyday phrasings for the keys of ./phrasings.ts, for the borders between kinds
 * that the first two batches left unmarked: any comparison of groups had read as a trial, and any
 * outdoor subject as measuring on site, because every comparison the classifier saw was a trial and
 * every outdoor noun sat under site measurements. These sentences compare groups without giving
 * anyone anything (in records, in a model, in a laboratory) across fields none of the evaluation
 * cases is about, so that what decides is who collects what and how, not the subject.
 */

/** What a study works with: phrasings at the borders, same keys as `STUDY_DATA`. */
export const STUDY_DATA_BOUNDARIES: Record<string, readonly string[]> = {
  dataset: [
    'I compare exam results of rural and urban pupils in the published school tables.',
    'From the registry I check whether survival differs between hospitals with a similar case mix.',
    'Whether pay gaps between staff with equal qualifications show up in the payroll files.',
    "I check whether complaint outcomes differ by the customer's age in the company's records.",
    'Harvest figures the ministry has recorded for every district are what I work with.',
    'I compare the delivery times two courier firms logged in their own tracking records.',
    'Museum visitor counts kept at the door since 1990 are the data I analyse.',
  ],
  computational: [
    "I compare my model's predictions with what actually happened and with a simple baseline.",
    'Models are trained on earlier years and scored on the years they have not seen.',
    'We benchmark a new prediction method against the standard one on historical data.',
    'A model learns from past ticket sales which concerts will sell out, and I test it on later seasons.',
    'I simulate queues at a ferry terminal and tune the model to the timetable records.',
    'I fit a deep learning model to sequences of sales and test how far ahead it stays accurate.',
    'I rerun the training with different random seeds and see how much the results move.',
    'The project feeds satellite images to a network that learns to map flooded areas.',
  ],
  lab: [
    'Rubber seals are aged in an ozone chamber and checked for cracks.',
    'Samples are aged in an oven and weighed every week.',
    'Glue joints are made with four adhesives and pulled apart in a tensile tester.',
    'Each coating is applied to test panels and scratched in a rig.',
    'I grow cultures under three temperatures and count the cells.',
  ],
};
