CREATE TABLE "sign_in_addresses" (
	"email" text NOT NULL,
	"address" text NOT NULL,
	"last_sign_in_at" timestamp with time zone DEFAULT now() NOT NULL,
	CONSTRAINT "sign_in_addresses_email_address_pk" PRIMARY KEY("email","address")
);
