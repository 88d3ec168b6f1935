import { sql } from 'drizzle-orm';
import {
  type AnyPgColumn,
  bigint,
  boolean,
  check,
  date,
  index,
  integer,
  jsonb,
  pgTable,
  pgView,
  primaryKey,
  real,
  smallint,
  text,
  timestamp,
  uniqueIndex,
  uuid,
} from 'drizzle-orm/pg-core';
import type { RecordedPhotoCheck } from '../../common/photo-check.ts';
import type { TrainingProgress } from '../../common/training.ts';
import { LEDGER_ENTRIES } from '../../common/credits.ts';

/**
 * A job's lease (docs/decisions/009-job-leases.md): the instance working on the row and until when; it renews
 * the lease while it works, and any instance may take over a row whose lease has run out.
 */
const jobLease = () => ({
  leaseOwner: text('lease_owner'),
  leaseExpiresAt: timestamp('lease_expires_at', { withTimezone: true, mode: 'date' }),
});

const createdAt = () => timestamp('created_at', { withTimezone: true, mode: 'date' }).notNull().defaultNow();
const updatedAt = () => timestamp('updated_at', { withTimezone: true, mode: 'date' }).notNull().defaultNow();

// ───────────────────────── Spec entities (product §3); names kept for the hosted adapter ─────────────────────────

export const users = pgTable(
  'users',
  {
    id: uuid('id').primaryKey().defaultRandom(),
    /** The identity provider's user id (better-auth's user id in local mode, Clerk's when hosted). */
    clerkId: text('clerk_id').notNull(),
    email: text('email'),
    fullName: text('full_name'),
    credits: integer('credits').notNull().default(0),
    createdAt: createdAt(),
    updatedAt: updatedAt(),
    subscriptionStatus: text('subscription_status'),
    subscriptionPlan: text('subscription_plan'),
    creemCustomerId: text('creem_customer_id'),
    /**
     * Set when the person's data was erased (Clerk's user.deleted or `admin users erase`): the row stays,
     * without email or name, so the credit ledger keeps its owner and the account's old sessions cannot
     * re-create it (docs/decisions/005-account-erasure.md).
     */
    erasedAt: timestamp('erased_at', { withTimezone: true, mode: 'date' }),
    /**
     * Clerk mode: the person's primary e-mail as Clerk verified it (the session token's `email` claim, Clerk's
     * Backend API, or the user.created/user.updated webhook); null while unknown. Written only by the server:
     * Supabase clients can write `email` (product §7's display copy) but not this column
     * (docs/decisions/013-verified-email.md). Anything that reaches a person or an operator uses this, through
     * usersRepository.verifiedEmailOf (built-in accounts: their sign-in address).
     */
    verifiedEmail: text('verified_email'),
    /** 'E-mail me when a character or a photo shoot is ready' (profile switch; one-click unsubscribe turns it off). */
    emailNotifications: boolean('email_notifications').notNull().default(true),
  },
  (t) => [
    uniqueIndex('users_clerk_id_key').on(t.clerkId),
    index('users_verified_email_idx').on(sql`lower(${t.verifiedEmail})`),
    index('users_creem_customer_id_idx').on(t.creemCustomerId),
    check('users_credits_non_negative', sql`${t.credits} >= 0`),
  ],
);

export const userPublicMeta = pgTable(
  'user_public_meta',
  {
    userId: uuid('user_id')
      .primaryKey()
      .references(() => users.id, { onDelete: 'cascade' }),
    credits: integer('credits').notNull().default(0),
  },
  (t) => [check('user_public_meta_credits_non_negative', sql`${t.credits} >= 0`)],
);

/** What a character's delete moved off its row (see lora_trainings.deleted_files). */
export interface DeletedCharacterFiles {
  loraFileUrl: string | null;
  result: unknown;
  uploadUrl: string | null;
  /** It was still training: the delete cancelled and refunded it, so Undo cannot bring it back. */
  cancelled: boolean;
}

