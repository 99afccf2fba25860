/**
 * What a sentence says, read from general phrasing rather than from keywords: how work moves (one
 * fixed route for everything, a route per job, people and places put into time slots) and the
 * usual kinds of scheduling trouble (switching between products, a step that sets the pace,
 * demand that swings, breakdowns, people short or too few qualified, promises missed...).
 *
 * The same cues are read from a choice's definition and from the interviewee's sentence; a choice
 * gains when both say the same thing. So nothing here names a choice key: an EADS with other
 * choices gets the benefit wherever its definitions speak of these things. The patterns are
 * everyday English about operations, not the bundled firms' words.
 */

const CUES: Record<string, RegExp[]> = {
  // How work moves.
  'one-route': [
    /\b(?:every|all|each)\b[^.;]{0,70}\b(?:same|one|fixed|single)\s+(?:\w+\s+){0,2}(?:steps?|sequence|order|route|path|road|way|line|stages?)\b/,
    /\bsame (?:steps|stages|sequence|route|path|road|order)\b/,
    /\b(?:only|just) one way\b|\bone way through\b|\bfixed (?:sequence|order|route)\b/,
    /\b(?:nothing|never|no \w+)\b[^.;]{0,25}\b(?:skips?|goes back|doubles? back|changes? order|jumps? ahead)/,
    /\blaid out along\b|\bdown the (?:one |same )?line\b|\balong (?:that|the|one) line\b/,
    /\b(?:every|each|all) \w+s? follows? (?:this|the same|one) (?:path|route|sequence|order)/,
  ],
  'own-route': [
    /\b(?:its|their|his|her) own (?:route|path|sequence|routing|way|plan|series)\b/,
    /\bdiffers? from (?:job to job|order to order|one \w+ to (?:the next|another))/,
    /\bdepends? (?:entirely |mostly |completely )?on (?:the|what|which|each)\b/,
    /\bchanges? (?:with|for) (?:every|each)\b|\bvar(?:y|ies) (?:from|by|with) (?:job|order|item|customer)/,
    /\b(?:every|each) (?:job|order|piece|item)\b[^.;]{0,40}\bdifferent (?:route|path|sequence|machines|order)/,
  ],
  'time-slots': [
    /\b(?:assign|allocat|book|put|place|slot|fit)\w*\b[^.;]{0,90}\b(?:time ?slots?|slots?|periods?|sessions?|appointments?|timetables?|programme|diary|rota|roster|lessons?)\b/,
    /\b(?:time ?slots?|periods?)\b[^.;]{0,40}\b(?:timetable|week|day|recur|repeat)/,
  ],
  milestones: [/\bmilestones?\b|\bone-off (?:project|undertaking)\b/],
  'one-machine': [/\b(?:one|a single) (?:machine|shared resource)\b(?! centre)/],
  // Scheduling trouble.
  switching: [
    /\bswitch(?:es|ing)?\b|\bchange ?-?overs?\b|\bset-?ups?\b|\bmake-?ready\b|\bretool/,
    /\b(?:go(?:es|ing)?|mov(?:e|es|ing)|chang(?:e|es|ing)) from (?:one|a|an)\b[^.;]{0,40}\bto (?:the next|another|a|an)\b/,
  ],
  cleaning: [
    /\bclean(?:ing|s|ed)?\b|\bwash(?:-?down|es|ing)?\b|\bpurg(?:e|ing)\b|\bflush(?:ing)?\b|\bsaniti[sz]/,
    /\bstrip(?:ping)? (?:down )?(?:the )?(?:whole )?line\b/,
  ],
  'sets-pace': [
    /\bbottlenecks?\b|\bthrottl/,
    /\bsets? (?:the|our) pace\b|\bslowest\b|\bcan(?:no|')?t keep up\b|\bcannot keep up\b/,
    /\bpiles? up\b|\bqueues? (?:up )?(?:in front|for|at)\b|\bholds? (?:everything|everyone|us|the rest) up\b/,
    /\blimits? (?:our|the) (?:output|throughput|pace)\b/,
  ],
  swings: [
    /\bseason(?:al|s)?\b|\bpeaks?\b|\bbusy (?:and|or) (?:slow|quiet)\b|\bquiet (?:months?|season|periods?|winter|summer)\b/,
    /\b(?:jump|spike|surge|swing|soar|slump)s?\b|\bdoubles?\b|\b(?:twice|three times|two times) (?:as much|the usual|more)\b/,
  ],
  unforeseeable: [
    /\b(?:never|don'?t|do not|cannot|can'?t|hard to|unable to) (?:know|tell|predict|foresee|say)\b[^.;]{0,40}\b(?:what|how much|how many|which|in advance|will)\b/,
    /\bunpredictab|\bwalk-?ins?\b|\bat short notice\b|\blast[- ]minute\b/,
  ],
  'missed-promises': [
    /\b(?:miss(?:ing|ed)?|late|behind|slip(?:s|ping)?)\b[^.;]{0,40}\b(?:deliver\w*|due|deadlines?|promis\w*|dates?|ship\w*)\b/,
    /\b(?:promis\w*|due dates?|deadlines?)\b[^.;]{0,80}\b(?:cannot keep|can'?t keep|miss\w*|late|fail\w*)\b/,
    /\bstruggle to (?:ship|deliver|meet)\b/,
  ],
  'material-short': [
    /\b(?:arriv\w*|deliver\w*|come|comes) late\b|\bor not at all\b/,
    /\b(?:missing|short(?:age)?|out of stock|run(?:s)? out|scarce|late)\b[^.;]{0,30}\b(?:materials?|parts?|components?|ingredients?|reels?|supplies|supply)\b/,
    /\b(?:materials?|parts|components?|ingredients?|supplies)\b[^.;]{0,60}\b(?:missing|late|short supply|shortage|scarce|not at all|run out)\b/,
  ],
  breakdowns: [
    /\bbreaks? down\b|\bbreakdowns?\b|\bbroken\b|\bout of (?:order|action)\b|\bstands? still\b|\bunplanned (?:stops?|downtime)\b/,
  ],
  upkeep: [
    /\bmaintenance\b|\b(?:needs?|gets?|has|have|due for) an? (?:\w+ )?service\b|\bserviced\b|\boverhaul|\bcalibrat/,
  ],
  'staff-short': [
    /\bshort(?:-handed| of (?:\w+ )?(?:staff|people|hands|\w+(?:ers|ors|ists|ians)))\b|\bunder-?staffed\b|\bhands short\b/,
    /\b(?:too few|not enough)\b[^.;]{0,20}\b(?:people|staff|workers|hands|employees)\b/,
    /\b(?:hard|harder|difficult) to (?:find|hire|recruit)\b|\bfinding (?:people|staff|workers)\b[^.;]{0,40}\bhard/,
    /\b(?:left|quit)\b[^.;]{0,40}\bnot (?:been )?replaced\b|\bhave not replaced\b|\bhaven'?t replaced\b/,
  ],
  'few-qualified': [
    /\bonly (?:one|two|three|four|a few|a handful|few)\b[^.;]{0,60}\b(?:certified|qualified|certification|qualification|trained|skilled|skills?|licen[cs]\w*|able to|allowed to)\b/,
  ],
  idle: [/\bidle\b|\bsits? (?:unused|empty|around)\b|\bunder-?(?:used|utili[sz]ed)\b|\bstands? (?:unused|empty)\b/],
  variety: [
    /\bmany (?:different )?(?:product )?(?:products|variants|versions|models|designs|items)\b|\bproduct variants\b/,
    /\b(?:never|hardly ever|rarely|seldom) (?:make |print |do |build )?the same\b|\bevery (?:order|job|item|piece) is different\b/,
    /\bone-off (?:custom )?(?:items|parts|pieces|products|jobs)\b|\bcustom\b|\bbespoke\b|\bmade to order\b/,
  ],
  'many-routes': [/\b(?:many|different|several) (?:processes|routes|routings)\b/],
  'together-booking': [
    /\b(?:booked|reserved|needed|assigned|scheduled|available) together\b/,
    /\b(?:all )?(?:booked|reserved|assigned|needed) (?:for|at) the same (?:time|hour|period|slot|half hour|moment|activity)\b/,
    /\btogether (?:for|at) the same\b/,
    // "each lesson needs a tutor and a room at the same hour"
    /\bneeds? (?:a|an|the)\b[^.;]{0,60}\b(?:and|with)\b[^.;]{0,60}\b(?:at|for|in) the same (?:time|hour|period|slot|half hour|moment)\b/,
  ],
  targets: [
    /\bkpis?\b|\bhit (?:our |the )?targets?\b|\bon-time (?:delivery )?rates?\b|\butili[sz]ation (?:targets?|rates?)\b|\bservice levels?\b/,
  ],
};

/** The cues a text carries. */
export function cuesOf(text: string): Set<string> {
  const t = text.toLowerCase().replace(/\s+/g, ' ');
  const found = new Set<string>();
  for (const [cue, patterns] of Object.entries(CUES)) if (patterns.some((re) => re.test(t))) found.add(cue);
  return found;
}

/**
 * Cues that support a reading only together with another: washing is what a laundry sells, and
 * only a switch between products makes it a changeover.
 */
const AUXILIARY = new Set(['cleaning']);

export function sharedCues(a: Set<string>, b: Set<string>): number {
  let n = 0;
  for (const c of a) if (b.has(c)) n++;
  return n;
}

/** Whether two texts say the same thing: a shared cue that can stand on its own. */
export function saySame(a: Set<string>, b: Set<string>): boolean {
  for (const c of a) if (b.has(c) && !AUXILIARY.has(c)) return true;
  return false;
}
