import type { GenerationCharacter, GenerationView } from '@common/generation';
import type { ExploreFilterOptions, ExploreFilters, ExploreItem, ExplorePage, LibraryPage } from '@common/library';
import type { TrainingView } from '@common/training';
import type { PackView, ShootSummary, ShootView } from '@common/photo-shoots';
import type { HistoryPage, LedgerEntry } from '@common/credits';

/**
 * What the SPA needs from its backend, in the product's words. Features call these operations and never
 * build a list's address: the local adapter (src/backend/local/) answers them with this product's server
 * (HTTP API + server-sent events), the hosted adapter (src/backend/hosted/) with Clerk and Supabase.
 * Paid actions stay HTTP calls to our server in both modes, through `api`.
 */

/** The signed-in person as the identity provider describes them (product §3 "Identity provider user"). */
export interface SessionUser {
  id: string;
  fullName: string | null;
  firstName: string | null;
  lastName: string | null;
  imageUrl: string | null;
  primaryEmailAddress: { emailAddress: string } | null;
  emailAddresses: { emailAddress: string }[];
  createdAt: string;
  /** Built-in accounts: whether the sign-in address is confirmed. Undefined: the provider confirms it (Clerk). */
  emailVerified?: boolean;
}

/** The caller's users row (product §3) plus the identity's picture and join date, as every /app page reads it. */
export interface Me {
  id: string;
  clerk_id: string;
  email: string | null;
  full_name: string | null;
  credits: number;
  updated_at: string;
  subscription_status: string | null;
  subscription_plan: string | null;
  creem_customer_id: string | null;
  image_url: string | null;
  joined_at: string;
}

export interface IdentityPort {
  /** The current user, or null when signed out. */
  loadUser(): Promise<SessionUser | null>;
  /** A token proving the session, or null when there is none. */
  getToken(): Promise<string | null>;
  /** Built-in accounts only; the hosted build signs in with the identity provider's own widgets. */
  signIn(input: { email: string; password: string }): Promise<void>;
  /**
   * Signs nobody in: the mailed confirmation link does, and leads to `next` (a deep `/app/...` link the visitor
   * came from) or /app/create-image.
   */
  signUp(input: { name: string; email: string; password: string; next?: string }): Promise<void>;
  signOut(): Promise<void>;
  /**
   * Opens the identity provider's own account page, where the person can delete their account (hosted build:
   * Clerk's user profile; its user.deleted webhook then erases their data). Absent for built-in accounts.
   */
  openAccountDeletion?(): void;
  /**
   * Built-in accounts only ('Change password' on the profile; Clerk has its own): the server checks the
   * current password and the sign-up rule, and signs out every other session of the account.
   */
  changePassword?(input: { currentPassword: string; newPassword: string }): Promise<void>;
  /** Built-in accounts only: 'Forgot password?' — mails a single-use link if the address has an account. */
  requestPasswordReset?(email: string): Promise<void>;
  /** Built-in accounts only: sets a new password with the link's token (every session is signed out). */
  resetPassword?(input: { token: string; newPassword: string }): Promise<void>;
  /** Built-in accounts only: mails the confirmation link again ('Send again'). */
  sendVerificationEmail?(email: string): Promise<void>;
}

/** A character the user can generate with: one of their COMPLETED trainings with a LoRA file. */
export interface Character extends GenerationCharacter {
  lora_file_url: string;
}