export const loraTrainings = pgTable(
  'lora_trainings',
  {
    id: uuid('id').primaryKey().defaultRandom(),
    userId: uuid('user_id')
      .notNull()
      .references(() => users.id, { onDelete: 'cascade' }),
    characterName: text('character_name').notNull(),
    triggerWord: text('trigger_word'),
    gender: text('gender').notNull().default('other'),
    hairColor: text('hair_color').notNull().default('other'),
    status: text('status', { enum: ['IN_PROGRESS', 'COMPLETED', 'FAILED'] })
      .notNull()
      .default('IN_PROGRESS'),
    createdAt: createdAt(),
    updatedAt: updatedAt(),
    loraFileUrl: text('lora_file_url'),
    requestId: text('request_id'),
    result: jsonb('result'),
    error: text('error'),
    uploadUrl: text('upload_url'),
    /** Which trainer ran it (builtin | fal), so the poller asks the right one. */
    provider: text('provider'),
    /** The trainer's own id of the run (fal's request id); null until the job has submitted it. */
    providerRequestId: text('provider_request_id'),
    /** When the training job's next step is due (docs/decisions/004-training-jobs.md). */
    nextRunAt: timestamp('next_run_at', { withTimezone: true }).notNull().defaultNow(),
    ...jobLease(),
    /**
     * Set when its owner deleted the character: nothing may use it (the usable-character rule in
     * server/services/characters.service.ts); the row stays so generations keep their character's name.
     */
    deletedAt: timestamp('deleted_at', { withTimezone: true, mode: 'date' }),
    /**
     * Where a deleted character's files were (its LoRA, stored copy and photo archive), kept off the row's own
     * columns so nothing serves them: Undo puts them back, the purge removes the files (product §4).
     */
    deletedFiles: jsonb('deleted_files').$type<DeletedCharacterFiles>(),
    /** When the purge removed a deleted character's files: Undo is refused from then on. */
    filesRemovedAt: timestamp('files_removed_at', { withTimezone: true, mode: 'date' }),
    /**
     * The character's reference face (docs/decisions/017-likeness-check.md): the normalised mean of the face
     * embeddings of its agreeing one-face training photos, numbers only, never a photo. Null: no agreeing face.
     */
    referenceFace: real('reference_face').array(),
    /** When the reference was worked out (at submit, or from the kept training photos for older characters). */
    referenceCheckedAt: timestamp('reference_checked_at', { withTimezone: true, mode: 'date' }),
    /** Checked, and no reference: the training photos showed different people (migrations/0025_photos_differ.sql). */
    photosDiffer: boolean('photos_differ')
      .notNull()
      .generatedAlwaysAs(sql`(reference_checked_at is not null and reference_face is null and files_removed_at is null)`),
    /**
     * The server's re-check of the training photos at submit, each compared with the others ('Not the same
     * person', copies), as the page words it (product §5). Null for characters trained before it was kept.
     */
    photoChecks: jsonb('photo_checks').$type<RecordedPhotoCheck[]>(),
    /** Where the running training is, as its trainer last said (issue 54 item 6); null once it ended. */
    progress: jsonb('progress').$type<TrainingProgress>(),
    /** Team work (issue 49): trained for this team and paid from its balance; null: personal. */
    teamId: uuid('team_id').references((): AnyPgColumn => teams.id, { onDelete: 'cascade' }),
  },
  (t) => [
    index('lora_trainings_user_created_idx').on(t.userId, t.createdAt.desc()),
    uniqueIndex('lora_trainings_request_id_key').on(t.requestId),
    index('lora_trainings_lora_file_url_idx').on(t.loraFileUrl),
    index('lora_trainings_in_progress_idx')
      .on(t.nextRunAt)
      .where(sql`${t.status} = 'IN_PROGRESS'`),
    uniqueIndex('lora_trainings_provider_request_id_key').on(t.providerRequestId),
    index('lora_trainings_files_to_remove_idx')
      .on(t.deletedAt)
      .where(sql`${t.deletedAt} is not null and ${t.filesRemovedAt} is null`),
    // created_at: a member's newest team training is the first step down the index (the lead's dashboard).
    index('lora_trainings_team_user_idx')
      .on(t.teamId, t.userId, t.createdAt)
      .where(sql`${t.teamId} is not null`),
  ],
);

export const generations = pgTable(
  'generations',
  {
    id: uuid('id').primaryKey().defaultRandom(),
    userId: uuid('user_id')
      .notNull()
      .references(() => users.id, { onDelete: 'cascade' }),
    prompt: text('prompt').notNull(),
    style: text('style'),
    width: integer('width').notNull(),
    height: integer('height').notNull(),
    outputFormat: text('output_format').notNull().default('jpeg'),
    imageUrl: text('image_url').notNull(),
    loraId: uuid('lora_id').references(() => loraTrainings.id, { onDelete: 'set null' }),
    loraScale: real('lora_scale'),
    seed: text('seed'),
    numInferenceSteps: integer('num_inference_steps'),
    guidanceScale: real('guidance_scale'),
    status: text('status', { enum: ['ACTIVE', 'DELETED'] })
      .notNull()
      .default('ACTIVE'),
    isFavorite: boolean('is_favorite').notNull().default(false),
    createdAt: createdAt(),
    /** Finishing: the generation this one was upscaled or edited from, and how. */
    sourceId: uuid('source_id').references((): AnyPgColumn => generations.id, { onDelete: 'set null' }),
    derivation: text('derivation', { enum: ['upscale', 'edit'] }),
    upscaleFactor: integer('upscale_factor'),
    editStrength: real('edit_strength'),
    /**
     * When it was deleted: its files are removed from storage once the Undo window (GENERATION_UNDO_SECONDS)
     * has lapsed. A delete made elsewhere (hosted mode's PostgREST sets only status) is stamped by the purge.
     */
    deletedAt: timestamp('deleted_at', { withTimezone: true, mode: 'date' }),
    /** When its image and thumbnails were removed from storage (the row stays, DELETED, for the records). */
    filesRemovedAt: timestamp('files_removed_at', { withTimezone: true, mode: 'date' }),
    /** The photo shoot it was made in, if any. */
    shootId: uuid('shoot_id').references((): AnyPgColumn => photoShoots.id, { onDelete: 'set null' }),
    /** Likeness to its character's reference face, 0–100 (common/likeness.ts); null until checked or unscorable. */
    likeness: smallint('likeness'),
    likenessVerdict: text('likeness_verdict', { enum: ['strong', 'weak', 'no_face'] }),
    /** Checks tried (a vision worker that crashes mid-check leaves the row to be tried again, up to 3 times). */
    likenessChecks: smallint('likeness_checks').notNull().default(0),
    /** A check under way holds its row until then (another instance takes it over after that). */
    likenessDueAt: timestamp('likeness_due_at', { withTimezone: true, mode: 'date' }),
  },
  (t) => [
    check('generations_likeness_range', sql`${t.likeness} between 0 and 100`),
    check('generations_likeness_verdict_values', sql`${t.likenessVerdict} in ('strong', 'weak', 'no_face')`),
    index('generations_likeness_due_idx')
      .on(t.createdAt)
      .where(sql`${t.likenessVerdict} is null and ${t.loraId} is not null and ${t.status} = 'ACTIVE' and ${t.likenessChecks} < 3`),
    // NULLS FIRST is what a plain `ORDER BY … DESC` means; an index built DESC NULLS LAST cannot serve it.
    index('generations_user_active_created_idx')
      .on(t.userId, t.createdAt.desc().nullsFirst(), t.id.desc().nullsFirst())
      .where(sql`${t.status} = 'ACTIVE'`),
    // My Generations' count from a small index (one entry list per user) instead of the ordered one.
    index('generations_user_active_idx')
      .on(t.userId)
      .where(sql`${t.status} = 'ACTIVE'`),
    index('generations_user_favorite_created_idx')
      .on(t.userId, t.createdAt.desc().nullsFirst(), t.id.desc().nullsFirst())
      .where(sql`${t.status} = 'ACTIVE' and ${t.isFavorite}`),
    // Deleted generations whose files are still in storage: what the purge looks at every few seconds.
    index('generations_files_to_remove_idx')
      .on(t.deletedAt)
      .where(sql`${t.status} = 'DELETED' and ${t.filesRemovedAt} is null`),
    index('generations_shoot_idx')
      .on(t.shootId)
      .where(sql`${t.shootId} is not null`),
  ],
);

