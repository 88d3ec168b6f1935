CREATE TABLE "photo_packs" (
	"id" text PRIMARY KEY NOT NULL,
	"name" text NOT NULL,
	"description" text NOT NULL,
	"category" text NOT NULL,
	"aspect_ratio" text NOT NULL,
	"width" integer NOT NULL,
	"height" integer NOT NULL,
	"cover_url" text,
	"sample_urls" jsonb DEFAULT '[]'::jsonb NOT NULL,
	"position" integer DEFAULT 0 NOT NULL,
	"catalogue_version" integer DEFAULT 0 NOT NULL,
	"source" text DEFAULT 'catalogue' NOT NULL,
	"hidden" boolean DEFAULT false NOT NULL,
	"created_at" timestamp with time zone DEFAULT now() NOT NULL,
	"updated_at" timestamp with time zone DEFAULT now() NOT NULL
);
--> statement-breakpoint
CREATE TABLE "photo_pack_prompts" (
	"pack_id" text NOT NULL,
	"position" integer NOT NULL,
	"template" text NOT NULL,
	CONSTRAINT "photo_pack_prompts_pack_id_position_pk" PRIMARY KEY("pack_id","position")
);
--> statement-breakpoint
CREATE TABLE "photo_shoots" (
	"id" uuid PRIMARY KEY DEFAULT gen_random_uuid() NOT NULL,
	"user_id" uuid NOT NULL,
	"pack_id" text NOT NULL,
	"lora_id" uuid,
	"pack_name" text NOT NULL,
	"character_name" text NOT NULL,
	"status" text DEFAULT 'RUNNING' NOT NULL,
	"photo_count" integer NOT NULL,
	"cost" integer NOT NULL,
	"created_at" timestamp with time zone DEFAULT now() NOT NULL,
	"updated_at" timestamp with time zone DEFAULT now() NOT NULL,
	"finished_at" timestamp with time zone
);
--> statement-breakpoint
CREATE TABLE "shoot_photos" (
	"id" uuid PRIMARY KEY DEFAULT gen_random_uuid() NOT NULL,
	"shoot_id" uuid NOT NULL,
	"user_id" uuid NOT NULL,
	"position" integer NOT NULL,
	"prompt" text NOT NULL,
	"width" integer NOT NULL,
	"height" integer NOT NULL,
	"seed" integer NOT NULL,
	"status" text DEFAULT 'QUEUED' NOT NULL,
	"generation_id" uuid,
	"image_url" text,
	"error" text,
	"attempts" integer DEFAULT 0 NOT NULL,
	"queued_at" timestamp with time zone DEFAULT now() NOT NULL,
	"started_at" timestamp with time zone,
	"finished_at" timestamp with time zone,
	"next_run_at" timestamp with time zone DEFAULT now() NOT NULL,
	"lease_owner" text,
	"lease_expires_at" timestamp with time zone
);
--> statement-breakpoint
ALTER TABLE "generations" ADD COLUMN "shoot_id" uuid;--> statement-breakpoint
ALTER TABLE "photo_pack_prompts" ADD CONSTRAINT "photo_pack_prompts_pack_id_photo_packs_id_fk" FOREIGN KEY ("pack_id") REFERENCES "public"."photo_packs"("id") ON DELETE cascade ON UPDATE no action;--> statement-breakpoint
ALTER TABLE "photo_shoots" ADD CONSTRAINT "photo_shoots_user_id_users_id_fk" FOREIGN KEY ("user_id") REFERENCES "public"."users"("id") ON DELETE cascade ON UPDATE no action;--> statement-breakpoint
ALTER TABLE "photo_shoots" ADD CONSTRAINT "photo_shoots_pack_id_photo_packs_id_fk" FOREIGN KEY ("pack_id") REFERENCES "public"."photo_packs"("id") ON DELETE no action ON UPDATE no action;--> statement-breakpoint
ALTER TABLE "photo_shoots" ADD CONSTRAINT "photo_shoots_lora_id_lora_trainings_id_fk" FOREIGN KEY ("lora_id") REFERENCES "public"."lora_trainings"("id") ON DELETE set null ON UPDATE no action;--> statement-breakpoint
ALTER TABLE "shoot_photos" ADD CONSTRAINT "shoot_photos_shoot_id_photo_shoots_id_fk" FOREIGN KEY ("shoot_id") REFERENCES "public"."photo_shoots"("id") ON DELETE cascade ON UPDATE no action;--> statement-breakpoint
ALTER TABLE "shoot_photos" ADD CONSTRAINT "shoot_photos_user_id_users_id_fk" FOREIGN KEY ("user_id") REFERENCES "public"."users"("id") ON DELETE cascade ON UPDATE no action;--> statement-breakpoint
ALTER TABLE "generations" ADD CONSTRAINT "generations_shoot_id_photo_shoots_id_fk" FOREIGN KEY ("shoot_id") REFERENCES "public"."photo_shoots"("id") ON DELETE set null ON UPDATE no action;--> statement-breakpoint
CREATE INDEX "photo_packs_order_idx" ON "photo_packs" USING btree ("position","id");--> statement-breakpoint
CREATE INDEX "photo_shoots_user_created_idx" ON "photo_shoots" USING btree ("user_id","created_at" DESC NULLS FIRST);--> statement-breakpoint
CREATE INDEX "photo_shoots_running_idx" ON "photo_shoots" USING btree ("user_id") WHERE "photo_shoots"."status" = 'RUNNING';--> statement-breakpoint
CREATE UNIQUE INDEX "shoot_photos_shoot_position_key" ON "shoot_photos" USING btree ("shoot_id","position");--> statement-breakpoint
CREATE INDEX "shoot_photos_queue_idx" ON "shoot_photos" USING btree ("position","queued_at","id") WHERE "shoot_photos"."status" in ('QUEUED', 'RUNNING');--> statement-breakpoint
CREATE INDEX "generations_shoot_idx" ON "generations" USING btree ("shoot_id") WHERE "generations"."shoot_id" is not null;
