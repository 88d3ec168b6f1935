ALTER TABLE "lora_trainings" ADD COLUMN "reference_face" real[];--> statement-breakpoint
ALTER TABLE "lora_trainings" ADD COLUMN "reference_checked_at" timestamp with time zone;--> statement-breakpoint
ALTER TABLE "generations" ADD COLUMN "likeness" smallint;--> statement-breakpoint
ALTER TABLE "generations" ADD COLUMN "likeness_verdict" text;--> statement-breakpoint
ALTER TABLE "generations" ADD COLUMN "likeness_checks" smallint DEFAULT 0 NOT NULL;--> statement-breakpoint
ALTER TABLE "generations" ADD COLUMN "likeness_due_at" timestamp with time zone;--> statement-breakpoint
ALTER TABLE "generations" ADD CONSTRAINT "generations_likeness_range" CHECK ("likeness" between 0 and 100);--> statement-breakpoint
ALTER TABLE "generations" ADD CONSTRAINT "generations_likeness_verdict_values" CHECK ("likeness_verdict" in ('strong', 'weak', 'no_face'));--> statement-breakpoint
ALTER TABLE "photo_shoots" ADD COLUMN "retaken" integer DEFAULT 0 NOT NULL;--> statement-breakpoint
ALTER TABLE "shoot_photos" ADD COLUMN "retaken" boolean DEFAULT false NOT NULL;--> statement-breakpoint
CREATE INDEX "generations_likeness_due_idx" ON "generations" USING btree ("created_at") WHERE "likeness_verdict" is null and "lora_id" is not null and "status" = 'ACTIVE' and "likeness_checks" < 3;
