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
  // Records kept in an archive and never typed up are documents to be read and coded, not a dataset
  // anyone has published: what decides is the state the records are in, not that they hold numbers.
  documents: [
    "The shipping firm's ledgers, never typed up, are kept in the county archive.",
    'The record office holds the estate’s rent rolls for two centuries.',
    'Toll-gate takings were written in bound volumes that survive in the archive.',
    // Texts and recordings a service already made, read or transcribed and coded: a corpus,
    // whatever the setting (a help-line, a care home, a language school).
    "The help-line's chat transcripts from last year are what I analyse.",
    'The care home staff wrote daily notes for years, and I code what they say about residents.',
    'A language school has recorded a year of its lessons, and I will transcribe and code them.',
    "Customer reviews posted on the firm's website over five years are my corpus.",
    'I read the written reports inspectors left after every visit and code their wording.',
  ],
  dataset: [
    'I compare exam results of rural and urban pupils in the published school tables.',
    'From the registry I check whether survival differs between hospitals with a similar case mix.',
    'Whether pay gaps between staff with equal qualifications show up in the payroll files.',
    "I check whether complaint outcomes differ by the customer's age in the company's records.",
    'Harvest figures the ministry has recorded for every district are what I work with.',
    'I compare the delivery times two courier firms logged in their own tracking records.',
    'Museum visitor counts kept at the door since 1990 are the data I analyse.',
    // Groups compared inside records already kept: no one is given anything.
    "Whether the insurer's claims database pays out differently by region for the same damage.",
    'From the league’s match statistics, how often referees book home players compared with away players.',
    'Whether fines in the library system’s export differ between groups of readers.',
    "I compare waiting times for men and women in the spreadsheet the clinic's booking system exports.",
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
    // Set-ups of software compared with each other: a trial of programs, not of people.
    'Does an ensemble of spam filters catch more junk mail than a single filter?',
    'Two versions of the route planner are run on the same trips and their delays compared.',
    'I run each configuration of the scheduler on the same jobs and count missed deadlines.',
    'Does a translation system with a glossary step make fewer errors than one without?',
    'Three chess engines play the same opening positions and I count the wins.',
    "The program's automated test suite tells me whether each generated fix is correct.",
    'Each patch is checked against the unit tests written for the code.',
    'Test cases shipped with every programming exercise decide whether an answer is right.',
    'The photo app’s face search is run with and without the new filter on the same albums.',
    "I replay last year's help-desk questions through the answer bot with and without a spelling-correction step.",
    'Old timetable requests are fed again to the booking software, once per version, to see which finds more seats.',
    'I rerun past cases through each version of the tool and count what it gets right and what it costs.',
  ],
  // A trial still to run, told in the future: which people will get the change and who carries on as before.
  intervention: [
    'Half of the volunteers will get the new app and the rest will carry on as usual.',
    'Some of the staff will be offered the coaching and the others will not, and I will compare the two.',
    'Next term two of the groups of learners switch to the new timetable and two keep the old one.',
  ],
  // Building something with the people who will use it, round after round: a design study in
  // their practice, not a trial, whatever setting it happens in.
  practice: [
    'I will design the booking tool together with the people who will use it, in a series of workshops.',
    'Each version of the guide is drafted with the staff, tried in their daily work and revised.',
    'Residents and I shape the map together, and I note what changes between versions and why.',
    'I build a first version with its future users, see how they get on with it and improve it in cycles.',
  ],
  lab: [
    'Rubber seals are aged in an ozone chamber and checked for cracks.',
    'Samples are aged in an oven and weighed every week.',
    'Glue joints are made with four adhesives and pulled apart in a tensile tester.',
    'Each coating is applied to test panels and scratched in a rig.',
    'I grow cultures under three temperatures and count the cells.',
    // Treatments given to materials or samples, not to people: a test, not a trial.
    'Two glazes are fired at three temperatures and the tiles left to cool overnight.',
    'Five batches of paint are mixed and left to dry for a fortnight before they are scratched.',
    'Four recipes of concrete, each poured into moulds and left to set for a month.',
  ],
};
