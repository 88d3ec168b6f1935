DROP INDEX "generation_jobs_pending_idx";--> statement-breakpoint
ALTER TABLE "generation_jobs" ADD COLUMN "kind" text DEFAULT 'generation' NOT NULL;--> statement-breakpoint
ALTER TABLE "generation_jobs" ADD COLUMN "cost" integer DEFAULT 10 NOT NULL;--> statement-breakpoint
ALTER TABLE "generation_jobs" ADD COLUMN "lease_owner" text;--> statement-breakpoint
ALTER TABLE "generation_jobs" ADD COLUMN "lease_expires_at" timestamp with time zone;--> statement-breakpoint
ALTER TABLE "lora_trainings" ADD COLUMN "lease_owner" text;--> statement-breakpoint
ALTER TABLE "lora_trainings" ADD COLUMN "lease_expires_at" timestamp with time zone;--> statement-breakpoint
ALTER TABLE "scheduled_jobs" ADD COLUMN "lease_owner" text;--> statement-breakpoint
ALTER TABLE "scheduled_jobs" ADD COLUMN "lease_expires_at" timestamp with time zone;--> statement-breakpoint
ALTER TABLE "subscriptions" ADD COLUMN "last_event_at" timestamp with time zone;--> statement-breakpoint
CREATE INDEX "generation_jobs_pending_idx" ON "generation_jobs" USING btree ("lease_expires_at") WHERE "generation_jobs"."status" = 'PENDING';--> statement-breakpoint
ALTER TABLE "scheduled_jobs" DROP COLUMN "lease_token";