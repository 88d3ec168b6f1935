-- Teams (issue 49, docs/decisions/022-teams.md): a team with its own credit ledger and look, its members and roles,
-- its invites (personal single-use links kept as hashes, open links), and team work marked on trainings and shoots.
CREATE TABLE "teams" (
	"id" uuid PRIMARY KEY DEFAULT gen_random_uuid() NOT NULL,
	"name" text NOT NULL,
	"owner_id" uuid NOT NULL,
	"credits" integer DEFAULT 0 NOT NULL,
	"domain" text,
	"pack_id" text,
	"team_pack" jsonb,
	"aspect_ratio" text,
	"due_date" text,
	"created_at" timestamp with time zone DEFAULT now() NOT NULL,
	"updated_at" timestamp with time zone DEFAULT now() NOT NULL,
	CONSTRAINT "teams_credits_non_negative" CHECK ("teams"."credits" >= 0)
);
--> statement-breakpoint
ALTER TABLE "teams" ADD CONSTRAINT "teams_owner_id_users_id_fk" FOREIGN KEY ("owner_id") REFERENCES "public"."users"("id") ON DELETE cascade ON UPDATE no action;
--> statement-breakpoint
ALTER TABLE "teams" ADD CONSTRAINT "teams_pack_id_photo_packs_id_fk" FOREIGN KEY ("pack_id") REFERENCES "public"."photo_packs"("id") ON DELETE no action ON UPDATE no action;
--> statement-breakpoint
CREATE INDEX "teams_owner_idx" ON "teams" USING btree ("owner_id");
--> statement-breakpoint
CREATE TABLE "team_members" (
	"team_id" uuid NOT NULL,
	"user_id" uuid NOT NULL,
	"role" text NOT NULL,
	"name" text,
	"title" text,
	"email" text,
	"submission_status" text,
	"submission" uuid[],
	"submitted_at" timestamp with time zone,
	"last_reminded_at" timestamp with time zone,
	"joined_at" timestamp with time zone DEFAULT now() NOT NULL,
	CONSTRAINT "team_members_team_id_user_id_pk" PRIMARY KEY("team_id","user_id")
);
--> statement-breakpoint
ALTER TABLE "team_members" ADD CONSTRAINT "team_members_team_id_teams_id_fk" FOREIGN KEY ("team_id") REFERENCES "public"."teams"("id") ON DELETE cascade ON UPDATE no action;
--> statement-breakpoint
ALTER TABLE "team_members" ADD CONSTRAINT "team_members_user_id_users_id_fk" FOREIGN KEY ("user_id") REFERENCES "public"."users"("id") ON DELETE cascade ON UPDATE no action;
--> statement-breakpoint
CREATE INDEX "team_members_user_idx" ON "team_members" USING btree ("user_id");
--> statement-breakpoint
CREATE TABLE "team_invites" (
	"id" uuid PRIMARY KEY DEFAULT gen_random_uuid() NOT NULL,
	"team_id" uuid NOT NULL,
	"kind" text NOT NULL,
	"token_hash" text NOT NULL,
	"token" text,
	"email" text,
	"name" text,
	"title" text,
	"domain" text,
	"usage_limit" integer,
	"use_count" integer DEFAULT 0 NOT NULL,
	"expires_at" timestamp with time zone,
	"revoked_at" timestamp with time zone,
	"used_at" timestamp with time zone,
	"used_by" uuid,
	"created_by" uuid,
	"created_at" timestamp with time zone DEFAULT now() NOT NULL,
	"sent_at" timestamp with time zone
);
--> statement-breakpoint
ALTER TABLE "team_invites" ADD CONSTRAINT "team_invites_team_id_teams_id_fk" FOREIGN KEY ("team_id") REFERENCES "public"."teams"("id") ON DELETE cascade ON UPDATE no action;
--> statement-breakpoint
ALTER TABLE "team_invites" ADD CONSTRAINT "team_invites_used_by_users_id_fk" FOREIGN KEY ("used_by") REFERENCES "public"."users"("id") ON DELETE set null ON UPDATE no action;
--> statement-breakpoint
ALTER TABLE "team_invites" ADD CONSTRAINT "team_invites_created_by_users_id_fk" FOREIGN KEY ("created_by") REFERENCES "public"."users"("id") ON DELETE set null ON UPDATE no action;
--> statement-breakpoint
CREATE UNIQUE INDEX "team_invites_token_hash_key" ON "team_invites" USING btree ("token_hash");
--> statement-breakpoint
CREATE INDEX "team_invites_team_idx" ON "team_invites" USING btree ("team_id","created_at");
--> statement-breakpoint
CREATE UNIQUE INDEX "team_invites_pending_email_key" ON "team_invites" USING btree ("team_id","email") WHERE "team_invites"."kind" = 'personal' and "team_invites"."used_at" is null and "team_invites"."revoked_at" is null;
--> statement-breakpoint
CREATE TABLE "team_credit_ledger" (
	"id" uuid PRIMARY KEY DEFAULT gen_random_uuid() NOT NULL,
	"team_id" uuid NOT NULL,
	"user_id" uuid,
	"delta" integer NOT NULL,
	"kind" text NOT NULL,
	"reason" text NOT NULL,
	"idempotency_key" text NOT NULL,
	"balance_after" integer NOT NULL,
	"created_at" timestamp with time zone DEFAULT now() NOT NULL
);
--> statement-breakpoint
ALTER TABLE "team_credit_ledger" ADD CONSTRAINT "team_credit_ledger_team_id_teams_id_fk" FOREIGN KEY ("team_id") REFERENCES "public"."teams"("id") ON DELETE cascade ON UPDATE no action;
--> statement-breakpoint
ALTER TABLE "team_credit_ledger" ADD CONSTRAINT "team_credit_ledger_user_id_users_id_fk" FOREIGN KEY ("user_id") REFERENCES "public"."users"("id") ON DELETE set null ON UPDATE no action;
--> statement-breakpoint
CREATE UNIQUE INDEX "team_credit_ledger_idempotency_key" ON "team_credit_ledger" USING btree ("idempotency_key");
--> statement-breakpoint
CREATE INDEX "team_credit_ledger_team_created_idx" ON "team_credit_ledger" USING btree ("team_id","created_at" DESC NULLS LAST);
--> statement-breakpoint
ALTER TABLE "lora_trainings" ADD COLUMN "team_id" uuid;
--> statement-breakpoint
ALTER TABLE "lora_trainings" ADD CONSTRAINT "lora_trainings_team_id_teams_id_fk" FOREIGN KEY ("team_id") REFERENCES "public"."teams"("id") ON DELETE cascade ON UPDATE no action;
--> statement-breakpoint
CREATE INDEX "lora_trainings_team_user_idx" ON "lora_trainings" USING btree ("team_id","user_id") WHERE "lora_trainings"."team_id" is not null;
--> statement-breakpoint
ALTER TABLE "photo_shoots" ADD COLUMN "team_id" uuid;
--> statement-breakpoint
ALTER TABLE "photo_shoots" ADD CONSTRAINT "photo_shoots_team_id_teams_id_fk" FOREIGN KEY ("team_id") REFERENCES "public"."teams"("id") ON DELETE cascade ON UPDATE no action;
--> statement-breakpoint
CREATE INDEX "photo_shoots_team_user_idx" ON "photo_shoots" USING btree ("team_id","user_id") WHERE "photo_shoots"."team_id" is not null;