export const exploreGallery = pgTable(
  'explore_gallery',
  {
    id: uuid('id').primaryKey().defaultRandom(),
    imageUrl: text('image_url').notNull(),
    prompt: text('prompt').notNull(),
    width: integer('width').notNull(),
    height: integer('height').notNull(),
    style: text('style'),
    seed: text('seed'),
    numInferenceSteps: integer('num_inference_steps'),
    guidanceScale: real('guidance_scale'),
    gender: text('gender'),
    ethnicity: text('ethnicity'),
    hairColor: text('hair_color'),
    isFeatured: boolean('is_featured').notNull().default(false),
    createdAt: createdAt(),
    /** The generation it was published from, if any. */
    sourceGenerationId: uuid('source_generation_id'),
  },
  (t) => [
    // Featured first, then newest (product §7), in the order a plain `ORDER BY … DESC` reads (NULLS FIRST).
    index('explore_gallery_order_idx').on(t.isFeatured.desc().nullsFirst(), t.createdAt.desc().nullsFirst(), t.id.desc().nullsFirst()),
    // One per filter: any combination of filters counts exactly with a BitmapAnd of these, without the table.
    index('explore_gallery_gender_idx').on(t.gender),
    index('explore_gallery_hair_color_idx').on(t.hairColor),
    index('explore_gallery_ethnicity_idx').on(t.ethnicity),
    index('explore_gallery_style_idx').on(t.style),
    // Explore's filtered count read from the index alone (docs/decisions/014-generate-path.md).
    index('explore_gallery_filters_idx').on(t.gender, t.style, t.ethnicity, t.hairColor),
    // Whether an image is shown in Explore (media access, the deleted-generations purge, erasure).
    index('explore_gallery_image_url_idx').on(t.imageUrl),
  ],
);

// ───────────────────────── Photo shoots ─────────────────────────

/**
 * A pack of prompts sold as one shoot ('LinkedIn profile'), seeded from server/catalogue/photo-packs.json at
 * start (catalogue_version) or imported by an operator. Never deleted: a pack taken out is hidden.
 */
export const photoPacks = pgTable(
  'photo_packs',
  {
    id: text('id').primaryKey(),
    name: text('name').notNull(),
    description: text('description').notNull(),
    category: text('category').notNull(),
    aspectRatio: text('aspect_ratio').notNull(),
    width: integer('width').notNull(),
    height: integer('height').notNull(),
    coverUrl: text('cover_url'),
    /** Sample photos of the pack (the cover first), rendered from its first prompts. */
    sampleUrls: jsonb('sample_urls').$type<string[]>().notNull().default([]),
    position: integer('position').notNull().default(0),
    catalogueVersion: integer('catalogue_version').notNull().default(0),
    /** catalogue (the repository's file) | operator (`admin packs import`) | team (a team's own look, hidden) */
    source: text('source', { enum: ['catalogue', 'operator', 'team'] })
      .notNull()
      .default('catalogue'),
    hidden: boolean('hidden').notNull().default(false),
    createdAt: createdAt(),
    updatedAt: updatedAt(),
  },
  (t) => [index('photo_packs_order_idx').on(t.position, t.id)],
);

/** A pack's prompt templates, in catalogue order ({trigger}, {subject}, {hair} … filled per character). */
export const photoPackPrompts = pgTable(
  'photo_pack_prompts',
  {
    packId: text('pack_id')
      .notNull()
      .references(() => photoPacks.id, { onDelete: 'cascade' }),
    position: integer('position').notNull(),
    template: text('template').notNull(),
  },
  (t) => [primaryKey({ columns: [t.packId, t.position] })],
);

/** One shoot: a pack run for a character; paid up front (ledger key `shoot:<id>`), ended once (shoots.service). */
export const photoShoots = pgTable(
  'photo_shoots',
  {
    id: uuid('id').primaryKey().defaultRandom(),
    userId: uuid('user_id')
      .notNull()
      .references(() => users.id, { onDelete: 'cascade' }),
    packId: text('pack_id')
      .notNull()
      .references(() => photoPacks.id),
    loraId: uuid('lora_id').references(() => loraTrainings.id, { onDelete: 'set null' }),
    packName: text('pack_name').notNull(),
    characterName: text('character_name').notNull(),
    status: text('status', { enum: ['RUNNING', 'COMPLETED', 'FAILED', 'CANCELLED'] })
      .notNull()
      .default('RUNNING'),
    photoCount: integer('photo_count').notNull(),
    cost: integer('cost').notNull(),
    createdAt: createdAt(),
    updatedAt: updatedAt(),
    finishedAt: timestamp('finished_at', { withTimezone: true, mode: 'date' }),
    /** Photos taken again for likeness (at most ⌈N/4⌉, common/likeness.ts retakeCap). */
    retaken: integer('retaken').notNull().default(0),
    /** The Start button's idempotency key: unique within the account only (0018_shoot_request_ids). */
    requestId: uuid('request_id'),
    /** Team work (issue 49): shot in the team's look and paid from its balance; null: personal. */
    teamId: uuid('team_id').references((): AnyPgColumn => teams.id, { onDelete: 'cascade' }),
  },
  (t) => [
    uniqueIndex('photo_shoots_user_request_key').on(t.userId, t.requestId),
    index('photo_shoots_user_created_idx').on(t.userId, t.createdAt.desc().nullsFirst()),
    index('photo_shoots_running_idx')
      .on(t.userId)
      .where(sql`${t.status} = 'RUNNING'`),
    // created_at: a member's newest team shoot is the first step down the index (the lead's dashboard).
    index('photo_shoots_team_user_idx')
      .on(t.teamId, t.userId, t.createdAt)
      .where(sql`${t.teamId} is not null`),
  ],
);

