ALTER TABLE "generations" ADD COLUMN "source_id" uuid;--> statement-breakpoint
ALTER TABLE "generations" ADD COLUMN "derivation" text;--> statement-breakpoint
ALTER TABLE "generations" ADD COLUMN "upscale_factor" integer;--> statement-breakpoint
ALTER TABLE "generations" ADD COLUMN "edit_strength" real;--> statement-breakpoint
ALTER TABLE "generations" ADD CONSTRAINT "generations_source_id_generations_id_fk" FOREIGN KEY ("source_id") REFERENCES "public"."generations"("id") ON DELETE set null ON UPDATE no action;
