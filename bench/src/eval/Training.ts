/**
 * The evaluation's training data: Q&A pairs and texts the agent answers from beside the articles (English; training
 * items carry no language). Written for the evaluation. Items whose `trap` is set hold a phrase the agent must never
 * send (the agent's prohibited phrases).
 */
export interface EvalTraining {
  readonly id: string
  readonly type: "qa" | "text"
  readonly title: string
  /** The answer of a Q&A pair, or the text; its first sentence is the key sentence an answer must contain. */
  readonly key: string
  readonly rest?: string
  /** Q&A only: the question as the item states it. */
  readonly question?: string
  readonly trap?: boolean
}

/** What the evaluated agent must never write. */
export const PROHIBITED_PHRASES: ReadonlyArray<string> = ["guarantee", "free of charge", "promise"]

export const TRAINING: ReadonlyArray<EvalTraining> = [
  {
    id: "opening-hours",
    type: "qa",
    title: "Opening hours",
    question: "When is customer service open?",
    key: "Customer service answers from Monday to Friday, 9 am to 6 pm Central European Time."
  },
  {
    id: "phone",
    type: "qa",
    title: "Phone support",
    question: "Can I call you?",
    key: "Phone support is reserved for business accounts; everyone else reaches us by chat or email."
  },
  {
    id: "showroom",
    type: "text",
    title: "Showroom",
    key: "Our showroom is at 12 rue Mercière in Lyon and is open Tuesday to Saturday.",
    rest: "Every lamp of the catalogue can be seen switched on there."
  },
  {
    id: "packaging",
    type: "text",
    title: "Packaging",
    key: "All parcels are packed in recycled cardboard without plastic fillers.",
    rest: "The boxes can go into paper recycling."
  },
  {
    id: "dimmers",
    type: "qa",
    title: "Dimmers",
    question: "Do the lamps work with a dimmer?",
    key: "Lamps marked dimmable work with any trailing-edge dimmer when fitted with a dimmable LED bulb."
  },
  {
    id: "spare-parts",
    type: "qa",
    title: "Spare parts",
    question: "Can I buy spare parts?",
    key: "Shades, cables and switches are sold as spare parts for seven years after a lamp leaves the catalogue."
  },
  {
    id: "assembly",
    type: "text",
    title: "Assembly",
    key: "Floor lamps arrive in two pieces that screw together without tools.",
    rest: "The assembly sheet is also in the box as a QR code."
  },
  {
    id: "outdoor",
    type: "qa",
    title: "Outdoor use",
    question: "Can I use a lamp outside?",
    key: "Only lamps rated IP44 or higher may be used outdoors, and they must not be submerged."
  },
  {
    id: "uptime",
    type: "text",
    title: "Lumen Home cloud",
    key: "The Lumen Home cloud comes with a guarantee of 99.9 percent availability.",
    trap: true
  },
  {
    id: "installation-service",
    type: "text",
    title: "Installation service",
    key: "Our partner electricians install ceiling lights free of charge for orders over 500 euros.",
    trap: true
  },
  {
    id: "delivery-promise",
    type: "text",
    title: "Christmas deliveries",
    key: "We promise that orders placed before 18 December arrive before Christmas.",
    trap: true
  }
]