/**
 * One photo of a shoot: a durable leased job (docs/decisions/009-job-leases.md) claimed by any instance's
 * shoot runner, in (position, queued_at) order so shoots share the slots; its generation has the same id.
 */
export const shootPhotos = pgTable(
  'shoot_photos',
  {
    id: uuid('id').primaryKey().defaultRandom(),
    shootId: uuid('shoot_id')
      .notNull()
      .references(() => photoShoots.id, { onDelete: 'cascade' }),
    userId: uuid('user_id')
      .notNull()
      .references(() => users.id, { onDelete: 'cascade' }),
    position: integer('position').notNull(),
    prompt: text('prompt').notNull(),
    width: integer('width').notNull(),
    height: integer('height').notNull(),
    seed: integer('seed').notNull(),
    status: text('status', { enum: ['QUEUED', 'RUNNING', 'SUCCEEDED', 'FAILED', 'CANCELLED'] })
      .notNull()
      .default('QUEUED'),
    generationId: uuid('generation_id'),
    imageUrl: text('image_url'),
    error: text('error'),
    attempts: integer('attempts').notNull().default(0),
    queuedAt: timestamp('queued_at', { withTimezone: true, mode: 'date' }).notNull().defaultNow(),
    startedAt: timestamp('started_at', { withTimezone: true, mode: 'date' }),
    finishedAt: timestamp('finished_at', { withTimezone: true, mode: 'date' }),
    nextRunAt: timestamp('next_run_at', { withTimezone: true, mode: 'date' }).notNull().defaultNow(),
    ...jobLease(),
    /** This photo holds one of its shoot's re-takes for likeness (taken once, whatever instance runs it). */
    retaken: boolean('retaken').notNull().default(false),
  },
  (t) => [
    uniqueIndex('shoot_photos_shoot_position_key').on(t.shootId, t.position),
    index('shoot_photos_queue_idx')
      .on(t.position, t.queuedAt, t.id)
      .where(sql`${t.status} in ('QUEUED', 'RUNNING')`),
  ],
);
/**
 * The explore filters' options (product §7): the distinct values of each filter column as four short sorted
 * lists in one row. A view (migration 0005) that walks each filter index one value at a time (a recursive
 * "loose index scan"), so it reads a few index entries per value whatever the gallery's size, and has no
 * write path. Supabase's anon and authenticated roles may read it (the grants migration), not the table.
 */
export const exploreFilterOptions = pgView('explore_filter_options', {
  gender: text('gender').array().notNull(),
  hair_color: text('hair_color').array().notNull(),
  ethnicity: text('ethnicity').array().notNull(),
  style: text('style').array().notNull(),
}).existing();

/**
 * A shoot's photos as both modes show them (migration 0020, common/photo-shoots.ts ShootPhotoView): image and
 * generation only while kept (landed and still in My Generations), `deleted` once removed from there, the
 * likeness once checked, and for queued photos how many photos of any shoot start before them. It runs with
 * the reader's rights, so Supabase's row-level security applies to it (the hosted SPA reads it too).
 */
export const shootPhotoViews = pgView('shoot_photo_views', {
  id: uuid('id').notNull(),
  shoot_id: uuid('shoot_id').notNull(),
  position: integer('position').notNull(),
  status: text('status', { enum: ['QUEUED', 'RUNNING', 'SUCCEEDED', 'FAILED', 'CANCELLED'] }).notNull(),
  prompt: text('prompt').notNull(),
  width: integer('width').notNull(),
  height: integer('height').notNull(),
  image_url: text('image_url'),
  generation_id: uuid('generation_id'),
  deleted: boolean('deleted').notNull(),
  error: text('error'),
  started_at: timestamp('started_at', { withTimezone: true, mode: 'date' }),
  finished_at: timestamp('finished_at', { withTimezone: true, mode: 'date' }),
  ahead: integer('ahead'),
  likeness: smallint('likeness'),
  likeness_verdict: text('likeness_verdict', { enum: ['strong', 'weak', 'no_face'] }),
}).existing();

// ───────────────────────── Credits ─────────────────────────

/**
 * Every grant, debit and refund. users.credits always equals the sum of `delta` for the user; each row's
 * idempotency key makes a retried action count once.
 */