/** The data-store reads and writes of product §7, for the signed-in user. */
export interface DataPort {
  /** User sync (product §4): create the users row or refresh its email and name; answers the record. */
  syncUser(user: SessionUser): Promise<Me>;
  /** My Generations / Favorites: one page of ACTIVE generations, newest first, with the exact total. */
  /** `weakLikeness`: My Generations' 'Weak likeness' filter (weak or faceless images of a character). */
  generationsPage(query: { page: number; favorites: boolean; weakLikeness?: boolean }, signal?: AbortSignal): Promise<LibraryPage>;
  /** The newest ACTIVE generations ('Recent Generations'). */
  recentGenerations(limit: number, signal?: AbortSignal): Promise<GenerationView[]>;
  /** One ACTIVE generation of the user (the source an upscale or edit links to); an error when there is none. */
  generation(id: string, signal?: AbortSignal): Promise<GenerationView>;
  setFavorite(id: string, isFavorite: boolean): Promise<GenerationView>;
  /** Soft delete: the generation's status becomes DELETED. */
  deleteGeneration(id: string): Promise<void>;
  /** The user's trainings, newest first. */
  trainings(signal?: AbortSignal): Promise<TrainingView[]>;
  /** COMPLETED trainings with a LoRA file, newest first. */
  characters(signal?: AbortSignal): Promise<Character[]>;
  /** The explore gallery: equality filters, featured first then newest, one page with the exact total. */
  explorePage(filters: ExploreFilters, page: number, signal?: AbortSignal): Promise<ExplorePage>;
  /** The distinct values of each filter, sorted. */
  exploreFilterOptions(signal?: AbortSignal): Promise<ExploreFilterOptions>;
  /** Featured explore items (at most LIMITS.featuredLimit). */
  exploreFeatured(signal?: AbortSignal): Promise<ExploreItem[]>;
  /** The user's balance now (user_public_meta.credits). */
  balance(signal?: AbortSignal): Promise<number>;
  /** Photo packs on offer (not hidden), in catalogue order, with their prompts in words. */
  photoPacks(signal?: AbortSignal): Promise<PackView[]>;
  /** The user's photo shoots, newest first (only RUNNING ones with `running`), with photos ready and failed. */
  shoots(opts: { running?: boolean }, signal?: AbortSignal): Promise<ShootSummary[]>;
  /** One of the user's shoots and its photos (an ApiError 404 when it is not theirs). */
  shoot(id: string, signal?: AbortSignal): Promise<ShootView>;
  /**
   * The credits page's history: a page of the user's ledger lines (of one kind, or all), newest first, after the
   * page `cursor` (the previous page's next_cursor) ended.
   */
  creditHistory(query: { kind?: LedgerEntry; cursor: string | null }, signal?: AbortSignal): Promise<HistoryPage>;
}

/** What a change notification is about; it carries no data: the listener refetches. */
export type ChangeTopic = 'generations' | 'trainings' | 'subscription' | 'shoots' | 'teams';

/**
 * Subscriptions to changes. Each returns its unsubscribe; a subscription lives as long as the screen that
 * made it.
 */
export interface LivePort {
  /** The live balance: called with the current balance once connected and after every change. */
  watchBalance(onCredits: (credits: number) => void): () => void;
  /** Called whenever rows of `topic` may have changed (and once connected, in case something was missed). */
  watchChanges(topic: ChangeTopic, onChange: () => void): () => void;
  /**
   * Called when anything shown may be stale: after a reconnection (`account: false`), or when the server
   * says it may have missed changes itself (`account: true`: the user's record too).
   */
  watchStale(onStale: (scope: { account: boolean }) => void): () => void;
  /**
   * Local mode: called once when the server ended the session this page runs in (signed out elsewhere, the
   * password changed in another browser, the account erased). Hosted mode: Clerk ends its own sessions.
   */
  watchSignedOut?(onSignedOut: () => void): () => void;
}

export interface RequestOptions {
  method?: 'GET' | 'POST' | 'PUT' | 'PATCH' | 'DELETE';
  body?: unknown;
  signal?: AbortSignal;
  headers?: Record<string, string>;
}

/** Our server's API (paid actions, uploads, billing, downloads): JSON over HTTP, authenticated. */
export interface ApiPort {
  request<T>(path: string, opts?: RequestOptions): Promise<T>;
  /** GET of a file: its bytes and the name the server gave it (Content-Disposition), if any. */
  download(path: string): Promise<{ blob: Blob; fileName: string | null }>;
  /** The address of a file our server serves (/media/…), from wherever the SPA itself is served. */
  mediaUrl(path: string): string;
}

/**
 * Where the subscription page asks for a checkout address and a customer-portal link (product §7's two workers):
 * our server's routes, or absolute addresses (the hosted build's VITE_CHECKOUT_WORKER_URL and
 * VITE_PORTAL_WORKER_URL, the Cloudflare workers of workers/), called through the same ApiPort with the same token.
 */
export interface BillingEndpoints {
  checkout: string;
  portal: string;
}

export const SERVER_BILLING_ENDPOINTS: BillingEndpoints = { checkout: '/api/billing/checkout', portal: '/api/billing/portal' };

export interface Backend {
  /** 'local' (built-in accounts, our server) or 'hosted' (Clerk + Supabase + our server for paid actions). */
  mode: 'local' | 'hosted';
  identity: IdentityPort;
  data: DataPort;
  live: LivePort;
  api: ApiPort;
  /** Unset: SERVER_BILLING_ENDPOINTS. */
  billing?: BillingEndpoints;
}
