-- What each paid period of a subscription has granted (decision 001, plan changes): an upgrade grants only the
-- difference above it, a downgrade or a re-upgrade within the period nothing, so plan changes mint no credits.
CREATE TABLE "subscription_period_grants" (
	"subscription_id" text NOT NULL,
	"period_start" timestamp with time zone NOT NULL,
	"user_id" uuid NOT NULL,
	"plan" text NOT NULL,
	"credits" integer NOT NULL,
	"created_at" timestamp with time zone DEFAULT now() NOT NULL,
	"updated_at" timestamp with time zone DEFAULT now() NOT NULL,
	CONSTRAINT "subscription_period_grants_subscription_id_period_start_pk" PRIMARY KEY("subscription_id","period_start")
);
--> statement-breakpoint
ALTER TABLE "subscription_period_grants" ADD CONSTRAINT "subscription_period_grants_user_id_users_id_fk" FOREIGN KEY ("user_id") REFERENCES "public"."users"("id") ON DELETE cascade ON UPDATE no action;
--> statement-breakpoint
CREATE INDEX "subscription_period_grants_user_idx" ON "subscription_period_grants" USING btree ("user_id");