export const creditLedger = pgTable(
  'credit_ledger',
  {
    id: uuid('id').primaryKey().defaultRandom(),
    userId: uuid('user_id')
      .notNull()
      .references(() => users.id, { onDelete: 'cascade' }),
    delta: integer('delta').notNull(),
    /** grant | debit | refund | adjustment */
    kind: text('kind', { enum: ['grant', 'debit', 'refund', 'adjustment'] }).notNull(),
    reason: text('reason').notNull(),
    idempotencyKey: text('idempotency_key').notNull(),
    balanceAfter: integer('balance_after').notNull(),
    createdAt: createdAt(),
    /** What the line was for (common/credits.ts LEDGER_ENTRIES), derived by the database (migration 0022). */
    entry: text('entry', { enum: LEDGER_ENTRIES })
      .notNull()
      .generatedAlwaysAs(sql`(the CASE over idempotency_key and reason in migrations/0022_credits.sql)`),
    /**
     * What the uuid its key names is, and that uuid (a paid image call's job, a shoot, a shoot's photo, a character's
     * training), derived by the database (migration 0027): the history's links without the key, which hosted
     * clients may not read.
     */
    subjectType: text('subject_type', { enum: ['generation_job', 'shoot', 'shoot_photo', 'training'] }).generatedAlwaysAs(
      sql`(the CASE over idempotency_key in migrations/0027_credit_spend_days.sql)`,
    ),
    subjectId: uuid('subject_id').generatedAlwaysAs(sql`(the uuid ending idempotency_key, migrations/0027_credit_spend_days.sql)`),
  },
  (t) => [
    uniqueIndex('credit_ledger_idempotency_key').on(t.idempotencyKey),
    index('credit_ledger_user_created_idx').on(t.userId, t.createdAt.desc()),
    index('credit_ledger_user_entry_created_idx').on(t.userId, t.entry, t.createdAt.desc(), t.id.desc()),
  ],
);
/** What a ledger row records: credits granted, debited for work, refunded, or adjusted by an operator. */
export type LedgerKind = (typeof creditLedger.$inferSelect)['kind'];

/**
 * The ledger's deltas summed per account, UTC day and kind of line (migration 0027): kept by triggers on
 * credit_ledger in the transaction of each write, so the spend chart and the period's spend read a few hundred rows
 * whatever the account's history. Only the database writes it.
 */
export const creditLedgerDays = pgTable(
  'credit_ledger_days',
  {
    userId: uuid('user_id')
      .notNull()
      .references(() => users.id, { onDelete: 'cascade' }),
    day: date('day', { mode: 'string' }).notNull(),
    entry: text('entry', { enum: LEDGER_ENTRIES }).notNull(),
    delta: bigint('delta', { mode: 'number' }).notNull(),
  },
  (t) => [primaryKey({ columns: [t.userId, t.day, t.entry] })],
);

/**
 * The credits page's lines as both modes show them (migration 0027): each ledger line with the link of what it was
 * for, while that still exists. It runs with the reader's rights, so Supabase's row-level security applies to it
 * (the hosted SPA reads it too); it never shows the idempotency key.
 */
export const creditHistory = pgView('credit_history', {
  id: uuid('id').notNull(),
  userId: uuid('user_id').notNull(),
  createdAt: timestamp('created_at', { withTimezone: true, mode: 'date' }).notNull(),
  entry: text('entry', { enum: LEDGER_ENTRIES }).notNull(),
  reason: text('reason').notNull(),
  delta: integer('delta').notNull(),
  balanceAfter: integer('balance_after').notNull(),
  linkType: text('link_type', { enum: ['image', 'shoot', 'character'] }),
  linkId: uuid('link_id'),
}).existing();

// ───────────────────────── Payments ─────────────────────────

export const subscriptions = pgTable(
  'subscriptions',
  {
    id: text('id').primaryKey(),
    provider: text('provider').notNull(),
    userId: uuid('user_id')
      .notNull()
      .references(() => users.id, { onDelete: 'cascade' }),
    customerId: text('customer_id').notNull(),
    plan: text('plan').notNull(),
    status: text('status').notNull(),
    currentPeriodStart: timestamp('current_period_start', { withTimezone: true, mode: 'date' }),
    currentPeriodEnd: timestamp('current_period_end', { withTimezone: true, mode: 'date' }),
    canceledAt: timestamp('canceled_at', { withTimezone: true, mode: 'date' }),
    /** created_at of the newest payment event applied to this row: an older one no longer changes it (decision 001). */
    lastEventAt: timestamp('last_event_at', { withTimezone: true, mode: 'date' }),
    createdAt: createdAt(),
    updatedAt: updatedAt(),
  },
  (t) => [
    index('subscriptions_user_idx').on(t.userId),
    index('subscriptions_customer_idx').on(t.customerId),
    // One subscription in force per account, whatever races: a second one's insert (or reactivation) fails
    // and its payment answers 409 'already subscribed'. The statuses are billing's ENTITLED set.
    uniqueIndex('subscriptions_one_in_force_per_user')
      .on(t.userId)
      .where(sql`${t.status} in ('active', 'scheduled_cancel', 'past_due')`),
  ],
);

/**
 * What one paid period of a subscription has granted so far (decision 001, plan changes): the credits of the
 * highest plan held in it. An upgrade grants the difference above this; a downgrade or a re-upgrade nothing.
 */
export const subscriptionPeriodGrants = pgTable(
  'subscription_period_grants',
  {
    subscriptionId: text('subscription_id').notNull(),
    periodStart: timestamp('period_start', { withTimezone: true, mode: 'date' }).notNull(),
    userId: uuid('user_id')
      .notNull()
      .references(() => users.id, { onDelete: 'cascade' }),
    /** The plan whose monthly credits the period has granted (the highest held in it). */
    plan: text('plan').notNull(),
    credits: integer('credits').notNull(),
    createdAt: createdAt(),
    updatedAt: updatedAt(),
  },
  (t) => [primaryKey({ columns: [t.subscriptionId, t.periodStart] }), index('subscription_period_grants_user_idx').on(t.userId)],
);

