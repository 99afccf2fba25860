/**
 * Everyday sentences from research profiles that say nothing about what the study does with its
 * data: the subject alone, the setting or the people it is about, the researcher's reasons, and
 * the limits the work must keep to (money, time, consent, travel). Written for the stand-in in
 * fields none of the evaluation cases is about.
 *
 * Without such a class the classifier of study data (./meaning.ts) must put every clause under
 * some kind of data, and a clause that only names people, a setting or a comparison of groups
 * went to the kind whose phrasings name people and groups most: a trial. With it, such a clause
 * counts for no kind, and what the study does with its data is read from the clauses that say so.
 */
export const NO_DATA_PHRASINGS: readonly string[] = [
  // The subject alone.
  'Loneliness among retired fishermen on small islands',
  'Trust in local councils after a boundary change',
  'The decline of cooperative creameries in the upland valleys',
  'Corrosion of steel anchor chains in cold seas',
  'Why young adults leave amateur brass bands',
  'Pricing of second-hand wedding dresses',
  'Noise and sleep near a busy motorway',
  'Succession in family-run bakeries',
  'How tenants talk about damp in rented flats',
  'Women in early aviation clubs',
  'Fox numbers in suburban gardens',
  'The spread of rooftop beehives in city centres',
  'How referees use video replays when judging fouls',
  'How shop staff use stock-level software when ordering',
  // The setting or the people.
  'among night-shift bus drivers',
  'in three rural pharmacies',
  'for first-time home buyers',
  'in a small mountain ski resort',
  'at the two village primary schools nearby',
  'in the outpatient clinics of one hospital',
  'within a network of community choirs',
  'Members of the cycling club, aged 20 to 70',
  'The volunteers at a food bank',
  // The researcher's reasons and situation.
  'I have always been curious about this.',
  'This matters for the job I hope to get.',
  'My supervisor suggested the topic.',
  'I worked in the trade for ten years before starting the degree.',
  'I grew up near the harbour and care about what happens to it.',
  'The topic came up in a module last year.',
  'I want the thesis to be useful to the people involved.',
  // Limits the work must keep to.
  'My budget is very small.',
  'Ethics approval takes about six weeks.',
  'I can only work on it at weekends.',
  'Consent is needed from everyone taking part.',
  'No money for travel.',
  'I must finish before the summer break.',
  'My supervisor is away for a month in spring.',
  'Everything has to be anonymised.',
  'Only free software can be used.',
  'Access needs a signed agreement with the owner.',
  'The results must be written up in English.',
  // Outcomes named on their own, with nothing said about how they are found.
  'whether people feel safer',
  'how prices changed',
  'the decision to move away',
  'whether the two groups differ',
  'and at what cost',
];
