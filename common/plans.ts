/** The subscription plan table (product §9), in display order Basic → Standard → Professional. */
export const PLAN_IDS = ['BASIC', 'STANDARD', 'PROFESSIONAL'] as const;
export type PlanId = (typeof PLAN_IDS)[number];

export interface Plan {
  id: PlanId;
  name: string;
  priceUsd: number;
  credits: number;
  /** Credits per month as shown on the cards. */
  creditsText: string;
  approxPhotos: number;
  trainings: number;
  features: string[];
  popular: boolean;
}

const BASE_FEATURES = ['Image to Prompt Extraction', '30 days storage history', 'Commercial rights'];

export const PLANS: readonly Plan[] = [
  {
    id: 'BASIC',
    name: 'Basic',
    priceUsd: 19,
    credits: 1500,
    creditsText: '1,500 credits',
    approxPhotos: 150,
    trainings: 1,
    features: ['~150 photos per month', 'Up to 1 character training', ...BASE_FEATURES],
    popular: false,
  },
  {
    id: 'STANDARD',
    name: 'Standard',
    priceUsd: 49,
    credits: 4500,
    creditsText: '4,500 credits',
    approxPhotos: 450,
    trainings: 3,
    features: ['~450 photos per month', 'Up to 3 character trainings', ...BASE_FEATURES, 'Priority Support'],
    popular: true,
  },
  {
    id: 'PROFESSIONAL',
    name: 'Professional',
    priceUsd: 99,
    credits: 10000,
    creditsText: '10,000 credits',
    approxPhotos: 1000,
    trainings: 7,
    features: ['~1,000 photos per month', 'Up to 7 character trainings', ...BASE_FEATURES, 'Priority Support'],
    popular: false,
  },
];

export function isPlanId(value: unknown): value is PlanId {
  return typeof value === 'string' && (PLAN_IDS as readonly string[]).includes(value);
}

export function planById(id: PlanId): Plan {
  const plan = PLANS.find((p) => p.id === id);
  if (!plan) throw new Error(`Unknown plan ${id}`);
  return plan;
}

/** Label of a plan's button relative to the user's current plan (product §4). */
export function planButtonLabel(plan: PlanId, current: PlanId | null): string {
  if (!current) return 'Choose plan';
  const diff = PLAN_IDS.indexOf(plan) - PLAN_IDS.indexOf(current);
  if (diff === 0) return 'Manage Current Plan';
  return diff > 0 ? 'Upgrade' : 'Downgrade';
}

/** The plan in force: the plan code counts only while the status is 'active' (product §4); otherwise none. */
export function activePlanId(status: string | null | undefined, plan: string | null | undefined): PlanId | null {
  return status === 'active' && isPlanId(plan) ? plan : null;
}

/** 'Standard Plan' for an active Standard subscription, else 'Free Plan'. */
export function planLabel(status: string | null | undefined, plan: string | null | undefined): string {
  const id = activePlanId(status, plan);
  return id ? `${planById(id).name} Plan` : 'Free Plan';
}

/** The credit ledger's line for a paid period's plan credits (what the credits history shows). */
export function planCreditsReason(plan: PlanId, periodFrom?: string): string {
  return `${planById(plan).name} plan credits${periodFrom ? ` for the period from ${periodFrom}` : ''}`;
}

/** The ledger's line for an upgrade within a paid period: only the difference from the plan already granted. */
export function planUpgradeReason(plan: PlanId, from: PlanId, credits: number): string {
  return `${planById(plan).name} plan upgrade: ${credits.toLocaleString('en-US')} credits (difference from ${planById(from).name})`;
}

/**
 * One-off credit packs (issue 50 item 2): bought once, never renewed, kept across renewals. Priced above the
 * plans per credit (Basic: 1,500 for $19), so a plan stays the better deal for steady use.
 */
export const TOP_UP_PACK_IDS = ['PACK_500', 'PACK_1500', 'PACK_5000'] as const;
export type TopUpPackId = (typeof TOP_UP_PACK_IDS)[number];

export interface TopUpPack {
  id: TopUpPackId;
  credits: number;
  priceUsd: number;
  /** As the buttons show it. */
  label: string;
}

export const TOP_UP_PACKS: readonly TopUpPack[] = [
  { id: 'PACK_500', credits: 500, priceUsd: 9, label: '500 credits' },
  { id: 'PACK_1500', credits: 1500, priceUsd: 24, label: '1,500 credits' },
  { id: 'PACK_5000', credits: 5000, priceUsd: 69, label: '5,000 credits' },
];

export function isTopUpPackId(value: unknown): value is TopUpPackId {
  return typeof value === 'string' && (TOP_UP_PACK_IDS as readonly string[]).includes(value);
}

export function topUpPackById(id: TopUpPackId): TopUpPack {
  const pack = TOP_UP_PACKS.find((p) => p.id === id);
  if (!pack) throw new Error(`Unknown top-up pack ${id}`);
  return pack;
}

/** The ledger's line for a top-up. */
export const topUpReason = (pack: TopUpPack) => `Top-up: ${pack.label}`;