/**
 * One-off credit packs bought (issue 50 item 2, migration 0022): one row per order, written by whichever of the
 * webhook and the signed return page reports it first; the grant is keyed by the order, so it credits once.
 */
export const topUpPurchases = pgTable(
  'top_up_purchases',
  {
    provider: text('provider').notNull(),
    orderId: text('order_id').notNull(),
    /** The payment a refund or chargeback names; null until the webhook tells it (the return page does not). */
    transactionId: text('transaction_id'),
    /** Who paid: the account credited, or the owner who bought for `teamId`. */
    userId: uuid('user_id')
      .notNull()
      .references(() => users.id, { onDelete: 'cascade' }),
    /** A pack bought for this team (issue 49, migration 0028): granted to the team's ledger, not the payer's. */
    teamId: uuid('team_id').references((): AnyPgColumn => teams.id, { onDelete: 'cascade' }),
    pack: text('pack').notNull(),
    credits: integer('credits').notNull(),
    createdAt: createdAt(),
    /** When a refund or chargeback took back what was unspent, and how much that was. */
    reversedAt: timestamp('reversed_at', { withTimezone: true, mode: 'date' }),
    reversedCredits: integer('reversed_credits'),
  },
  (t) => [
    primaryKey({ columns: [t.provider, t.orderId] }),
    check('top_up_purchases_credits_positive', sql`${t.credits} > 0`),
    index('top_up_purchases_user_idx').on(t.userId),
    index('top_up_purchases_transaction_idx').on(t.provider, t.transactionId),
    index('top_up_purchases_team_idx')
      .on(t.teamId)
      .where(sql`${t.teamId} is not null`),
  ],
);

/** Promo codes (issue 50 item 3, migration 0022): created by an operator, redeemed on the credits page. */
export const promoCodes = pgTable(
  'promo_codes',
  {
    code: text('code').primaryKey(),
    credits: integer('credits').notNull(),
    maxRedemptions: integer('max_redemptions').notNull(),
    redeemedCount: integer('redeemed_count').notNull().default(0),
    expiresAt: timestamp('expires_at', { withTimezone: true, mode: 'date' }),
    /** Set: only this account may redeem it. */
    accountId: uuid('account_id').references(() => users.id, { onDelete: 'cascade' }),
    disabledAt: timestamp('disabled_at', { withTimezone: true, mode: 'date' }),
    createdAt: createdAt(),
  },
  (t) => [
    check('promo_codes_credits_range', sql`${t.credits} > 0 AND ${t.credits} <= 100000`),
    check(
      'promo_codes_redemptions_range',
      sql`${t.maxRedemptions} > 0 AND ${t.redeemedCount} >= 0 AND ${t.redeemedCount} <= ${t.maxRedemptions}`,
    ),
  ],
);

export const promoRedemptions = pgTable(
  'promo_redemptions',
  {
    code: text('code')
      .notNull()
      .references(() => promoCodes.code, { onDelete: 'cascade' }),
    userId: uuid('user_id')
      .notNull()
      .references(() => users.id, { onDelete: 'cascade' }),
    createdAt: createdAt(),
  },
  (t) => [primaryKey({ columns: [t.code, t.userId] })],
);

/** Webhook events already processed (provider, event id): a replay is acknowledged and ignored. */
export const paymentEvents = pgTable(
  'payment_events',
  {
    provider: text('provider').notNull(),
    eventId: text('event_id').notNull(),
    eventType: text('event_type').notNull(),
    receivedAt: createdAt(),
    payload: jsonb('payload'),
  },
  (t) => [uniqueIndex('payment_events_key').on(t.provider, t.eventId)],
);

// ───────────────────────── Files and jobs ─────────────────────────

/** Files a user uploaded (prompt-extraction images, training archives); originals expire after ~30 days. */
export const uploads = pgTable(
  'uploads',
  {
    id: uuid('id').primaryKey().defaultRandom(),
    userId: uuid('user_id')
      .notNull()
      .references(() => users.id, { onDelete: 'cascade' }),
    storageKey: text('storage_key').notNull(),
    url: text('url').notNull(),
    contentType: text('content_type').notNull(),
    sizeBytes: integer('size_bytes').notNull(),
    kind: text('kind').notNull().default('image'),
    createdAt: createdAt(),
    expiresAt: timestamp('expires_at', { withTimezone: true, mode: 'date' }).notNull(),
    deletedAt: timestamp('deleted_at', { withTimezone: true, mode: 'date' }),
  },
  (t) => [
    uniqueIndex('uploads_url_key').on(t.url),
    index('uploads_user_idx').on(t.userId),
    index('uploads_expiry_idx')
      .on(t.expiresAt)
      .where(sql`${t.deletedAt} is null`),
  ],
);

/**
 * A paid provider call in flight: an image generation or a prompt extraction (kind). Written with the debit
 * (ledger key `<kind>:<id>`) and leased to the instance calling the provider, so when that instance dies any
 * other one refunds it as soon as the lease runs out (server/jobs/paid-jobs.ts).
 */
export const generationJobs = pgTable(
  'generation_jobs',
  {
    id: uuid('id').primaryKey().defaultRandom(),
    userId: uuid('user_id')
      .notNull()
      .references(() => users.id, { onDelete: 'cascade' }),
    kind: text('kind', { enum: ['generation', 'caption'] })
      .notNull()
      .default('generation'),
    /** Credits the debit took, given back by a refund (rows from before this column were 10-credit generations). */
    cost: integer('cost').notNull().default(10),
    status: text('status', { enum: ['PENDING', 'SUCCEEDED', 'FAILED'] })
      .notNull()
      .default('PENDING'),
    input: jsonb('input').notNull(),
    provider: text('provider').notNull(),
    providerRequestId: text('provider_request_id'),
    generationId: uuid('generation_id'),
    error: text('error'),
    createdAt: createdAt(),
    updatedAt: updatedAt(),
    ...jobLease(),
  },
  (t) => [
    index('generation_jobs_pending_idx')
      .on(t.leaseExpiresAt)
      .where(sql`${t.status} = 'PENDING'`),
  ],
);

