ALTER TABLE "generations" ADD COLUMN "deleted_at" timestamp with time zone;--> statement-breakpoint
ALTER TABLE "generations" ADD COLUMN "files_removed_at" timestamp with time zone;--> statement-breakpoint
UPDATE "generations" SET "deleted_at" = now() WHERE "status" = 'DELETED';--> statement-breakpoint
CREATE INDEX "generations_files_to_remove_idx" ON "generations" USING btree ("deleted_at") WHERE "generations"."status" = 'DELETED' and "generations"."files_removed_at" is null;--> statement-breakpoint
UPDATE "subscriptions" SET "status" = 'duplicate', "updated_at" = now() WHERE "status" in ('active', 'scheduled_cancel', 'past_due') AND "id" NOT IN (SELECT DISTINCT ON ("user_id") "id" FROM "subscriptions" WHERE "status" in ('active', 'scheduled_cancel', 'past_due') ORDER BY "user_id", "current_period_start" DESC NULLS LAST, "updated_at" DESC);--> statement-breakpoint
CREATE UNIQUE INDEX "subscriptions_one_in_force_per_user" ON "subscriptions" USING btree ("user_id") WHERE "subscriptions"."status" in ('active', 'scheduled_cancel', 'past_due');
