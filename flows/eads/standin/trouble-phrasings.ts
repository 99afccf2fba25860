/**
 * More everyday ways of telling a scheduling trouble, as owners tell them when asked what makes
 * planning hard: the trouble and what it does to the day in one breath ("…, and then …", "…, so
 * …"), the thing that fails named by its own noun rather than called "a machine", the people who
 * can do a task counted rather than called "skilled". The short phrasings of ./phrasings.ts say
 * each trouble in a few words; a long sentence that tells it with its consequence sits between
 * several of them in meaning, and the classifier trained on both learns which part of such a
 * sentence tells the trouble. Written across trades of our own choosing, in our own words.
 *
 * `TROUBLE_DENIED` is the other side: a trouble said to be no trouble here ("… is never the
 * problem", "we have plenty of …", "… does not change with the seasons"). Read by meaning alone a
 * denial sits as near its trouble as a complaint does; taught as "nothing in particular" to the
 * classifier that reads troubles, it weighs against tagging what the firm says it does not suffer.
 */

/** Each trouble idea of ./meaning.ts, told with its consequence. */
export const TROUBLE_TOLD: Record<string, readonly string[]> = {
  'materials-late': [
    'The quality of what comes in changes from batch to batch, and a bad batch means stopping to adjust.',
    'There is only one supplier for the resin, and when they are behind, so are we.',
    'Loads come in a week or two later than promised, or only half of what we ordered.',
    'The fruit we are sent is sometimes too ripe to use, and then the run has to wait for more.',
    'Imported parts sit at the port for weeks, and the work planned around them cannot start.',
    'What the wholesaler delivers does not always match the sample, so it goes back and we wait.',
    'Without the right stock on the shelf, a job we planned simply cannot begin.',
    'The supplier often sends the wrong grade or too little of it, so the job sits until the rest comes.',
    'Half the loads we buy turn up damaged or below standard, and we lose days sorting replacements.',
    'We order weeks ahead and still the stock arrives after the date we were given.',
    'Whether we can start depends on what the supplier manages to send that week.',
    'What comes in varies so much from one delivery to the next that we cannot plan on it.',
    'The solvents we rely on are hard to get hold of, and some weeks there are none at all.',
    // Lateness of what comes in, told with the supplier or the thing ordered as its subject: the
    // same "late" as a missed delivery to a customer, the other way round.
    'The switchgear we ordered for the job is months away, and its makers keep moving the date.',
    'The hired scaffolding arrived two days behind the date we were given, and nothing could start until it did.',
    'Our supplier keeps putting back the day the new boiler leaves their works.',
    'The steel coils come from a single mill abroad, and they are behind more weeks than they are on time.',
    'Spares for the old presses can be weeks coming from the importer, and the press stays stripped meanwhile.',
    'What the merchant sends for a job lands later than they said, and the whole programme slides.',
    'Each delivery of sheet glass is late or short, so the cutting table waits on it.',
  ],
  'work-unforeseeable': [
    'Nobody can say what next week holds until the calls come in.',
    'What we will be asked for next month is anybody’s guess.',
    'Customers only tell us what they want a day or two before they need it.',
    'The call volume on any given day is impossible to predict.',
    'Jobs turn up with no pattern we could plan around, big one week, nothing the next.',
    'We cannot tell in advance which products the shops will want.',
  ],
  'promises-missed': [
    'The haulier collects at set hours, and whatever is not wrapped and labelled by then misses its slot.',
    'Each client fixes the day they need it, and being a day late costs us the next order.',
    'Orders have to be finished for the morning the customer has booked, and too often they are not.',
    'Site deliveries are booked weeks ahead; if we turn up late the builder charges us for the lost day.',
    'Everything has to be ready before the weekly shipment goes, or it waits another week.',
    'Customers plan their day around our delivery, so a late one means an angry phone call.',
    'The customer books the day the goods are needed, and if we are not ready by then they go elsewhere.',
    'Vans leave at fixed times, and anything not packed by then waits a day and reaches the buyer late.',
    'We often miss the date we gave, and the customer has to rearrange everything around us.',
    'Buyers fine us when a consignment is not at their door on the agreed morning.',
    'If the order is not ready when the collection comes, it misses the date the client was promised.',
    'Getting work out of the door by the date we quoted is a constant fight.',
  ],
  'demand-swings': [
    'Demand climbs steeply before every bank holiday and drops right off after.',
    'Some weeks the order book doubles, others it halves, following the time of year.',
    'The wet months are quiet, and when the sun comes out everybody wants us at once.',
    'Trade goes mad in spring and dies away to almost nothing in winter.',
    'The ferry is full all summer and nearly empty from November.',
    'Removals peak at the end of every month and in the school holidays.',
    'The weeks before the holidays are frantic, then January is dead.',
    'We get three times the work in the autumn rush that we see in the rest of the year.',
  ],
  'upkeep-planned': [
    'Every few weeks the machine must be stopped for cleaning and checks, and that time has to be found in the plan.',
    'Twice a year an outside examiner tests the equipment, and it stands unused while he does.',
    'We set aside Saturday mornings for servicing, and anything urgent then has to wait.',
    'The boat has to go into dry dock every spring for its survey, and we lose those weeks of sailings.',
    'Each bus must come off the road for its safety check every six weeks.',
    'We have to book the kiln out for servicing, which takes a day of production away.',
    'The scanners need recalibrating every month and cannot be used while that is done.',
    'The saws stop one morning a week so the blades and bearings can be looked after.',
    'The annual overhaul of the press takes it away for a fortnight, and orders have to be moved around it.',
  ],
  'booked-together': [
    'Every crossing needs a crew, a berth and the boat itself all free at the same time.',
    'Each tow needs the tug, a bosun and two deckhands booked for the same tide.',
    'A delivery needs the forklift, a driver and a free dock at once.',
    'Every scan needs the right sonographer, a free room and the scanner on the same afternoon.',
  ],
  'switching-costs-time': [
    'Switching the ink on the press from yellow to blue means washing every roller, and that takes the morning.',
    'Each time the press goes from one grade of board to the next, the dies and settings have to be changed.',
    'Going from one tablet size to another, the press has to be stripped and cleaned.',
    'Changing the moulding machine over to a different product loses an hour or two each time.',
  ],
  breakdowns: [
    'The forklift is old and keeps failing, and then nothing can be moved until it is repaired.',
    'Our only van broke down twice this month, and deliveries stopped until it was fixed.',
    'When the main pump fails, the whole plant stands still until the spare part arrives.',
    'The old guillotine gives out every couple of weeks and we stand about until the fitter arrives.',
    'Our sorting conveyor trips out and the whole warehouse waits while someone resets it.',
    'When the bandsaw throws its blade, the mill stops for the rest of the shift.',
    'The ferry engine played up twice last month and sailings had to be cancelled.',
    'The motor on the press burns out and we are down for days waiting for a part.',
    'The wrapper jams so often that the packing line spends hours stopped.',
    'The phone system drops out and nobody can take calls until it is back.',
    'One of the moulding machines is on its last legs and fails without warning.',
    'When the heating element goes, that unit is out of action until the engineer has been.',
  ],
  'equipment-idle': [
    'The expensive scanner stands unused for most of the afternoon.',
    'We bought a second guillotine and it hardly ever runs.',
    'The boat sits at the quay for hours between crossings, earning nothing.',
    'Costly machines switched off while we wait for work is money wasted.',
  ],
  'too-few-people': [
    'Sickness and holidays leave gaps in the rota that nobody can fill.',
    'We cannot find cover when someone is off, so the work just waits.',
    'We are always three or four drivers down and cannot fill the gaps.',
    'Nobody applies for the jobs we post, so we run short-handed most weeks.',
    'Half the warehouse crew are temps who come and go.',
    'People leave faster than we can train new ones.',
    'There are never enough people on the phones in the evenings.',
  ],
  'few-qualified': [
    'Only me and one other fitter can rebuild the gearboxes, so they all wait for the two of us.',
    'One pharmacist on the team can sign off the special mixes, and every one of them goes through her.',
    'Blasting needs a licensed shotfirer and we have just the one.',
    'Just two of our drivers hold the licence for the bigger lorry.',
    'Only the head sawyer can grade the oak, so that work backs up when he is away.',
  ],
  'one-step-limits-all': [
    'Every order ends up at the same finishing stage, and that is where the waiting happens.',
    'The one oven decides how much the whole place can make in a day.',
    'People at the earlier stages stand about because the last step is so slow.',
    'Everything we cut has to go through the single drying shed, and it cannot take more than a few loads a week.',
    'The mixers could make twice as much, but the filling machine cannot keep up with them.',
    'Loads pile up at the check-in desk while the rest of the site is ready for more.',
    'The other stations wait while one slow step works through its pile.',
    'Whatever we do upstream, the paint line only takes so many frames an hour and sets the pace.',
    'There is one loading bay, so lorries wait their turn for it while the pickers have nothing to do.',
  ],
  'many-processes': [
    'Each job needs its own mix of operations, in an order that depends on what the customer asked for.',
    'Some orders go straight through, others come back to the same machine two or three times.',
  ],
  'many-products': [
    'We carry thousands of lines and no two orders ask for the same mix.',
    'Nearly everything we make is designed for one customer and made once.',
  ],
  'targets-to-hit': [
    'The council measures us on the share of buses that run to time.',
    'We are judged on how many calls are answered within a minute.',
    'If our fill rate falls below the agreed level, we pay a penalty.',
    'The owners watch the percentage of machine hours we use every week.',
  ],
};

/** A trouble said not to be one: for the classifier that reads troubles, "nothing in particular". */
export const TROUBLE_DENIED: readonly string[] = [
  'Getting materials has never been a problem for us.',
  'Supplies are no issue, the supplier delivers whenever we ask.',
  'We always know well ahead what the customers will want.',
  'We finish on the day we promise, that side is fine.',
  'Trade does not change much with the seasons.',
  'Servicing the equipment is not something we need to plan around.',
  'Booking people and rooms together is easy enough.',
  'Changing from one product to the next takes no time at all.',
  'Our machines are reliable, breakdowns are rare.',
  'The equipment is busy all day, nothing stands idle.',
  'Staffing is not something we worry about, the team has been with us for years.',
  'Everyone here is trained to do every task.',
  'No one step holds up the rest.',
  'Every job follows the same few steps.',
  'We make only a handful of products.',
  'Nobody sets us targets to hit.',
  'We have more people than we need most of the time.',
  'Deliveries from our suppliers are always on time.',
  'Demand is much the same every month.',
  'We are lucky with the machines, they just keep going.',
];