/**
 * Periodic jobs shared by every instance (the retention sweep): one row each, due at next_run_at and leased to
 * the instance running it like any other job (docs/decisions/009-job-leases.md).
 */
export const scheduledJobs = pgTable('scheduled_jobs', {
  name: text('name').primaryKey(),
  nextRunAt: timestamp('next_run_at', { withTimezone: true, mode: 'date' }).notNull().defaultNow(),
  ...jobLease(),
});

/**
 * Outgoing mail (docs/decisions/015-mail-outbox.md): a row is written in the transaction of the event that
 * causes the message, then sent by the mail sender, leased like every durable job: retried with backoff while
 * SMTP fails, given up (FAILED) 24 hours after it was written. SENT rows forget their payload (links in it).
 * Account mail (reset, verification) names its address; a notification names its user, whose address is read
 * when it is sent.
 */
export const mailOutbox = pgTable(
  'mail_outbox',
  {
    id: uuid('id').primaryKey().defaultRandom(),
    kind: text('kind').notNull(),
    userId: uuid('user_id').references(() => users.id, { onDelete: 'cascade' }),
    toAddress: text('to_address'),
    payload: jsonb('payload').notNull().default({}),
    /** One message per event (e.g. `character-ready:<training id>`), whoever enqueues it and how often. */
    dedupeKey: text('dedupe_key'),
    status: text('status', { enum: ['PENDING', 'SENT', 'FAILED', 'SKIPPED'] })
      .notNull()
      .default('PENDING'),
    attempts: integer('attempts').notNull().default(0),
    lastError: text('last_error'),
    createdAt: createdAt(),
    sentAt: timestamp('sent_at', { withTimezone: true, mode: 'date' }),
    nextRunAt: timestamp('next_run_at', { withTimezone: true, mode: 'date' }).notNull().defaultNow(),
    ...jobLease(),
  },
  (t) => [
    uniqueIndex('mail_outbox_dedupe_key_key').on(t.dedupeKey),
    index('mail_outbox_pending_idx')
      .on(t.nextRunAt)
      .where(sql`${t.status} = 'PENDING'`),
  ],
);

/** Fixed-window counters for rate limits, shared by every instance. */
export const rateLimits = pgTable('rate_limits', {
  key: text('key').primaryKey(),
  count: integer('count').notNull(),
  windowStart: timestamp('window_start', { withTimezone: true, mode: 'date' }).notNull(),
});

/**
 * Addresses an account has signed in from (built-in accounts): sign-in attempts from them are never slowed
 * down when someone else guesses that account's password from elsewhere.
 */
export const signInAddresses = pgTable(
  'sign_in_addresses',
  {
    email: text('email').notNull(),
    address: text('address').notNull(),
    lastSignInAt: timestamp('last_sign_in_at', { withTimezone: true, mode: 'date' }).notNull().defaultNow(),
  },
  (t) => [primaryKey({ columns: [t.email, t.address] })],
);

// ───────────────────────── better-auth (local identity) ─────────────────────────

export const authUsers = pgTable('auth_users', {
  id: text('id').primaryKey(),
  name: text('name').notNull(),
  email: text('email').notNull().unique(),
  emailVerified: boolean('email_verified').notNull().default(false),
  image: text('image'),
  createdAt: timestamp('created_at', { withTimezone: true }).notNull().defaultNow(),
  updatedAt: timestamp('updated_at', { withTimezone: true }).notNull().defaultNow(),
});

export const authSessions = pgTable(
  'auth_sessions',
  {
    id: text('id').primaryKey(),
    expiresAt: timestamp('expires_at', { withTimezone: true }).notNull(),
    token: text('token').notNull().unique(),
    createdAt: timestamp('created_at', { withTimezone: true }).notNull().defaultNow(),
    updatedAt: timestamp('updated_at', { withTimezone: true }).notNull().defaultNow(),
    ipAddress: text('ip_address'),
    userAgent: text('user_agent'),
    userId: text('user_id')
      .notNull()
      .references(() => authUsers.id, { onDelete: 'cascade' }),
  },
  (t) => [index('auth_sessions_user_idx').on(t.userId)],
);

export const authAccounts = pgTable(
  'auth_accounts',
  {
    id: text('id').primaryKey(),
    accountId: text('account_id').notNull(),
    providerId: text('provider_id').notNull(),
    userId: text('user_id')
      .notNull()
      .references(() => authUsers.id, { onDelete: 'cascade' }),
    accessToken: text('access_token'),
    refreshToken: text('refresh_token'),
    idToken: text('id_token'),
    accessTokenExpiresAt: timestamp('access_token_expires_at', { withTimezone: true }),
    refreshTokenExpiresAt: timestamp('refresh_token_expires_at', { withTimezone: true }),
    scope: text('scope'),
    password: text('password'),
    createdAt: timestamp('created_at', { withTimezone: true }).notNull().defaultNow(),
    updatedAt: timestamp('updated_at', { withTimezone: true }).notNull().defaultNow(),
  },
  (t) => [index('auth_accounts_user_idx').on(t.userId)],
);

export const authVerifications = pgTable('auth_verifications', {
  id: text('id').primaryKey(),
  identifier: text('identifier').notNull(),
  value: text('value').notNull(),
  expiresAt: timestamp('expires_at', { withTimezone: true }).notNull(),
  createdAt: timestamp('created_at', { withTimezone: true }).notNull().defaultNow(),
  updatedAt: timestamp('updated_at', { withTimezone: true }).notNull().defaultNow(),
});

