-- Credits page (issue 50, decision 023): what each ledger line was for, derived from its idempotency key (and,
-- for a paid image call, its reason), so the history can be filtered by it on an index without touching any
-- code that writes the ledger. A generated column: every writer (applyChange, likeness_start_paid_job) fills it.
ALTER TABLE "credit_ledger" ADD COLUMN "entry" text GENERATED ALWAYS AS (
	CASE
		WHEN "idempotency_key" LIKE 'refund:%' THEN 'refund'
		WHEN "idempotency_key" LIKE 'generation:%' THEN
			CASE
				WHEN "reason" LIKE 'Image upscale%' THEN 'upscale'
				WHEN "reason" LIKE 'Image edit%' THEN 'edit'
				ELSE 'generation'
			END
		WHEN "idempotency_key" LIKE 'caption:%' THEN 'prompt'
		WHEN "idempotency_key" LIKE 'shoot:%' THEN 'shoot'
		WHEN "idempotency_key" LIKE 'training:%' THEN 'training'
		WHEN "idempotency_key" LIKE 'topup:%' AND "idempotency_key" NOT LIKE 'topup:%:refund-of:%' THEN 'topup'
		WHEN "idempotency_key" LIKE 'promo:%' THEN 'promo'
		WHEN "idempotency_key" LIKE 'payment:%' AND "idempotency_key" NOT LIKE 'payment:%:refund-of:%' THEN 'plan'
		ELSE 'adjustment'
	END
) STORED NOT NULL;
--> statement-breakpoint
-- The history filtered by kind, newest first, paged by (created_at, id).
CREATE INDEX "credit_ledger_user_entry_created_idx" ON "credit_ledger" USING btree ("user_id","entry","created_at" DESC,"id" DESC);
--> statement-breakpoint
-- The unfiltered history and the spend sums read only this index (created_at, id for paging; delta, entry, balance
-- summed or shown without visiting the table for the chart).
CREATE INDEX "credit_ledger_user_history_idx" ON "credit_ledger" USING btree ("user_id","created_at" DESC,"id" DESC) INCLUDE ("entry","delta");
--> statement-breakpoint
-- One-off credit packs bought (issue 50 item 2): one row per order, whoever reports it first (the webhook or the
-- signed return page); its grant is keyed by the order, so it is credited once. A refund or chargeback marks it.
CREATE TABLE "top_up_purchases" (
	"provider" text NOT NULL,
	"order_id" text NOT NULL,
	"transaction_id" text,
	"user_id" uuid NOT NULL,
	"pack" text NOT NULL,
	"credits" integer NOT NULL,
	"created_at" timestamp with time zone DEFAULT now() NOT NULL,
	"reversed_at" timestamp with time zone,
	"reversed_credits" integer,
	CONSTRAINT "top_up_purchases_provider_order_id_pk" PRIMARY KEY("provider","order_id"),
	CONSTRAINT "top_up_purchases_credits_positive" CHECK ("credits" > 0)
);
--> statement-breakpoint
ALTER TABLE "top_up_purchases" ADD CONSTRAINT "top_up_purchases_user_id_users_id_fk" FOREIGN KEY ("user_id") REFERENCES "public"."users"("id") ON DELETE cascade ON UPDATE no action;
--> statement-breakpoint
CREATE INDEX "top_up_purchases_user_idx" ON "top_up_purchases" USING btree ("user_id");
--> statement-breakpoint
CREATE INDEX "top_up_purchases_transaction_idx" ON "top_up_purchases" USING btree ("provider","transaction_id");
--> statement-breakpoint
-- Promo codes (issue 50 item 3): an operator's codes, each redeemed at most once per account; redeemed_count is
-- raised under the row's lock by the same statement that checks it, so the last use cannot be taken twice.
CREATE TABLE "promo_codes" (
	"code" text PRIMARY KEY NOT NULL,
	"credits" integer NOT NULL,
	"max_redemptions" integer NOT NULL,
	"redeemed_count" integer DEFAULT 0 NOT NULL,
	"expires_at" timestamp with time zone,
	"account_id" uuid,
	"disabled_at" timestamp with time zone,
	"created_at" timestamp with time zone DEFAULT now() NOT NULL,
	CONSTRAINT "promo_codes_credits_range" CHECK ("credits" > 0 AND "credits" <= 100000),
	CONSTRAINT "promo_codes_redemptions_range" CHECK ("max_redemptions" > 0 AND "redeemed_count" >= 0 AND "redeemed_count" <= "max_redemptions")
);
--> statement-breakpoint
ALTER TABLE "promo_codes" ADD CONSTRAINT "promo_codes_account_id_users_id_fk" FOREIGN KEY ("account_id") REFERENCES "public"."users"("id") ON DELETE cascade ON UPDATE no action;
--> statement-breakpoint
CREATE TABLE "promo_redemptions" (
	"code" text NOT NULL,
	"user_id" uuid NOT NULL,
	"created_at" timestamp with time zone DEFAULT now() NOT NULL,
	CONSTRAINT "promo_redemptions_code_user_id_pk" PRIMARY KEY("code","user_id")
);
--> statement-breakpoint
ALTER TABLE "promo_redemptions" ADD CONSTRAINT "promo_redemptions_code_promo_codes_code_fk" FOREIGN KEY ("code") REFERENCES "public"."promo_codes"("code") ON DELETE cascade ON UPDATE no action;
--> statement-breakpoint
ALTER TABLE "promo_redemptions" ADD CONSTRAINT "promo_redemptions_user_id_users_id_fk" FOREIGN KEY ("user_id") REFERENCES "public"."users"("id") ON DELETE cascade ON UPDATE no action;