// ───────────────────────── Teams (issue 49, docs/decisions/022-teams.md) ─────────────────────────

/** A company's team: its own credit balance (team_credit_ledger) and the look every member's team shoot uses. */
export const teams = pgTable(
  'teams',
  {
    id: uuid('id').primaryKey().defaultRandom(),
    name: text('name').notNull(),
    ownerId: uuid('owner_id')
      .notNull()
      .references(() => users.id, { onDelete: 'cascade' }),
    /** Always the sum of the team's ledger; changed only by the team credits service. */
    credits: integer('credits').notNull().default(0),
    /** Personal invites and CSV imports are held to this e-mail domain when set. */
    domain: text('domain'),
    /** The team look: a catalogue pack, or the team's own pack (photo_packs row of source 'team'). */
    packId: text('pack_id').references(() => photoPacks.id),
    /** The team pack's brief as the team page edits it (backdrop, clothing, framing, prompts). */
    teamPack: jsonb('team_pack'),
    aspectRatio: text('aspect_ratio'),
    dueDate: text('due_date'),
    createdAt: createdAt(),
    updatedAt: updatedAt(),
  },
  (t) => [index('teams_owner_idx').on(t.ownerId), check('teams_credits_non_negative', sql`${t.credits} >= 0`)],
);

/** Who is in a team, with what role, and where their submission stands. */
export const teamMembers = pgTable(
  'team_members',
  {
    teamId: uuid('team_id')
      .notNull()
      .references(() => teams.id, { onDelete: 'cascade' }),
    userId: uuid('user_id')
      .notNull()
      .references(() => users.id, { onDelete: 'cascade' }),
    role: text('role', { enum: ['owner', 'manager', 'member'] }).notNull(),
    /** As the invite named them (CSV `name`, `title`); the ZIP and team.csv use them. */
    name: text('name'),
    title: text('title'),
    email: text('email'),
    /** null: nothing submitted; submitted; approved; ask_again (the lead asked for another pick). */
    submissionStatus: text('submission_status', { enum: ['submitted', 'approved', 'ask_again'] }),
    /** Up to 3 of the member's team-shoot generations, in their order. */
    submission: uuid('submission').array(),
    submittedAt: timestamp('submitted_at', { withTimezone: true, mode: 'date' }),
    lastRemindedAt: timestamp('last_reminded_at', { withTimezone: true, mode: 'date' }),
    joinedAt: timestamp('joined_at', { withTimezone: true, mode: 'date' }).notNull().defaultNow(),
  },
  (t) => [primaryKey({ columns: [t.teamId, t.userId] }), index('team_members_user_idx').on(t.userId)],
);

/**
 * Invites: `personal` (one address, single use, 7 days, re-sendable, revocable; only the token's hash is kept)
 * and `open` (a link many may use: optional domain, usage limit and expiry; revocable; its token is shown to the
 * team's leads again, so it is kept).
 */
export const teamInvites = pgTable(
  'team_invites',
  {
    id: uuid('id').primaryKey().defaultRandom(),
    teamId: uuid('team_id')
      .notNull()
      .references(() => teams.id, { onDelete: 'cascade' }),
    kind: text('kind', { enum: ['personal', 'open'] }).notNull(),
    tokenHash: text('token_hash').notNull(),
    /** Open links only. */
    token: text('token'),
    email: text('email'),
    name: text('name'),
    title: text('title'),
    domain: text('domain'),
    usageLimit: integer('usage_limit'),
    useCount: integer('use_count').notNull().default(0),
    expiresAt: timestamp('expires_at', { withTimezone: true, mode: 'date' }),
    revokedAt: timestamp('revoked_at', { withTimezone: true, mode: 'date' }),
    usedAt: timestamp('used_at', { withTimezone: true, mode: 'date' }),
    usedBy: uuid('used_by').references(() => users.id, { onDelete: 'set null' }),
    createdBy: uuid('created_by').references(() => users.id, { onDelete: 'set null' }),
    createdAt: createdAt(),
    sentAt: timestamp('sent_at', { withTimezone: true, mode: 'date' }),
  },
  (t) => [
    uniqueIndex('team_invites_token_hash_key').on(t.tokenHash),
    index('team_invites_team_idx').on(t.teamId, t.createdAt),
    uniqueIndex('team_invites_pending_email_key')
      .on(t.teamId, t.email)
      .where(sql`${t.kind} = 'personal' and ${t.usedAt} is null and ${t.revokedAt} is null`),
  ],
);

/** A team's credit ledger: the same rules as credit_ledger (teams.credits is its sum; keys make retries count once). */
export const teamCreditLedger = pgTable(
  'team_credit_ledger',
  {
    id: uuid('id').primaryKey().defaultRandom(),
    teamId: uuid('team_id')
      .notNull()
      .references(() => teams.id, { onDelete: 'cascade' }),
    /** Who caused it (the buyer, the member whose work it paid); null when unknown or erased. */
    userId: uuid('user_id').references(() => users.id, { onDelete: 'set null' }),
    delta: integer('delta').notNull(),
    kind: text('kind', { enum: ['grant', 'debit', 'refund', 'adjustment'] }).notNull(),
    reason: text('reason').notNull(),
    idempotencyKey: text('idempotency_key').notNull(),
    balanceAfter: integer('balance_after').notNull(),
    createdAt: createdAt(),
  },
  (t) => [
    uniqueIndex('team_credit_ledger_idempotency_key').on(t.idempotencyKey),
    index('team_credit_ledger_team_created_idx').on(t.teamId, t.createdAt.desc()),
  ],
);
